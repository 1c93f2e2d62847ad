#!/usr/bin/python3
"""Plot a gpubench results file (docs/results-schema.md).

usage: plot.py RESULTS.json [MORE.json ...] [--out DIR] [--format png|svg] [--op LIST] [--dtype LIST]

Several files (or a file of `gpubench merge`) are drawn overlaid: each run is
its own series (shade and hollow markers), named by its file, e.g. a
laptop's CPU and an H100 host's CPU and GPU in one figure.

Writes, for each op and dtype, <op>_<dtype>.<fmt>:
  time vs n (log-log; CPU, GPU device-resident, GPU end-to-end; bars: the
  95% confidence interval of the median),
  speedup vs n (CPU median / GPU median, the 1x line labelled, every
  crossing of it marked),
  achieved rate vs n (GFLOP/s or GB/s; the GPU's from its device-resident
  time) with the run's measured ceilings as labelled horizontal lines;
and overview.<fmt>: one small panel per op with every speedup (device-
resident: green, solid, squares; end-to-end: orange, dashed, triangles), or
every op's CPU time when no run in the file has a GPU.

Series: colour family and marker name the side (CPU blue circles, GPU
device-resident green squares, GPU end-to-end orange triangles); each params
variant (math=tf32, a second density), dtype in the overview, and run of a
merged file is its own series, told apart by shade and hollow markers. The x
axis is n of the square cases (n x n, or n x n x n for matmul), ticked at the
sizes that were run. Non-square shapes (e.g. svd 10000x1000) are their own
series: unjoined markers at the geometric mean of the dimensions, labelled
with the shape. Crossings of 1x come from the results' "crossover" entries;
for a file written before they listed every change, or a sweep that mixes
shapes, they are recomputed the same way (log-log interpolation) over the
square sweep the plot draws.

Titles name the op, the dtype, the params, the CPU model and thread count and
the GPU. --op and --dtype (comma-separated) draw only those ops / dtypes.

Needs Python 3 and matplotlib (Debian: python3-matplotlib); nothing else.
Exit status: 0 written, 2 usage error, unreadable input or no matplotlib.
"""
import argparse
import io
import json
import math
import os
import sys

plt = None  # matplotlib.pyplot, imported by load_matplotlib()
Line2D = None
HandlerTuple = None
ticker = None

# side: (legend label, shades dark to light, marker, line style)
SIDES = {
    "cpu": ("CPU", ["#1f5fa8", "#7fb2e0", "#0b2f5e", "#4a90d0"], "o", "-"),
    "device": ("GPU device-resident", ["#1b7f3b", "#7cc98a", "#0b4a1f", "#3fa85a"], "s", "-"),
    "end_to_end": ("GPU end-to-end", ["#d9620a", "#f5b272", "#8a3a00", "#f08a30"], "^", (0, (5, 2.5))),
    # only the ops whose work splits into chunks have it (elementwise, reduction, slicing)
    "end_to_end_overlapped": ("GPU end-to-end overlapped", ["#8e3fb0", "#c99ae0", "#4f1a66", "#a866cc"], "v",
                              (0, (1.5, 1.5))),
}
HOLLOW = [False, True, True, False]  # marker fill by variant (with the shade)
TIMINGS = ("device", "end_to_end", "end_to_end_overlapped")
DPI = 100

OP_X = {  # what n is, per op
    "matmul": "n (m = k = n)",
    "elementwise": "n (n×n elements)",
    "reduction": "n (n×n elements)",
    "fft": "n (n×n 2-D FFT)",
    "solve": "n (n×n system)",
    "spgemm": "n (n×n sparse matrices)",
    "svd": "n (n×n matrix)",
    "transfer": "bytes copied (each way for direction both)",
    "batched_matmul": "n (each product m = k = n)",
    "stencil": "n (n×n grid)",
    "slicing": "n (n×n array)",
}


