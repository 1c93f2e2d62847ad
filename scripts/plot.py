#!/usr/bin/python3
"""Plot a gpubench results file (docs/results-schema.md).

usage: plot.py RESULTS.json [--out DIR] [--format png|svg]

Writes, per op and dtype, <op>_<dtype>.<fmt> with three panels:
  time vs size (log-log; CPU, GPU device-resident, GPU end-to-end; error bars
  from the 95% confidence interval of the median),
  speedup vs size (CPU median / GPU median; above the line at 1x the GPU
  wins, below it the CPU does),
  achieved rate vs size (GFLOP/s or GB/s) with the measured ceilings of the
  run's "peaks" as horizontal lines;
and overview.<fmt> with every op's speedup. Titles name the CPU, the GPU and
the dtype. A CPU-only result gets the panels it has data for.

Size axis: n for square cases; the geometric mean of the dimensions for
explicit shapes (e.g. [10000, 1000] -> 3162).

Needs Python 3 and matplotlib (Debian: python3-matplotlib); nothing else.
"""
import argparse
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402

SIDES = [  # (key, legend label, colour, marker)
    ("cpu", "CPU", "#1f77b4", "o"),
    ("device", "GPU device-resident", "#d62728", "s"),
    ("end_to_end", "GPU end-to-end", "#ff7f0e", "^"),
]


def scalar_size(case):
    shape = case.get("shape") or []
    dims = [d for d in shape if isinstance(d, (int, float)) and d > 0]
    if not dims:
        return None
    if all(d == dims[0] for d in dims):
        return float(dims[0])
    return math.exp(sum(math.log(d) for d in dims) / len(dims))


def side_of(result):
    if result.get("backend") == "cpu":
        return "cpu"
    return result.get("timing")  # "device" | "end_to_end"


def params_label(params):
    return ", ".join("%s=%s" % (k, json.dumps(v) if not isinstance(v, str) else v)
                     for k, v in (params or {}).items())


def group_cases(cases):
    """{(op, dtype, run): {params_label: [case, ...]}} in file order (run: index
    in a merged file's "runs", 0 otherwise)."""
    groups = {}
    for c in cases:
        key = (c.get("op", "?"), c.get("dtype", "?"), c.get("run", 0))
        groups.setdefault(key, {}).setdefault(params_label(c.get("params")), []).append(c)
    return groups


def series(cases, side):
    """Points (size, median, lo, hi, rate) of one side over a sweep, sorted by size."""
    pts = []
    for c in cases:
        size = scalar_size(c)
        if size is None:
            continue
        for r in c.get("results", []):
            if side_of(r) != side or r.get("status") != "ok":
                continue
            st = r.get("stats") or {}
            med = st.get("median")
            if not isinstance(med, (int, float)) or med <= 0:
                continue
            lo = st.get("ci95_low", med)
            hi = st.get("ci95_high", med)
            rate = r.get("gbs") if c.get("rate_kind") == "bytes" else r.get("gflops")
            pts.append((size, med, lo, hi, rate))
    pts.sort(key=lambda p: p[0])
    return pts


def speedups(cases, timing):
    pts = []
    for c in cases:
        size = scalar_size(c)
        sp = (c.get("speedup") or {}).get(timing)
        if size is not None and isinstance(sp, (int, float)) and sp > 0:
            pts.append((size, sp))
    pts.sort()
    return pts


def run_of(results, run):
    """The object holding a run's context and peaks (merged files: runs[run])."""
    runs = results.get("runs")
    if isinstance(runs, list) and 0 <= run < len(runs):
        return runs[run]
    return results


def run_name(results, run):
    r = run_of(results, run)
    return r.get("name") or (r.get("context") or {}).get("hostname") or "run%d" % run


