#!/usr/bin/env python3
"""svd-methods-table.py — one line per CUDA svd result of a results file (the
run of suites/svd-methods.json): method, dtype, size, routine, device median
and the half-width of its 95% interval, the host time spent inside the
routine's call (median, min/max: near the device time means a host-driven
routine, whose time and spread follow the host thread), the verification,
and gesvdj's sweeps. Then, per dtype and size, the fastest method that
passed: what the CUDA backend's svd "auto" should choose.

    python3 scripts/svd-methods-table.py RESULTS.json
"""
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: svd-methods-table.py RESULTS.json")
    try:
        doc = json.load(open(sys.argv[1]))
    except (OSError, ValueError) as e:
        sys.exit("svd-methods-table.py: %s: %s" % (sys.argv[1], e))
    head = ("method", "tol", "dtype", "size", "routine", "dev ms", "±", "host ms", "host min/max", "check", "sweeps")
    print("%-9s %-6s %-8s %-10s %-28s %8s %7s %8s %15s %-7s %s" % head)
    best = {}
    for c in doc.get("cases", []):
        if c.get("op") != "svd":
            continue
        params = c.get("params", {})
        for r in c.get("results", []):
            if r.get("backend") != "cuda" or r.get("timing") != "device":
                continue
            x, st, v = r.get("extra") or {}, r.get("stats") or {}, r.get("verification") or {}
            med, lo, hi = st.get("median"), st.get("ci95_low"), st.get("ci95_high")
            ok = r.get("status") == "ok" and v.get("status") == "passed"
            print("%-9s %-6s %-8s %-10s %-28s %8s %7s %8s %15s %-7s %s" % (
                params.get("method"), params.get("tol", "-"), c.get("dtype"), c.get("label"),
                x.get("routine", r.get("status")),
                "%.2f" % (med * 1e3) if med else "-",
                "%.2f" % ((hi - lo) * 500) if med and lo is not None and hi is not None else "-",
                "%.2f" % x["routine_host_ms_median"] if "routine_host_ms_median" in x else "-",
                "%.1f/%.1f" % (x["routine_host_ms_min"], x["routine_host_ms_max"])
                if "routine_host_ms_min" in x else "-",
                v.get("status", r.get("status")), x.get("gesvdj_sweeps", "")))
            key = (c.get("dtype"), c.get("label"))
            name = params.get("method") + ("(tol %g)" % params["tol"] if "tol" in params else "")
            if ok and med and params.get("method") != "auto" and (key not in best or med < best[key][0]):
                best[key] = (med, name)
    print("\nfastest method that passed, per dtype and size (device median):")
    for (dtype, label), (med, name) in sorted(best.items()):
        print("  %-8s %-10s %-22s %.2f ms" % (dtype, label, name, med * 1e3))


if __name__ == "__main__":
    main()
