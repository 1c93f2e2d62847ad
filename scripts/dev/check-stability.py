#!/usr/bin/env python3
"""check-stability.py A.json B.json [--min-ms 1]

Two back-to-back runs of the same suite on the same machine: for every result
(case x backend x timing) whose median is at least --min-ms in both, do the
95% confidence intervals of the median overlap? Prints the ones that do not
and a summary; exit 1 if any does not. Standard library only."""
import argparse
import json
import sys


def results(path):
    doc = json.load(open(path))
    out = {}
    for c in doc.get("cases", []):
        key_case = (c["op"], c["dtype"], c["label"], json.dumps(c.get("params", {}), sort_keys=True))
        for r in c.get("results", []):
            if r.get("status") == "ok" and "stats" in r:
                out[key_case + (r["backend"], r["timing"])] = r["stats"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--min-ms", type=float, default=1.0)
    args = ap.parse_args()
    a, b = results(args.a), results(args.b)
    checked = disjoint = 0
    worst = []
    for key in sorted(set(a) & set(b)):
        sa, sb = a[key], b[key]
        if min(sa["median"], sb["median"]) * 1e3 < args.min_ms:
            continue
        checked += 1
        overlap = sa["ci95_low"] <= sb["ci95_high"] and sb["ci95_low"] <= sa["ci95_high"]
        change = 100.0 * (sb["median"] / sa["median"] - 1)
        worst.append((abs(change), key, change))
        if not overlap:
            disjoint += 1
            print("disjoint: %s %s %s %s [%s %s]: %.4g ms [%.4g, %.4g] vs %.4g ms [%.4g, %.4g] (%+.1f%%)" % (
                key[0], key[1], key[2], key[3], key[4], key[5], sa["median"] * 1e3, sa["ci95_low"] * 1e3,
                sa["ci95_high"] * 1e3, sb["median"] * 1e3, sb["ci95_low"] * 1e3, sb["ci95_high"] * 1e3, change))
    worst.sort(reverse=True)
    print("%d results of at least %g ms in both runs: %d with overlapping 95%% CIs, %d disjoint" % (
        checked, args.min_ms, checked - disjoint, disjoint))
    if worst:
        print("largest median change: %+.1f%% (%s)" % (worst[0][2], " ".join(worst[0][1][:3] + worst[0][1][4:])))
    return 1 if disjoint else 0


if __name__ == "__main__":
    sys.exit(main())