def machine(results):
    ctx = results.get("context") or {}
    cpu = (ctx.get("cpu") or {}).get("model") or "unknown CPU"
    threads = ctx.get("cpu_threads_used")
    if threads:
        cpu = "%s (%d threads)" % (cpu, threads)
    gpu = (ctx.get("gpu") or {}).get("name")
    if not gpu:
        reason = ((ctx.get("backends") or {}).get("cuda") or {}).get("reason")
        gpu = "no GPU" + (" (%s)" % reason if reason else "")
    return cpu, gpu


def peak_lines(results, cases):
    """The ceilings the cases' results were judged against: {label: value}."""
    peaks = results.get("peaks") or {}
    lines = {}
    for c in cases:
        for r in c.get("results", []):
            name = r.get("peak")
            if not isinstance(name, str) or "." not in name:
                continue
            backend, key = name.split(".", 1)
            value = (peaks.get(backend) or {}).get(key)
            if isinstance(value, (int, float)) and value > 0:
                lines["%s peak %s" % ("CPU" if backend == "cpu" else "GPU", key)] = value
    return lines


def size_note(cases):
    if any(scalar_size(c) is not None and len(set(c.get("shape") or [])) > 1 for c in cases):
        return "size n (geometric mean of the dimensions for non-square shapes)"
    return "size n"


