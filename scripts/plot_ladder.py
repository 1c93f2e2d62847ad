"""plot_ladder.py — the precision ladder (scripts/plot.py): for an op run in
more than one dtype, one reduced precision at least, each dtype's achieved
rate on the CPU and on the GPU (device-resident) at the largest size that
dtype ran on both sides (else on one), side by side, with each side's
ceiling for that dtype as a tick over its bar; below, each side's error
against the float64 reference (the reduced precisions' checks), so speed
and accuracy are read together: precision_<op>.<fmt>."""
import plot_style  # plt: set when matplotlib loads
from plot_style import SIDES, fmt_rate, new_figure, rect, safe, save
from plot_data import machine_line, runs_of, side_of

LADDER = ("float64", "float32", "bfloat16", "float16", "float8_e4m3", "int8")
REDUCED = {"bfloat16", "float16", "float8_e4m3", "int8"}
SIDES_DRAWN = ("cpu", "device")


def work(case):
    w = 1.0
    for d in case.get("shape") or []:
        w *= d if isinstance(d, (int, float)) else 1
    return w


def ok_result(case, side):
    for r in case.get("results") or []:
        v = r.get("verification") or {}
        if side_of(r) == side and r.get("status") == "ok" and isinstance(r.get("gflops"), (int, float)) \
                and v.get("status") != "failed" and not r.get("concurrent"):
            return r
    return None


def ceiling(doc, case, result):
    name = result.get("peak")
    if not isinstance(name, str) or "." not in name:
        return None
    runs = runs_of(doc)
    run = runs[case.get("run", 0)] if 0 <= case.get("run", 0) < len(runs) else {}
    backend, key = name.split(".", 1)
    value = ((run.get("peaks") or {}).get(backend) or {}).get(key)
    return value if isinstance(value, (int, float)) and value > 0 else None


def pick(cases, dtype):
    """The case of dtype to draw: the largest with both sides ok, else the largest with one."""
    mine = [c for c in cases if c.get("dtype") == dtype and (c.get("params") or {}).get("math") != "tf32"]
    both = [c for c in mine if all(ok_result(c, s) for s in SIDES_DRAWN)]
    one = [c for c in mine if any(ok_result(c, s) for s in SIDES_DRAWN)]
    pool = both or one
    return max(pool, key=work) if pool else None


def plot_ladders(doc, cases, out, fmt):
    """Every op with a reduced precision and another dtype: its ladder. The paths written."""
    written = []
    ops = list(dict.fromkeys(c.get("op", "?") for c in cases))
    for op in ops:
        mine = [c for c in cases if c.get("op") == op]
        dtypes = [d for d in LADDER if pick(mine, d)]
        if len(dtypes) < 2 or not REDUCED.intersection(dtypes):
            continue
        written.append(draw(doc, op, [(d, pick(mine, d)) for d in dtypes], out, fmt))
    return written


def draw(doc, op, picked, out, fmt):
    plt = plot_style.plt
    n = len(picked)
    W, H = max(8.0, 1.6 * n + 2.0), 7.0
    fig = new_figure(W, H)
    runs = runs_of(doc)
    fig.text(0.5, 1 - 0.15 / H, "Precision ladder: %s, each dtype at its largest size" % op, ha="center", va="top",
             fontsize=13, fontweight="bold")
    fig.text(0.5, 1 - 0.5 / H, machine_line(runs[0]) if runs else "", ha="center", va="top", fontsize=9.5,
             color="#222")
    rate_ax = fig.add_axes(rect(fig, 0.9, 2.95, W - 1.2, 3.0))
    err_ax = fig.add_axes(rect(fig, 0.9, 0.75, W - 1.2, 1.45))
    width = 0.38
    # int8 products count integer operations, not floating-point ones
    unit_of = lambda dt: "GOP/s" if dt == "int8" else "GFLOP/s"  # noqa: E731
    unit = "GFLOP/s"
    for si, side in enumerate(SIDES_DRAWN):
        label, colour = SIDES[side][0], SIDES[side][1]  # the side's one colour (plot_style)
        xs, rates, errs, exs = [], [], [], []
        for i, (dt, case) in enumerate(picked):
            r = ok_result(case, side)
            if not r:
                continue
            x = i + (si - 0.5) * width
            xs.append(x)
            rates.append(r["gflops"])
            top = ceiling(doc, case, r)
            if top:
                rate_ax.plot([x - width / 2, x + width / 2], [top, top], color=colour, lw=2, ls=(0, (2, 1)))
                rate_ax.annotate(fmt_rate(top, unit_of(dt)) + " ceiling", (x, top), textcoords="offset points",
                                 xytext=(0, 3), ha="center", fontsize=7, color=colour)
            rate_ax.annotate("%s\n%s" % (fmt_rate(r["gflops"], unit_of(dt)), case.get("label", "")), (x, r["gflops"]),
                             textcoords="offset points", xytext=(0, -24), ha="center", fontsize=7, color="#111")
            v = r.get("verification") or {}
            if dt in REDUCED and v.get("against") == "reference" and v.get("metric") == "max_rel_err" \
                    and isinstance(v.get("error"), (int, float)):
                exs.append(x)
                errs.append(max(v["error"], 1e-9))  # exact (int8): drawn at the floor, labelled
                err_ax.annotate("exact" if v["error"] == 0 else "%.1e" % v["error"], (x, errs[-1]),
                                textcoords="offset points", xytext=(0, 2), ha="center", fontsize=7)
        rate_ax.bar(xs, rates, width, color=colour, label=label)
        err_ax.bar(exs, errs, width, color=colour, alpha=0.55, label=label)
    for ax in (rate_ax, err_ax):
        ax.set_yscale("log")
        ax.set_xlim(-0.6, n - 0.4)
        ax.set_xticks(range(n))
        ax.set_xticklabels([d for d, _ in picked])
        ax.grid(True, axis="y", which="major", alpha=0.35)
    rate_ax.set_ylabel("achieved rate (%s; int8: GOP/s)" % unit)
    rate_ax.legend(loc="upper left", frameon=False)
    rate_ax.margins(y=0.25)
    err_ax.set_ylabel("error vs float64")
    err_ax.set_ylim(1e-9, 1)
    err_ax.set_title("max|C - Cref| / max|Cref|, Cref in float64 from the same rounded inputs\n"
                     "(float32/float64 are checked another way: no bar)", fontsize=8.5)
    return save(fig, out, "precision_%s" % safe(op), fmt)
