"""plot_energy.py — per op, speedup against energy ratio (docs/energy.md):
energy_<op>.<fmt>, one point per case and dtype (label: its size), x the
device-resident speedup (CPU median / GPU median), y the energy ratio (CPU J
per op / GPU J per op, the accelerator result's energy.energy_ratio), both
logarithmic with the 1x lines drawn: above the horizontal line the GPU spends
less energy per operation, right of the vertical one it is faster. A point
whose GPU result ran power- or thermally limited is drawn hollow. Only ops
with at least one measured ratio get a figure: where the CPU side has no
counter (a VM) there is no ratio to draw, and no empty figure is written."""
import plot_style
from plot_style import new_figure, rect, save, safe, style_axes, fmt_num

DTYPE_MARK = {"float64": "o", "float32": "s", "bfloat16": "^", "float16": "v", "float8": "D", "int8": "P"}


def points_of(cases):
    """(speedup, energy ratio, label, dtype, limited) of each case that has both."""
    pts = []
    for c in cases:
        sp = (c.get("speedup") or {}).get("device")
        for r in c.get("results") or []:
            if not isinstance(r, dict) or r.get("timing") != "device":
                continue
            e = r.get("energy") or {}
            ratio = e.get("energy_ratio")
            if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or ratio <= 0:
                continue
            if not isinstance(sp, (int, float)) or isinstance(sp, bool) or sp <= 0:
                continue
            clk = r.get("clocks") or {}
            limited = clk.get("power_limited") is True or clk.get("thermal_limited") is True
            pts.append((sp, ratio, str(c.get("label", "")), str(c.get("dtype", "")), limited))
            break
    return pts


def plot_energy(doc, cases, out, fmt):
    """Write one figure per op with measured energy ratios; the paths written."""
    plt = plot_style.plt
    by_op = {}
    for c in cases:
        by_op.setdefault(c.get("op", "?"), []).append(c)
    written = []
    for op, cs in by_op.items():
        pts = points_of(cs)
        if not pts:
            continue
        fig = new_figure(7.0, 5.0)
        ax = fig.add_axes(rect(fig, 0.9, 0.7, 5.8, 3.8))
        ax.set_xscale("log")
        ax.set_yscale("log")
        for dt in sorted(set(p[3] for p in pts)):
            mine = [p for p in pts if p[3] == dt]
            for limited in (False, True):
                sel = [p for p in mine if p[4] == limited]
                if not sel:
                    continue
                colour = plot_style.dtype_colour(dt)  # every picture's dtype colour
                ax.scatter([p[0] for p in sel], [p[1] for p in sel], marker=DTYPE_MARK.get(dt, "o"),
                           facecolors="none" if limited else colour, edgecolors=colour,
                           label=dt + (" (power/thermal limited)" if limited else ""), zorder=3)
            # only each dtype's largest case is named: every label overlapped its neighbours
            big = max(mine, key=lambda p: p[0])
            ax.annotate(big[2], (big[0], big[1]), textcoords="offset points", xytext=(-4, 5), fontsize=7,
                        ha="right", color=plot_style.dtype_colour(dt))
        xs = [p[0] for p in pts] + [1.0]
        ys = [p[1] for p in pts] + [1.0]
        ax.set_xlim(min(xs) / 1.5, max(xs) * 1.5)
        ax.set_ylim(min(ys) / 1.5, max(ys) * 1.5)
        ax.axhline(1.0, color="#888888", lw=0.8, zorder=1)
        ax.axvline(1.0, color="#888888", lw=0.8, zorder=1)
        ax.set_xlabel("speedup (CPU median / GPU device-resident median)")
        ax.set_ylabel("energy ratio (CPU J/op / GPU J/op)")
        ax.set_title("%s: speedup against energy ratio (above 1x: the GPU uses less energy per op;\n"
                     "best %s×; hollow: the GPU ran power- or thermally limited)" % (
                         op, fmt_num(round(max(p[1] for p in pts), 1))), fontsize=9)
        style_axes(ax)
        plot_style.set_y_ticks(ax)
        plot_style.set_y_ticks(ax, axis="x")
        ax.legend(fontsize=8, loc="upper left")
        written.append(save(fig, out, "energy_%s" % safe(op), fmt))
    return written
