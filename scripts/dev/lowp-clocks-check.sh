#!/bin/bash
# lowp-clocks-check.sh OUTDIR — why gpubench's reduced-precision GEMM 8192
# read 11-14% slower than PyTorch's on the H200 (issue #27), in one call of
# under 5 minutes on the GPU host, from an unpacked bundle (bin/gpubench) or
# a build tree (./gpubench), with python3 + PyTorch there.
#
# nvidia-smi samples SM clock, power and the clock-event reasons every 100 ms
# in the background, while four timings run interleaved, PAIRS times:
#   gb-long   gpubench, --max-time 1s (as the #27 check ran it)
#   torch     PyTorch's 10-call burst after two warm-ups (as before)
#   torch-span PyTorch back to back for 1 s, each call timed by CUDA events
#   gb-short  gpubench, --max-time 0.1s --min-time 0.05s
# Each phase's wall-clock span goes to phases.tsv, so the trace is cut to
# it: summary.md gives per phase its median SM clock and power and per
# dtype the time ratios gpubench / PyTorch of each pairing.
set -u
OUTDIR=${1:?usage: lowp-clocks-check.sh OUTDIR}
N=${N:-8192}
PAIRS=${PAIRS:-3}
DTYPES=${DTYPES:-bfloat16,float16,float8_e4m3}
GB=${GB:-./gpubench}
[ -x "$GB" ] || GB=bin/gpubench
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUTDIR"
export GPUBENCH_CPU_GEMM_CHOICE="$OUTDIR/cpu-gemm-choice.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv,noheader,nounits -lms 100 >"$OUTDIR/smi.csv" 2>"$OUTDIR/smi.err" &
SMI=$!
# the instant power apart: a field this driver lacks would empty the first trace
nvidia-smi --query-gpu=timestamp,power.draw.instant --format=csv,noheader,nounits -lms 100 \
    >"$OUTDIR/smi-instant.csv" 2>>"$OUTDIR/smi.err" &
SMI2=$!
: >"$OUTDIR/phases.tsv"
phase() { # NAME CMD...: run it, its start and end (epoch s) into phases.tsv
    local name=$1 t0
    shift
    t0=$(date +%s.%N)
    "$@"
    echo -e "$name\t$t0\t$(date +%s.%N)" >>"$OUTDIR/phases.tsv"
}
for i in $(seq 1 "$PAIRS"); do
    phase gb-long "$GB" run --op matmul --sizes "$N" --backend cuda --dtype "$DTYPES" --max-time 1s --rounds 1 \
        --no-peak --quiet --energy on --out "$OUTDIR/gb-long-$i.json" >>"$OUTDIR/gb.log" 2>&1
    phase torch python3 "$HERE/torch-gemm-peer.py" --n "$N" --device cuda --dtypes "$DTYPES" --reps 10 \
        >>"$OUTDIR/torch.jsonl" 2>>"$OUTDIR/torch.log"
    phase torch-span python3 "$HERE/torch-gemm-peer.py" --n "$N" --device cuda --dtypes "$DTYPES" --span 1 \
        >>"$OUTDIR/torch-span.jsonl" 2>>"$OUTDIR/torch.log"
    phase gb-short "$GB" run --op matmul --sizes "$N" --backend cuda --dtype "$DTYPES" --max-time 0.1s \
        --min-time 0.05s --rounds 1 --no-peak --quiet --energy on --out "$OUTDIR/gb-short-$i.json" >>"$OUTDIR/gb.log" 2>&1
done
# issue #28: short (~0.3 s) windows of float64 GEMM read above the 700 W limit
# by the energy counter; the independent reader's instant power over the same
# phase says whether such excursions are real
for i in 1 2; do
    phase f64-short "$GB" run --op matmul --sizes "$N" --backend cuda --dtype float64 --max-time 0.3s --rounds 1 \
        --no-peak --quiet --energy auto --out "$OUTDIR/f64-short-$i.json" >>"$OUTDIR/gb.log" 2>&1