def load_matplotlib():
    """Import matplotlib (Agg backend); None with a one-line message when it is missing."""
    global plt, Line2D, HandlerTuple, ticker
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display needed; must precede pyplot
        import matplotlib.pyplot as pyplot
        from matplotlib import ticker as tk
        from matplotlib.lines import Line2D as l2d
        from matplotlib.legend_handler import HandlerTuple as ht
    except ImportError as e:
        py = sys.executable or "python3"
        return ("plot.py: %s (Python %d.%d) cannot import matplotlib (%s): install it "
                "(Debian/Ubuntu: apt-get install python3-matplotlib; elsewhere: %s -m pip install "
                "matplotlib)" % (py, sys.version_info[0], sys.version_info[1],
                                 str(e).splitlines()[0] if str(e) else type(e).__name__, py))
    except Exception as e:  # a broken install: say so in one line
        return "plot.py: matplotlib is installed but fails to load: %s: %s" % (
            type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    plt, Line2D, HandlerTuple, ticker = pyplot, l2d, ht, tk
    plt.rcParams.update({
        "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "xtick.labelsize": 9,
        "ytick.labelsize": 9, "legend.fontsize": 9, "axes.spines.top": False,
        "axes.spines.right": False, "svg.hashsalt": "gpubench",
    })
    return None


# ---- reading the results -------------------------------------------------------


def runs_of(doc):
    runs = doc.get("runs")
    return runs if isinstance(runs, list) and runs else [doc]


def is_merged(doc):
    return isinstance(doc.get("runs"), list)


RUN_KEYS = ("context", "peaks", "warnings", "suite", "health", "complete", "interrupted", "summary",
            "gpubench_version")


def combine(docs, paths):
    """Several results files as one merged document, the form `gpubench merge`
    writes (runs, and cases naming their run), so that every run is a series
    of its own: overlaid plots. A single-run file's run is named by its file
    (two hosts are often both called "vm"); a merged file's runs keep theirs."""
    runs, cases, crossover = [], [], []
    for doc, path in zip(docs, paths):
        base = len(runs)
        stem = os.path.splitext(os.path.basename(path))[0]
        for r in runs_of(doc):
            run = dict(r) if is_merged(doc) else {k: doc[k] for k in RUN_KEYS if k in doc}
            run["name"] = run.get("name") or stem
            run.setdefault("source", path)
            runs.append(run)
        for key, out in (("cases", cases), ("crossover", crossover)):
            for c in doc.get(key) or []:
                if isinstance(c, dict):
                    c = dict(c)
                    c["run"] = base + (c.get("run") or 0)
                    out.append(c)
    return {"schema": "gpubench-results", "schema_version": 1, "runs": runs, "cases": cases,
            "crossover": crossover, "warnings": []}


def dims(case):
    shape = case.get("shape") or []
    return [d for d in shape if isinstance(d, (int, float)) and not isinstance(d, bool) and d > 0]


def is_square(case):
    d = dims(case)
    return bool(d) and all(x == d[0] for x in d)


def size_of(case):
    """n for square shapes, the geometric mean of the dimensions otherwise (as the report)."""
    d = dims(case)
    if not d:
        return None
    if all(x == d[0] for x in d):
        return float(d[0])
    return math.exp(sum(math.log(x) for x in d) / len(d))


def shape_class(case):
    """None for a square case; for a non-square one, its proportions (so 10000x1000
    and 20000x2000 would form one series)."""
    d = dims(case)
    if not d or is_square(case):
        return None
    return tuple(round(math.log2(x / d[0]), 3) for x in d)


def shape_label(case):
    d = dims(case)
    return case.get("label") and case["label"].replace("x", "×") or "×".join("%g" % x for x in d)


def first_device_only(cases):
    """A run over several devices (--devices) has a GPU result per device and
    results of all devices at once: the plots draw each case's first device
    alone (the one its "speedup" is against; `gpubench report` has a row per
    device), so that no line mixes devices."""
    for c in cases:
        first = None
        for r in c.get("results") or []:
            dev = r.get("device") if isinstance(r.get("device"), dict) else None
            if "concurrent" in r:
                r["_not_drawn"] = True
            elif dev is not None:
                if first is None:
                    first = dev.get("index")
                if dev.get("index") != first:
                    r["_not_drawn"] = True


def side_of(result):
    if result.get("_not_drawn"):
        return None
    if result.get("backend") == "cpu":
        return "cpu"
    t = result.get("timing")
    return t if t in TIMINGS else None


def fmt_param(v):
    return v if isinstance(v, str) else json.dumps(v)


def machine(run):
    """('CPU model, N threads', 'GPU name' or None, why no GPU)."""
    ctx = run.get("context") or {}
    cpu = (ctx.get("cpu") or {}).get("model") or "unknown CPU"
    cpu = " ".join(cpu.split())
    threads = ctx.get("cpu_threads_used")
    if isinstance(threads, int) and threads > 0:
        cpu = "%s, %d thread%s" % (cpu, threads, "" if threads == 1 else "s")
    gpu = (ctx.get("gpu") or {}).get("name")
    reason = None
    if not gpu:
        reason = ((ctx.get("backends") or {}).get("cuda") or {}).get("reason") or "none in this run"
    return cpu, gpu, reason


def machine_line(run, name=None):
    cpu, gpu, reason = machine(run)
    text = "CPU: %s · GPU: %s" % (cpu, gpu if gpu else "none (%s)" % short_reason(reason))
    return "%s — %s" % (name, text) if name else text


def short_reason(reason):
    reason = str(reason)
    cut = reason.find(" (")
    return reason[:cut] if cut > 0 else reason


def run_name(doc, i):
    runs = runs_of(doc)
    r = runs[i] if 0 <= i < len(runs) else {}
    return r.get("name") or (r.get("context") or {}).get("hostname") or "run %d" % i


# ---- series ---------------------------------------------------------------------


class Variant:
    """One (run, dtype, params) of a figure or overview panel: its own series.
    index picks its shade and marker fill; label names only what differs."""

    def __init__(self, run, dtype, params, index):
        self.run, self.dtype, self.params, self.index = run, dtype, params or {}, index
        self.cases = []
        self.label = ""


def variants_of(cases, doc, with_dtype=False):
    """Split the cases of one figure (or overview panel) into variants, in file order,
    and label each by what differs between them. Returns (variants, the params they
    share as "k=v, ...", the params that differ as "k: a / b")."""
    out = {}
    for c in cases:
        key = (c.get("run", 0), c.get("dtype") if with_dtype else None,
               json.dumps(c.get("params") or {}, sort_keys=True))
        if key not in out:
            out[key] = Variant(c.get("run", 0), c.get("dtype"), c.get("params"), len(out))
        out[key].cases.append(c)
    vs = list(out.values())
    keys = []
    for v in vs:
        for k in v.params:
            if k not in keys:
                keys.append(k)
    varying = [k for k in keys if len({json.dumps(v.params.get(k)) for v in vs}) > 1]
    common = [k for k in keys if k not in varying]
    runs = {v.run for v in vs}
    dtypes = {v.dtype for v in vs}
    for v in vs:
        parts = []
        if with_dtype and len(dtypes) > 1:
            parts.append(str(v.dtype))
        parts += ["%s=%s" % (k, fmt_param(v.params[k])) for k in varying if k in v.params]
        v.label = ", ".join(parts)
        if len(runs) > 1 or (is_merged(doc) and len(runs_of(doc)) > 1):
            v.label = (v.label + " @" if v.label else "@") + run_name(doc, v.run)
    common_text = ", ".join("%s=%s" % (k, fmt_param(vs[0].params[k])) for k in common if k in vs[0].params)
    varying_text = "; ".join("%s: %s" % (k, " / ".join(dict.fromkeys(
        fmt_param(v.params[k]) for v in vs if k in v.params))) for k in varying)
    return vs, common_text, varying_text


def split_shapes(cases):
    """[(None, square cases), (class, non-square cases), ...]: square sweep first."""
    groups = {}
    for c in cases:
        if size_of(c) is None:
            continue
        groups.setdefault(shape_class(c), []).append(c)
    order = sorted(groups, key=lambda k: (k is not None, str(k)))
    return [(k, groups[k]) for k in order]


def time_points(cases, side):
    """[(size, median, lo, hi, rate, case)] of one side, sorted by size."""
    pts = []
    for c in cases:
        size = size_of(c)
        if size is None:
            continue
        for r in c.get("results") or []:
            if side_of(r) != side or r.get("status") != "ok":
                continue
            st = r.get("stats") or {}
            med = st.get("median")
            if not isinstance(med, (int, float)) or med <= 0:
                continue
            lo = st.get("ci95_low") if isinstance(st.get("ci95_low"), (int, float)) else med
            hi = st.get("ci95_high") if isinstance(st.get("ci95_high"), (int, float)) else med
            rate = r.get("gbs") if c.get("rate_kind") == "bytes" else r.get("gflops")
            pts.append((size, med, lo, hi, rate if isinstance(rate, (int, float)) and rate > 0 else None, c))
    pts.sort(key=lambda p: p[0])
    return pts


def speedup_points(cases, timing):
    pts = []
    for c in cases:
        sp = (c.get("speedup") or {}).get(timing)
        if size_of(c) and isinstance(sp, (int, float)) and not isinstance(sp, bool) and sp > 0:
            pts.append((size_of(c), sp, c))
    pts.sort(key=lambda p: p[0])
    return pts


def crossings_of(pts):
    """Every change of winner along a sorted [(size, speedup)] sweep, interpolated
    in log(size)-log(speedup) (docs/reports.md): [(size, 'cuda' | 'cpu')]."""
    out = []
    for (x0, s0, *_), (x1, s1, *_) in zip(pts, pts[1:]):
        if (s0 > 1) == (s1 > 1) or x0 <= 0 or x1 <= 0:
            continue
        l0, l1 = math.log(s0), math.log(s1)
        t = (0 - l0) / (l1 - l0) if l1 != l0 else 0.0
        out.append((math.exp(math.log(x0) + t * (math.log(x1) - math.log(x0))), "cuda" if s1 > 1 else "cpu"))
    return out


def file_crossings(doc, op, dtype, variant, timing):
    """The results' own crossings for this series, or None when the file has no
    usable entry (none, no "changes" list, or a sweep measured over mixed shapes)."""
    for x in doc.get("crossover") or []:
        if not isinstance(x, dict):
            continue
        if (x.get("op"), x.get("dtype"), x.get("timing"), x.get("run", 0)) != (op, dtype, timing, variant.run):
            continue
        if (x.get("params") or {}) != variant.params:
            continue
        changes = x.get("changes")
        if not isinstance(changes, list) or x.get("size_measure", "n") != "n":
            return None
        out = []
        for ch in changes:
            if isinstance(ch, dict) and isinstance(ch.get("size"), (int, float)) and ch["size"] > 0:
                out.append((float(ch["size"]), "cpu" if ch.get("to") == "cpu" else "cuda"))
        return out
    return None


def series_crossings(doc, op, dtype, variant, timing, square_pts):
    got = file_crossings(doc, op, dtype, variant, timing)
    return got if got is not None else crossings_of(square_pts)


# ---- axes helpers ---------------------------------------------------------------


def fmt_num(v):
    if v >= 1e6:
        return "%.0e" % v
    if v >= 1:
        return "%d" % round(v) if abs(v - round(v)) < 1e-6 * v else "%g" % v
    return "%g" % v


def fmt_rate(value, unit):
    """3 significant digits, in T units from 1000 G on: 51.2 TFLOP/s, 92.4 GB/s."""
    if value >= 1000:
        value, unit = value / 1000, unit.replace("G", "T", 1)
    return "%s %s" % (("%.3g" % value) if value < 1000 else "%d" % round(value), unit)


def log_ticks(lo, hi, max_ticks=7):
    """1-2-5 (or sparser) ticks inside [lo, hi]."""
    if not (lo > 0 and hi > lo):
        return []
    e0, e1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    for steps in ((1, 2, 5), (1, 3), (1,)):
        t = [m * 10.0 ** e for e in range(e0, e1 + 1) for m in steps if lo <= m * 10.0 ** e <= hi * 1.0001]
        if 2 <= len(t) <= max_ticks:
            return t
    decades = [10.0 ** e for e in range(e0, e1 + 1) if lo <= 10.0 ** e <= hi * 1.0001]
    k = max(1, math.ceil(len(decades) / max_ticks))
    return decades[::k]


def set_y_ticks(ax, unit=""):
    lo, hi = ax.get_ylim()
    ticks = log_ticks(lo, hi)
    if len(ticks) >= 2:
        ax.yaxis.set_major_locator(ticker.FixedLocator(ticks))
        ax.yaxis.set_major_formatter(ticker.FixedFormatter([fmt_num(t) + unit for t in ticks]))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())


