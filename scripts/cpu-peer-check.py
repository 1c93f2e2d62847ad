#!/usr/bin/env python3
"""cpu-peer-check.py -- is gpubench's CPU side as fast as what a user would
pick instead?

For each CPU result of a gpubench results file, re-time on this machine the
usual Python peer on the same inputs (gpubench's own generator, reproduced
bit for bit: same seed, streams and layout), and print

    case | gpubench CPU median | peer | peer median | ratio | peer library

ratio = peer median / gpubench CPU median: >= 1 means gpubench's CPU side is
at least as fast as the peer; below 1 it is slower, and a GPU speedup quoted
against it would be inflated (a strawman CPU).

Peers (inputs made before the clock, warm-up, several repetitions, median):
  matmul       numpy  a @ b
  elementwise  numpy  a*b + np.sin(a) + np.cos(b); numexpr too if installed
  reduction    numpy  x.sum(), x.mean(), x.std() (all three, one timing)
  fft          scipy.fft.rfft2 (kind r2c) / fft2 (kind c2c), workers = threads
  solve        scipy.linalg.cho_factor + cho_solve
  spgemm       scipy.sparse CSR @ CSR (single-threaded C++ in SciPy)
  svd          numpy.linalg.svd(full_matrices=False) and
               scipy.linalg.svd(lapack_driver = the case's gesdd / gesvd)

Run it on the machine that produced the results (it warns when the host or
the core count differ), with the thread count gpubench used (default: the
file's context.cpu_threads_used; --threads to change):

    /usr/bin/python3 scripts/cpu-peer-check.py results/run.json
    /usr/bin/python3 scripts/cpu-peer-check.py run.json --ops spgemm,fft --max-size 4096 --json peers.json

Needs numpy and scipy (numexpr and threadpoolctl are used when present);
no matplotlib. On Debian use /usr/bin/python3 (the distribution's numpy and
scipy); elsewhere any python3 with `pip install numpy scipy`.

Exit status: 0 every selected case timed or skipped for a stated reason;
1 a peer raised an error; 2 usage error, unreadable results, or numpy/scipy
missing.
"""
import argparse
import json
import math
import os
import platform
import re
import socket
import sys
import time

# ---------------------------------------------------------------------------
# arguments first: thread variables must be set before numpy is imported
# ---------------------------------------------------------------------------

OPS = ("matmul", "elementwise", "reduction", "fft", "solve", "spgemm", "svd")


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Re-time, on this machine, what a user would use instead of "
                    "gpubench's CPU side, and print the ratio per case.")
    p.add_argument("results", help="gpubench results JSON (single run or merged)")
    p.add_argument("--ops", default=",".join(OPS),
                   help="comma-separated ops to check (default: all)")
    p.add_argument("--max-size", type=int, default=0,
                   help="skip cases whose largest dimension exceeds this (default: no limit)")
    p.add_argument("--reps", type=int, default=7,
                   help="timed repetitions per peer, at least (default 7; more for fast "
                        "cases, up to 0.2 s)")
    p.add_argument("--budget", type=float, default=20.0,
                   help="seconds per peer and case: a peer whose warm-up call alone "
                        "exceeds it is skipped, and repetitions stop at it (default 20)")
    p.add_argument("--threads", type=int, default=0,
                   help="threads for the peers' libraries (default: the results' "
                        "cpu_threads_used, else all cores)")
    p.add_argument("--json", metavar="OUT", help="also write the table as JSON to OUT")
    return p.parse_args(argv)


def die(msg):
    """Usage-level failure: the message on stderr, exit status 2."""
    print("cpu-peer-check: " + msg, file=sys.stderr)
    sys.exit(2)