done
sleep 0.3
kill $SMI $SMI2 2>/dev/null
wait $SMI $SMI2 2>/dev/null
S="$OUTDIR/summary.md"
{
    echo "# lowp-clocks-check $(date -u +%Y-%m-%dT%H:%M:%SZ), GEMM $N, $PAIRS rounds"
    nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader 2>/dev/null | head -1
    for g in gb-long gb-short; do
        for t in torch torch-span; do
            echo
            echo "## $g against $t"
            echo
            python3 "$HERE/precision-pairs.py" --torch "$OUTDIR/$t.jsonl" "$OUTDIR/$g"-*.json
        done
    done
    echo
    python3 - "$OUTDIR" <<'PY'
import csv, datetime, glob, json, statistics, sys
out = sys.argv[1]
trace = []
for row in csv.reader(open(out + "/smi.csv")):
    try:
        t = datetime.datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
        trace.append((t, float(row[1]), float(row[3]), float(row[4]), row[5].strip()))
    except (ValueError, IndexError):
        pass
print("## SM clock and power while each phase ran (nvidia-smi, 100 ms)\n")
print("| phase | samples | SM MHz median | power W median | power W max | temp C max | reasons seen |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
spans = {}
for line in open(out + "/phases.tsv"):
    name, a, b = line.split("\t")
    spans.setdefault(name, []).append((float(a), float(b)))
for name, ss in spans.items():
    xs = [x for x in trace if any(a <= x[0] <= b for a, b in ss) and x[2] > 200]  # busy samples only
    if not xs:
        print("| %s | 0 | | | | | |" % name); continue
    print("| %s | %d | %.0f | %.0f | %.0f | %.0f | %s |" % (name, len(xs), statistics.median(x[1] for x in xs),
          statistics.median(x[2] for x in xs), max(x[2] for x in xs), max(x[3] for x in xs),
          " ".join(sorted({x[4] for x in xs}))))
inst = []
for row in csv.reader(open(out + "/smi-instant.csv")):
    try:
        inst.append((datetime.datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp(), float(row[1])))
    except (ValueError, IndexError):
        pass
print("\n## float64 GEMM, short windows: the energy counter's power against nvidia-smi's\n")
for i, (a, b) in enumerate(spans.get("f64-short", [])):
    xs = [w for t, w in inst if a <= t <= b and w > 200]
    ys = [x[2] for x in trace if a <= x[0] <= b and x[2] > 200]
    try:
        d = json.load(open(out + "/f64-short-%d.json" % (i + 1)))
        e = [(r.get("energy") or {}) for c in d["cases"] for r in c["results"] if r.get("timing") == "device"]
        e = e[0] if e else {}
    except (OSError, ValueError):
        e = {}
    print("- run %d: gpubench %s W +-%s (phase %s, limit %s W); nvidia-smi instant median %s max %s W (%d samples), "
          "power.draw median %s W" % (i + 1, e.get("power_w"), e.get("bound"), e.get("phase"), e.get("power_limit_w"),
          statistics.median(xs) if xs else None, max(xs) if xs else None, len(xs),
          statistics.median(ys) if ys else None))
print("\n## gpubench's own clock record per result (mean SM MHz over its samples)\n")
for path in sorted(glob.glob(out + "/gb-*.json")):
    d = json.load(open(path))
    for c in d["cases"]:
        for r in c["results"]:
            if r.get("timing") == "device" and r.get("status") == "ok":
                k = r.get("clocks") or {}
                print("- %s %s: %.1f TFLOP/s, samples %s, SM %s MHz, reasons %s" % (path.rsplit("/", 1)[1], c["dtype"],
                      (r.get("gflops") or 0) / 1e3, r["stats"].get("n"), k.get("sm_mhz"), k.get("reasons")))
print("\n## PyTorch calls per span\n")
for l in open(out + "/torch-span.jsonl"):
    if l.startswith("{"):
        j = json.loads(l); print("- %s: %s calls, %.1f TFLOP/s" % (j["dtype"], j.get("calls"), j.get("tflops", 0)))
PY
} >"$S" 2>&1
cat "$S"
