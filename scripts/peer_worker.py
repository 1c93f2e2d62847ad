"""peer_worker.py -- the frameworks' side of gpubench's peer backends.

gpubench starts `python3 scripts/cpu-peer-check.py --worker FRAMEWORK` once
per framework (peer_backends/peer_worker.c) and talks to it over its stdin
and stdout, one line per request (docs/frameworks.md, "The protocol"):

  worker -> hello {json}              versions, BLAS, threads, affinity, clock
         |  unavailable <reason>      the framework cannot be imported
  case ID {json} -> ok | skip <reason> | fail <reason>   inputs made, call built
  run ID         -> t <seconds>       one call, timed here, device synchronized
                 |  fail <reason>
  fetch ID       -> out <name> <elem> <count>, then count elements of raw bytes,
                    for each output; then `end`
  release ID     -> ok                (several cases may be prepared at once)
  quit          (exits)

The clock is inside this process around the call: the time a request and its
answer take on the pipe is never in a sample. Inputs come from gpubench's own
generator, reproduced bit for bit in cpu-peer-check.py (passed in as gen).
Everything the frameworks print goes to stderr: stdout is the protocol's.
"""
import json
import os
import platform
import sys
import time
import traceback

FRAMEWORKS = ("numpy", "scipy", "cupy", "torch", "jax", "noop")


class Skip(Exception):
    """This framework has no such op (or dtype): a skipped result, not an error."""


def affinity():
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    out, start = [], None
    for i, c in enumerate(cpus):  # 0-3,8 style
        if start is None:
            start = c
        if i + 1 == len(cpus) or cpus[i + 1] != c + 1:
            out.append(str(start) if start == c else "%d-%d" % (start, c))
            start = None
    return ",".join(out)


class Peer:
    """One framework: how arrays get to it and back, how a call is timed."""
    name, clock, device = "", "host perf_counter around the call", "cpu"

    def __init__(self, gen):
        self.gen, self.np = gen, gen.np

    def dev(self, a):
        return a

    def host(self, x):
        return self.np.asarray(x)

    def time(self, fn):
        t0 = time.perf_counter()
        r = fn()
        return time.perf_counter() - t0, r

    def facts(self):
        return {}

    # every op this framework has returns a callable; the others raise Skip
    def build(self, case):
        op = case["op"]
        f = getattr(self, "op_" + op, None)
        if f is None:
            raise Skip("%s has no %s here" % (self.name, op))
        return f(case)


def dtype_of(gen, case):
    d = case["dtype"]
    if d == "float32":
        return gen.np.float32
    if d == "float64":
        return gen.np.float64
    raise Skip("the worker makes float32 and float64 inputs only (gpubench's %s rounding is not reproduced yet)" % d)


def fortran(a):
    """A column-major output (LAPACK's layout: U, VT, X) as the flat array
    gpubench reads; every other output goes in row-major order."""
    return a.reshape(-1, order="F")


def csr_out(np, m):
    m = m.tocsr()
    return [("C_rowptr", "i32", np.asarray(m.indptr, dtype=np.int32)),
            ("C_colind", "i32", np.asarray(m.indices, dtype=np.int32)), ("C_val", None, np.asarray(m.data))]


