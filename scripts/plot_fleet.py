"""plot_fleet.py — the fleet heatmap: cases x nodes (or GPUs), relative time.

Drawn from the fleet document (`gpubench report --fleet ... --format json`,
schema "gpubench-fleet"), never from the results themselves, so the picture
shows exactly the numbers and the slow flags of the table: gpubench decided
them with compare's statistics (docs/reports.md), nothing is recomputed here.
scripts/plot.py hands a fleet document to draw(); `gpubench report --fleet
--plot DIR` writes DIR/fleet.json and DIR/fleet.png.
"""
import math
import os


def _cell_rel(cell):
    if not isinstance(cell, dict):
        return None
    rel = cell.get("relative")
    return rel if isinstance(rel, (int, float)) and rel > 0 else None


def draw(doc, out, fmt, plt):
    """Write OUT/fleet.FMT; return its path. plt is matplotlib.pyplot (Agg)."""
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.patches import Rectangle

    cols = doc.get("columns") or []
    rows = doc.get("rows") or []
    names = [str(c.get("name", "?")) for c in cols]
    cases = [str(r.get("name", "?")) for r in rows]
    # suffix every row shares (/cuda/device): said once in the title instead
    common = "/%s/%s" % (rows[0].get("backend", ""), rows[0].get("timing", "")) if rows else ""
    if common and all(c.endswith(common) for c in cases):
        cases = [c[: -len(common)] for c in cases]
    nr, nc = len(rows), len(cols)
    grid = [[_cell_rel(cell) for cell in (r.get("cells") or [])] + [None] * (nc - len(r.get("cells") or []))
            for r in rows]
    values = [v for row in grid for v in row if v is not None]
    # colour by log(relative), symmetric around 1: 2x slower is as red as 2x faster is blue
    top = max([1.05] + [max(v, 1 / v) for v in values])
    norm = TwoSlopeNorm(vmin=-math.log(top), vcenter=0.0, vmax=math.log(top))
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("#d9d9d9")
    data = [[math.log(v) if v is not None else float("nan") for v in row] for row in grid]

    rotate = nc > 6 or max([len(n) for n in names] + [0]) > 8
    label_w = min(0.075 * max([len(c) for c in cases] + [10]), 5.5) + 0.2
    cell = 0.62 if nc <= 24 else 0.32
    grid_w, grid_h = max(nc, 2) * cell, max(nr, 1) * 0.34
    header = 0.3 + (0.065 * max([len(n) for n in names] + [4]) if rotate else 0.15)
    bottom, top_text = 0.25, 0.75
    width = label_w + grid_w + 1.45
    height = bottom + grid_h + header + top_text
    fig = plt.figure(figsize=(width, height), dpi=100)
    ax = fig.add_axes([label_w / width, bottom / height, grid_w / width, grid_h / height])
    im = ax.imshow(data, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    ax.set_yticks(range(nr))
    ax.set_yticklabels(cases, fontsize=8)
    ax.set_xticks(range(nc))
    ax.xaxis.tick_top()
    ax.set_xticklabels(names, rotation=60 if rotate else 0, ha="left" if rotate else "center", fontsize=8)
    for k, c in enumerate(cols):
        if c.get("flagged_slow"):
            ax.get_xticklabels()[k].set_color("#b00000")
            ax.get_xticklabels()[k].set_fontweight("bold")
    annotate = nr * nc <= 600
    for i, r in enumerate(rows):
        for k, cellv in enumerate((r.get("cells") or [])[:nc]):
            v = grid[i][k]
            verdict = cellv.get("verdict") if isinstance(cellv, dict) else None
            if verdict == "slow":  # outlined: beyond the measured noise
                ax.add_patch(Rectangle((k - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#f2b400", linewidth=2.5))
            if not annotate:
                continue
            if v is None:
                text = "–" if cellv is None else str(cellv.get("status", "?"))[:6]
                ax.text(k, i, text, ha="center", va="center", fontsize=7, color="#555555")
            else:
                dark = abs(math.log(v)) > 0.6 * math.log(top)
                ax.text(k, i, "%.2f%s" % (v, "*" if verdict == "reference" else ""), ha="center", va="center",
                        fontsize=7, color="white" if dark else "black",
                        fontweight="bold" if verdict == "slow" else "normal")
    ax.set_xticks([x - 0.5 for x in range(1, nc)], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, nr)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="minor", length=0)
    for s in ax.spines.values():
        s.set_visible(False)
    cax = fig.add_axes([(label_w + grid_w + 0.25) / width, bottom / height, 0.18 / width, grid_h / height])
    ticks = [t for t in (0.5, 0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 3.0) if 1 / top <= t <= top]
    cb = fig.colorbar(im, cax=cax, ticks=[math.log(t) for t in ticks])
    cb.ax.set_yticklabels(["%g×" % t for t in ticks], fontsize=8)
    cb.set_label("time relative to the median column", fontsize=8)
    slow = [c.get("name", "?") for c in cols if c.get("flagged_slow")]
    title = "Fleet: %d case%s × %d column%s, timing %s%s" % (
        nr, "" if nr == 1 else "s", nc, "" if nc == 1 else "s", doc.get("timing", "?"),
        " (%s)" % common.strip("/") if common else "")
    sub = ("outlined (gold): slower beyond the measured noise (compare's test); * the reference column. Slow: %s"
           % (", ".join(slow[:8]) + (" …" if len(slow) > 8 else "")) if slow else
           "no column slower beyond the measured noise; * marks each case's reference column")
    fig.text(0.01, 1 - 0.12 / height, title, fontsize=11, fontweight="bold", va="top")
    fig.text(0.01, 1 - 0.42 / height, sub, fontsize=8.5, va="top", color="#b00000" if slow else "#333333")
    path = os.path.join(out, "fleet.%s" % fmt)
    # No date in an SVG (nor matplotlib's version in a PNG): the same document draws the same bytes, as plot.py's do.
    fig.savefig(path, format=fmt, dpi=100, metadata={"Date": None} if fmt == "svg" else {"Software": None})
    plt.close(fig)
    return path
