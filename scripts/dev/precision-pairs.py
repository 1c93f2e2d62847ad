#!/usr/bin/env python3
"""precision-pairs.py — gpubench against PyTorch, pair by pair (issue #27's
check; used by precision-check.sh and precision-gpu-check.sh).

    precision-pairs.py --torch T.jsonl GB-1.json GB-2.json ...

Pair i is the i-th gpubench file and the i-th PyTorch line of each (device,
dtype) in T.jsonl (torch-gemm-peer.py's output, run right after it: A B A B).
Per side (cpu: the CPU backend; cuda: the GPU's device timing) and dtype: each
pair's time ratio gpubench median / PyTorch median, their geometric mean and
the 95% upper bound of it (t interval on the log ratios); "within 5%" means
that bound is at most 1.05. Also the cuBLASLt algorithm each gpubench GPU
result kept (extra.plan) and the CPU library that ran. A Markdown table on
stdout."""
import argparse
import json
import math
import statistics

T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def side_of(r):
    if r["backend"] == "cpu":
        return "cpu"
    return "cuda" if r.get("timing") == "device" else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch", required=True)
    ap.add_argument("gb", nargs="+")
    a = ap.parse_args()
    torch = []
    try:
        torch = [json.loads(l) for l in open(a.torch) if l.startswith("{")]
    except OSError as e:
        print("no PyTorch lines:", e)
    tp = {}
    for t in torch:
        tp.setdefault((t["device"], t["dtype"]), []).append(t.get("median_s"))
    rows, how = {}, {}
    for i, path in enumerate(a.gb):
        try:
            d = json.load(open(path))
        except (OSError, ValueError) as e:
            print("pair %d: no gpubench file (%s)" % (i + 1, e))
            continue
        for c in d.get("cases", []):
            for r in c.get("results", []):
                side = side_of(r)
                if not side or r.get("status") != "ok":
                    continue
                rows.setdefault((side, c["dtype"]), {})[i] = (r["stats"]["median"], r.get("gflops"))
                x = r.get("extra") or {}
                how.setdefault((side, c["dtype"]), set()).add(
                    x.get("plan") or "%s %s" % (x.get("library", "?"), x.get("implementation", x.get("routine", ""))))
    print("| side, dtype | gpubench median s (per pair) | GFLOP/s | PyTorch median s | ratio per pair | "
          "geo-mean | 95% upper | within 5%? | gpubench ran |")
    print("| --- | --- | ---: | --- | --- | ---: | ---: | --- | --- |")
    for (side, dt), per in sorted(rows.items()):
        t = tp.get(("cuda" if side == "cuda" else "cpu", dt), [])
        pairs = [(per[i][0], t[i]) for i in sorted(per) if i < len(t) and t[i]]
        gf = statistics.median([per[i][1] for i in per if per[i][1]] or [float("nan")])
        ran = "; ".join(sorted(how.get((side, dt), [])))
        if not pairs:
            print("| %s %s | %s | %.0f | no peer | | | | | %s |" % (side, dt, [round(per[i][0], 5) for i in sorted(per)],
                                                               gf, ran))
            continue
        logs = [math.log(g / p) for g, p in pairs]
        m = statistics.mean(logs)
        sd = statistics.stdev(logs) if len(logs) > 1 else float("nan")
        up = math.exp(m + T95.get(len(logs) - 1, 2.0) * sd / math.sqrt(len(logs))) if len(logs) > 1 else float("nan")
        verdict = "yes" if up <= 1.05 else ("faster" if math.exp(m) < 0.95 and up <= 1.05 else "**no**")
        print("| %s %s | %s | %.0f | %s | %s | %.3f | %.3f | %s | %s |" % (
            side, dt, [round(g, 5) for g, _ in pairs], gf, [round(p, 5) for _, p in pairs],
            [round(math.exp(x), 3) for x in logs], math.exp(m), up, verdict, ran))


if __name__ == "__main__":
    main()
