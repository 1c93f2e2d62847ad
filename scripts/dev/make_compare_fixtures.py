#!/usr/bin/env python3
"""Generate the results files tests/results/test_compare.c reads (tests/data/compare/).

Deterministic (fixed seeds, Python's Mersenne Twister), so the committed files
can be regenerated bit for bit:  python3 scripts/dev/make_compare_fixtures.py

Timing samples are drawn from one noisy model of a real GPU/CPU timing:
log-normal around the case's true time (3% spread) plus occasional slow
outliers (5% of samples, +10..40%: preemption, clock ramps). The files:

  base.json        the baseline
  same.json        fresh draws from the same distributions       -> no regression
  slower10.json    same.json, one case's current samples x 1.10  -> exactly it
  slower2.json     same.json, that case x 1.02                   -> still "same" at 5%
  few_base.json,   4 samples each, 25% spread, a 10% shift       -> unsure
  few_cur.json
  failed.json      same.json with one result failing verification -> exit 1
  version7.json    schema_version 7                               -> exit 2
  other_gpu.json   same.json from another GPU and driver          -> warning
  policy.json      a sample policy file
  drift_base.json, two runs in 3 rounds each, where every round of every
  drift_cur.json   result runs up to ~10-20% slow or fast (a shared VM's
                   seconds-long drift)                           -> no regression,
                                                                    though the samples alone
                                                                    would say several
  drift_slower30.json  drift_cur.json, the target x 1.30         -> exactly it
"""
import copy
import json
import math
import os
import random

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "compare")

# op, dtype, shape, label, params, true times per (backend, timing)
CASES = [
    ("matmul", "float32", [512, 512, 512], "512x512x512", {"math": "default"},
     {("cpu", "host"): 4.1e-3, ("cuda", "device"): 1.9e-4, ("cuda", "end_to_end"): 1.1e-3}),
    ("matmul", "float32", [1024, 1024, 1024], "1024x1024x1024", {"math": "default"},
     {("cpu", "host"): 3.2e-2, ("cuda", "device"): 9.0e-4, ("cuda", "end_to_end"): 4.3e-3}),
    ("matmul", "float64", [1024, 1024, 1024], "1024x1024x1024", {"math": "default"},
     {("cpu", "host"): 6.3e-2, ("cuda", "device"): 1.6e-3, ("cuda", "end_to_end"): 6.5e-3}),
    ("fft", "float32", [1024, 1024], "1024x1024", {"kind": "r2c", "planner": "measure"},
     {("cpu", "host"): 2.9e-3, ("cuda", "device"): 6.0e-5, ("cuda", "end_to_end"): 1.4e-3}),
    ("reduction", "float32", [16777216], "16777216", {},
     {("cpu", "host"): 3.5e-3, ("cuda", "device"): 3.1e-5, ("cuda", "end_to_end"): 6.2e-3}),
    ("spgemm", "float64", [4096, 4096], "4096x4096", {"density": 0.001},
     {("cpu", "host"): 8.8e-3, ("cuda", "device"): 2.4e-3, ("cuda", "end_to_end"): 9.9e-3}),
    ("solve", "float64", [4096, 4096], "4096x4096", {"nrhs": 1},
     {("cpu", "host"): 2.1e-1, ("cuda", "device"): 9.4e-3, ("cuda", "end_to_end"): 4.0e-2}),
]
SKIPPED = ("svd", "float64", [16384, 16384], "16384x16384", {"method": "auto"})
TARGET = ("matmul", "float32", "1024x1024x1024", "cuda", "device")  # the case the tests slow down


def draw(rng, true_s, n, spread):
    out = []
    for _ in range(n):
        t = true_s * math.exp(rng.gauss(0.0, spread))
        if rng.random() < 0.05:
            t *= 1.1 + 0.3 * rng.random()
        out.append(float("%.6g" % t))
    return out


