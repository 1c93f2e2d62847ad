#!/bin/bash
# precision-gpu-check.sh OUTDIR — issue #27's remaining checks on the GPU host,
# in one call of under 6 minutes, from an unpacked bundle (bin/gpubench) or a
# build tree (./gpubench), with python3 + PyTorch on the host:
#
#   1. GPU GEMM 8192 in bfloat16, float16, float8_e4m3, int8: gpubench
#      (cuBLASLt, now timing 8 heuristic candidates in prepare) then PyTorch
#      on the same input bits, interleaved A B A B, up to 5 pairs (a pair is
#      started only within the step's 110 s: the table says how many ran);
#   2. CPU GEMM 8192 in float32, bfloat16, int8: gpubench (its default
#      library choice) then PyTorch-on-CPU (MKL / oneDNN), interleaved, up to
#      5 pairs started within 110 s;
#   3. the CPU's float32 GEMM libraries against each other: --cpu-gemm
#      openblas, onednn, blis, interleaved twice, at 1024³ (large), 32x4096x4096
#      (skinny) and 4096³; and the per-shape-class choice gpubench makes and
#      keeps (its file);
#   4. `gpubench peak --backend cpu` (the ISA ceilings with their inputs,
#      BLIS's kernels in `info`), if 40 s remain.
# OUTDIR/summary.md holds the tables; the JSON files and logs stay beside it.
# N and LIB_SIZES (environment) shrink the sizes for a trial on a small machine;
# GPU_PAIRS=0 leaves step 1 out (lowp-clocks-check.sh times the GPU side with
# its clocks), CPU_PAIRS (default 5) sets step 2's pairs and CPU_DTYPES
# (default float32,bfloat16,int8) its dtypes.
set -u
N=${N:-8192}
LIB_SIZES=${LIB_SIZES:-1024,32x4096x4096,4096}
OUTDIR=${1:?usage: precision-gpu-check.sh OUTDIR}
GB=${GB:-./gpubench}
[ -x "$GB" ] || GB=bin/gpubench
[ -x "$GB" ] || { echo "precision-gpu-check: no ./gpubench or bin/gpubench" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUTDIR"
START=$(date +%s)
left() { echo $((${BUDGET:-360} - 20 - ($(date +%s) - START))); } # seconds of the BUDGET (6 minutes) left, 20 s kept for the summary
# the kept library choice of this check, in OUTDIR (not the host's cache): measured once, here
export GPUBENCH_CPU_GEMM_CHOICE="$OUTDIR/cpu-gemm-choice.txt"
rm -f "$GPUBENCH_CPU_GEMM_CHOICE"
S="$OUTDIR/summary.md"
{
    echo "# precision-gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    "$GB" info --format json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print("gpubench", d.get("build", {}).get("git_commit"), "|", d.get("cpu", {}).get("model"), "|", d.get("libraries", {}).get("blis"))' 2>/dev/null
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1
    python3 -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1
} >"$S"

pairs() { # NAME BUDGET-S GB-ARGS TORCH-ARGS: up to 5 pairs, a new one started only within the budget
    local name=$1 budget=$2 gbargs=$3 targs=$4 t0 i done=0
    t0=$(date +%s)
    : >"$OUTDIR/$name-torch.jsonl"
    for i in $(seq 1 "${MAXPAIRS:-5}"); do
        [ $(($(date +%s) - t0)) -lt "$budget" ] && [ "$(left)" -gt 60 ] || break
        # shellcheck disable=SC2086
        "$GB" run --op matmul --sizes "$N" $gbargs --rounds 1 --no-peak --quiet \
            --out "$OUTDIR/$name-gb-$i.json" >>"$OUTDIR/$name.log" 2>&1
        # shellcheck disable=SC2086
        python3 "$HERE/torch-gemm-peer.py" --n "$N" $targs >>"$OUTDIR/$name-torch.jsonl" 2>>"$OUTDIR/$name.log"
        done=$i
    done
    {
        echo
        echo "## $name: gpubench then PyTorch, GEMM $N, $done of ${MAXPAIRS:-5} pairs in $(($(date +%s) - t0)) s"
        echo
        python3 "$HERE/precision-pairs.py" --torch "$OUTDIR/$name-torch.jsonl" "$OUTDIR/$name"-gb-*.json
    } >>"$S" 2>&1
}

# float32 on the GPU was at parity with PyTorch (0.997, docs/precision.md): the
# GPU pairs spend their time on the reduced precisions
[ "${GPU_PAIRS:-1}" = 0 ] || pairs gpu 110 "--backend cuda --dtype bfloat16,float16,float8_e4m3,int8 --max-time 1s" \
    "--device cuda --dtypes bfloat16,float16,float8_e4m3,int8 --reps 10"
CPU_DTYPES=${CPU_DTYPES:-float32,bfloat16,int8}
MAXPAIRS=${CPU_PAIRS:-5} pairs cpu $((22 * ${CPU_PAIRS:-5})) "--backend cpu --dtype $CPU_DTYPES --max-time 3s --min-time 1s" \
    "--device cpu --dtypes $CPU_DTYPES --reps 3"

# 3. the float32 libraries, interleaved (A B C A B C)
t0=$(date +%s)
for pass in 1 2; do
    for lib in openblas onednn blis; do
        [ "$(left)" -gt 30 ] || break 2
        "$GB" run --op matmul --sizes "$LIB_SIZES" --dtype float32 --backend cpu --cpu-gemm $lib \
            --rounds 1 --no-peak --quiet --max-time 2s --out "$OUTDIR/lib-$lib-$pass.json" >>"$OUTDIR/libs.log" 2>&1
    done
done
# the choice gpubench makes by itself (measured per class, kept in OUTDIR/cpu-gemm-choice.txt)
[ "$(left)" -gt 30 ] && "$GB" run --op matmul --sizes 1024,32x4096x4096,128,4096 --dtype float32,float64 --backend cpu \
    --rounds 1 --no-peak --quiet --max-time 1s --out "$OUTDIR/lib-auto.json" >>"$OUTDIR/libs.log" 2>&1
{
    echo
    echo "## CPU float32 GEMM by library (median GFLOP/s of each pass; $(($(date +%s) - t0)) s)"
    echo
    python3 - "$OUTDIR" <<'EOF'
import glob, json, sys
out = sys.argv[1]
rates, names = {}, {}
for path in sorted(glob.glob(out + "/lib-*-[12].json")):
    lib = path.rsplit("/", 1)[1].split("-")[1]
    try:
        d = json.load(open(path))
    except Exception as e:
        print("%s: %s" % (path, e)); continue
    names.setdefault("blis", ((d.get("context") or {}).get("libraries") or {}).get("blis"))
    for c in d["cases"]:
        for r in c["results"]:
            if r.get("status") == "ok":
                rates.setdefault((c["label"], lib), []).append(round(r["gflops"], 1))
            else:
                rates.setdefault((c["label"], lib), []).append(r.get("reason", r.get("status")))
print("| shape | openblas | onednn | blis |")
print("| --- | --- | --- | --- |")
for shape in dict.fromkeys(k[0] for k in rates):
    print("| %s | %s |" % (shape, " | ".join(str(rates.get((shape, l), "-")) for l in ("openblas", "onednn", "blis"))))
print("\nBLIS here:", names.get("blis"))
try:
    d = json.load(open(out + "/lib-auto.json"))
    print("\ngpubench's own choice (auto):")
    for c in d["cases"]:
        for r in c["results"]:
            x = r.get("extra") or {}
            print("- %s %s: %s, %s GFLOP/s (%s)" % (c["dtype"], c["label"], x.get("library"),
                  round(r.get("gflops") or 0, 1), x.get("library_choice")))
except Exception as e:
    print("no auto run:", e)
EOF
    echo
    echo "kept choice file:"
    sed 's/^/    /' "$GPUBENCH_CPU_GEMM_CHOICE" 2>/dev/null
} >>"$S" 2>&1

# 4. the ceilings, ISA ones included, if there is time
if [ "$(left)" -gt 40 ]; then
    timeout $(($(left) - 5)) "$GB" peak --backend cpu >"$OUTDIR/peak-cpu.txt" 2>&1
    { echo; echo "## gpubench peak --backend cpu"; echo; sed 's/^/    /' "$OUTDIR/peak-cpu.txt"; } >>"$S"
else
    echo "(peak skipped: out of time)" >>"$S"
fi
echo >>"$S"
echo "total $(($(date +%s) - START)) s" >>"$S"
cat "$S"