def empty(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_xticks([])
    ax.set_yticks([])


def plot_group(doc, op, dtype, run, by_params, out, fmt):
    results = run_of(doc, run)
    merged = isinstance(doc.get("runs"), list)
    cpu, gpu = machine(results)
    all_cases = [c for cs in by_params.values() for c in cs]
    rate_unit = "GB/s" if all_cases and all_cases[0].get("rate_kind") == "bytes" else "GFLOP/s"
    fig, (ax_t, ax_s, ax_r) = plt.subplots(1, 3, figsize=(17, 5.2))
    fig.suptitle("%s, %s — CPU: %s · GPU: %s" % (op, dtype, cpu, gpu), fontsize=11)
    linestyles = ["-", "--", ":", "-."]
    any_time = any_speed = any_rate = False
    for i, (plabel, cases) in enumerate(by_params.items()):
        ls = linestyles[i % len(linestyles)]
        suffix = " [%s]" % plabel if len(by_params) > 1 and plabel else ""
        for side, label, colour, marker in SIDES:
            pts = series(cases, side)
            if not pts:
                continue
            x = [p[0] for p in pts]
            y = [p[1] * 1e3 for p in pts]
            err = [[max(0.0, (p[1] - p[2]) * 1e3) for p in pts], [max(0.0, (p[3] - p[1]) * 1e3) for p in pts]]
            ax_t.errorbar(x, y, yerr=err, color=colour, marker=marker, linestyle=ls, capsize=3,
                          label=label + suffix)
            any_time = True
            rates = [(p[0], p[4]) for p in pts if isinstance(p[4], (int, float)) and p[4] > 0]
            if rates and side != "end_to_end":
                ax_r.plot([r[0] for r in rates], [r[1] for r in rates], color=colour, marker=marker,
                          linestyle=ls, label=label + suffix)
                any_rate = True
        for timing, label, colour, marker in SIDES[1:]:
            pts = speedups(cases, timing)
            if pts:
                ax_s.plot([p[0] for p in pts], [p[1] for p in pts], color=colour, marker=marker,
                          linestyle=ls, label=label + suffix)
                any_speed = True
    xlabel = size_note(all_cases)
    if any_time:
        ax_t.set_xscale("log")
        ax_t.set_yscale("log")
        ax_t.set_xlabel(xlabel)
        ax_t.set_ylabel("median time (ms), bars: 95% CI")
        ax_t.grid(True, which="both", alpha=0.3)
        ax_t.legend(fontsize=8)
    else:
        empty(ax_t, "no successful timings")
    ax_t.set_title("time")
    if any_speed:
        ax_s.axhline(1.0, color="black", linewidth=1)
        ax_s.set_xscale("log")
        ax_s.set_yscale("log")
        ax_s.set_xlabel(xlabel)
        ax_s.set_ylabel("speedup = CPU time / GPU time (above 1: GPU faster)")
        ax_s.grid(True, which="both", alpha=0.3)
        ax_s.legend(fontsize=8)
    else:
        empty(ax_s, "no speedup: needs both CPU and GPU results")
    ax_s.set_title("speedup")
    if any_rate:
        for j, (label, value) in enumerate(sorted(peak_lines(results, all_cases).items())):
            colour = "#1f77b4" if label.startswith("CPU") else "#d62728"
            ax_r.axhline(value, color=colour, linestyle=(0, (4, 2 + j)), linewidth=1,
                         label="%s = %.4g" % (label, value))
        ax_r.set_xscale("log")
        ax_r.set_yscale("log")
        ax_r.set_xlabel(xlabel)
        ax_r.set_ylabel("achieved %s (device-resident for the GPU)" % rate_unit)
        ax_r.grid(True, which="both", alpha=0.3)
        ax_r.legend(fontsize=8)
    else:
        empty(ax_r, "no rates recorded")
    ax_r.set_title("achieved rate vs measured ceilings")
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    stem = "%s_%s" % (safe(op), safe(dtype)) + ("_" + safe(run_name(doc, run)) if merged else "")
    path = os.path.join(out, "%s.%s" % (stem, fmt))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_overview(doc, groups, out, fmt):
    merged = isinstance(doc.get("runs"), list)
    cpu, gpu = machine(run_of(doc, 0)) if not merged else ("see each run", "see each run")
    dtypes = sorted({dt for (_, dt, _) in groups})
    fig, axes = plt.subplots(1, 2, figsize=(14, 5.5), sharey=True)
    fig.suptitle("Speedup of every op (%s) — CPU: %s · GPU: %s" % (", ".join(dtypes), cpu, gpu), fontsize=11)
    cmap = plt.get_cmap("tab10")
    ops = sorted({op for (op, _, _) in groups}, key=lambda o: list(k[0] for k in groups).index(o))
    drawn = False
    for ax, timing, title in ((axes[0], "device", "GPU device-resident"), (axes[1], "end_to_end", "GPU end-to-end")):
        for (op, dtype, run), by_params in groups.items():
            colour = cmap(ops.index(op) % 10)
            for i, (plabel, cases) in enumerate(by_params.items()):
                pts = speedups(cases, timing)
                if not pts:
                    continue
                label = "%s %s" % (op, dtype) + (" @%s" % run_name(doc, run) if merged else "") + (" [%s]" % plabel if len(by_params) > 1 and plabel else "")
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=colour,
                        linestyle=["-", "--", ":", "-."][(i + dtypes.index(dtype)) % 4], label=label)
                drawn = True
        ax.set_title(title)
        if drawn:
            ax.axhline(1.0, color="black", linewidth=1)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("size n (geometric mean of the dimensions for non-square shapes)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7, ncol=2)
        else:
            empty(ax, "no speedups: needs both CPU and GPU results")
    axes[0].set_ylabel("speedup = CPU time / GPU time (above 1: GPU faster)")
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    path = os.path.join(out, "overview.%s" % fmt)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def safe(name):
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(name))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Plot a gpubench results file.")
    ap.add_argument("results", help="results JSON written by `gpubench run`")
    ap.add_argument("--out", default="plots", help="output directory (default: plots)")
    ap.add_argument("--format", choices=("png", "svg"), default="png")
    args = ap.parse_args(argv)
    try:
        with open(args.results, encoding="utf-8") as f:
            results = json.load(f)
    except (OSError, ValueError) as e:
        print("plot.py: %s: %s" % (args.results, e), file=sys.stderr)
        return 2
    if not isinstance(results, dict) or results.get("schema") != "gpubench-results":
        print("plot.py: %s: not a gpubench results file" % args.results, file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    groups = group_cases(results.get("cases") or [])
    written = [plot_group(results, op, dtype, run, by_params, args.out, args.format)
               for (op, dtype, run), by_params in groups.items()]
    written.append(plot_overview(results, groups, args.out, args.format))
    for p in written:
        print("wrote %s" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
