#!/usr/bin/env python3
"""Write the fleet-report fixtures (tests/results/test_fleet.c reads them).

    python3 tests/data/fleet/make_fixtures.py     (rewrites the .json next to it)

Deterministic (a fixed seed). Every column's samples are the same base times
with +-3% noise per sample and +-1% per round; what differs is said below:
  merged.json   a merged file of four nodes (one GPU each, named by the
                device field): node03's device samples 1.5x slower, node02
                within the noise (x1.01), node04's fft 256 failed.
  devices.json  one run that measured three devices: gpu2 1.5x slower,
                gpu1 within the noise.
  cpu_a.json, cpu_b.json  two CPU-only runs (host timing), cpu_b within
                the noise of cpu_a.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [("matmul", "float32", [256, 256, 256], {"math": "default"}, 2.0e-4),
         ("matmul", "float32", [1024, 1024, 1024], {"math": "default"}, 4.0e-3),
         ("matmul", "float64", [1024, 1024, 1024], {"math": "default"}, 8.0e-3),
         ("fft", "float32", [256, 256], {"kind": "r2c"}, 1.5e-4),
         ("fft", "float32", [1024, 1024], {"kind": "r2c"}, 2.0e-3),
         ("elementwise", "float32", [1048576], None, 3.0e-4),
         # more cases than compare needs to learn a column's between-process
         # noise from how all its cases moved (compare_stats.h: 8)
         ("matmul", "float64", [256, 256, 256], {"math": "default"}, 2.5e-4),
         ("fft", "float64", [256, 256], {"kind": "r2c"}, 1.8e-4),
         ("fft", "float64", [1024, 1024], {"kind": "r2c"}, 3.0e-3),
         ("elementwise", "float64", [1048576], None, 5.0e-4),
         ("reduction", "float32", [1048576], None, 1.2e-4),
         ("reduction", "float64", [1048576], None, 2.0e-4)]


def samples(rng, base, factor):
    out = []
    for _ in range(3):                       # three rounds of four samples
        drift = 1 + rng.uniform(-0.01, 0.01)
        out += [base * factor * drift * (1 + rng.uniform(-0.03, 0.03)) for _ in range(4)]
    return out


def stats(s):
    x = sorted(s)
    n = len(x)
    med = x[n // 2] if n % 2 else 0.5 * (x[n // 2 - 1] + x[n // 2])
    mean = sum(x) / n
    sd = (sum((v - mean) ** 2 for v in x) / (n - 1)) ** 0.5
    return {"n": n, "min": x[0], "max": x[-1], "median": med, "mean": mean, "stddev": sd, "cv": sd / mean,
            "ci95_low": x[2], "ci95_high": x[-3]}


def result(rng, backend, timing, base, factor, device=None, fail=None):
    r = {"backend": backend, "timing": timing, "status": "ok", "reason": ""}
    if fail:
        r.update(status="failed", reason=fail, samples_s=[], round_sizes=[])
        if device is not None:
            r["device"] = device
        return r
    s = samples(rng, base, factor)
    r.update(samples_s=s, round_sizes=[4, 4, 4], stats=stats(s),
             verification={"status": "passed", "against": "cpu", "metric": "max_rel_err", "error": 1e-7,
                           "tolerance": 1e-5, "detail": ""})
    if device is not None:
        r["device"] = device
    return r


def context(host, gpus):
    return {"date": "2026-11-23T10:00:00Z", "hostname": host, "os": "Linux", "kernel": "6.1.0",
            "cpu": {"model": "AMD EPYC 9454 48-Core Processor", "logical_cpus": 96},
            "cpu_threads_used": 48,
            "gpu": {"name": "NVIDIA H100 80GB HBM3"} if gpus else None,
            "backends": {"cpu": {"available": True}, "cuda": {"available": bool(gpus)}}}


def device(i, host=0):
    return {"index": i, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-%08x-0000-0000-0000-%012d" % (host, i),
            "pci_bus_id": "00000000:%02X:00.0" % (0x18 + 0x10 * i)}


def cases_for(rng, run, devices, slow, noise, cpu_factor=1.0, fail_on=None, gpu=True):
    out = []
    for op, dtype, shape, params, base in CASES:
        c = {"op": op, "dtype": dtype, "shape": shape,
             "label": "x".join(str(v) for v in shape), "results": []}
        if params:
            c["params"] = params
        if run is not None:
            c["run"] = run
        c["results"].append(result(rng, "cpu", "host", base * 20, cpu_factor))
        for d in devices if gpu else []:
            f = slow.get(d["index"], noise.get(d["index"], 1.0))
            fail = "cuFFT: CUFFT_INTERNAL_ERROR" if fail_on == (op, shape[0]) else None
            c["results"].append(result(rng, "cuda", "device", base, f, d, fail))
            c["results"].append(result(rng, "cuda", "end_to_end", base * 3, f, d, fail))
        out.append(c)
    return out


def single(host, cases, gpus):
    return {"schema": "gpubench-results", "schema_version": 1, "gpubench_version": "0.1.0", "complete": True,
            "interrupted": False, "context": context(host, gpus), "warnings": [], "cases": cases}


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    rng = random.Random(20261123)
    runs, cases = [], []
    for k, host in enumerate(["node01", "node02", "node03", "node04"]):
        runs.append({"name": host, "source": "results/quick-task%d-%s.json" % (k, host),
                     "context": context(host, 1), "complete": True, "interrupted": False})
        slow = {0: 1.5} if host == "node03" else {}
        noise = {0: 1.01} if host == "node02" else {}
        fail = ("fft", 256) if host == "node04" else None
        cases += cases_for(rng, k, [device(0, k)], slow, noise, fail_on=fail)
    write("merged.json", {"schema": "gpubench-results", "schema_version": 1, "gpubench_version": "0.1.0",
                          "complete": True, "interrupted": False, "runs": runs,
                          "warnings": ["task 4 (node05): no results file; FAILED, exit code 3:0: "
                                       "CUDA error: no CUDA-capable device is detected"],
                          "cases": cases})
    write("devices.json", single("gpu-box", cases_for(rng, None, [device(i) for i in range(3)], {2: 1.5}, {1: 1.01}), 3))
    write("cpu_a.json", single("cpu-a", cases_for(rng, None, [], {}, {}, gpu=False), 0))
    write("cpu_b.json", single("cpu-b", cases_for(rng, None, [], {}, {}, cpu_factor=1.005, gpu=False), 0))


if __name__ == "__main__":
    main()