def fmt_bytes(b):
    """4096 → "4K", 1073741824 → "1G": the largest binary unit that divides it."""
    b, unit = int(b), 0
    while unit < 3 and b % 1024 == 0 and b:
        b, unit = b // 1024, unit + 1
    return "%d%s" % (b, ("", "K", "M", "G")[unit])


OP_X_FMT = {"transfer": fmt_bytes}  # tick labels other than plain numbers


def set_x_ticks(ax, sizes, width_in, fontsize=9, fmt=None):
    """Tick the sizes that were run, dropping any whose label would touch its neighbour."""
    fmt = fmt or fmt_num
    sizes = sorted({s for s in sizes if s and s > 0})
    if not sizes:
        return
    lo, hi = sizes[0], sizes[-1]
    if hi / lo < 1.5:  # one size (or close ones): pad so the point is not on the frame
        lo, hi = lo / 1.6, hi * 1.6
    else:
        pad = (hi / lo) ** 0.06
        lo, hi = lo / pad, hi * pad
    ax.set_xlim(lo, hi)
    px = width_in * DPI
    span = math.log(hi / lo)
    char = fontsize * 0.62 * DPI / 72.0  # a digit's width in px
    kept, right = [], -1e9
    for s in sizes:
        label = fmt(s)
        x = math.log(s / lo) / span * px
        half = len(label) * char / 2
        if x - half > right + 0.8 * char:
            kept.append(s)
            right = x + half
        elif s == sizes[-1] and kept:  # keep the largest size: replace the last one kept
            kept[-1] = s
            right = x + half
    ax.xaxis.set_major_locator(ticker.FixedLocator(kept))
    ax.xaxis.set_major_formatter(ticker.FixedFormatter([fmt(s) for s in kept]))
    ax.xaxis.set_minor_locator(ticker.LogLocator(subs=tuple(range(2, 10))))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())


