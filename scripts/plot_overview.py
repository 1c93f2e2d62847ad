"""plot_overview.py — the overview figure (scripts/plot.py): one small panel
per op with every speedup, or every op's CPU time when no run has a GPU."""
import math

import plot_style  # plt, Line2D, HandlerTuple: set when matplotlib loads
from plot_style import (OP_X, OP_X_FMT, ShapeLabels, TIMINGS, empty, gid, key_kw, line_kw, mark_crossings,
    new_figure, rect, save, set_x_ticks, set_y_ticks, style_axes, variant_colours)
from plot_data import (coinciding, drawn_sizes, spread, visual_tolerance, is_merged, machine_line, run_name, runs_of, series_crossings,
    series_of, shape_label, speedup_points, split_shapes, time_points, variants_of)


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
    sides = TIMINGS if speed else ("cpu",)

    def points(v, side):
        return speedup_points(v.cases, side) if speed else time_points(v.cases, side)

    def drawn(v):
        return any(points(v, s) for s in sides)

    # Variants whose every line coincides with another's are drawn as one
    # (same colour and marker) with one legend entry saying so.
    panel_h, axis_h = 2.45, 0.48
    panel_groups, panel_series = {}, {}
    for op in ops:
        vs = [v for v in panel_vars[op][0] if drawn(v)]
        series = [(v.index, {(s, x): m for s in sides for x, m in series_of(points(v, s)).items()}) for v in vs]
        tol = visual_tolerance([m for _, pts in series for m in pts.values()] + ([0.8, 1.25] if speed else []),
                               panel_h * plot_style.DPI)
        panel_groups[op] = coinciding(series, tol)
        panel_series[op] = dict(series)

    def entry_lines(op):
        return sum(len(g) + (1 if len(g) > 1 else 0) for g in panel_groups[op])

    leg_rows = [max([entry_lines(op) for op in ops[r * cols:(r + 1) * cols]] or [1]) for r in range(rows)]
    # every panel has its own y range, so each has its own tick labels: wider gaps
    left, right, gap = 0.75, 0.2, 0.62
    pw = 2.3 if cols == 4 else 3.4  # 4 panels fill 1200 px; fewer keep a readable shape
    W = max(10.0, left + right + cols * pw + gap * (cols - 1))
    left = (W - cols * pw - gap * (cols - 1) + left - right) / 2
    head = 0.5 + 0.2 * (subtitle.count("\n") + 1) + 0.55  # titles and the key
    row_h = [0.3 + panel_h + axis_h + 0.19 * lr + 0.15 for lr in leg_rows]
    H = head + sum(row_h) + 0.1
    fig = new_figure(W, H)
    fig.text(0.5, 1 - 0.12 / H, title, ha="center", va="top", fontsize=13, fontweight="bold")
    fig.text(0.5, 1 - 0.48 / H, subtitle, ha="center", va="top", fontsize=9.5, color="#222")

    # the key: what line and marker mean (same in every panel; colour names the variant)
    if speed:
        ovl = any(speedup_points(v.cases, "end_to_end_overlapped") for op in ops for v in panel_vars[op][0])
        # a fourth entry only fits the key's one row with shorter words
        key = [(plot_style.Line2D([], [], **key_kw("device")),
                "GPU device-resident" if ovl else "GPU device-resident (data already on the GPU)"),
               (plot_style.Line2D([], [], **key_kw("end_to_end")),
                "GPU end-to-end" if ovl else "GPU end-to-end (copies included)")]
        if ovl:
            key += [(plot_style.Line2D([], [], **key_kw("end_to_end_overlapped")), "end-to-end, copies overlapped")]
        key += [(plot_style.Line2D([], [], marker="D", markersize=7, color="#444", markeredgecolor="black",
                                   linestyle="none"), "speedup crosses 1×")]
    else:
        key = [(plot_style.Line2D([], [], **key_kw("cpu")), "CPU median time")]
    key_text = "colour: the dtype and params under each panel"
    fig.legend([k[0] for k in key], [k[1] for k in key], loc="upper center", ncol=len(key), frameon=False,
               bbox_to_anchor=(0.5, 1 - (head - 0.55) / H), handlelength=3.2, columnspacing=1.6)
    fig.text(0.5, 1 - (head - 0.2) / H, key_text, ha="center", va="top", fontsize=8.5, color="#555")

    shapes = ShapeLabels()
    for idx, op in enumerate(ops):
        r, col = divmod(idx, cols)
        top_of_row = H - head - sum(row_h[:r])
        bottom = top_of_row - 0.3 - panel_h
        ax = fig.add_axes(rect(fig, left + col * (pw + gap), bottom, pw, panel_h))
        variants, common, _ = panel_vars[op]
        colours = variant_colours(variants)
        lead = {vi: g[0] for g in panel_groups[op] for vi in g}  # a variant's look: its group's first
        by_index = {v.index: v for v in variants}
        ys_all, any_data = [], False
        for v in variants:
            look = lead.get(v.index, v.index)
            colour = colours[look]
            for j, (cls, group) in enumerate(split_shapes(v.cases)):
                joined = cls is None
                for side in sides:
                    pts = speedup_points(group, side) if speed else time_points(group, side)
                    if not pts:
                        continue
                    any_data = True
                    xs = [p[0] for p in pts]
                    ys = [p[1] if speed else p[1] * 1e3 for p in pts]
                    ax.plot(xs, ys, gid=gid("speedup" if speed else "time", side, op, v, j),
                            **line_kw(side, look, joined, colour))
                    ys_all += ys
                    if not joined:
                        shapes.note(ax, cls, xs, ys, shape_label(pts[-1][-1]))
                    elif speed:
                        xc = [x for x, _ in series_crossings(doc, op, v.dtype, v, side, pts)]
                        mark_crossings(ax, xc, side, colour)
        entries = []
        for g in panel_groups[op]:
            v = by_index[g[0]]
            handles = tuple(plot_style.Line2D([], [], **line_kw(s, v.index, True, colours[v.index]))
                            for s in sides if any(points(by_index[k], s) for k in g))
            labels = [by_index[k].label or str(by_index[k].dtype) for k in g]
            if len(g) > 1:
                labels[-1] += ":"
                within = spread([panel_series[op][k] for k in g])
                labels.append("these %d coincide (within %s%%)" % (len(g), "%.2g" % (100 * within)))
            entries.append((handles, "\n".join(labels)))
        title = op + (" (%s)" % common if common else "")
        fits = pw * plot_style.DPI / 7.2  # characters of 11 pt across the panel
        ax.set_title(title, fontsize=11 if len(title) <= fits else max(8, 11 * fits / len(title)))
        if not any_data:
            empty(ax, "no speedups for %s" % op if speed else "no CPU timings")
            continue
        style_axes(ax)
        ax.set_xlabel(OP_X.get(op, "n"), fontsize=9)
        # the x axis spans the sizes drawn here: a size skipped on every side leaves no empty room
        panel = "speedup" if speed else "cpu"
        set_x_ticks(ax, drawn_sizes(by_op[op], panel, square_only=True) or drawn_sizes(by_op[op], panel), pw,
                    fontsize=8.5, fmt=OP_X_FMT.get(op))
        xs = drawn_sizes(by_op[op], panel)
        lo, hi = ax.get_xlim()
        ax.set_xlim(min(lo, min(xs) / 1.3), max(hi, max(xs) * 1.3))
        ax.tick_params(axis="x", labelsize=8.5)
        # each panel its own y range: ops differ by decades, one scale would flatten them all
        lo, hi = min(ys_all), max(ys_all)
        if speed:
            lo, hi = min(lo, 0.8), max(hi, 1.25)
            ax.axhline(1.0, color="black", linewidth=1.1, zorder=1)
        pad = max(hi / lo, 4.0) ** 0.08
        room = pad if any(k[0] == id(ax) for k in shapes.at) else 1.0  # for the shape labels
        ax.set_ylim(lo / pad, hi * pad * room)
        set_y_ticks(ax, "×" if speed else "")
        if col == 0:
            ax.set_ylabel("speedup (CPU time / GPU time)" if speed else "median CPU time (ms)")
        ax.legend([e[0] for e in entries], [e[1] for e in entries], loc="upper center",
                  bbox_to_anchor=(0.5, -axis_h / panel_h - 0.02), ncol=1, frameon=False, fontsize=8.5,
                  handler_map={tuple: plot_style.HandlerTuple(ndivide=None, pad=0.6)}, handlelength=4.2)
    shapes.draw()
    return save(fig, out, "overview", fmt)