class ArrayPeer(Peer):
    """The NumPy-like frameworks: xp is the array module, xp_fft its FFT, and
    what differs (reductions, SVD, solve) is overridden."""
    xp = None

    def inputs(self, case, maker, *args):
        return [self.dev(a) for a in maker(case, case["seed"], *args)]

    def op_matmul(self, case):
        a, b = self.inputs(case, self.gen.make_matmul, dtype_of(self.gen, case))
        return (lambda: a @ b), lambda r: [("C", None, self.host(r))]

    def op_batched_matmul(self, case):
        np, dt = self.np, dtype_of(self.gen, case)
        bt, (m, k, n) = int(case["params"].get("batch", 1)), case["shape"][:3]
        a = self.gen.rng_fill(bt * m * k, case["seed"], 1, -1.0, 1.0, dt).reshape(bt, m, k)
        b = self.gen.rng_fill(bt * k * n, case["seed"], 2, -1.0, 1.0, dt).reshape(bt, k, n)
        a, b = self.dev(a), self.dev(b)
        return (lambda: a @ b), lambda r: [("C", None, self.host(r))]

    def op_elementwise(self, case):
        xp = self.xp
        a, b = self.inputs(case, self.gen.make_pair, dtype_of(self.gen, case), -4.0, 4.0)
        return (lambda: a * b + xp.sin(a) + xp.cos(b)), lambda r: [("out", None, self.host(r))]

    def reduce3(self, x):
        return (x.sum(), x.mean(), x.std())

    def op_reduction(self, case):
        x, = [self.dev(self.gen.make_reduction(case, case["seed"], dtype_of(self.gen, case)))]
        np = self.np
        return (lambda: self.reduce3(x)), lambda r: [("stats", "f64", np.array([float(v) for v in r]))]

    def fft_call(self, x, c2c):
        return self.xp.fft.fft2(x) if c2c else self.xp.fft.rfft2(x)

    def op_fft(self, case):
        np, dt = self.np, dtype_of(self.gen, case)
        c2c = case["params"].get("fft_kind") == "c2c"
        x = self.gen.make_fft(case, case["seed"], dt)
        if c2c:
            x = x.astype(np.complex64 if dt == np.float32 else np.complex128)  # gpubench promotes untimed
        x = self.dev(x)
        cdt = np.complex64 if dt == np.float32 else np.complex128
        return (lambda: self.fft_call(x, c2c)), lambda r: [("X", None, self.host(r).astype(cdt, copy=False))]

    def op_svd(self, case):
        np = self.np
        a = self.dev(np.ascontiguousarray(self.gen.make_svd(case, case["seed"], dtype_of(self.gen, case))))
        return (lambda: self.svd(a)), lambda r: [
            ("S", None, self.host(r[1])), ("U", None, fortran(self.host(r[0]))),
            ("VT", None, fortran(self.host(r[2])))]

    def svd(self, a):
        return self.xp.linalg.svd(a, full_matrices=False)

    def op_slicing(self, case):
        rows, cols = case["shape"][:2]
        x = self.dev(self.gen.rng_fill(rows * cols, case["seed"], 1, -1.0, 1.0,
                                       dtype_of(self.gen, case)).reshape(rows, cols))
        if case["params"].get("slice_kind") == "transpose":
            fn = lambda: self.contiguous(x.T)
        else:
            fn = lambda: self.contiguous(x[::2, ::2])
        return fn, lambda r: [("y", None, self.np.ascontiguousarray(self.host(r)))]

    def contiguous(self, v):
        return self.xp.ascontiguousarray(v)


class NumpyPeer(ArrayPeer):
    name = "numpy"

    def __init__(self, gen):
        super().__init__(gen)
        self.xp = gen.np

    def facts(self):
        return {"framework_version": self.np.__version__, "blas": self.gen.blas_description()}


class ScipyPeer(NumpyPeer):
    """SciPy's own routines where a user reaches for SciPy (NumPy's are the numpy peer)."""
    name = "scipy"

    def __init__(self, gen):
        super().__init__(gen)
        self.sp = gen.scipy

    def facts(self):
        f = super().facts()
        f["framework_version"] = self.sp.__version__
        f["numpy"] = self.np.__version__
        return f

    op_matmul = op_batched_matmul = op_elementwise = op_reduction = op_slicing = None

    def build(self, case):
        f = getattr(self, "op_" + case["op"], None)
        if f is None:
            raise Skip("scipy adds nothing to numpy for %s (the numpy peer times it)" % case["op"])
        return f(case)

    def fft_call(self, x, c2c):
        w = -1
        return self.sp.fft.fft2(x, workers=w) if c2c else self.sp.fft.rfft2(x, workers=w)

    def svd(self, a):
        drv = "gesvd" if self.case_method == "gesvd" else "gesdd"
        return self.sp.linalg.svd(a, full_matrices=False, lapack_driver=drv, check_finite=False)

    def op_svd(self, case):
        self.case_method = case["params"].get("method", "auto")
        return super().op_svd(case)

    def op_solve(self, case):
        sp = self.sp
        a, b = self.gen.make_solve(case, case["seed"], dtype_of(self.gen, case))

        def solve():
            c = sp.linalg.cho_factor(a, check_finite=False)
            return sp.linalg.cho_solve(c, b, check_finite=False)
        return solve, lambda r: [("X", None, fortran(r))]

    def op_spgemm(self, case):
        a, b = self.gen.make_spgemm(case, case["seed"], dtype_of(self.gen, case))
        return (lambda: a @ b), lambda r: csr_out(self.np, r)


class NoopPeer(Peer):
    """Times a call that does nothing: what the protocol adds to a timed call."""
    name = "noop"

    def facts(self):
        return {"framework_version": "0"}

    def build(self, case):
        """A call that does nothing is what is timed; the output is NumPy's
        (or SciPy's) answer, made outside the timed call, so it verifies."""
        real = None
        for kind in (NumpyPeer, ScipyPeer):
            f = getattr(kind, "op_" + case["op"], None)
            if f is not None:
                try:
                    real = f(kind(self.gen) if kind is NumpyPeer else self._scipy(), case)
                    break
                except Skip:
                    pass
        if real is None:
            raise Skip("neither numpy nor scipy has %s here (the noop peer answers with theirs)" % case["op"])
        fn, outs = real
        return (lambda: None), lambda r: outs(fn())

    def _scipy(self):
        self.gen.import_numpy(True)
        return ScipyPeer(self.gen)


