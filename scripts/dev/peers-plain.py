#!/usr/bin/env python3
"""peers-plain.py -- the frameworks timed by a plain script, as a careful
user would (inputs made before the clock, warm-up, device synchronized, the
median of several calls), for scripts/dev/peers-gpu-host.sh to hold the
peers' medians against (issue #46's target: within 10% at 1 ms and above).

    python3 peers-plain.py OUT.json [--budget SECONDS_PER_CASE]

Cases are suites/frameworks.json's (float32). Prints one line per
framework and case; writes {"framework op size": median_s}.
"""
import json
import statistics
import sys
import time

out = sys.argv[1]
budget = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--budget" else 2.0
CASES = [("elementwise", 1024), ("elementwise", 4096), ("reduction", 1024), ("reduction", 4096),
         ("matmul", 8192), ("solve", 4096), ("spgemm", 4096), ("svd", 2048), ("fft", 4096), ("slicing", 4096)]


def timeit(fn, sync):
    for _ in range(2):
        fn()
        sync()
    samples, start = [], time.perf_counter()
    while len(samples) < 5 or time.perf_counter() - start < min(budget, 0.2):
        t0 = time.perf_counter()
        fn()
        sync()
        samples.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget and len(samples) >= 3:
            break
    return statistics.median(samples)


def numpy_cases(np, sp):
    """(framework, op, n, call): each computed as the peer of that name does
    (scripts/peer_worker.py): numpy's own routines for the numpy peer
    (np.fft, np.linalg.svd), SciPy's where a user reaches for SciPy for the
    scipy peer (scipy.fft with workers=-1, scipy.linalg's gesdd and Cholesky
    solve, scipy.sparse). A "numpy fft" timed through scipy.fft on every core
    read 44.7x off the numpy peer's single-threaded np.fft (2026-12-02)."""
    r = np.random.default_rng(1)
    def f32(*s): return r.uniform(-1, 1, s).astype(np.float32)
    def spd(n):
        a = f32(n, n)
        return (a + a.T) / 2 + n * np.eye(n, dtype=np.float32)
    for op, n in CASES:
        if op == "elementwise":
            a, b = f32(n, n), f32(n, n)
            yield "numpy", op, n, lambda: a * b + np.sin(a) + np.cos(b)
        elif op == "reduction":
            x = f32(n, n) + 2
            yield "numpy", op, n, lambda: (x.sum(), x.mean(), x.std())
        elif op == "matmul":
            a, b = f32(n, n), f32(n, n)
            yield "numpy", op, n, lambda: a @ b
        elif op == "solve":
            a, b = spd(n), f32(n)
            yield "scipy", op, n, lambda: sp.linalg.cho_solve(sp.linalg.cho_factor(a, check_finite=False), b,
                                                             check_finite=False)
        elif op == "spgemm":
            a = sp.sparse.random(n, n, 0.01, format="csr", dtype=np.float32, random_state=1)
            b = sp.sparse.random(n, n, 0.01, format="csr", dtype=np.float32, random_state=2)
            yield "scipy", op, n, lambda: a @ b
        elif op == "svd":
            a = f32(n, n)
            yield "numpy", op, n, lambda: np.linalg.svd(a, full_matrices=False)
            yield "scipy", op, n, lambda: sp.linalg.svd(a, full_matrices=False, lapack_driver="gesdd",
                                                       check_finite=False)
        elif op == "fft":
            x = f32(n, n)
            yield "numpy", op, n, lambda: np.fft.rfft2(x)
            yield "scipy", op, n, lambda: sp.fft.rfft2(x, workers=-1)
        elif op == "slicing":
            x = f32(n, n)
            yield "numpy", op, n, lambda: np.ascontiguousarray(x.T)


def run_numpy(res):
    import numpy as np
    import scipy.fft, scipy.linalg, scipy.sparse
    for fw, op, n, fn in numpy_cases(np, scipy):
        res["%s %s %d" % (fw, op, n)] = timeit(fn, lambda: None)