def style_axes(ax):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)


def empty(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#555",
            wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])
    for s in ax.spines.values():
        s.set_visible(False)


def shade(side, variant_index):
    shades = SIDES[side][1]
    return shades[variant_index % len(shades)]


def line_kw(side, vi, joined=True):
    colour = shade(side, vi)
    hollow = HOLLOW[vi % len(HOLLOW)]
    return dict(color=colour, marker=SIDES[side][2], linestyle=SIDES[side][3] if joined else "none",
                linewidth=1.9, markersize=6.5, markeredgecolor=colour, markeredgewidth=1.4,
                markerfacecolor="white" if hollow else colour)


class ShapeLabels:
    """One label per non-square shape and panel, above its highest point (below
    its lowest with below=True: the rate panel, whose ceilings are above)."""

    def __init__(self):
        self.at = {}

    def note(self, ax, cls, xs, ys, text, below=False):
        if not xs:
            return
        i = (min if below else max)(range(len(ys)), key=lambda k: ys[k])
        key = (id(ax), cls)
        old = self.at.get(key)
        if old is None or (ys[i] < old[2] if below else ys[i] > old[2]):
            self.at[key] = (ax, xs[i], ys[i], text, below)

    def draw(self):
        for ax, x, y, text, below in self.at.values():
            ax.annotate(text, (x, y), xytext=(0, -8 if below else 7), textcoords="offset points", ha="center",
                        va="top" if below else "bottom", fontsize=8, color="#333")


def mark_crossings(ax, xs, side):
    """A diamond on the 1x line at each crossing, in the timing's colour."""
    for x in xs:
        ax.plot([x], [1.0], marker="D", markersize=7.5, color=shade(side, 0), markeredgecolor="black",
                markeredgewidth=0.9, linestyle="none", zorder=6)


def data_points(ax):
    """The data drawn on ax (markers, and points along the joined segments) in
    axes fractions: what a label should not cover."""
    to_axes = ax.transData + ax.transAxes.inverted()
    pts = []
    for ln in ax.lines:
        xy = [to_axes.transform((x, y)) for x, y in zip(ln.get_xdata(), ln.get_ydata()) if x > 0 and y > 0]
        pts += xy
        if ln.get_linestyle() not in ("None", "none", ""):
            pts += [(a[0] + (b[0] - a[0]) * t / 12, a[1] + (b[1] - a[1]) * t / 12)
                    for a, b in zip(xy, xy[1:]) for t in range(1, 12)]
    return pts


def place_label(ax, pts, value, text, width_in, height_in, colour, lift=0, below_too=False):
    """Label a horizontal line at y=value inside ax: above it (lifted by lift
    points, for stacking) at the left or the right end, or below it when
    below_too, wherever the fewest data points sit."""
    y_line = (ax.transData + ax.transAxes.inverted()).transform((1.0, value))[1]
    w = len(text) * 8 * 0.56 / 72.0 / width_in + 0.03
    h = 12 / 72.0 / height_in
    best = None
    for up in ((True, False) if below_too else (True,)):
        y0 = y_line + (2 + lift) / 72.0 / height_in if up else y_line - (2 + lift) / 72.0 / height_in - h
        for right in (False, True):
            xa, xb = (1 - w, 1) if right else (0, w)
            n = sum(1 for px, py in pts if xa - 0.02 <= px <= xb + 0.02 and y0 - 0.015 <= py <= y0 + h + 0.015)
            if best is None or n < best[0]:
                best = (n, up, right)
    _, up, right = best
    ax.annotate(text, xy=(1.0 if right else 0.0, value), xycoords=("axes fraction", "data"),
                xytext=(-4 if right else 4, (2 + lift) if up else -(2 + lift)), textcoords="offset points",
                ha="right" if right else "left", va="bottom" if up else "top", fontsize=8, color=colour,
                zorder=7, bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.75))


def label_one_x(ax, width_in, height_in):
    pts = data_points(ax)
    ax.axhline(1.0, color="black", linewidth=1.1, zorder=1)
    place_label(ax, pts, 1.0, "1× = same time", width_in, height_in, "black", below_too=True)


def peak_name(backend, key, doc, run):
    unit = "GFLOP/s" if key.endswith("_gflops") else "GB/s"
    base = key.rsplit("_", 1)[0]
    words = {"triad": "STREAM triad", "copy": "STREAM copy", "d2d_copy": "device copy"}
    if base in words:
        what = words[base]
    elif base.startswith("gemm_"):
        what = "GEMM " + base[5:]
    else:
        what = base.replace("_", " ")
    who = "CPU" if backend == "cpu" else "GPU"
    name = "%s %s ceiling" % (who, what)
    if is_merged(doc) and len(runs_of(doc)) > 1:
        name += " @" + run_name(doc, run)
    return name, unit


def peak_lines(doc, variants):
    """[(label, value, side)] of the ceilings the results were judged against."""
    seen, out = set(), []
    runs = runs_of(doc)
    for v in variants:
        peaks = (runs[v.run] if 0 <= v.run < len(runs) else {}).get("peaks") or {}
        for c in v.cases:
            for r in c.get("results") or []:
                name = r.get("peak")
                if not isinstance(name, str) or "." not in name or (v.run, name) in seen:
                    continue
                backend, key = name.split(".", 1)
                value = (peaks.get(backend) or {}).get(key)
                if isinstance(value, (int, float)) and value > 0:
                    seen.add((v.run, name))
                    label, unit = peak_name(backend, key, doc, v.run)
                    out.append(("%s %s" % (label, fmt_rate(value, unit)),
                                value, "cpu" if backend == "cpu" else "device", v.index))
    return out


def new_figure(width_in, height_in):
    fig = plt.figure(figsize=(width_in, height_in), dpi=DPI)
    return fig


def rect(fig, left_in, bottom_in, w_in, h_in):
    W, H = fig.get_size_inches()
    return [left_in / W, bottom_in / H, w_in / W, h_in / H]