def load_results(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        die("cannot read %s: %s" % (path, exc))
    if not isinstance(doc, dict) or doc.get("schema") != "gpubench-results":
        die("%s is not a gpubench results file (no \"schema\": \"gpubench-results\")" % path)
    return doc


ARGS = DOC = RUNS = None
THREADS = os.cpu_count() or 1
np = scipy = numexpr = threadpoolctl = None


def run_threads():
    """gpubench's thread count, if every run of the file agrees on one."""
    used = {(r.get("context") or {}).get("cpu_threads_used") for r in RUNS}
    used.discard(None)
    return used.pop() if len(used) == 1 else 0


def import_numpy(need_scipy):
    """numpy (and scipy when asked); numexpr and threadpoolctl when present.
    Raises ImportError."""
    global np, scipy, numexpr, threadpoolctl
    import numpy
    np = numpy
    if need_scipy:
        import scipy as sp
        import scipy.fft
        import scipy.linalg
        import scipy.sparse
        scipy = sp
    try:
        import numexpr as ne
        numexpr = ne
    except ImportError:
        numexpr = None
    try:
        import threadpoolctl as tpc
        threadpoolctl = tpc
    except ImportError:
        threadpoolctl = None


def init_check_mode():
    """The results-file mode: arguments, the file, threads set before numpy."""
    global ARGS, DOC, RUNS, THREADS
    ARGS = parse_args(sys.argv[1:])
    DOC = load_results(ARGS.results)
    RUNS = DOC.get("runs") or [DOC]
    THREADS = ARGS.threads or run_threads() or (os.cpu_count() or 1)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "BLIS_NUM_THREADS", "NUMEXPR_NUM_THREADS", "NUMEXPR_MAX_THREADS"):
        if ARGS.threads or var not in os.environ:
            os.environ[var] = str(THREADS)
    try:
        import_numpy(True)
    except ImportError as exc:
        die("needs numpy and scipy (%s). On Debian/Ubuntu run it with /usr/bin/python3 after "
            "`apt-get install python3-numpy python3-scipy`, or `python3 -m pip install numpy scipy` "
            "for this python3 (%s)." % (exc, sys.executable))
    global U64
    U64 = np.uint64


# ---------------------------------------------------------------------------
# gpubench's input generator (src/core/rng.c), bit for bit
# ---------------------------------------------------------------------------

U64 = None  # np.uint64, once numpy is imported
CHUNK = 1 << 22  # elements per generation step: bounds the temporaries


def rng_bits(seed, stream, index):
    """SplitMix64-style finaliser over a Weyl counter (gb_rng_bits)."""
    with np.errstate(over="ignore"):
        key = (U64(seed) * U64(0x9E3779B97F4A7C15)) ^ \
              ((U64(stream) + U64(0xD1B54A32D192ED03)) * U64(0xBF58476D1CE4E5B9))
        z = key + (index + U64(1)) * U64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
        return z ^ (z >> U64(31))


def rng_uniform(seed, stream, index, lo, hi):
    u = (rng_bits(seed, stream, index) >> U64(11)).astype(np.float64) * 2.0 ** -53
    return lo + (hi - lo) * u


def rng_fill(count, seed, stream, lo, hi, dtype):
    """gb_rng_fill_f32/f64: element i is uniform(seed, stream, i), computed in
    double and rounded once to dtype."""
    out = np.empty(count, dtype=dtype)
    for start in range(0, count, CHUNK):
        stop = min(count, start + CHUNK)
        out[start:stop] = rng_uniform(seed, stream, np.arange(start, stop, dtype=U64), lo, hi)
    return out


# ---------------------------------------------------------------------------
# inputs per op, as src/ops/op_*.c make them
# ---------------------------------------------------------------------------

def make_matmul(case, seed, dt):
    m, k, n = case["shape"][:3]
    a = rng_fill(m * k, seed, 1, -1.0, 1.0, dt).reshape(m, k)  # row-major, as cblas is called
    b = rng_fill(k * n, seed, 2, -1.0, 1.0, dt).reshape(k, n)
    return a, b


def make_pair(case, seed, dt, lo, hi):
    rows, cols = case["shape"][:2]
    a = rng_fill(rows * cols, seed, 1, lo, hi, dt).reshape(rows, cols)
    b = rng_fill(rows * cols, seed, 2, lo, hi, dt).reshape(rows, cols)
    return a, b


def make_reduction(case, seed, dt):
    rows, cols = case["shape"][:2]
    return rng_fill(rows * cols, seed, 1, 1.0, 3.0, dt).reshape(rows, cols)


FFT_STREAM_X = 0x4646540001


def make_fft(case, seed, dt):
    n = case["shape"][0]
    return rng_fill(n * n, seed, FFT_STREAM_X, -1.0, 1.0, dt).reshape(n, n)


SOLVE_STREAM_A, SOLVE_STREAM_D, SOLVE_STREAM_B = 0x534F4C0001, 0x534F4C0002, 0x534F4C0003


