#!/usr/bin/python3
"""energy_check.py OUTDIR — the checks of issue #28 on what
scripts/dev/energy-gpu-check.sh left in OUTDIR (docs/energy.md):

  run1.json        the default suite, --energy auto
  run2.json        GEMM and elementwise 8192 on the GPU alone, --energy on,
                   --min-time 3s (long phases), one round
  energy-log.jsonl every energy window of both runs with its Unix times
                   (GPUBENCH_ENERGY_LOG)
  smi.csv          nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,...
                   every 100 ms from a separate process

Writes checks.txt (and prints it): each check PASS / FAIL / N/A with its
numbers. Any file may be missing or partial (a run that timed out): the
checks that need it say N/A, never crash. Python 3 standard library only."""
import datetime
import json
import os
import sys

TOL_INDEPENDENT = 0.05   # J/op against the independent reader
MIN_WINDOW_S = 2.0       # NVML's power.draw averages over ~1 s: compare only longer windows
SKIP_HEAD_S = 1.0        # and leave out each window's first second (the average still catching up)


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"_error": "%s: %s" % (path, e)}


def results(doc):
    """(case, result) pairs of a results document."""
    for c in doc.get("cases") or []:
        for r in c.get("results") or []:
            if isinstance(r, dict):
                yield c, r


def key(c, r):
    return (c.get("op"), c.get("dtype"), c.get("label"), json.dumps(c.get("params") or {}, sort_keys=True),
            r.get("backend"), r.get("timing"), (r.get("device") or {}).get("index"))


def parse_smi(path):
    """[(unix time, watts, sm MHz, reasons text)] of nvidia-smi's CSV log (lines that parse)."""
    rows = []
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError:
        return rows
    with f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) < 3:
                continue
            try:
                # "2026/11/26 07:00:00.123": the local time of the host, as time.time() reads it
                t = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
                w = float(parts[1].split()[0])
                sm = float(parts[2].split()[0]) if parts[2] not in ("", "[N/A]") else float("nan")
            except (ValueError, IndexError):
                continue
            rows.append((t, w, sm, parts[4] if len(parts) > 4 else ""))
    return rows


def parse_log(path):
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    except OSError:
        pass
    return out


def mean_power(smi, t0, t1):
    ws = [w for (t, w, _, _) in smi if t0 <= t <= t1]
    return (sum(ws) / len(ws), len(ws)) if ws else (float("nan"), 0)


def fmt(v, d=3):
    return "n/a" if v is None or v != v else ("%.*g" % (d, v))


def check_power_range(lines, doc, ops, what):
    """Each measured GPU device result of ops: idle < power <= limit."""
    found = False
    ok_all = True
    for c, r in results(doc):
        e = r.get("energy") or {}
        if c.get("op") not in ops or r.get("timing") != "device" or e.get("status") != "measured":
            continue
        if "8192" not in str(c.get("label")):
            continue
        found = True
        p, idle, lim = e.get("power_w"), e.get("idle_w"), e.get("power_limit_w")
        ok = isinstance(p, (int, float)) and isinstance(idle, (int, float)) and p > idle and (
            not isinstance(lim, (int, float)) or p <= lim * 1.02)
        ok_all &= ok
        clk = r.get("clocks") or {}
        lines.append("  %s %-8s %-18s %s: %s W (idle %s W, limit %s W, bound %s%%, J/op %s, %s %s/J) sm %s MHz %s%s" % (
            "ok  " if ok else "BAD ", c.get("dtype"), c.get("label"), json.dumps(c.get("params") or {}), fmt(p),
            fmt(idle), fmt(lim), fmt((e.get("bound") or 0) * 100, 2), fmt(e.get("j_per_op")),
            fmt(e.get("gflop_per_j") if e.get("gflop_per_j") is not None else e.get("gb_per_j")),
            "GFLOP" if e.get("gflop_per_j") is not None else "GB", fmt(clk.get("sm_mhz"), 4),
            ",".join(clk.get("reasons") or []), " POWER-CAPPED" if clk.get("power_limited") else ""))
    verdict = "N/A (no measured %s 8192 device result)" % what if not found else ("PASS" if ok_all else "FAIL")
    return verdict


