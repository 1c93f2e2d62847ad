"""plot_checks.py — checks of scripts/plot_data.py and plot_style.py that need
no figure: which series coincide, which sizes a panel spans, tick values,
and the colour table (run by tests/scripts/test_plot.c: `plot_checks.py
SCRIPTS_DIR [CHECK]`; prints one line per failed check, exits 1 if any)."""
import itertools
import math
import sys

sys.path.insert(0, sys.argv[1])
import plot_data  # noqa: E402
import plot_style  # noqa: E402

FAILED = []


def check(ok, what):
    if not ok:
        FAILED.append(what)
        print("FAILED: " + what)


def case(n, results, speedup=None, params=None):
    return {"op": "svd", "dtype": "float32", "shape": [n, n], "params": params or {}, "results": results,
            "speedup": speedup or {}}


def ok(backend, timing, median):
    return {"backend": backend, "timing": timing, "status": "ok",
            "stats": {"median": median, "ci95_low": median * 0.9, "ci95_high": median * 1.1}}


def skipped(backend, timing):
    return {"backend": backend, "timing": timing, "status": "skipped", "reason": "projected too slow"}


def coinciding_series():
    same = {4096: 1e-4, 1 << 20: 2e-2, 1 << 26: 3.0}
    near = {k: v * 1.1 for k, v in same.items()}     # 10% apart
    far = {k: v * 1.4 for k, v in same.items()}      # 40% apart
    farther = {k: v * 1.2 for k, v in near.items()}  # 20% from near, 32% from same
    groups = plot_data.coinciding([("a", same), ("b", dict(same)), ("c", near), ("d", far)], 0.15)
    check(groups == [["a", "b", "c"], ["d"]], "identical and 10%%-apart series group, 40%% stays apart: %s" % groups)
    # near joins same's group; farther is within 15% of near but not of same: not chained in
    groups = plot_data.coinciding([("a", same), ("c", near), ("e", farther)], 0.15)
    check(groups == [["a", "c"], ["e"]], "a chain of near neighbours is not merged end to end: %s" % groups)
    other_sizes = {4096: 1e-4, 1 << 20: 2e-2}
    check(plot_data.coinciding([("a", same), ("f", other_sizes)], 0.5) == [["a"], ["f"]],
          "series over other sizes never coincide")
    check(abs(plot_data.spread([same, near]) - 0.1) < 1e-9, "spread is the largest relative gap")
    # the tolerance is what spans 3 pixels: wider over 8 decades than over one
    wide = plot_data.visual_tolerance([1e-4, 1e4], 245)
    narrow = plot_data.visual_tolerance([1, 10], 245)
    check(wide > 0.2 and narrow < 0.04, "visual tolerance scales with the axis: %.3f, %.3f" % (wide, narrow))


def skipped_sizes():
    cases = [case(n, [ok("cpu", "host", n * 1e-6), ok("cuda", "device", n * 1e-7)], {"device": 10.0})
             for n in (256, 512, 1024)]
    cases.append(case(4096, [skipped("cpu", "host"), ok("cuda", "device", 1e-3)]))  # no speedup there
    cases.append(case(8192, [skipped("cpu", "host"), skipped("cuda", "device")]))    # nothing at all
    check(plot_data.drawn_sizes(cases, "speedup") == [256, 512, 1024],
          "a size without a speedup is not in the speedup panel's span: %s" % plot_data.drawn_sizes(cases, "speedup"))
    check(plot_data.drawn_sizes(cases, "time") == [256, 512, 1024, 4096],
          "the time panel spans the GPU-only size, not the size skipped on every side: %s"
          % plot_data.drawn_sizes(cases, "time"))
    check(plot_data.drawn_sizes(cases, "cpu") == [256, 512, 1024], "the CPU's span ends where the CPU does")


def ticks():
    for lo, hi in ((30, 60), (90, 260), (0.36, 0.62), (4.5e4, 5.3e4), (1e-4, 1e4), (0.8, 20)):
        t = plot_style.log_ticks(lo, hi)
        check(3 <= len(t) <= 7 and all(lo <= v <= hi * 1.0001 for v in t),
              "three to seven ticks inside [%g, %g]: %s" % (lo, hi, t))
        labels = [plot_style.fmt_num(v) for v in t]
        check(all("e" not in x and "×" not in x for x in labels), "plain tick labels: %s" % labels)


# ---- colours: apart for normal vision and the three kinds of colour blindness ----

CVD = {  # Machado, Oliveira and Fernandes (2009), severity 1, on linear RGB
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}


def lab(hexc, vision=None):
    lin = [(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
           for c in (int(hexc[i:i + 2], 16) / 255 for i in (1, 3, 5))]
    if vision:
        lin = [min(max(sum(CVD[vision][i][j] * lin[j] for j in range(3)), 0), 1) for i in range(3)]
    r, g, b = lin
    x, y, z = 0.4124 * r + 0.3576 * g + 0.1805 * b, 0.2126 * r + 0.7152 * g + 0.0722 * b, \
        0.0193 * r + 0.1192 * g + 0.9505 * b
    f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116  # noqa: E731
    return 116 * f(y) - 16, 500 * (f(x / 0.95047) - f(y)), 200 * (f(y) - f(z / 1.08883))


def colours():
    tables = {"dtype colours": list(plot_style.DTYPE_COLOURS.values()),
              "variant colours": list(plot_style.VARIANT_COLOURS),
              "side colours": [s[1] for s in plot_style.LIBRARY_SIDES.values()],
              "peer colours": [s[1] for s in plot_style.PEER_SIDES.values()]}
    for name, cols in tables.items():
        check(len(set(cols)) == len(cols), "%s are distinct: %s" % (name, cols))
        for vision in (None,) + tuple(CVD):
            worst = min((math.dist(lab(a, vision), lab(b, vision)), a, b) for a, b in itertools.combinations(cols, 2))
            check(worst[0] >= 15, "%s apart for %s vision: %s and %s only ΔE %.1f" % (
                name, vision or "normal", worst[1], worst[2], worst[0]))
    # float64 and float32 meet in most panels: opposite hues, not two shades of one
    a, b = lab(plot_style.DTYPE_COLOURS["float64"]), lab(plot_style.DTYPE_COLOURS["float32"])
    hue = abs(math.degrees(math.atan2(a[2], a[1]) - math.atan2(b[2], b[1]))) % 360
    check(min(hue, 360 - hue) >= 90, "float64 and float32 differ in hue by %.0f degrees" % min(hue, 360 - hue))

    class V:
        def __init__(self, index, dtype):
            self.index, self.dtype = index, dtype
    got = plot_style.variant_colours([V(0, "float32"), V(1, "float32"), V(2, "float64")])
    check(got[0] == plot_style.DTYPE_COLOURS["float32"] and got[2] == plot_style.DTYPE_COLOURS["float64"],
          "a dtype keeps its colour whatever its place: %s" % got)
    check(len(set(got.values())) == 3, "two variants of one dtype get two colours: %s" % got)
    got = plot_style.variant_colours([V(0, "float32"), V(1, "float32")])
    check(got[1] not in (plot_style.DTYPE_COLOURS["float64"], plot_style.DTYPE_COLOURS["float32"]),
          "a second float32 variant (math=tf32) does not take float64's colour: %s" % got)


CHECKS = {"coinciding": coinciding_series, "skipped_sizes": skipped_sizes, "ticks": ticks, "colours": colours}
for name, fn in CHECKS.items():
    if len(sys.argv) < 3 or sys.argv[2] == name:
        fn()
sys.exit(1 if FAILED else 0)