def run_cupy(res):
    import cupy as cp
    import cupyx.scipy.sparse as cs
    r = cp.random.default_rng(1)
    def f32(*s): return r.uniform(-1, 1, s, dtype=cp.float32)
    sync = cp.cuda.Device().synchronize
    for op, n in CASES:
        if op == "elementwise":
            a, b = f32(n, n), f32(n, n)
            fn = lambda: a * b + cp.sin(a) + cp.cos(b)
        elif op == "reduction":
            x = f32(n, n) + 2
            fn = lambda: (x.sum(), x.mean(), x.std())
        elif op == "matmul":
            a, b = f32(n, n), f32(n, n)
            fn = lambda: a @ b
        elif op == "solve":
            import cupyx.scipy.linalg as cl
            a = f32(n, n); a = (a + a.T) / 2 + n * cp.eye(n, dtype=cp.float32); b = f32(n)
            def fn():
                L = cp.linalg.cholesky(a)
                return cl.solve_triangular(L, cl.solve_triangular(L, b, lower=True), lower=True, trans="T")
        elif op == "spgemm":
            a = cs.random(n, n, 0.01, format="csr", dtype=cp.float32, random_state=1)
            b = cs.random(n, n, 0.01, format="csr", dtype=cp.float32, random_state=2)
            fn = lambda: a @ b
        elif op == "svd":
            a = f32(n, n)
            fn = lambda: cp.linalg.svd(a, full_matrices=False)
        elif op == "fft":
            x = f32(n, n)
            fn = lambda: cp.fft.rfft2(x)
        else:
            x = f32(n, n)
            fn = lambda: cp.ascontiguousarray(x.T)
        res["cupy %s %d" % (op, n)] = timeit(fn, sync)


def run_torch(res):
    import torch
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    g = torch.Generator(device=dev).manual_seed(1)
    def f32(*s): return torch.rand(s, generator=g, device=dev) * 2 - 1
    for op, n in CASES:
        if op == "elementwise":
            a, b = f32(n, n), f32(n, n)
            fn = lambda: a * b + torch.sin(a) + torch.cos(b)
        elif op == "reduction":
            x = f32(n, n) + 2
            fn = lambda: (x.sum(), x.mean(), x.std(correction=0))
        elif op == "matmul":
            a, b = f32(n, n), f32(n, n)
            fn = lambda: a @ b
        elif op == "solve":
            a = f32(n, n); a = (a + a.T) / 2 + n * torch.eye(n, device=dev); b = f32(n, 1)
            fn = lambda: torch.cholesky_solve(b, torch.linalg.cholesky(a))
        elif op == "svd":
            a = f32(n, n)
            fn = lambda: torch.linalg.svd(a, full_matrices=False)
        elif op == "fft":
            x = f32(n, n)
            fn = lambda: torch.fft.rfft2(x)
        elif op == "slicing":
            x = f32(n, n)
            fn = lambda: x.T.contiguous()
        else:
            continue
        res["torch %s %d" % (op, n)] = timeit(fn, sync)


def run_jax(res):
    import jax
    import jax.numpy as jnp
    import numpy as np
    r = np.random.default_rng(1)
    def f32(*s): return jax.device_put(r.uniform(-1, 1, s).astype(np.float32))
    sync = lambda: None
    for op, n in CASES:
        if op == "elementwise":
            a, b = f32(n, n), f32(n, n)
            f = jax.jit(lambda x, y: x * y + jnp.sin(x) + jnp.cos(y))
            fn = lambda: jax.block_until_ready(f(a, b))
        elif op == "reduction":
            x = f32(n, n) + 2
            f = jax.jit(lambda v: (v.sum(), v.mean(), v.std()))
            fn = lambda: jax.block_until_ready(f(x))
        elif op == "matmul":
            a, b = f32(n, n), f32(n, n)
            fn = lambda: jax.block_until_ready(a @ b)
        elif op == "svd":
            a = f32(n, n)
            fn = lambda: jax.block_until_ready(jnp.linalg.svd(a, full_matrices=False))
        elif op == "fft":
            x = f32(n, n)
            fn = lambda: jax.block_until_ready(jnp.fft.rfft2(x))
        else:
            continue
        res["jax %s %d" % (op, n)] = timeit(fn, sync)


res = {}
for name, f in (("numpy", run_numpy), ("cupy", run_cupy), ("torch", run_torch), ("jax", run_jax)):
    t0 = time.perf_counter()
    try:
        f(res)
    except Exception as exc:
        print("%s: skipped: %s: %s" % (name, type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ""))
    print("%s: %.1f s" % (name, time.perf_counter() - t0), flush=True)
for k, v in res.items():
    print("%-28s %10.4f ms" % (k, v * 1e3))
with open(out, "w") as fh:
    json.dump(res, fh, indent=1)
