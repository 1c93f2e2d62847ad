#!/usr/bin/python3
"""Plot a gpubench results file (docs/results-schema.md).

usage: plot.py RESULTS.json [MORE.json ...] [--out DIR] [--format png|svg] [--op LIST] [--dtype LIST]

Several files (or a file of `gpubench merge`) are drawn overlaid: each run is
its own series (its own colour, every second with hollow markers), named by its file, e.g. a
laptop's CPU and an H100 host's CPU and GPU in one figure.

Writes, for each op and dtype, <op>_<dtype>.<fmt>:
  time vs n (log-log; CPU, GPU device-resident, GPU end-to-end; bars: the
  95% confidence interval of the median),
  speedup vs n (CPU median / GPU median, the 1x line labelled, every
  crossing of it marked),
  achieved rate vs n (GFLOP/s or GB/s; the GPU's from its device-resident
  time) with the run's measured ceilings as labelled horizontal lines;
precision_<op>.<fmt> for an op run in a reduced precision and another dtype:
the precision ladder (each dtype's CPU and GPU rate at its largest size,
with their ceilings, and each side's error against float64: plot_ladder.py);
energy_<op>.<fmt> where energy ratios were measured (plot_energy.py: speedup
against CPU J / GPU J per op);
and overview.<fmt>: one small panel per op, each with its own y range, with
every speedup (device-resident: solid, squares; end-to-end: dashed,
triangles), or every op's CPU time when no run in the file has a GPU.

Series: marker and line name the side (CPU circles, GPU device-resident
squares, GPU end-to-end dashed triangles); in a figure of one variant colour
names the side too (CPU blue, device green, end-to-end vermillion), in a
figure of several (params variants, dtypes in the overview, runs of a merged
file) colour names the variant (float64 blue, float32 vermillion; the table
is plot_style.py's, Okabe-Ito, colour-blind safe), every second with hollow
markers. Lines that would lie on top of each other are drawn as one, with
one legend entry saying they coincide. The x axis is n of the square cases
(n x n, or n x n x n for matmul), ticked at the sizes that were run, each
panel only over the sizes it draws. Non-square shapes (e.g. svd 10000x1000)
are their own series: unjoined markers at the geometric mean of the
dimensions, labelled with the shape. Crossings of 1x come from the results'
"crossover" entries; for a file written before they listed every change, or
a sweep that mixes shapes, they are recomputed the same way (log-log
interpolation) over the square sweep the plot draws.

Titles name the op, the dtype, the params, the CPU model and thread count and
the GPU. --op and --dtype (comma-separated) draw only those ops / dtypes.

Needs Python 3 and matplotlib (Debian: python3-matplotlib); nothing else.
Exit status: 0 written, 2 usage error, unreadable input or no matplotlib.

The drawing is in the modules next to this file, by figure family:
plot_op.py (the figure of one op and dtype), plot_overview.py (the
overview), plot_ladder.py (the precision ladder), plot_fleet.py (the fleet heatmap); what they share is in
plot_data.py (what is read from the results) and plot_style.py (matplotlib,
colours, axes, labels, saving).
"""
import argparse
import json
import os
import sys

# The modules next to this file, wherever it is run from (installed, bundled, a checkout).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_style  # noqa: E402  (plt: set when matplotlib loads)
from plot_style import load_matplotlib  # noqa: E402
from plot_data import combine, first_device_only, mark_peers  # noqa: E402
from plot_op import plot_group  # noqa: E402
from plot_overview import plot_overview  # noqa: E402
from plot_ladder import plot_ladders  # noqa: E402
from plot_energy import plot_energy  # noqa: E402


# ---- main ----------------------------------------------------------------------------


def parse_list(text):
    return [x.strip() for x in (text or "").split(",") if x.strip()]


def plot_fleet_doc(doc, args):
    """A fleet document (`gpubench report --fleet --format json`): the heatmap."""
    why = load_matplotlib()
    if why:
        print(why, file=sys.stderr)
        return 2
    import plot_fleet
    try:
        os.makedirs(args.out, exist_ok=True)
        print("wrote %s" % plot_fleet.draw(doc, args.out, args.format, plot_style.plt))
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
    mark_peers(doc, cases)
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
        written.extend(plot_ladders(doc, cases, args.out, args.format))
        written.append(plot_overview(doc, cases, args.out, args.format))
        written.extend(plot_energy(doc, cases, args.out, args.format))
    except OSError as e:
        print("plot.py: writing into %s: %s" % (args.out, e), file=sys.stderr)
        return 2
    for p in written:
        print("wrote %s" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
