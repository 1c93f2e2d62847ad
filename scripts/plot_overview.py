"""plot_overview.py — the overview figure (scripts/plot.py): one small panel
per op with every speedup, or every op's CPU time when no run has a GPU."""
import math

import plot_style  # plt, Line2D, HandlerTuple: set when matplotlib loads
from plot_style import (OP_X, OP_X_FMT, ShapeLabels, TIMINGS, empty, gid, line_kw, mark_crossings,
    new_figure, rect, save, set_x_ticks, set_y_ticks, shade, style_axes)
from plot_data import (is_merged, machine_line, run_name, runs_of, series_crossings, shape_label, size_of,
    speedup_points, split_shapes, time_points, variants_of)


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
        key = [(plot_style.Line2D([], [], **line_kw("device", 0)),
                "GPU device-resident" if ovl else "GPU device-resident (data already on the GPU)"),
               (plot_style.Line2D([], [], **line_kw("end_to_end", 0)),
                "GPU end-to-end" if ovl else "GPU end-to-end (copies included)")]
        if ovl:
            key += [(plot_style.Line2D([], [], **line_kw("end_to_end_overlapped", 0)), "end-to-end, copies overlapped")]
        key += [(plot_style.Line2D([], [], marker="D", markersize=7, color=shade("device", 0), markeredgecolor="black",
                        linestyle="none"), "speedup crosses 1×")]
    else:
        key = [(plot_style.Line2D([], [], **line_kw("cpu", 0)), "CPU median time")]
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
                handles = (plot_style.Line2D([], [], **line_kw("device", v.index)),
                           plot_style.Line2D([], [], **line_kw("end_to_end", v.index)))
            else:
                handles = (plot_style.Line2D([], [], **line_kw("cpu", v.index)),)
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
                  handler_map={tuple: plot_style.HandlerTuple(ndivide=None, pad=0.6)}, handlelength=4.2)
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