def summarise(s):
    v = sorted(s)
    n = len(v)
    if n == 0:
        return {"n": 0}
    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    mean = sum(v) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1)) if n > 1 else 0.0
    return {"n": n, "min": v[0], "median": med, "mean": mean, "stddev": sd,
            "cv": sd / mean if mean else 0.0, "ci95_low": v[max(0, n // 2 - 2)],
            "ci95_high": v[min(n - 1, n // 2 + 2)]}


def context(gpu="NVIDIA H100 80GB HBM3", driver=13000, host="runner-1", date="2026-11-22T23:10:00Z"):
    return {
        "date": date, "hostname": host, "os": "Linux", "kernel": "6.1.0",
        "command_line": "gpubench run suites/quick.json", "seed": 42, "cache_mode": "hot",
        "cpu": {"model": "AMD EPYC 9454 48-Core Processor", "sockets": 1, "cores": 48,
                "logical_cpus": 96, "isa": ["avx2", "avx512f"], "memory_bytes": 2.7e11},
        "cpu_threads_used": 48,
        "libraries": {"openblas": {"config": "OpenBLAS 0.3.21", "core": "SkylakeX", "threads": 48},
                      "fftw": "fftw-3.3.10", "graphblas": "7.4.0", "cjson": "1.7.15",
                      "cublas": 130000, "cufft": 12000, "cusolver": 12000, "cusparse": 12000},
        "build": {"version": "0.1.0", "git_commit": "abc123", "compiler": "gcc 12.2", "flags": "-O3"},
        "gpu": {"name": gpu, "compute_capability": "9.0", "sm_count": 132, "memory_bytes": 8.5e10,
                "l2_bytes": 5.2e7, "driver_version": driver, "runtime_version": 13000, "device": 0},
        "backends": {"cpu": {"available": True}, "cuda": {"available": True}},
    }


def result(backend, timing, samples):
    return {
        "backend": backend, "timing": timing, "status": "ok", "reason": "", "setup_s": 0.001,
        "warmup_reps": 2, "samples_s": samples, "stats": summarise(samples),
        "gflops": None, "gbs": None, "pct_of_peak": None, "peak": None,
        "verification": {"status": "passed" if backend != "cpu" else "not_checked",
                         "against": "cpu" if backend != "cpu" else "", "metric": "max_rel_err",
                         "error": 1e-7 if backend != "cpu" else 0, "tolerance": 1e-5, "detail": ""},
        "extra": {},
    }


def drifting(rng, true_s, n, spread, rounds, drift):
    """(samples, round_sizes): `rounds` rounds of n samples, each round's
    true time scaled by its own log-normal factor (sd `drift`)."""
    out = []
    for _ in range(rounds):
        out += draw(rng, true_s * math.exp(rng.gauss(0.0, drift)), n, spread)
    return out, [n] * rounds


def document(seed, n=20, spread=0.03, cases=CASES, rounds=1, drift=0.0, **ctx):
    rng = random.Random(seed)
    doc = {
        "schema": "gpubench-results", "schema_version": 1, "gpubench_version": "0.1.0",
        "complete": True, "interrupted": False,
        "suite": {"path": "suites/quick.json", "name": "quick", "description": "fixture",
                  "defaults": {"dtypes": ["float32"], "warmup": 2, "min_reps": 5,
                               "min_time_s": 0.2, "max_time_s": 5, "seed": 42},
                  "benchmarks": []},
        "context": context(**ctx), "peaks": {}, "warnings": [], "cases": [],
        "crossover": [], "summary": {},
    }
    for op, dtype, shape, label, params, times in cases:
        c = {"op": op, "dtype": dtype, "shape": shape, "label": label, "params": params,
             "flops": 0, "bytes": 0, "rate_kind": "flops", "results": []}
        for (backend, timing), t in times.items():
            if rounds == 1:
                c["results"].append(result(backend, timing, draw(rng, t, n, spread)))
            else:
                samples, sizes = drifting(rng, t, n, spread, rounds, drift)
                r = result(backend, timing, samples)
                r["round_sizes"] = sizes
                c["results"].append(r)
        doc["cases"].append(c)
    op, dtype, shape, label, params = SKIPPED
    doc["cases"].append({"op": op, "dtype": dtype, "shape": shape, "label": label, "params": params,
                         "flops": 0, "bytes": 0, "rate_kind": "flops", "results": [
                             result("cpu", "host", draw(rng, 95.0, 3, spread)),
                             dict(result("cuda", "device", []), status="skipped",
                                  reason="needs 6.4 GB of GPU memory, 5.1 GB free", stats={"n": 0})]})
    results = sum(len(c["results"]) for c in doc["cases"])
    doc["summary"] = {"cases": len(doc["cases"]), "results": results, "ok": results - 1,
                      "skipped": 1, "failed": 0, "errors": 0}
    return doc


def find(doc, key):
    op, dtype, label, backend, timing = key
    for c in doc["cases"]:
        if (c["op"], c["dtype"], c["label"]) == (op, dtype, label):
            for r in c["results"]:
                if (r["backend"], r["timing"]) == (backend, timing):
                    return r
    raise KeyError(key)


def scaled(doc, factor):
    d = copy.deepcopy(doc)
    r = find(d, TARGET)
    r["samples_s"] = [float("%.6g" % (x * factor)) for x in r["samples_s"]]
    r["stats"] = summarise(r["samples_s"])
    return d


def write(name, doc):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    base = document(1)
    same = document(2, date="2026-11-23T23:10:00Z", host="runner-7")
    write("base.json", base)
    write("same.json", same)
    write("slower10.json", scaled(same, 1.10))
    write("slower2.json", scaled(same, 1.02))

    few = [c for c in CASES if c[0] == "matmul"][:1]
    write("few_base.json", document(3, n=4, spread=0.25, cases=few))
    fc = document(4, n=4, spread=0.25, cases=few)
    for c in fc["cases"]:
        for r in c["results"]:
            if r["samples_s"]:
                r["samples_s"] = [float("%.6g" % (x * 1.10)) for x in r["samples_s"]]
                r["stats"] = summarise(r["samples_s"])
    write("few_cur.json", fc)

    failed = copy.deepcopy(same)
    r = find(failed, ("fft", "float32", "1024x1024", "cuda", "device"))
    r["status"] = "failed"
    r["reason"] = "max_rel_err 3.2e-2 > tolerance 1e-4"
    r["verification"].update(status="failed", error=3.2e-2, tolerance=1e-4)
    write("failed.json", failed)

    v7 = copy.deepcopy(same)
    v7["schema_version"] = 7
    write("version7.json", v7)

    write("other_gpu.json", document(2, gpu="NVIDIA A100-SXM4-80GB", driver=12080))

    drift = dict(n=10, rounds=3, drift=0.06)
    write("drift_base.json", document(5, **drift))
    drift_cur = document(6, date="2026-11-23T23:10:00Z", **drift)
    write("drift_cur.json", drift_cur)
    write("drift_slower30.json", scaled(drift_cur, 1.30))

    write("policy.json", {"threshold": "5%", "alpha": 0.01,
                          "ops": {"spgemm": {"threshold": "15%"},
                                  "fft": {"threshold": "10%", "backends": {"cpu": {"threshold": "20%"}}}}})


if __name__ == "__main__":
    main()
