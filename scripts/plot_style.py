"""plot_style.py — how scripts/plot.py draws: matplotlib (loaded on demand),
the colours, markers and lines of each side, axes and their ticks, labels
placed clear of the data, figures and how they are saved."""
import io
import math
import os
import sys




plt = None  # matplotlib.pyplot, imported by load_matplotlib()
Line2D = None
HandlerTuple = None
ticker = None

# Colours: the one table every picture takes them from (report_svg.c's HTML
# charts mirror it; a test compares the two). All from the Okabe-Ito set, so
# they stay apart for the common kinds of colour blindness.
BLUE, GREEN, VERMILLION, PURPLE = "#0072B2", "#009E73", "#D55E00", "#CC79A7"
ORANGE, SKY, BLACK = "#E69F00", "#56B4E9", "#000000"
# side: (legend label, colour when a panel has one variant, marker, line style)
LIBRARY_SIDES = {
    "cpu": ("CPU", BLUE, "o", "-"),
    "device": ("GPU device-resident", GREEN, "s", "-"),
    "end_to_end": ("GPU end-to-end", VERMILLION, "^", (0, (5, 2.5))),
    # only the ops whose work splits into chunks have it (elementwise, reduction, slicing)
    "end_to_end_overlapped": ("GPU end-to-end overlapped", PURPLE, "v", (0, (1.5, 1.5))),
}
# the framework peers (run --peers), each a series of its own: dotted, with
# markers of their own, so that they read apart from the libraries' solid
# lines whatever colour they share with one; colours apart among themselves
PEER_SIDES = {
    "peer:numpy": ("NumPy", SKY, "D", ":"),
    "peer:scipy": ("SciPy", ORANGE, "P", ":"),
    "peer:cupy": ("CuPy", BLACK, "X", ":"),
    "peer:torch": ("PyTorch", VERMILLION, "*", ":"),
    "peer:jax": ("JAX", PURPLE, "h", ":"),
}
SIDES = {**LIBRARY_SIDES, **PEER_SIDES}
# Where a panel holds several variants (dtypes, params, runs), colour names the
# variant and marker and line the side. A dtype has the same colour in every
# picture (float64 blue, float32 vermillion); further variants of one dtype
# take the next colour no variant of the panel has.
DTYPE_COLOURS = {"float64": BLUE, "float32": VERMILLION, "bfloat16": GREEN, "float16": PURPLE,
                 "float8_e4m3": ORANGE, "int8": BLACK}
# the free ones, in order: float64's and float32's last, since they mean those dtypes in most pictures
VARIANT_COLOURS = (GREEN, PURPLE, ORANGE, SKY, BLACK, BLUE, VERMILLION)


def dtype_colour(dtype):
    """A dtype's colour (a figure whose series are dtypes, e.g. speedup against energy ratio)."""
    return DTYPE_COLOURS.get(dtype, BLACK)


def variant_colours(variants):
    """{variant index: colour} for the variants of one panel: a dtype's own
    colour for the first variant of it, then the free ones in order."""
    out, used = {}, set()
    for v in variants:
        c = DTYPE_COLOURS.get(v.dtype)
        if c and c not in used:
            out[v.index] = c
            used.add(c)
    free = [c for c in VARIANT_COLOURS if c not in used]
    for v in variants:
        if v.index not in out:
            out[v.index] = free.pop(0) if free else VARIANT_COLOURS[v.index % len(VARIANT_COLOURS)]
    return out


HOLLOW = [False, True, False, True, False, True, False, True]  # marker fill by variant
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
    """Ticks inside [lo, hi] for a log axis, plain numbers, at least three where
    the range allows: 1-2-5 (or sparser) per decade, and for a range of less
    than a decade or so evenly spaced round values (30, 40, 50, 60), so that an
    axis never falls back to matplotlib's 3×10¹ labels or shows only two."""
    if not (lo > 0 and hi > lo):
        return []
    e0, e1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    for steps in ((1, 2, 5), (1, 3), (1,)):
        t = [m * 10.0 ** e for e in range(e0, e1 + 1) for m in steps if lo <= m * 10.0 ** e <= hi * 1.0001]
        if 3 <= len(t) <= max_ticks:
            return t
    decades = [10.0 ** e for e in range(e0, e1 + 1) if lo <= 10.0 ** e <= hi * 1.0001]
    if len(decades) >= 3:
        k = max(1, math.ceil(len(decades) / max_ticks))
        return decades[::k]
    # a narrow range: the widest round step that still gives three ticks
    for e in range(e1, e0 - 3, -1):
        for m in (5, 2.5, 2, 1):
            step = m * 10.0 ** e
            first = math.ceil(lo / step - 1e-9)
            t = [round(k * step, 12) for k in range(first, int(hi * 1.0001 / step) + 1) if k > 0]
            if len(t) >= 3:
                return t if len(t) <= max_ticks else t[::math.ceil(len(t) / max_ticks)]
    return []


def set_y_ticks(ax, unit="", scale=1, axis="y"):
    """Plain tick labels (value / scale, then unit), never matplotlib's 3×10¹,
    on a log axis set up to its limits (axis "x" for an x axis that is not
    the sizes run, such as a speedup)."""
    lo, hi = ax.get_ylim() if axis == "y" else ax.get_xlim()
    which = ax.yaxis if axis == "y" else ax.xaxis
    ticks = log_ticks(lo, hi)
    if len(ticks) >= 2:
        which.set_major_locator(ticker.FixedLocator(ticks))
        which.set_major_formatter(ticker.FixedFormatter([fmt_num(t / scale) + unit for t in ticks]))
    which.set_minor_formatter(ticker.NullFormatter())


def fmt_bytes(b):
    """4096 → "4K", 1073741824 → "1G": the largest binary unit that divides it."""
    b, unit = int(b), 0
    while unit < 3 and b % 1024 == 0 and b:
        b, unit = b // 1024, unit + 1
    return "%d%s" % (b, ("", "K", "M", "G")[unit])


def fmt_bytes_near(b):
    """A size between the ones run (a crossing), two digits in its binary unit: 844000 → "820K"."""
    unit = max(0, min(3, int(math.log(b, 1024)))) if b >= 1 else 0
    return "%g%s" % (float("%.2g" % (b / 1024.0 ** unit)), ("", "K", "M", "G")[unit])


OP_X_FMT = {"transfer": fmt_bytes}  # tick labels other than plain numbers
OP_X_NEAR = {"transfer": fmt_bytes_near}  # a size between ticks


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


def shade(side, variant_index=0):
    """The side's own colour (a panel of one variant, a ceiling's line)."""
    return SIDES[side][1]


def line_kw(side, vi, joined=True, colour=None):
    """Marker and line of a side; colour: the variant's where the panel has
    several (variant_colours), else the side's."""
    colour = colour or shade(side)
    hollow = HOLLOW[vi % len(HOLLOW)]
    return dict(color=colour, marker=SIDES[side][2], linestyle=SIDES[side][3] if joined else "none",
                linewidth=1.9, markersize=6.5, markeredgecolor=colour, markeredgewidth=1.4,
                markerfacecolor="white" if hollow else colour)


def key_kw(side):
    """A key entry for a side alone (marker and line, no variant's colour)."""
    return line_kw(side, 0, colour="#444")


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


def mark_crossings(ax, xs, side, colour=None):
    """A diamond on the 1x line at each crossing, in the series' colour."""
    for x in xs:
        ax.plot([x], [1.0], marker="D", markersize=7.5, color=colour or shade(side), markeredgecolor="black",
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