def save(fig, out, stem, fmt):
    """Write the figure; a PNG as a 256-colour palette image (a third of the
    bytes, no visible change for line plots) when Pillow, which matplotlib
    itself needs, can do it."""
    path = os.path.join(out, "%s.%s" % (stem, fmt))
    if fmt == "png":
        buf = io.BytesIO()
        fig.savefig(buf, dpi=DPI, format="png", metadata={"Software": None})
        plt.close(fig)
        try:
            from PIL import Image
            img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
            q, d = getattr(Image, "Quantize", Image), getattr(Image, "Dither", Image)
            img.quantize(colors=256, method=q.MEDIANCUT, dither=d.NONE).save(path, optimize=True)
        except (ImportError, AttributeError, ValueError):
            with open(path, "wb") as f:
                f.write(buf.getvalue())
        return path
    fig.savefig(path, dpi=DPI, format=fmt, metadata={"Date": None})
    plt.close(fig)
    return path


def gid(panel, side, op, variant, shape_index):
    """The SVG id of a data series: data-<panel>-<side>-<op>-v<variant>-s<shape group>."""
    return "data-%s-%s-%s-v%d-s%d" % (panel, side, safe(op), variant.index, shape_index)


def safe(name):
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(name))


def machines_title(doc, variants):
    runs = runs_of(doc)
    used = sorted({v.run for v in variants})
    if is_merged(doc) and len(runs) > 1:
        return "\n".join(machine_line(runs[i], run_name(doc, i)) for i in used if 0 <= i < len(runs))
    return machine_line(runs[0])


# ---- one figure per op and dtype ------------------------------------------------


def short(text, limit=110):
    text = " ".join(str(text).split())
    cut = text.find("; ")
    if cut > 0:
        text = text[:cut]
    return text if len(text) <= limit else text[:limit - 1] + "…"


def missing_notes(doc, variants, limit=3):
    """Why a line stops or has a gap: the skipped, failed and error results, one
    note per side(s), status and reason, naming the sizes it hit."""
    per_case = {}  # (variant, case index) -> {(status, reason): [sides]}
    for v in variants:
        for i, c in enumerate(v.cases):
            for r in c.get("results") or []:
                side = side_of(r)
                if side is None or r.get("status") in ("ok", None):
                    continue
                reason = r.get("reason") or ""
                ver = r.get("verification") or {}
                if not reason and ver.get("status") == "failed":
                    reason = "verification failed"
                    if isinstance(ver.get("error"), (int, float)) and isinstance(ver.get("tolerance"), (int, float)):
                        reason += ": %s %.3g > tolerance %.3g" % (ver.get("metric") or "error", ver["error"],
                                                                  ver["tolerance"])
                per_case.setdefault((v.index, i), {}).setdefault((r.get("status"), short(reason)), []).append(side)
    found = {}  # (variant, sides, status, reason) -> [shape labels]
    for (vi, i), got in per_case.items():
        for (status, reason), sides in got.items():
            found.setdefault((vi, tuple(sides), status, reason), []).append(shape_label(variants[vi].cases[i]))
    notes = []
    for (vi, sides, status, reason), where in found.items():
        v = variants[vi]
        who = "GPU" if {"device", "end_to_end"} <= set(sides) else " and ".join(SIDES[s][0] for s in sides)
        if v.label:
            who += " (%s)" % v.label
        at = "every size" if len(where) == len(v.cases) and len(where) > 1 else ", ".join(where)
        notes.append("%s %s at %s%s" % (who, status, at, ": " + reason if reason else ""))
    if len(notes) > limit:
        notes = notes[:limit - 1] + ["and %d more not drawn: see `gpubench report`" % (len(notes) - limit + 1)]
    return notes


