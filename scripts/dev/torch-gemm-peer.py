#!/usr/bin/env python3
"""torch-gemm-peer.py — PyTorch's GEMM in every dtype gpubench measures, on the
same input bits, for the issue #27 comparison (GPU host; not run by the tests).

    python3 scripts/dev/torch-gemm-peer.py [--n 8192] [--device cuda|cpu|both]
        [--dtypes float32,bfloat16,float16,float8_e4m3,int8] [--reps 10] [--seed 42]
        [--span SECONDS]

A and B are gpubench's: the same counter-based generator (src/core/rng.c),
streams 1 and 2, uniform [-1, 1) rounded float64 -> float32 -> dtype (round to
nearest even, as src/core/precision.c), int8 uniform in +-r with k*r^2 < 2^31.
Row-major C = A @ B; bfloat16/float16 torch.matmul (C in the dtype, float32
accumulate), float8 torch._scaled_mm (E4M3 x E4M3 -> float32, scales 1.0;
B column-major as cuBLASLt wants, made before timing), int8 torch._int_mm
(int32 C). One JSON line per (device, dtype): median seconds over --reps
after two warm-ups, and the rate. --span S times the GPU the way gpubench
does instead: calls back to back for S seconds, each timed by CUDA events,
the median of those (so both sides run as long and as hot; the short
--reps burst leaves the card cool and at its highest clock). Each line
carries the wall-clock start and end of its timing (epoch seconds) so a
clock trace taken beside it can be cut to it. Run it interleaved with gpubench
(A B A B ...) so both see the same machine state.
"""
import argparse
import json
import math
import statistics
import time

import numpy as np
import torch

K1, K2, K3, K4 = 0x9E3779B97F4A7C15, 0xD1B54A32D192ED03, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def rng_bits(seed, stream, n):
    """gb_rng_bits(seed, stream, 0..n-1) as uint64 (wrapping arithmetic)."""
    m = (1 << 64) - 1
    key = ((seed * K1) & m) ^ (((stream + K2) & m) * K3 & m)
    with np.errstate(over="ignore"):
        z = np.uint64(key) + (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(K1))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(K3)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(K4)
    return z ^ (z >> np.uint64(31))


def operand(seed, stream, rows, cols, dtype, k):
    n = rows * cols
    bits = rng_bits(seed, stream, n)
    if dtype == "int8":
        r = min(127, max(1, int(math.isqrt((2**31 - 1) // k))))
        v = (bits % np.uint64(2 * r + 1)).astype(np.int64) - r
        return torch.from_numpy(v.astype(np.int8).reshape(rows, cols))
    u = (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53
    x = torch.from_numpy((-1.0 + 2.0 * u).astype(np.float32).reshape(rows, cols))
    return x.to({"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16,
                 "float8_e4m3": torch.float8_e4m3fn}[dtype])


def timed(fn, device, reps):
    def sync():
        if device == "cuda":
            torch.cuda.synchronize()
    for _ in range(2):
        fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def timed_span(fn, span):
    """CUDA-event time of each call, calls back to back for span seconds."""
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    events = []
    t_end = time.perf_counter() + span
    while time.perf_counter() < t_end or len(events) < 3:
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        events.append((e0, e1))
        if len(events) % 16 == 0:
            events[-16][1].synchronize()  # keep the queue short: wall time is the span
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) * 1e-3 for a, b in events), len(events)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--device", default="both")
    ap.add_argument("--dtypes", default="float32,bfloat16,float16,float8_e4m3,int8")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--span", type=float, default=0.0)
    a = ap.parse_args()
    n = a.n
    devices = ["cuda", "cpu"] if a.device == "both" else [a.device]
    for dt in a.dtypes.split(","):
        A0, B0 = operand(a.seed, 1, n, n, dt, n), operand(a.seed, 2, n, n, dt, n)
        for dev in devices:
            rec = {"device": dev, "dtype": dt, "n": n, "torch": torch.__version__}
            try:
                A, B = A0.to(dev), B0.to(dev)
                if dt == "float8_e4m3":
                    Bc = B.t().contiguous().t()  # column-major, as _scaled_mm requires
                    one = torch.tensor(1.0, device=dev)
                    fn = lambda: torch._scaled_mm(A, Bc, scale_a=one, scale_b=one, out_dtype=torch.float32)
                elif dt == "int8":
                    fn = lambda: torch._int_mm(A, B)
                else:
                    fn = lambda: torch.matmul(A, B)
                rec["t_start"] = time.time()
                if a.span > 0 and dev == "cuda":
                    s, calls = timed_span(fn, a.span)
                    rec.update(span_s=a.span, calls=calls)
                else:
                    s = timed(fn, dev, a.reps)
                rec["t_end"] = time.time()
                rec.update(median_s=s, tflops=2.0 * n**3 / s / 1e12)
            except Exception as e:  # a dtype this torch/device has no kernel for
                rec["unsupported"] = str(e).splitlines()[0][:200]
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
