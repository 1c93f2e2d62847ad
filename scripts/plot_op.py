"""plot_op.py — the figure of one op and dtype (scripts/plot.py): time,
speedup and achieved rate against n, one panel each."""
import math

import plot_style  # plt, Line2D, HandlerTuple: set when matplotlib loads
from plot_style import (DPI, OP_X, OP_X_FMT, OP_X_NEAR, SIDES, ShapeLabels, TIMINGS, data_points, empty, fmt_num, gid,
    label_one_x, line_kw, mark_crossings, new_figure, place_label, rect, safe, save, set_x_ticks,
    set_y_ticks, shade, style_axes, variant_colours)
from plot_data import (coinciding, machines_title, missing_notes, peak_lines, series_crossings, series_of,
    shape_class, shape_label, side_of, size_of, speedup_points, split_shapes, spread, time_points, variants_of,
    visual_tolerance)


# ---- one figure per op and dtype ------------------------------------------------


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

    xlabel = OP_X.get(op, "n")
    # One variant: colour names the side. Several: colour names the variant
    # (the overview's colours), marker and line the side; a side's lines that
    # coincide across variants are drawn as one, with one legend entry.
    many = len(variants) > 1
    colours = variant_colours(variants)
    lead, within = {}, {}  # (side, variant index) -> the variant whose look it takes; (side, leader) -> spread
    for side in SIDES:
        series = [(v.index, series_of(time_points(v.cases, side))) for v in variants]
        series = [(k, pts) for k, pts in series if pts]
        tol = visual_tolerance([m for _, pts in series for m in pts.values()], panel_h * DPI)
        by_key = dict(series)
        for g in coinciding(series, tol) if many else []:
            for k in g:
                lead[(side, k)] = g[0]
            if len(g) > 1:
                within[(side, g[0])] = (g, spread([by_key[k] for k in g]))

    def kw_of(side, vi, joined=True):
        look = lead.get((side, vi), vi)
        return line_kw(side, look, joined, colours[look] if many else None)

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
                kw = kw_of(side, v.index, joined)
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
                          **line_kw(timing, v.index, joined, colours[v.index] if many else None))
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
            look = lead.get((side, v.index), v.index)
            if look != v.index:  # drawn as one with an earlier variant: its entry names this one
                continue
            if (side, v.index) in within:
                g, spr = within[(side, v.index)]
                others = [w.label for w in variants if w.index in g[1:]]
                label += " = " + " = ".join(others) + " (coincide, within %.2g%%)" % (100 * spr)
            colour = colours[v.index] if many else None
            if side in TIMINGS and ax_s is not None:
                xs = [x for x, _ in series_crossings(doc, op, dtype, v, side, speedup_points(square, side))]
                if xs:
                    mark_crossings(ax_s, xs, side, colour)
                    at = OP_X_NEAR.get(op, lambda x: fmt_num(float("%.3g" % x)))
                    label += ": crosses 1× at %s ≈ " % ("size" if op in OP_X_NEAR else "n") + ", ".join(
                        at(x) for x in xs)
            handles[side].append((plot_style.Line2D([], [], **line_kw(side, v.index, True, colour)), label))

    allx = sorted(set(square_sizes)) or sorted(size_of(c) for c in cases if size_of(c))

    def finish(ax, ylabel, unit="", extra=(), room_top=False, room_bottom=False, scale=1):
        """Log axes, labels, x ticks at the square sizes this panel draws (a size
        skipped on every side it shows leaves no empty room); y range: the data
        (CI bars included) and extra values, padded, with room for labels where
        asked; tick labels divided by scale."""
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
        drawn = sorted({float(x) for ln in ax.lines for x, y in zip(ln.get_xdata(), ln.get_ydata())
                        if isinstance(x, (int, float)) and x > 0 and y > 0})
        set_x_ticks(ax, [x for x in allx if x in drawn] or drawn, pw, fmt=OP_X_FMT.get(op))
        lo, hi = ax.get_xlim()
        if drawn:
            ax.set_xlim(min(lo, drawn[0] / 1.25), max(hi, drawn[-1] * 1.25))
        set_y_ticks(ax, unit, scale)

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
        # from 10 000 GFLOP/s (GB/s) on, the ticks count in T units: 50, not 50000
        highest = max([y for ln in ax_r.lines for y in ln.get_ydata() if y > 0] + [v for _, v, _, _ in lines])
        scale, unit_shown = (1000, rate_unit.replace("G", "T", 1)) if highest >= 1e4 else (1, rate_unit)
        finish(ax_r, "achieved %s" % unit_shown + (" (GPU: device-resident)" if has_gpu else ""),
               extra=[v for _, v, _, _ in lines], room_top=bool(lines), room_bottom=bool(nonsquare), scale=scale)
        if lines:
            lo, hi = ax_r.get_ylim()
            near = 0.06 * math.log(hi / lo)  # labels closer than this (in log y) would overlap
            pts = data_points(ax_r)
            placed = []
            for label, value, side, vi in sorted(lines, key=lambda l: l[1]):
                # a side's colour where colour names the side; dark grey where it names the variant
                colour = "#444" if many else shade(side)
                ax_r.axhline(value, color=colour, linestyle=(0, (1.5, 2)), linewidth=1.3, zorder=1)
                k = sum(1 for p in placed if abs(math.log(value / p)) < near)
                placed.append(value)
                # above the line (stacked when lines are close), at whichever end is free
                place_label(ax_r, pts, value, label, pw, panel_h, colour, lift=11 * k)
    else:
        empty(ax_r, "no rates recorded")
    ax_r.set_title("achieved rate vs measured ceilings")

    entries, width = [], max(len(handles[s]) for s in sides) if sides else 0
    for s in sides:
        col = handles[s] + [(plot_style.Line2D([], [], alpha=0), "")] * (width - len(handles[s]))
        entries += col
    shapes.draw()
    ncol = 1
    if entries:
        ncol = len(sides) if len(sides) > 1 else min(3, len(entries))
        # long labels (several runs, named by file; crossings) in fewer columns, so none runs off the figure
        longest = max(len(e[1]) for e in entries)
        while ncol > 1 and ncol * (longest * 6.8 + 70) > fig.get_figwidth() * DPI:
            ncol -= 1
        if ncol < len(sides):
            entries = [e for e in entries if e[1]]  # the column padding no longer lines sides up
    # the legend's rows known now: the figure grows to hold them, the panels keep their size
    rows = math.ceil(len(entries) / ncol) if entries else 0
    if rows > legend_rows:
        H += 0.2 * (rows - legend_rows)
        fig.set_size_inches(W, H)
        for i, name in enumerate(panels):
            axes[name].set_position(rect(fig, left + i * (pw + gap), H - top - panel_h, pw, panel_h))
    fig.text(0.5, 1 - 0.12 / H, title, ha="center", va="top", fontsize=13, fontweight="bold")
    fig.text(0.5, 1 - 0.45 / H, subtitle, ha="center", va="top", fontsize=9.5, color="#222")
    for i, note in enumerate(reversed(notes)):
        fig.text(0.5, (0.08 + 0.2 * i) / H, note, ha="center", va="bottom", fontsize=8.5, color="#333")
    if entries:
        fig.legend([e[0] for e in entries], [e[1] for e in entries], loc="lower center",
                   bbox_to_anchor=(0.5, (0.1 + 0.2 * len(notes) + (0.05 if notes else 0)) / H),
                   ncol=ncol, frameon=False, handlelength=3.2, columnspacing=2.2)
    return save(fig, out, "%s_%s" % (safe(op), safe(dtype)), fmt)