def load(name, gen):
    """The peer, or raises ImportError / RuntimeError with why not."""
    if name == "noop":
        return NoopPeer(gen)
    if name == "numpy":
        return NumpyPeer(gen)
    if name == "scipy":
        gen.import_numpy(True)
        return ScipyPeer(gen)
    import peer_worker_gpu  # cupy, torch, jax (scripts/peer_worker_gpu.py)
    return peer_worker_gpu.load(name, gen, sys.modules[__name__])


ELEMS = {"float32": "f32", "float64": "f64", "complex64": "c64", "complex128": "c128",
         "int32": "i32", "int64": "i64"}


class Worker:
    """The prepared cases by id: the runner keeps several states at once and
    comes back to one in a later round."""
    def __init__(self, peer, pipe_in, pipe_out):
        self.peer, self.fin, self.fout = peer, pipe_in, pipe_out
        self.cases = {}  # id -> [fn, outs, last result]

    def say(self, line):
        self.fout.write((line.replace("\n", " ") + "\n").encode())
        self.fout.flush()

    def case(self, cid, arg):
        self.cases.pop(cid, None)
        try:
            c = json.loads(arg)
            c.setdefault("params", {})
            fn, outs = self.peer.build(c)
            self.cases[cid] = [fn, outs, None]
            self.say("ok")
        except Skip as exc:
            self.say("skip %s" % exc)
        except MemoryError:
            self.say("skip out of memory making the inputs")
        except Exception as exc:
            self.say("fail %s: %s" % (type(exc).__name__, exc))

    def run(self, cid):
        st = self.cases.get(cid)
        if st is None:
            return self.say("fail run of case %r, which is not prepared" % cid)
        try:
            s, st[2] = self.peer.time(st[0])
            self.say("t %.17g" % s)
        except Exception as exc:
            self.say("fail %s: %s" % (type(exc).__name__, exc))

    def fetch(self, cid):
        st = self.cases.get(cid)
        if st is None:
            return self.say("fail fetch of case %r, which is not prepared" % cid)
        try:
            if st[2] is None:
                st[2] = self.peer.time(st[0])[1]
            outs = st[1](st[2])
        except Exception as exc:
            return self.say("fail %s: %s" % (type(exc).__name__, exc))
        st[2] = None  # the output is gpubench's now: do not hold it
        for name, elem, arr in outs:
            elem = elem or ELEMS.get(str(arr.dtype))
            if elem is None:
                return self.say("fail output %s has dtype %s" % (name, arr.dtype))
            data = arr.tobytes(order="C")  # column-major outputs come flattened already (fortran())
            self.say("out %s %s %d" % (name, elem, arr.size))
            self.fout.write(data)
        self.say("end")

    def loop(self):
        for raw in self.fin:
            line = raw.decode(errors="replace").rstrip("\n")
            cmd, _, rest = line.partition(" ")
            cid, _, arg = rest.partition(" ")
            if cmd == "case":
                self.case(cid, arg)
            elif cmd == "run":
                self.run(cid)
            elif cmd == "fetch":
                self.fetch(cid)
            elif cmd == "release":
                self.cases.pop(cid, None)
                self.say("ok")
            elif cmd == "quit":
                return 0
            else:
                self.say("fail unknown request %r" % line[:40])
        return 0


def main(gen, argv):
    """gen: cpu-peer-check.py's module (the input generator, BLAS facts)."""
    pipe_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what the frameworks print goes to stderr, not into the protocol
    sys.stdout = sys.stderr
    pipe_in = os.fdopen(os.dup(0), "rb")
    name = argv[0] if argv else ""
    hello = {"framework": name, "python": platform.python_version(), "python_executable": sys.executable,
             "affinity": affinity(), "pid": os.getpid()}
    w = Worker(None, pipe_in, pipe_out)
    if name not in FRAMEWORKS:
        w.say("unavailable unknown framework %r (known: %s)" % (name, ", ".join(FRAMEWORKS)))
        return 2
    try:
        gen.import_numpy(False)
        gen.U64 = gen.np.uint64
        peer = load(name, gen)
        hello.update(peer.facts())
    except Exception as exc:  # ImportError, or a framework that breaks as it loads
        w.say("unavailable cannot import %s: %s: %s" % (name, type(exc).__name__, str(exc).splitlines()[0]
                                                        if str(exc) else ""))
        return 3
    hello.update({"clock": peer.clock, "device": peer.device})
    w.peer = peer
    w.say("hello " + json.dumps(hello))
    try:
        return w.loop()
    except BrokenPipeError:
        return 0
    except Exception:
        traceback.print_exc()
        return 1
