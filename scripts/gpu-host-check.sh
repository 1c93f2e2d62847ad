#!/bin/sh
# gpu-host-check.sh — what we run on a GPU host before calling GPU code done,
# from an unpacked bundle (make bundle) or a build tree:
#
#   scripts/gpu-host-check.sh OUTDIR [validate|sanitize|measure|overhead|newcomer|seedops]...
#
#   validate  gpubench info/list, the ceilings (gpubench peak), make test-gpu's
#             verification of every op and dtype, and every cuSOLVER SVD method
#   sanitize  test-gpu.sh --sanitize (compute-sanitizer memcheck, racecheck, synccheck)
#   measure   suites/default.json, then suites/quick.json twice (stability, compare)
#   overhead  scripts/check-cpu-overhead.sh at the default suite's largest sizes
#   seedops   suites/workshop.json (the Jacobi stencil, 256² to 8192²) and the
#             stencil, slicing, elementwise and reduction cases of
#             suites/pybench.json (8 MB and 800 MB arrays): % of the measured
#             ceilings on both sides, and the overlapped end-to-end beside the
#             serial one
#   newcomer  the README's command as a new user types it: suites/default.json,
#             no flags, stdout piped to a file with each line's second of
#             arrival (do case lines arrive as cases finish?), the wall time
#             and its breakdown; then a `timeout -s TERM` run (is the results
#             file marked interrupted?); then scripts/cpu-peer-check.py on the
#             default run (the CPU side against NumPy/SciPy on this host)
#
# OpenBLAS may detect a modern CPU as an old core (seen: Prescott on an
# AVX-512 host); gpubench then runs the best core by default, and info prints
# what OpenBLAS detected and what runs, so a reader can check. Every command
# here is as a user types it: no flag is needed for honest numbers.
set -u
OUTDIR=${1:?usage: gpu-host-check.sh OUTDIR [validate|sanitize|measure|overhead]...}
shift
cd "$(dirname "$0")/.."
if [ -x bin/gpubench ]; then B=bin/gpubench; else B=./gpubench; fi
mkdir -p "$OUTDIR"
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

for what in "$@"; do
    case "$what" in
    validate)
        step "gpu and build"
        nvidia-smi -L 2>&1
        "$B" --version
        "$B" list
        step "info: the OpenBLAS core detected and the one gpubench runs"
        "$B" info | sed -n '/openblas/,/threads/p'
        "$B" info --format json > "$OUTDIR/info.json"
        "$B" info | grep -E 'core|model:|name:|WARNING' | head -20
        step "peak"
        "$B" peak --format json > "$OUTDIR/peak.json"
        cat "$OUTDIR/peak.json"
        step "test-gpu (every op and dtype, CPU vs GPU)"
        TEST_GPU_KEEP="$OUTDIR" scripts/test-gpu.sh "$B"
        step "svd methods"
        "$B" run suites/svd-methods.json --no-peak --quiet \
            --out "$OUTDIR/svd-methods.json" --format md
        ;;
    seedops)
        step "workshop suite (stencil)"
        "$B" run suites/workshop.json --out "$OUTDIR/workshop.json" --format md > "$OUTDIR/workshop.md"
        echo "exit $?"
        cat "$OUTDIR/workshop.md"
        step "pybench: stencil, slicing, elementwise, reduction"
        "$B" run suites/pybench.json --op stencil,slicing,elementwise,reduction \
            --out "$OUTDIR/pybench-seed.json" --format md > "$OUTDIR/pybench-seed.md"
        echo "exit $?"
        cat "$OUTDIR/pybench-seed.md"
        ;;
    sanitize)
        step "compute-sanitizer"
        scripts/test-gpu.sh "$B" --sanitize
        ;;
    measure)
        step "default suite"
        "$B" run suites/default.json --out "$OUTDIR/default.json" --format md \
            > "$OUTDIR/default.md"
        echo "exit $?"
        for i in 1 2; do
            step "quick run $i"
            "$B" run suites/quick.json --quiet --out "$OUTDIR/quick-$i.json" > /dev/null
            echo "exit $?"
        done
        step "stability: do the two quick runs agree within their CIs (cases over 1 ms)?"
        python3 scripts/check-stability.py "$OUTDIR/quick-1.json" "$OUTDIR/quick-2.json"
        step "compare: two runs of the same build must show no regression"
        "$B" compare "$OUTDIR/quick-1.json" "$OUTDIR/quick-2.json" | grep -E "WARNING|REGRESSION|Summary|Result"
        ;;
    overhead)
        step "CPU harness overhead"
        scripts/check-cpu-overhead.sh --gpubench "$B" 2>&1
        ;;
    newcomer)
        step "gpubench run suites/default.json (no flags), piped"
        start=$(date +%s)
        "$B" run suites/default.json --out "$OUTDIR/newcomer.json" 2> "$OUTDIR/newcomer.err" |
            while IFS= read -r line; do echo "$(( $(date +%s) - start ))s $line"; done > "$OUTDIR/newcomer.log"
        echo "wall $(( $(date +%s) - start )) s"
        head -3 "$OUTDIR/newcomer.log"
        grep -A12 '^time:' "$OUTDIR/newcomer.err"
        step "timeout -s TERM 20 on suites/default.json"
        timeout -s TERM 20 "$B" run suites/default.json --out "$OUTDIR/term.json" > /dev/null 2>&1
        echo "exit $? (124: timeout stopped it)"
        grep -o '"interrupted": *[a-z]*\|"interrupted_by": *"[A-Z]*"' "$OUTDIR/term.json"
        if [ -f scripts/cpu-peer-check.py ]; then
            step "the CPU side against NumPy/SciPy on this host"
            python3 scripts/cpu-peer-check.py "$OUTDIR/newcomer.json" --ops spgemm --json "$OUTDIR/peers-spgemm.json" 2>&1 | tail -30
            timeout 180 python3 scripts/cpu-peer-check.py "$OUTDIR/newcomer.json" --budget 3 --max-size 4096 \
                --json "$OUTDIR/peers.json" 2>&1 | tail -80
        fi
        ;;
    *) echo "gpu-host-check: unknown step '$what'" >&2; exit 2 ;;
    esac
done