def plot_group(doc, op, dtype, cases, out, fmt):
    variants, common, varying = variants_of(cases, doc)
    has_gpu = any(side_of(r) in TIMINGS and r.get("status") == "ok"
                  for c in cases for r in c.get("results") or [])
    has_speedup = any(speedup_points(v.cases, t) for v in variants for t in TIMINGS)
    panels = ["time", "speedup", "rate"] if has_gpu or has_speedup else ["time", "rate"]
    rate_unit = "GB/s" if cases and cases[0].get("rate_kind") == "bytes" else "GFLOP/s"
    title = "%s · %s" % (op, dtype) + (" · %s" % common if common else "") + (" · %s" % varying if varying else "")
    subtitle = machines_title(doc, variants)
    if not has_gpu:
        subtitle += "\nno GPU results: CPU time and rate only"

    sides = [s for s in SIDES if any(time_points(v.cases, s) for v in variants)]
    n_entries = max(1, len(variants))
    legend_rows = n_entries if len(sides) > 1 else math.ceil(n_entries / 3)
    W, panel_h = 12.0, 3.3
    top = 0.45 + 0.2 * (subtitle.count("\n") + 1) + 0.35
    bottom_axis = 0.62
    nonsquare = sorted({shape_label(c) for c in cases if size_of(c) and shape_class(c) is not None})
    notes = []
    if nonsquare:
        notes.append("%s: not square, so drawn apart (unjoined markers, labelled) at the geometric mean of the "
                     "dimensions" % ", ".join(nonsquare))
    notes += missing_notes(doc, variants)
    legend_h = 0.2 + 0.24 * legend_rows + 0.2 * len(notes) + (0.05 if notes else 0)
    H = top + panel_h + bottom_axis + legend_h
    fig = new_figure(W, H)
    left, right, gap = 0.78, 0.25, 0.9
    pw = (W - left - right - gap * (len(panels) - 1)) / len(panels)
    axes = {}
    for i, name in enumerate(panels):
        axes[name] = fig.add_axes(rect(fig, left + i * (pw + gap), H - top - panel_h, pw, panel_h))
    fig.text(0.5, 1 - 0.12 / H, title, ha="center", va="top", fontsize=13, fontweight="bold")
    fig.text(0.5, 1 - 0.45 / H, subtitle, ha="center", va="top", fontsize=9.5, color="#222")

    xlabel = OP_X.get(op, "n")
    square_sizes = []
    handles = {s: [] for s in SIDES}
    any_rate = False
    shapes = ShapeLabels()
    ax_t, ax_r, ax_s = axes["time"], axes["rate"], axes.get("speedup")
    for v in variants:
        for j, (cls, group) in enumerate(split_shapes(v.cases)):
            joined = cls is None
            for side in SIDES:
                pts = time_points(group, side)
                if not pts:
                    continue
                kw = line_kw(side, v.index, joined)
                x = [p[0] for p in pts]
                if joined:
                    square_sizes += x
                y = [p[1] * 1e3 for p in pts]
                err = [[max(0.0, (p[1] - p[2]) * 1e3) for p in pts], [max(0.0, (p[3] - p[1]) * 1e3) for p in pts]]
                ax_t.errorbar(x, y, yerr=err, capsize=2.5, elinewidth=1, gid=gid("time", side, op, v, j), **kw)
                if not joined:
                    shapes.note(ax_t, cls, x, y, shape_label(pts[-1][5]))
                rates = [(p[0], p[4]) for p in pts if p[4]]
                if rates and side not in ("end_to_end", "end_to_end_overlapped"):  # no ceiling bounds a copy
                    ax_r.plot([r[0] for r in rates], [r[1] for r in rates],
                              gid=gid("rate", side, op, v, j), **kw)
                    any_rate = True
                    if not joined:
                        shapes.note(ax_r, cls, [r[0] for r in rates], [r[1] for r in rates], shape_label(pts[-1][5]),
                                    below=True)
            if ax_s is None:
                continue
            for timing in TIMINGS:
                pts = speedup_points(group, timing)
                if not pts:
                    continue
                ax_s.plot([p[0] for p in pts], [p[1] for p in pts], gid=gid("speedup", timing, op, v, j),
                          **line_kw(timing, v.index, joined))
                if joined:
                    square_sizes += [p[0] for p in pts]
                else:
                    shapes.note(ax_s, cls, [p[0] for p in pts], [p[1] for p in pts], shape_label(pts[-1][2]))
        # legend entries (with the crossings of the square sweep)
        square = [c for c in v.cases if size_of(c) is not None and shape_class(c) is None]
        for side in SIDES:
            if not time_points(v.cases, side) and not (side in TIMINGS and speedup_points(v.cases, side)):
                continue
            label = SIDES[side][0] + ((" " if v.label.startswith("@") else ", ") + v.label if v.label else "")
            if side in TIMINGS and ax_s is not None:
                xs = [x for x, _ in series_crossings(doc, op, dtype, v, side, speedup_points(square, side))]
                if xs:
                    mark_crossings(ax_s, xs, side)
                    label += ": crosses 1× at n ≈ " + ", ".join(fmt_num(float("%.3g" % x)) for x in xs)
            handles[side].append((Line2D([], [], **line_kw(side, v.index)), label))

    allx = sorted(set(square_sizes)) or sorted(size_of(c) for c in cases if size_of(c))

    def finish(ax, ylabel, unit="", extra=(), room_top=False, room_bottom=False):
        """Log axes, labels, x ticks at the sizes run; y range: the data (CI bars
        included) and extra values, padded, with room for labels where asked."""
        style_axes(ax)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ys = [float(y) for ln in ax.lines for y in ln.get_ydata() if isinstance(y, (int, float)) and y > 0]
        ys += list(extra)
        if ys:
            lo, hi = min(ys), max(ys)
            pad = max((hi / lo) ** 0.05, 1.2)
            room = max(hi / lo, 4.0) ** 0.07
            ax.set_ylim(lo / pad / (room if room_bottom else 1), hi * pad * (room if room_top else 1))
        set_x_ticks(ax, allx, pw, fmt=OP_X_FMT.get(op))
        lo, hi = ax.get_xlim()
        xs = [size_of(c) for c in cases if size_of(c)]
        ax.set_xlim(min(lo, min(xs) / 1.25), max(hi, max(xs) * 1.25))
        set_y_ticks(ax, unit)

    if any(handles.values()):
        finish(ax_t, "median time (ms); bars: 95% CI", room_top=bool(nonsquare))
    else:
        empty(ax_t, "no successful timings")
    ax_t.set_title("time (lower is better)")
    if ax_s is not None:
        if has_speedup:
            finish(ax_s, "speedup = CPU time / GPU time", "×", extra=(0.8, 1.25), room_top=bool(nonsquare))
            label_one_x(ax_s, pw, panel_h)
        else:
            empty(ax_s, "no speedup: needs both a CPU and a GPU result at the same size")
        ax_s.set_title("speedup (above 1×: GPU faster)")
    if any_rate:
        lines = peak_lines(doc, variants)
        finish(ax_r, "achieved %s" % rate_unit + (" (GPU: device-resident)" if has_gpu else ""),
               extra=[v for _, v, _, _ in lines], room_top=bool(lines), room_bottom=bool(nonsquare))
        if lines:
            lo, hi = ax_r.get_ylim()
            near = 0.06 * math.log(hi / lo)  # labels closer than this (in log y) would overlap
            pts = data_points(ax_r)
            placed = []
            for label, value, side, vi in sorted(lines, key=lambda l: l[1]):
                ax_r.axhline(value, color=shade(side, vi), linestyle=(0, (1.5, 2)), linewidth=1.3, zorder=1)
                k = sum(1 for p in placed if abs(math.log(value / p)) < near)
                placed.append(value)
                # above the line (stacked when lines are close), at whichever end is free
                place_label(ax_r, pts, value, label, pw, panel_h, shade(side, vi), lift=11 * k)
    else:
        empty(ax_r, "no rates recorded")
    ax_r.set_title("achieved rate vs measured ceilings")

    entries, width = [], max(len(handles[s]) for s in sides) if sides else 0
    for s in sides:
        col = handles[s] + [(Line2D([], [], alpha=0), "")] * (width - len(handles[s]))
        entries += col
    shapes.draw()
    for i, note in enumerate(reversed(notes)):
        fig.text(0.5, (0.08 + 0.2 * i) / H, note, ha="center", va="bottom", fontsize=8.5, color="#333")
    if entries:
        ncol = len(sides) if len(sides) > 1 else min(3, len(entries))
        # long labels (several runs, named by file) in fewer columns, so none runs off the figure
        longest = max(len(e[1]) for e in entries)
        while ncol > 1 and ncol * (longest * 6.3 + 70) > fig.get_figwidth() * DPI:
            ncol -= 1
        if ncol < len(sides):
            entries = [e for e in entries if e[1]]  # the column padding no longer lines sides up
        fig.legend([e[0] for e in entries], [e[1] for e in entries], loc="lower center",
                   bbox_to_anchor=(0.5, (0.1 + 0.2 * len(notes) + (0.05 if notes else 0)) / H),
                   ncol=ncol, frameon=False, handlelength=3.2, columnspacing=2.2)
    return save(fig, out, "%s_%s" % (safe(op), safe(dtype)), fmt)