def main(outdir):
    lines = []
    run1 = load_json(os.path.join(outdir, "run1.json"))
    run2 = load_json(os.path.join(outdir, "run2.json"))
    smi = parse_smi(os.path.join(outdir, "smi.csv"))
    log = parse_log(os.path.join(outdir, "energy-log.jsonl"))
    for name, d in (("run1.json", run1), ("run2.json", run2)):
        if "_error" in d:
            lines.append("note: %s" % d["_error"])
    lines.append("independent reader: %d nvidia-smi samples; energy log: %d windows" % (len(smi), len(log)))

    # 1. GEMM 8192: average power between idle and the enforced limit
    sub = []
    v = check_power_range(sub, run1, ("matmul",), "matmul")
    lines.append("1. GEMM 8192 average power between idle and the enforced limit (run1): %s" % v)
    lines.extend(sub)
    # 2. elementwise: its power (bandwidth-bound: well below GEMM's)
    sub = []
    v = check_power_range(sub, run1, ("elementwise",), "elementwise")
    lines.append("2. elementwise 8192 power between idle and the limit (run1): %s" % v)
    lines.extend(sub)

    # 3. J/op against the independent reader, windows >= MIN_WINDOW_S
    n = bad = 0
    sub = []
    for w in log:
        if w.get("backend") == "cpu" or (w.get("seconds") or 0) < MIN_WINDOW_S:
            continue
        t0, t1 = w["unix_start"] + SKIP_HEAD_S, w["unix_end"]
        p_smi, ns = mean_power(smi, t0, t1)
        if ns < 5:
            continue
        p_gb = w["energy_j"] / w["seconds"]
        jop_gb = p_gb * w["span_s"] / w["reps"]
        jop_smi = p_smi * w["span_s"] / w["reps"]
        dev = abs(jop_gb - jop_smi) / jop_smi
        n += 1
        bad += dev > TOL_INDEPENDENT
        sub.append("  %s %s %s %s %s: %.1f s, gpubench %s W (%s J/op), nvidia-smi %s W over %d samples (%s J/op): %+.1f%%%s" % (
            "ok  " if dev <= TOL_INDEPENDENT else "BAD ", w.get("op"), w.get("dtype"), w.get("label"), w.get("timing"),
            w["seconds"], fmt(p_gb, 4), fmt(jop_gb, 4), fmt(p_smi, 4), ns, fmt(jop_smi, 4),
            100 * (jop_gb - jop_smi) / jop_smi, "" if dev <= TOL_INDEPENDENT else " (beyond 5%)"))
    lines.append("3. J/op against nvidia-smi power.draw (separate process), windows >= %.0f s: %s" % (
        MIN_WINDOW_S, "N/A (no window long enough with reader samples)" if n == 0 else
        "PASS (%d windows)" % n if bad == 0 else "FAIL (%d of %d beyond 5%%)" % (bad, n)))
    lines.extend(sub)

    # 4. the second run's J/op intervals overlap the first's
    first = {key(c, r): r for c, r in results(run1)}
    n = bad = 0
    sub = []
    for c, r in results(run2):
        e2 = r.get("energy") or {}
        r1 = first.get(key(c, r))
        e1 = (r1 or {}).get("energy") or {}
        if e2.get("status") != "measured" or e1.get("status") != "measured":
            continue
        # the counter's bound and the op's own spread (docs/energy.md)
        j1, b1 = e1["j_per_op"], (e1.get("bound") or 0) + (e1.get("spread") or 0)
        j2, b2 = e2["j_per_op"], (e2.get("bound") or 0) + (e2.get("spread") or 0)
        lo1, hi1, lo2, hi2 = j1 * (1 - b1), j1 * (1 + b1), j2 * (1 - b2), j2 * (1 + b2)
        overlap = lo1 <= hi2 and lo2 <= hi1
        n += 1
        bad += not overlap
        sub.append("  %s %s %s %s %s: run1 %s J/op ±%s%%, run2 %s J/op ±%s%% (%+.1f%%)" % (
            "ok  " if overlap else "BAD ", c.get("op"), c.get("dtype"), c.get("label"), r.get("timing"), fmt(j1, 4),
            fmt(100 * b1, 2), fmt(j2, 4), fmt(100 * b2, 2), 100 * (j2 - j1) / j1))
    lines.append("4. two runs' J/op intervals overlap: %s" % (
        "N/A (no result measured in both runs)" if n == 0 else "PASS (%d results)" % n if bad == 0 else
        "FAIL (%d of %d do not overlap)" % (bad, n)))
    lines.extend(sub)

    # 5. power-capped results, and what the CPU side said
    capped = ["%s %s %s (%s)" % (c.get("op"), c.get("dtype"), c.get("label"), r.get("timing"))
              for doc in (run1, run2) for c, r in results(doc) if (r.get("clocks") or {}).get("power_limited")]
    lines.append("5. power-capped results (clocks.power_limited): %d%s" % (
        len(capped), (": " + "; ".join(capped[:12]) + (" ..." if len(capped) > 12 else "")) if capped else ""))
    reasons = sorted(set((r.get("energy") or {}).get("reason", "") for c, r in results(run1)
                         if r.get("backend") == "cpu" and (r.get("energy") or {}).get("status") == "not_measured"))
    lines.append("   CPU energy: %s" % ("; ".join(reasons) if reasons else "measured or absent"))
    warn = [w for w in (run1.get("warnings") or []) if "limited" in w]
    for w in warn:
        lines.append("   warning: %s" % w)

    # 6. the budget: the default run's wall time and what energy cost
    tb = run1.get("time_breakdown") or {}
    m = [1 for c, r in results(run1) if (r.get("energy") or {}).get("status") == "measured"]
    ext = [1 for c, r in results(run1) if (r.get("energy") or {}).get("phase") == "timed+energy"]
    b = sorted((r.get("energy") or {}).get("bound") for c, r in results(run1)
               if (r.get("energy") or {}).get("status") == "measured")
    lines.append("6. default run: wall %s s (budget 300 s: %s), energy_s %s s; %d results measured, %d extended, "
                 "bound median %s%%, worst %s%%, at most 2%%: %d" % (
                     fmt(tb.get("wall_s"), 4), "PASS" if (tb.get("wall_s") or 1e9) <= 300 else "FAIL/N/A",
                     fmt(tb.get("energy_s"), 3), len(m), len(ext), fmt(100 * b[len(b) // 2], 2) if b else "n/a",
                     fmt(100 * b[-1], 3) if b else "n/a", sum(1 for x in b if x <= 0.02)))
    text = "\n".join(lines) + "\n"
    try:
        with open(os.path.join(outdir, "checks.txt"), "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print("energy_check.py: %s" % e, file=sys.stderr)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: energy_check.py OUTDIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
