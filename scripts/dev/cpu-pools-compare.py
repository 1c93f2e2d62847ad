#!/usr/bin/env python3
"""cpu-pools-compare.py NAME=FILE... [--min-ms 0.1] [--against A,C]

Results files of builds measured interleaved in one call (scripts/dev/
cpu-pools-gpu-host.sh), several processes each, named by build: for every
CPU result, each build's median over its processes' medians, best median and
max/min of the medians (how much the result moves from process to process),
then per build the median / p90 / max of max/min over results of at least
--min-ms, and the results whose median is more than 5% above the better of
the --against builds' best medians. The figures issue #42's targets name.
Standard library only."""
import argparse
import json
import statistics
import sys


def medians(path):
    doc = json.load(open(path))
    out = {}
    for c in doc.get("cases", []):
        params = ",".join("%s=%s" % kv for kv in sorted(c.get("params", {}).items()))
        for r in c.get("results", []):
            if r.get("backend") != "cpu" or r.get("status") != "ok" or "stats" not in r:
                continue
            out["%s %s %s %s" % (c["op"], c["dtype"], c["label"], params)] = r["stats"]["median"]
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="BUILD=results.json, one per process")
    ap.add_argument("--min-ms", type=float, default=0.1)
    ap.add_argument("--against", default="", help="builds whose best medians the others are held to")
    ap.add_argument("--of", default="", help="the build held to them (default: every other)")
    args = ap.parse_args()
    runs = {}
    for f in args.files:
        name, _, path = f.partition("=")
        try:
            runs.setdefault(name, []).append(medians(path))
        except (OSError, ValueError) as e:
            print("%s: not read (%s)" % (path, e))
    builds = list(runs)
    keys = sorted(set.intersection(*[set(m) for b in builds for m in runs[b]])) if builds else []
    stat = {b: {} for b in builds}
    for b in builds:
        for k in keys:
            v = [m[k] for m in runs[b]]
            stat[b][k] = (statistics.median(v), min(v), max(v) / min(v))
    w = max([len(k) for k in keys] + [10])
    print("%-*s " % (w, "result (ms)") + " ".join("%20s" % ("%s x%d med/best (mx/mn)" % (b, len(runs[b]))) for b in builds))
    for k in keys:
        print("%-*s " % (w, k) + " ".join("%8.4g/%-7.4g(%4.2f)" % (stat[b][k][0] * 1e3, stat[b][k][1] * 1e3, stat[b][k][2])
                                          for b in builds))
    print()
    for b in builds:
        long = [stat[b][k][2] for k in keys if stat[b][k][0] * 1e3 >= args.min_ms]
        every = [stat[b][k][2] for k in keys]
        print("%s: %d processes; results >= %g ms: %d, max/min median %.3f, p90 %.3f, max %.3f; any size: max %.3f"
              % (b, len(runs[b]), args.min_ms, len(long), statistics.median(long) if long else float("nan"),
                 pct(long, 0.9), max(long) if long else float("nan"), max(every) if every else float("nan")))
    against = [a for a in args.against.split(",") if a in stat]
    if against:
        held = [args.of] if args.of in stat else [b for b in builds if b not in against]
        for b in held:
            # held two ways: against the better of the other builds' medians
            # over their processes (the target's "the better of A and C"),
            # and against their single best process (stricter: one lucky
            # process of a build whose times spread 4x sets it)
            worse = []
            for k in keys:
                best = min(stat[a][k][1] for a in against)
                better_median = min(stat[a][k][0] for a in against)
                ratio, ratio_med = stat[b][k][0] / best, stat[b][k][0] / better_median
                if ratio > 1.05 or ratio_med > 1.05:
                    worse.append((ratio_med, ratio, k))
            worse.sort(reverse=True)
            n_med = sum(1 for w in worse if w[0] > 1.05)
            print("%s: median more than 5%% above the better median of %s in %d of %d results, above their best "
                  "process in %d%s" % (b, "/".join(against), n_med, len(keys), sum(1 for w in worse if w[1] > 1.05),
                                       " (ratios: to the better median, to the best process):" if worse else ""))
            for ratio_med, ratio, k in worse:
                print("  %.2fx %.2fx  %s" % (ratio_med, ratio, k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