# ---- overview ----------------------------------------------------------------------


def plot_overview(doc, cases, out, fmt):
    ops = list(dict.fromkeys(c.get("op", "?") for c in cases))
    dtypes = list(dict.fromkeys(c.get("dtype", "?") for c in cases))
    runs = runs_of(doc)
    by_op = {op: [c for c in cases if c.get("op", "?") == op] for op in ops}
    speed = any(speedup_points(cs, t) for cs in by_op.values() for t in TIMINGS)
    gpu_runs = sorted({c.get("run", 0) for c in cases if any(speedup_points([c], t) for t in TIMINGS)})
    used_runs = sorted({c.get("run", 0) for c in cases})
    merged = is_merged(doc) and len(runs) > 1

    if speed:
        title = "GPU speedup over the CPU, every op (%s)" % ", ".join(dtypes)
    else:
        title = "CPU time of every op (%s) — no GPU results in this file" % ", ".join(dtypes)
    if merged:
        sub = [machine_line(runs[i], run_name(doc, i)) for i in used_runs if 0 <= i < len(runs)]
        left_out = [run_name(doc, i) for i in used_runs if speed and i not in gpu_runs]
        if left_out:
            sub.append("%s: no speedups (no GPU results), not drawn here; see the per-op plots" % ", ".join(left_out))
        subtitle = "\n".join(sub)
    else:
        subtitle = machine_line(runs[0])

    n = max(1, len(ops))
    cols = min(4, n)
    rows = math.ceil(n / cols)
    panel_vars = {op: variants_of(by_op[op], doc, with_dtype=True) for op in ops}

    def drawn(v):
        return any(speedup_points(v.cases, t) for t in TIMINGS) if speed else bool(time_points(v.cases, "cpu"))

    leg_rows = [max([sum(1 for v in panel_vars[op][0] if drawn(v)) for op in ops[r * cols:(r + 1) * cols]] or [1])
                for r in range(rows)]
    left, right, gap = 0.75, 0.2, 0.3
    pw = 2.53 if cols == 4 else 3.6  # 4 panels fill 1200 px; fewer keep a readable shape
    W = max(10.0, left + right + cols * pw + gap * (cols - 1))
    left = (W - cols * pw - gap * (cols - 1) + left - right) / 2
    head = 0.5 + 0.2 * (subtitle.count("\n") + 1) + 0.55  # titles and the key
    panel_h, axis_h = 2.45, 0.48
    row_h = [0.3 + panel_h + axis_h + 0.2 * lr + 0.15 for lr in leg_rows]
    H = head + sum(row_h) + 0.1
    fig = new_figure(W, H)
    fig.text(0.5, 1 - 0.12 / H, title, ha="center", va="top", fontsize=13, fontweight="bold")
    fig.text(0.5, 1 - 0.48 / H, subtitle, ha="center", va="top", fontsize=9.5, color="#222")

    # the key: what colour, line and marker mean (same in every panel)
    if speed:
        ovl = any(speedup_points(v.cases, "end_to_end_overlapped") for op in ops for v in panel_vars[op][0])
        # a fourth entry only fits the key's one row with shorter words
        key = [(Line2D([], [], **line_kw("device", 0)),
                "GPU device-resident" if ovl else "GPU device-resident (data already on the GPU)"),
               (Line2D([], [], **line_kw("end_to_end", 0)),
                "GPU end-to-end" if ovl else "GPU end-to-end (copies included)")]
        if ovl:
            key += [(Line2D([], [], **line_kw("end_to_end_overlapped", 0)), "end-to-end, copies overlapped")]
        key += [(Line2D([], [], marker="D", markersize=7, color=shade("device", 0), markeredgecolor="black",
                        linestyle="none"), "speedup crosses 1×")]
    else:
        key = [(Line2D([], [], **line_kw("cpu", 0)), "CPU median time")]
    fig.legend([k[0] for k in key], [k[1] for k in key], loc="upper center", ncol=len(key), frameon=False,
               bbox_to_anchor=(0.5, 1 - (head - 0.55) / H), handlelength=3.2, columnspacing=1.6)

    first = None
    shapes = ShapeLabels()
    ylo, yhi = [], []
    for idx, op in enumerate(ops):
        r, col = divmod(idx, cols)
        top_of_row = H - head - sum(row_h[:r])
        bottom = top_of_row - 0.3 - panel_h
        ax = fig.add_axes(rect(fig, left + col * (pw + gap), bottom, pw, panel_h),
                          sharey=first if first is not None else None)
        first = first or ax
        variants, common, _ = panel_vars[op]
        sizes, entries, any_data = [], [], False
        for v in variants:
            handles = []
            for j, (cls, group) in enumerate(split_shapes(v.cases)):
                joined = cls is None
                if speed:
                    for timing in TIMINGS:
                        pts = speedup_points(group, timing)
                        if not pts:
                            continue
                        any_data = True
                        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                        ax.plot(xs, ys, gid=gid("speedup", timing, op, v, j),
                                **line_kw(timing, v.index, joined))
                        ylo.append(min(ys))
                        yhi.append(max(ys))
                        if joined:
                            sizes += xs
                            xc = [x for x, _ in series_crossings(doc, op, v.dtype, v, timing, pts)]
                            mark_crossings(ax, xc, timing)
                        else:
                            shapes.note(ax, cls, xs, ys, shape_label(pts[-1][2]))
                else:
                    pts = time_points(group, "cpu")
                    if not pts:
                        continue
                    any_data = True
                    xs, ys = [p[0] for p in pts], [p[1] * 1e3 for p in pts]
                    ax.plot(xs, ys, gid=gid("time", "cpu", op, v, j), **line_kw("cpu", v.index, joined))
                    ylo.append(min(ys))
                    yhi.append(max(ys))
                    if joined:
                        sizes += xs
                    else:
                        shapes.note(ax, cls, xs, ys, shape_label(pts[-1][5]))
            if not drawn(v):
                continue
            if speed:
                handles = (Line2D([], [], **line_kw("device", v.index)),
                           Line2D([], [], **line_kw("end_to_end", v.index)))
            else:
                handles = (Line2D([], [], **line_kw("cpu", v.index)),)
            entries.append((handles, v.label or str(v.dtype)))
        ax.set_title(op + (" (%s)" % common if common else ""), fontsize=11)
        if not any_data:
            empty(ax, "no speedups for %s" % op if speed else "no CPU timings")
            continue
        style_axes(ax)
        ax.set_xlabel(OP_X.get(op, "n"), fontsize=9)
        allsizes = sizes or [size_of(c) for c in by_op[op] if size_of(c)]
        set_x_ticks(ax, allsizes, pw, fontsize=8.5, fmt=OP_X_FMT.get(op))
        xs = [size_of(c) for c in by_op[op] if size_of(c)]
        lo, hi = ax.get_xlim()
        ax.set_xlim(min(lo, min(xs) / 1.3), max(hi, max(xs) * 1.3))
        ax.tick_params(axis="x", labelsize=8.5)
        if col != 0:
            ax.tick_params(axis="y", labelleft=False)
        if speed:
            ax.axhline(1.0, color="black", linewidth=1.1, zorder=1)
        ax.legend([e[0] for e in entries], [e[1] for e in entries], loc="upper center",
                  bbox_to_anchor=(0.5, -axis_h / panel_h - 0.02), ncol=1, frameon=False, fontsize=8.5,
                  handler_map={tuple: HandlerTuple(ndivide=None, pad=0.6)}, handlelength=4.2)
    if first is not None and ylo:
        lo, hi = min(ylo), max(yhi)
        if speed:
            lo, hi = min(lo, 0.8), max(hi, 1.25)
        room = max(hi / lo, 4.0) ** 0.08 if shapes.at else 1.0  # for the shape labels
        first.set_ylim(lo / 1.4, hi * 1.6 * room)
        set_y_ticks(first, "×" if speed else "")
        for idx in range(len(ops)):
            if idx % cols == 0:
                fig.axes[idx].set_ylabel("speedup (CPU time / GPU time)" if speed else "median CPU time (ms)")
    shapes.draw()
    return save(fig, out, "overview", fmt)