def make_solve(case, seed, dt):
    """SPD: a_ij = a_ji uniform [-1, 1) drawn at index i*n + j (i < j), diagonal
    n + uniform [0, 1) at index i; column-major like gpubench's (symmetric, so
    only the memory order differs from row-major)."""
    n = case["shape"][0]
    nrhs = int((case.get("params") or {}).get("nrhs") or 1)
    a = np.empty((n, n), dtype=dt, order="F")
    rows_per = max(1, CHUNK // max(n, 1))
    for i0 in range(0, n, rows_per):
        i1 = min(n, i0 + rows_per)
        idx = (np.arange(i0, i1, dtype=U64)[:, None] * U64(n) + np.arange(n, dtype=U64)[None, :])
        a[i0:i1, :] = rng_uniform(seed, SOLVE_STREAM_A, idx, -1.0, 1.0)  # row i, every j
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    a.T[upper] = a[upper]  # mirror the upper triangle (i < j) into the lower
    a[np.arange(n), np.arange(n)] = n + rng_uniform(seed, SOLVE_STREAM_D, np.arange(n, dtype=U64), 0.0, 1.0)
    b = rng_fill(n * nrhs, seed, SOLVE_STREAM_B, -1.0, 1.0, dt).reshape(nrhs, n).T  # column-major n x nrhs
    if nrhs == 1:
        b = b[:, 0].copy()
    return a, np.asfortranarray(b)


SVD_STREAM_A = 0x5356440001


def make_svd(case, seed, dt):
    m, n = case["shape"][:2]
    # column-major m x n: element (i, j) at memory position i + j*m
    return rng_fill(m * n, seed, SVD_STREAM_A, -1.0, 1.0, dt).reshape(n, m).T


SPG_STREAMS = {"A": (0x5350470001, 0x5350470002), "B": (0x5350470003, 0x5350470004)}


def make_csr(n, p, seed, s_struct, s_val, dt):
    """Erdos-Renyi rows by geometric skips, as op_spgemm.c's gen_row: the gap to
    the next present column is floor(log(u)/log(1-p)), u = 1 - uniform, draw t
    of row i at index i*(n+1) + t."""
    log1mp = math.log1p(-p) if p < 1 else -math.inf
    expect = p * n
    draws = int(expect + 8 * math.sqrt(expect) + 16)
    rows_per = max(1, CHUNK // max(draws, 1))
    indptr = np.zeros(n + 1, dtype=np.int64)
    cols = []
    for r0 in range(0, n, rows_per):
        r1 = min(n, r0 + rows_per)
        base = np.arange(r0, r1, dtype=U64)[:, None] * U64(n + 1)
        t_count = draws
        while True:
            u = 1.0 - rng_uniform(seed, s_struct, base + np.arange(t_count, dtype=U64)[None, :], 0.0, 1.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                skip = np.zeros_like(u) if log1mp == -math.inf else np.floor(np.log(u) / log1mp)
            j = np.cumsum(1.0 + skip, axis=1) - 1.0
            if (j[:, -1] >= n).all():
                break
            t_count *= 2  # a row ran past the draws taken: take more (rare)
        present = j < n
        indptr[r0 + 1:r1 + 1] = present.sum(axis=1)
        cols.append(j[present].astype(np.int32))
    indptr = np.cumsum(indptr)
    col = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int32)
    val = rng_fill(len(col), seed, s_val, 0.5, 1.5, dt)
    return scipy.sparse.csr_matrix((val, col, indptr.astype(np.int32)), shape=(n, n))


def make_spgemm(case, seed, dt):
    if scipy is None:  # a GPU framework's worker imported numpy alone: the inputs are made as SciPy CSR
        import_numpy(True)
    n = case["shape"][0]
    p = float((case.get("params") or {}).get("density") or 0.01)
    a = make_csr(n, p, seed, *SPG_STREAMS["A"], dt)
    b = make_csr(n, p, seed, *SPG_STREAMS["B"], dt)
    return a, b


# ---------------------------------------------------------------------------
# the peers
# ---------------------------------------------------------------------------

def fft_workers():
    return -1 if THREADS >= (os.cpu_count() or 1) else THREADS


def peers_for(case, seed):
    """[(peer name, library key, callable)] with the inputs already made."""
    op, dt = case["op"], np.float32 if case["dtype"] == "float32" else np.float64
    params = case.get("params") or {}
    if op == "matmul":
        a, b = make_matmul(case, seed, dt)
        return [("numpy a @ b", "blas", lambda: a @ b)]
    if op == "elementwise":
        a, b = make_pair(case, seed, dt, -4.0, 4.0)
        out = [("numpy a*b+sin(a)+cos(b)", "numpy", lambda: a * b + np.sin(a) + np.cos(b))]
        if numexpr is not None:
            out.append(("numexpr evaluate", "numexpr",
                        lambda: numexpr.evaluate("a*b + sin(a) + cos(b)", local_dict={"a": a, "b": b})))
        return out
    if op == "reduction":
        x = make_reduction(case, seed, dt)
        return [("numpy sum+mean+std", "numpy", lambda: (x.sum(), x.mean(), x.std()))]
    if op == "fft":
        x = make_fft(case, seed, dt)
        w = fft_workers()
        if params.get("kind", params.get("fft_kind", "r2c")) == "c2c":
            xc = x.astype(np.complex64 if dt == np.float32 else np.complex128)  # gpubench promotes untimed
            return [("scipy.fft.fft2", "scipy.fft", lambda: scipy.fft.fft2(xc, workers=w))]
        return [("scipy.fft.rfft2", "scipy.fft", lambda: scipy.fft.rfft2(x, workers=w))]
    if op == "solve":
        a, b = make_solve(case, seed, dt)

        def solve():
            c = scipy.linalg.cho_factor(a, check_finite=False)
            return scipy.linalg.cho_solve(c, b, check_finite=False)
        return [("scipy cho_factor+cho_solve", "lapack", solve)]
    if op == "spgemm":
        a, b = make_spgemm(case, seed, dt)
        madds = int(np.diff(b.indptr)[a.indices].sum())
        if case.get("flops") and abs(2 * madds - case["flops"]) > 0.5:
            print("cpu-peer-check: warning: %s: inputs differ from gpubench's (2*madds %d, results "
                  "say %d flops); timing the same distribution anyway" % (label(case), 2 * madds,
                                                                           case["flops"]), file=sys.stderr)
        return [("scipy.sparse A @ B", "scipy.sparse", lambda: a @ b)]
    if op == "svd":
        a = make_svd(case, seed, dt)
        method = params.get("method", "auto")
        driver = "gesvd" if method == "gesvd" else "gesdd"
        out = [("scipy.linalg.svd(%s)" % driver, "lapack",
                lambda: scipy.linalg.svd(a, full_matrices=False, lapack_driver=driver, check_finite=False))]
        if driver == "gesdd":  # numpy.linalg.svd is always gesdd
            out.insert(0, ("numpy.linalg.svd", "lapack", lambda: np.linalg.svd(a, full_matrices=False)))
        return out
    return []


def time_peer(fn, budget, min_reps):
    """Warm-up, then at least min_reps timed calls and 0.2 s, stopping at the
    budget or 1000 calls. Returns (median s, reps) or (None, reason)."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    if first > budget:
        return None, "one call took %.3g s, over the %g s budget" % (first, budget)
    if first < budget / 10:
        fn()  # a second warm-up where it is cheap (thread pools, page faults)
    samples, start = [], time.perf_counter()
    while True:
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
        spent = time.perf_counter() - start
        if len(samples) >= 1000 or spent + samples[-1] > budget:
            break
        if len(samples) >= min_reps and spent >= 0.2:
            break
    samples.sort()
    k = len(samples)
    med = samples[k // 2] if k % 2 else 0.5 * (samples[k // 2 - 1] + samples[k // 2])
    return med, k


# ---------------------------------------------------------------------------
# what the peers run on
# ---------------------------------------------------------------------------

def loaded_libraries():
    """Paths of the shared objects mapped into this process (Linux)."""
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if line.strip() else ""
                if ".so" in path and path.startswith("/"):
                    libs.add(path)
    except OSError:
        pass
    return libs


def openblas_facts(paths):
    """(core, threads) from a mapped OpenBLAS, asked through its own API
    (plain, 64-bit-suffixed, and the scipy-openblas names of pip wheels)."""
    import ctypes
    for path in sorted(p for p in paths if "openblas" in os.path.basename(p)):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for pre, suf in (("", ""), ("", "64_"), ("scipy_", ""), ("scipy_", "64_")):
            core = getattr(lib, pre + "openblas_get_corename" + suf, None)
            nth = getattr(lib, pre + "openblas_get_num_threads" + suf, None)
            if core is None or nth is None:
                continue
            core.restype = ctypes.c_char_p
            return core().decode(errors="replace"), nth()
    return None, None


def blas_description():
    """Which BLAS/LAPACK numpy and scipy run on, and with how many threads."""
    if threadpoolctl is not None:
        try:
            pools = threadpoolctl.threadpool_info()
            parts = []
            for p in pools:
                if p.get("user_api") != "blas":
                    continue
                arch = (" " + p["architecture"]) if p.get("architecture") else ""
                parts.append("%s %s%s, %s threads" % (p.get("internal_api"), p.get("version") or "",
                                                      arch, p.get("num_threads")))
            if parts:
                return "; ".join(sorted(set(parts)))
        except Exception:  # threadpoolctl is best effort
            pass
    paths = loaded_libraries()
    # libblas.so.3 / liblapack.so.3 are alternatives: their folder says whose
    # (Debian: openblas-pthread/liblapack.so.3 is OpenBLAS's LAPACK)
    names = sorted({os.path.join(os.path.basename(os.path.dirname(p)), os.path.basename(p))
                    if re.match(r"lib(blas|lapack)\.so", os.path.basename(p)) else os.path.basename(p)
                    for p in paths
                    if re.match(r"lib(scipy_)?(openblas|mkl_rt|mkl_core|blis|flexiblas|blas|lapack)",
                                os.path.basename(p))})
    how = ", ".join(names) if names else "unknown BLAS"
    core, nth = openblas_facts(paths)
    if core:
        return "%s (OpenBLAS core %s), %d threads" % (how, core, nth)
    return "%s, %s threads (OPENBLAS/OMP_NUM_THREADS)" % (how, os.environ.get("OPENBLAS_NUM_THREADS"))


def library_of(key, blas):
    if key in ("blas", "lapack"):
        return "numpy %s / scipy %s on %s" % (np.__version__, scipy.__version__, blas)
    if key == "numpy":
        return "numpy %s, single-threaded ufuncs" % np.__version__
    if key == "numexpr":
        return "numexpr %s, %d threads" % (numexpr.__version__, numexpr.get_num_threads())
    if key == "scipy.fft":
        return "scipy %s pocketfft, workers=%d" % (scipy.__version__, fft_workers())
    if key == "scipy.sparse":
        return "scipy %s sparse, single-threaded C++" % scipy.__version__
    return key


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

def label(case):
    params = case.get("params") or {}
    hidden = {("math", "default"), ("fast_math", False), ("nrhs", 1)}
    shown = ",".join("%s=%s" % (k, v) for k, v in sorted(params.items())
                     if k != "planner" and (k, v) not in hidden)
    return "%s %s %s%s" % (case["op"], case["dtype"], case.get("label") or "x".join(map(str, case["shape"])),
                           (" " + shown) if shown else "")


def cpu_median(case):
    for r in case.get("results") or []:
        if r.get("backend") == "cpu" and r.get("status") == "ok" and (r.get("stats") or {}).get("median"):
            return r["stats"]["median"]
    return None


def fmt_time(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return "%.1f us" % (s * 1e6)
    if s < 1:
        return "%.3g ms" % (s * 1e3)
    return "%.3g s" % s


def main():
    ops = [o.strip() for o in ARGS.ops.split(",") if o.strip()]
    bad = [o for o in ops if o not in OPS]
    if bad:
        print("cpu-peer-check: unknown op(s) %s; known: %s" % (", ".join(bad), ", ".join(OPS)), file=sys.stderr)
        return 2

    host, cores = socket.gethostname(), os.cpu_count()
    for r in RUNS:
        ctx = r.get("context") or {}
        if ctx.get("hostname") and ctx["hostname"] != host:
            print("cpu-peer-check: warning: the results come from host %r, this is %r: the ratios "
                  "compare two machines" % (ctx["hostname"], host), file=sys.stderr)
        logical = (ctx.get("cpu") or {}).get("logical_cpus")
        if logical and logical != cores:
            print("cpu-peer-check: warning: the results' machine has %s logical CPUs, this one %s"
                  % (logical, cores), file=sys.stderr)

    blas = blas_description()
    env_core = os.environ.get("OPENBLAS_CORETYPE", "")
    print("peers on %s (%s logical CPUs), python %s, numpy %s, scipy %s%s; %d threads; "
          "OPENBLAS_CORETYPE=%s" % (host, cores, platform.python_version(), np.__version__, scipy.__version__,
                                    (", numexpr " + numexpr.__version__) if numexpr else "", THREADS,
                                    env_core or "(unset)"))
    print("BLAS/LAPACK: %s" % blas)
    print("ratio = peer median / gpubench CPU median (>= 1: gpubench's CPU side at least as fast)\n")

    rows, errors = [], 0
    header = ("case", "gpubench CPU", "peer", "peer median", "ratio")
    widths = (44, 13, 30, 12, 7)
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for case in DOC.get("cases") or []:
        if case.get("op") not in ops:
            continue
        ours = cpu_median(case)
        if ours is None:
            continue
        run = RUNS[case.get("run", 0)] if case.get("run", 0) < len(RUNS) else RUNS[0]
        seed = int((run.get("context") or {}).get("seed")
                   or ((run.get("suite") or {}).get("defaults") or {}).get("seed") or 42)
        name = label(case)
        if ARGS.max_size and max(case.get("shape") or [0]) > ARGS.max_size:
            rows.append({"case": name, "op": case["op"], "dtype": case["dtype"], "shape": case["shape"],
                         "params": case.get("params") or {}, "gpubench_median_s": ours, "peer": None,
                         "peer_median_s": None, "ratio": None,
                         "skipped": "largest dimension above --max-size %d" % ARGS.max_size})
            print("  ".join(v.ljust(w) for v, w in zip((name, fmt_time(ours), "(skipped: --max-size)", "-", "-"),
                                                        widths)))
            continue
        try:
            peers = peers_for(case, seed)
        except MemoryError:
            peers, why = [], "out of memory making the inputs"
        else:
            why = "no peer for this op"
        if not peers:
            rows.append({"case": name, "op": case["op"], "dtype": case["dtype"], "shape": case["shape"],
                         "params": case.get("params") or {}, "gpubench_median_s": ours, "peer": None,
                         "peer_median_s": None, "ratio": None, "skipped": why})
            print("  ".join(v.ljust(w) for v, w in zip((name, fmt_time(ours), "(skipped: %s)" % why, "-", "-"),
                                                        widths)))
            continue
        for peer, key, fn in peers:
            row = {"case": name, "op": case["op"], "dtype": case["dtype"], "shape": case["shape"],
                   "params": case.get("params") or {}, "gpubench_median_s": ours, "peer": peer,
                   "peer_library": library_of(key, blas), "peer_median_s": None, "ratio": None}
            try:
                med, reps = time_peer(fn, ARGS.budget, ARGS.reps)
            except Exception as exc:  # report, go on with the next peer
                errors += 1
                med, reps = None, "error: %s: %s" % (type(exc).__name__, exc)
            if med is None:
                row["skipped"] = reps
                shown = ("(%s)" % reps)[:60]
                print("  ".join(v.ljust(w) for v, w in zip((name, fmt_time(ours), peer, shown, "-"), widths)))
            else:
                row["peer_median_s"], row["peer_reps"], row["ratio"] = med, reps, med / ours
                print("  ".join(v.ljust(w) for v, w in
                                zip((name, fmt_time(ours), peer, fmt_time(med), "%.2f" % (med / ours)), widths))
                      + "  " + row["peer_library"])
            rows.append(row)
            sys.stdout.flush()
        del peers

    slower = [r for r in rows if r.get("ratio") is not None and r["ratio"] < 1]
    timed = [r for r in rows if r.get("ratio") is not None]
    print("\n%d peer timings; gpubench's CPU side slower than the peer in %d%s" %
          (len(timed), len(slower), (": " + "; ".join("%s vs %s (%.3gx)" % (r["case"], r["peer"], r["ratio"])
                                                        for r in slower)) if slower else ""))
    if ARGS.json:
        out = {"schema": "gpubench-cpu-peers", "schema_version": 1, "results_file": ARGS.results,
               "host": host, "logical_cpus": cores, "threads": THREADS, "python": platform.python_version(),
               "numpy": np.__version__, "scipy": scipy.__version__,
               "numexpr": numexpr.__version__ if numexpr else None, "blas": blas,
               "openblas_coretype": env_core, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "rows": rows}
        tmp = ARGS.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1)
        os.replace(tmp, ARGS.json)
        print("wrote %s" % ARGS.json)
    return 1 if errors else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        import peer_worker  # scripts/peer_worker.py: the frameworks' side of the peer protocol
        sys.exit(peer_worker.main(sys.modules[__name__], sys.argv[2:]))
    init_check_mode()
    sys.exit(main())
