"""peer_worker_gpu.py -- the worker's CuPy, PyTorch and JAX peers
(scripts/peer_worker.py says what a peer is and how it is driven).

CuPy and PyTorch on a GPU are timed with CUDA events recorded on the current
stream around the call (the end event synchronized before it is read); JAX
with the host clock around the call and jax.block_until_ready on its result
(JAX has no events): results name the clock (context.backends.<peer>.clock).
PyTorch and JAX without a GPU run on the CPU, with the host clock.
"""
import time


def load(name, gen, pw):
    if name == "cupy":
        return make_cupy(gen, pw)
    if name == "torch":
        return make_torch(gen, pw)
    if name == "jax":
        return make_jax(gen, pw)
    raise ImportError("no peer %s" % name)


def make_cupy(gen, pw):
    import cupy as cp
    cp.cuda.runtime.getDeviceCount()  # raises without a usable device

    class CupyPeer(pw.ArrayPeer):
        name, clock, device = "cupy", "CUDA events around the call", "cuda"
        xp = cp

        def dev(self, a):
            return cp.asarray(a)

        def host(self, x):
            return cp.asnumpy(x)

        def time(self, fn):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            r = fn()
            e.record()
            e.synchronize()
            return cp.cuda.get_elapsed_time(s, e) * 1e-3, r

        def facts(self):
            p = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
            return {"framework_version": cp.__version__, "device_name": p["name"].decode(errors="replace"),
                    "cuda_runtime": cp.cuda.runtime.runtimeGetVersion()}

        def op_solve(self, case):
            import cupyx.scipy.linalg as cl
            a, b = [cp.asarray(x) for x in gen.make_solve(case, case["seed"], pw.dtype_of(gen, case))]

            def solve():
                L = cp.linalg.cholesky(a)
                y = cl.solve_triangular(L, b, lower=True)
                return cl.solve_triangular(L, y, lower=True, trans="T")
            return solve, lambda r: [("X", None, pw.fortran(self.host(r)))]

        def op_spgemm(self, case):
            import cupyx.scipy.sparse as cs
            a, b = [cs.csr_matrix(m) for m in gen.make_spgemm(case, case["seed"], pw.dtype_of(gen, case))]
            return (lambda: a @ b), lambda r: pw.csr_out(gen.np, r.get())

    return CupyPeer(gen)


def make_torch(gen, pw):
    import torch
    cuda = torch.cuda.is_available()
    np = gen.np

    class TorchPeer(pw.ArrayPeer):
        name = "torch"
        device = "cuda" if cuda else "cpu"
        clock = "CUDA events around the call" if cuda else "host perf_counter around the call"

        def __init__(self, g):
            super().__init__(g)
            self.xp = torch

        def dev(self, a):
            return torch.from_numpy(np.ascontiguousarray(a)).to(self.device)

        def host(self, x):
            return x.detach().cpu().numpy()

        def time(self, fn):
            if not cuda:
                return pw.Peer.time(self, fn)
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            r = fn()
            e.record()
            e.synchronize()
            return s.elapsed_time(e) * 1e-3, r

        def facts(self):
            f = {"framework_version": torch.__version__, "threads": torch.get_num_threads()}
            if cuda:
                f["device_name"] = torch.cuda.get_device_name()
            else:
                try:
                    f["blas"] = torch.__config__.parallel_info().splitlines()[0:3]
                except Exception:
                    pass
            return f

        def reduce3(self, x):
            return (x.sum(), x.mean(), x.std(correction=0))

        def fft_call(self, x, c2c):
            return torch.fft.fft2(x) if c2c else torch.fft.rfft2(x)

        def svd(self, a):
            return torch.linalg.svd(a, full_matrices=False)

        def contiguous(self, v):
            return v.contiguous()

        def op_solve(self, case):
            a, b = [self.dev(x) for x in gen.make_solve(case, case["seed"], pw.dtype_of(gen, case))]
            if b.dim() == 1:
                b = b[:, None]
            return (lambda: torch.cholesky_solve(b, torch.linalg.cholesky(a))), \
                lambda r: [("X", None, pw.fortran(self.host(r)))]

        def op_spgemm(self, case):
            ms = gen.make_spgemm(case, case["seed"], pw.dtype_of(gen, case))
            a, b = [torch.sparse_csr_tensor(torch.from_numpy(m.indptr.astype(np.int64)),
                                            torch.from_numpy(m.indices.astype(np.int64)),
                                            torch.from_numpy(m.data), size=m.shape).to(self.device) for m in ms]

            def out(r):
                return [("C_rowptr", "i32", self.host(r.crow_indices()).astype(np.int32)),
                        ("C_colind", "i32", self.host(r.col_indices()).astype(np.int32)),
                        ("C_val", None, self.host(r.values()))]
            return (lambda: a @ b), out

    return TorchPeer(gen)


def make_jax(gen, pw):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    np = gen.np
    gpu = any(d.platform == "gpu" for d in jax.devices())

    class JaxPeer(pw.ArrayPeer):
        name = "jax"
        device = "cuda" if gpu else "cpu"
        clock = "host perf_counter around the call and jax.block_until_ready (no events in JAX)"
        xp = jnp

        def dev(self, a):
            return jax.device_put(a)

        def time(self, fn):
            t0 = time.perf_counter()
            r = jax.block_until_ready(fn())
            return time.perf_counter() - t0, r

        def facts(self):
            return {"framework_version": jax.__version__, "devices": [str(d) for d in jax.devices()]}

        def build(self, case):
            fn, outs = super().build(case)
            return fn, outs

        def op_elementwise(self, case):
            a, b = self.inputs(case, gen.make_pair, pw.dtype_of(gen, case), -4.0, 4.0)
            f = jax.jit(lambda x, y: x * y + jnp.sin(x) + jnp.cos(y))
            return (lambda: f(a, b)), lambda r: [("out", None, np.asarray(r))]

        def op_reduction(self, case):
            x = self.dev(gen.make_reduction(case, case["seed"], pw.dtype_of(gen, case)))
            f = jax.jit(lambda v: (v.sum(), v.mean(), v.std()))
            return (lambda: f(x)), lambda r: [("stats", "f64", np.array([float(v) for v in r]))]

        def op_solve(self, case):
            import jax.scipy.linalg as jl
            a, b = [self.dev(x) for x in gen.make_solve(case, case["seed"], pw.dtype_of(gen, case))]
            f = jax.jit(lambda p, q: jl.cho_solve(jl.cho_factor(p), q))
            return (lambda: f(a, b)), lambda r: [("X", None, pw.fortran(np.asarray(r)))]

        def contiguous(self, v):
            return v + 0 if False else jnp.array(v, copy=True)

    return JaxPeer(gen)