# ---- main ----------------------------------------------------------------------------


def parse_list(text):
    return [x.strip() for x in (text or "").split(",") if x.strip()]


def plot_fleet_doc(doc, args):
    """A fleet document (`gpubench report --fleet --format json`): the heatmap."""
    why = load_matplotlib()
    if why:
        print(why, file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import plot_fleet
    try:
        os.makedirs(args.out, exist_ok=True)
        print("wrote %s" % plot_fleet.draw(doc, args.out, args.format, plt))
    except OSError as e:
        print("plot.py: writing into %s: %s" % (args.out, e), file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Plot a gpubench results file: per op and dtype time / speedup / rate, "
                    "and an overview of every op. Needs matplotlib (Debian: python3-matplotlib).")
    ap.add_argument("results", nargs="+",
                    help="results JSON written by `gpubench run` (or `gpubench merge`); several are overlaid; "
                         "or one fleet document (`gpubench report --fleet --format json`): its heatmap")
    ap.add_argument("--out", default="plots", help="output directory (default: plots)")
    ap.add_argument("--format", choices=("png", "svg"), default="png")
    ap.add_argument("--op", metavar="LIST", help="only these ops, comma-separated (matmul,fft)")
    ap.add_argument("--dtype", metavar="LIST", help="only these dtypes, comma-separated (float32)")
    args = ap.parse_args(argv)
    docs = []
    for path in args.results:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("plot.py: %s: %s" % (path, e), file=sys.stderr)
            return 2
        if isinstance(doc, dict) and doc.get("schema") == "gpubench-fleet" and len(args.results) == 1:
            args.results = path
            return plot_fleet_doc(doc, args)
        if not isinstance(doc, dict) or doc.get("schema") != "gpubench-results":
            print("plot.py: %s: not a gpubench results file" % path, file=sys.stderr)
            return 2
        docs.append(doc)
    doc = docs[0] if len(docs) == 1 else combine(docs, args.results)
    args.results = " + ".join(args.results)
    cases = [c for c in doc.get("cases") or [] if isinstance(c, dict)]
    first_device_only(cases)
    for opt, field in (("op", "op"), ("dtype", "dtype")):
        want = parse_list(getattr(args, opt))
        if not want:
            continue
        have = list(dict.fromkeys(str(c.get(field, "?")) for c in cases))
        for name in want:
            if name not in have:
                print("plot.py: %s has no cases of %s \"%s\" (it has: %s)" % (
                    args.results, opt, name, ", ".join(have) or "none"), file=sys.stderr)
                return 2
        cases = [c for c in cases if str(c.get(field, "?")) in want]
    why = load_matplotlib()
    if why:
        print(why, file=sys.stderr)
        return 2
    if not cases:
        print("plot.py: %s has no cases: nothing to draw" % args.results, file=sys.stderr)
        return 0
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        print("plot.py: --out %s: %s" % (args.out, e), file=sys.stderr)
        return 2
    groups = {}
    for c in cases:
        groups.setdefault((c.get("op", "?"), c.get("dtype", "?")), []).append(c)
    written = []
    try:
        for (op, dtype), cs in groups.items():
            written.append(plot_group(doc, op, dtype, cs, args.out, args.format))
        written.append(plot_overview(doc, cases, args.out, args.format))
    except OSError as e:
        print("plot.py: writing into %s: %s" % (args.out, e), file=sys.stderr)
        return 2
    for p in written:
        print("wrote %s" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
