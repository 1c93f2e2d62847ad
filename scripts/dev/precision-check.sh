#!/bin/bash
# precision-check.sh OUTDIR STEP... — issue #27's checks on a GPU host, from an
# unpacked bundle (bin/gpubench) or a build tree (./gpubench):
#
#   verify  make test-gpu's verification (suites/gpu-verify.json, the reduced
#           precision entries included), then compute-sanitizer memcheck over
#           the reduced-precision matmul, batched_matmul, elementwise and
#           reduction cases, then suites/precision.json timed (its time decides
#           whether default.json can carry a bfloat16 and an int8 sweep)
#   pairs N GEMM 8192 in every dtype, gpubench then PyTorch on the same input
#           bits, N times interleaved (A B A B ...): gb8192-i.json and
#           torch8192.jsonl, and pairs.txt, the per-pair time ratios
# Everything lands in OUTDIR (at most 8 files come back from a device call:
# the logs are concatenated).
set -u
OUTDIR=${1:?usage: precision-check.sh OUTDIR verify|pairs N}
shift
GB=${GB:-./gpubench}
[ -x "$GB" ] || GB=bin/gpubench
[ -x "$GB" ] || { echo "precision-check: no ./gpubench or bin/gpubench" >&2; exit 2; }
mkdir -p "$OUTDIR"
LOW=bfloat16,float16,float8_e4m3,int8
rc=0
while [ $# -gt 0 ]; do
    case "$1" in
    verify)
        t0=$(date +%s)
        scripts/dev/test-gpu.sh "$GB" >"$OUTDIR/verify.log" 2>&1 || rc=1
        echo "test-gpu: exit $? in $(($(date +%s) - t0)) s" | tee -a "$OUTDIR/summary.txt"
        t0=$(date +%s)
        compute-sanitizer --tool memcheck --error-exitcode 99 "$GB" run suites/gpu-verify.json --backend cpu,cuda \
            --op matmul,batched_matmul,elementwise,reduction --dtype $LOW --no-peak --rounds 1 --max-time 1s \
            --quiet --out "$OUTDIR/memcheck-lowp.json" >>"$OUTDIR/verify.log" 2>&1
        s=$?
        [ $s = 0 ] || rc=1
        echo "memcheck (reduced precision): exit $s in $(($(date +%s) - t0)) s, $(grep -c 'Invalid\|ERROR SUMMARY: [1-9]' "$OUTDIR/verify.log") error lines" |
            tee -a "$OUTDIR/summary.txt"
        t0=$(date +%s)
        "$GB" run suites/precision.json --out "$OUTDIR/precision.json" >"$OUTDIR/precision.log" 2>&1
        s=$?
        echo "precision.json: exit $s in $(($(date +%s) - t0)) s" | tee -a "$OUTDIR/summary.txt"
        shift
        ;;
    pairs)
        n=${2:-5}
        shift 2
        for i in $(seq 1 "$n"); do
            "$GB" run --op matmul --sizes 8192 --dtype float32,$LOW --rounds 1 --max-time 4s --quiet \
                --out "$OUTDIR/gb8192-$i.json" >>"$OUTDIR/pairs.log" 2>&1
            python3 scripts/dev/torch-gemm-peer.py --n 8192 --device cuda --reps 10 >>"$OUTDIR/torch8192.jsonl" 2>>"$OUTDIR/pairs.log"
            python3 scripts/dev/torch-gemm-peer.py --n 8192 --device cpu --dtypes float32,bfloat16,int8 --reps 3 \
                >>"$OUTDIR/torch8192.jsonl" 2>>"$OUTDIR/pairs.log"
        done
        python3 scripts/dev/precision-pairs.py --torch "$OUTDIR/torch8192.jsonl" \
            $(for i in $(seq 1 "$n"); do echo "$OUTDIR/gb8192-$i.json"; done) | tee "$OUTDIR/pairs.txt"
        ;;
    *) echo "precision-check: unknown step $1" >&2; exit 2 ;;
    esac
done
exit $rc
