"""plot_data.py — what scripts/plot.py reads from results files: runs and
their machines, cases and their sizes and shapes, the series (variants) of a
figure, time and speedup points, crossings of 1x, the measured ceilings, and
the notes on results that are missing."""
import json
import math
import os

from plot_style import (SIDES, TIMINGS, fmt_rate)


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


def mark_peers(doc, cases):
    """Mark each framework peer's result (a backend that is neither its run's
    host library nor its accelerator: `run --peers`), so that it is drawn as
    its own series, never as the CPU's or the GPU's."""
    runs = runs_of(doc)
    libs = []
    for run in runs:
        backends = ((run.get("context") or {}).get("backends") or {}) if isinstance(run, dict) else {}
        roles = [(name, (b or {}).get("role")) for name, b in backends.items() if isinstance(b, dict)]
        host = next((n for n, role in roles if role == "host"), "cpu")
        acc = next((n for n, role in roles if role == "accelerator"), "cuda")
        libs.append((host, acc))
    for c in cases:
        run = c.get("run") or 0
        host, acc = libs[run] if isinstance(run, int) and 0 <= run < len(libs) else ("cpu", "cuda")
        for r in c.get("results") or []:
            if isinstance(r, dict) and r.get("backend") not in (host, acc):
                r["_peer"] = True


def side_of(result):
    if result.get("_not_drawn"):
        return None
    if result.get("_peer"):
        key = "peer:%s" % result.get("backend")
        return key if key in SIDES else None
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


def machines_title(doc, variants):
    runs = runs_of(doc)
    used = sorted({v.run for v in variants})
    if is_merged(doc) and len(runs) > 1:
        return "\n".join(machine_line(runs[i], run_name(doc, i)) for i in used if 0 <= i < len(runs))
    return machine_line(runs[0])


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


# ---- what a panel draws ---------------------------------------------------------


def drawn_sizes(cases, panel, square_only=False):
    """The sizes at which a panel has a point, sorted: "time" (any side ok),
    "cpu" (the CPU's time), "rate" (a rate of the CPU or GPU device-resident),
    "speedup" (any speedup). A size every result of which was skipped or
    failed has none, so the panel's x axis does not reach out for it."""
    out = set()
    for c in cases:
        size = size_of(c)
        if size is None or (square_only and shape_class(c) is not None):
            continue
        if panel == "speedup":
            hit = any(speedup_points([c], t) for t in TIMINGS)
        else:
            sides = {"cpu": ("cpu",), "rate": ("cpu", "device"), "time": tuple(SIDES)}[panel]
            hit = any(p for s in sides for p in time_points([c], s) if panel != "rate" or p[4])
        if hit:
            out.add(size)
    return sorted(out)


def visual_tolerance(values, height_px, px=3.0):
    """The relative difference that spans px pixels on a log axis of height_px
    holding values: closer than that, two lines are drawn on top of each other."""
    vals = [v for v in values if v > 0]
    if not vals or height_px <= 0:
        return 0.0
    decades = max(math.log10(max(vals) / min(vals)), 0.3) * 1.2  # the axis' padding
    return 10 ** (px / height_px * decades) - 1


def coincide(a, b, tol):
    """Whether two series {size: median} draw as one line: the same sizes, and
    at each the medians within tol (relative) of each other."""
    if not a or set(a) != set(b):
        return False
    return all(a[x] > 0 and b[x] > 0 and max(a[x], b[x]) / min(a[x], b[x]) <= 1 + tol for x in a)


def coinciding(series, tol):
    """Group series [(key, {size: median})] that coincide, in order: [[key, ...],
    ...]. A series joins the first group it coincides with every member of, so
    a chain of near neighbours is not merged end to end."""
    groups = []
    for key, pts in series:
        for g in groups:
            if all(coincide(pts, other, tol) for _, other in g):
                g.append((key, pts))
                break
        else:
            groups.append([(key, pts)])
    return [[k for k, _ in g] for g in groups]


def spread(series):
    """The largest relative difference at one size among coinciding series
    [{size: median}], for the legend's "within N%"."""
    worst = 0.0
    for x in series[0]:
        vals = [s[x] for s in series]
        worst = max(worst, max(vals) / min(vals) - 1)
    return worst


def series_of(points):
    """{size: median (or speedup)} of time_points() or speedup_points() output."""
    return {p[0]: p[1] for p in points}
