#!/bin/sh
# gpu-host-check.sh — what we run on a GPU host before calling GPU code done,
# from an unpacked bundle (make bundle) or a build tree:
#
#   scripts/dev/gpu-host-check.sh OUTDIR [validate|sanitize|multigpu|fleet|measure|overhead|seed|seedops|svd|newcomer|again|see|regress|confirm]...
#
#   validate  gpubench info/list, the ceilings (gpubench peak), make test-gpu's
#             verification of every op and dtype, and every cuSOLVER SVD method
#   sanitize  test-gpu.sh --sanitize (compute-sanitizer memcheck, racecheck, synccheck;
#             gpu-verify.json holds the multi-GPU routines, run with --devices all)
#   multigpu  every device of the host (--devices all on suites/quick.json, then
#             --devices-concurrent), the multi-GPU routines of suites/multigpu.json
#             (float64, one round: at gpus = 1 verified against the CPU, the
#             strong-scaling table, the skip reasons of what needs more devices),
#             and compute-sanitizer memcheck over --devices-concurrent
#   measure   suites/default.json, then suites/quick.json twice (stability, compare)
#   overhead  scripts/dev/check-cpu-overhead.sh at the default suite's largest sizes
#   seed      suites/transfer.json (every direction and host memory, 4 KiB–1 GiB,
#             GPU % of the pinned ceiling) and suites/batched-gemm.json (the
#             crossover of many small GEMMs), ceilings measured
#   svd       suites/svd-methods.json, tabulated with each routine's host time
#             (scripts/svd-methods-table.py: and the fastest method that
#             passed per dtype and size), then float32 1024² by xgesvd and by
#             auto with the SM clock sampled every 50 ms (is the spread the
#             GPU clocking down while a host-driven routine leaves it idle?)
#   regress   five back-to-back suites/quick.json runs of this build; compare
#             of all 10 pairs (must show no regression, no improvement); the
#             CI workflow of docs/regression-statistics.md (runs 1-4 as the
#             baseline, run 5 as the current); and run 5 with one case
#             slowed (x1.5 on the 64^3 CPU GEMM, +10% and +20% on others)
#             against that baseline: each must be flagged, and only it
#   confirm   compare --confirm suites/quick.json on the regress step's runs
#             (made if missing): same build (exit 0), x2 on the 64^3 CPU GEMM
#             in the current run only (a one-process slowdown: not confirmed,
#             exit 0), and the baseline's made x2 and x1.5 faster (a real
#             slowdown: confirmed at x2, exit 1; x1.5 as its noise allows)
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
#   again     suites/default.json a second time, as a user who runs it again:
#             FFTW's plans now come from the wisdom the first run saved, so
#             the set-up it paid once is gone (wall time and breakdown)
#   fleet     the fleet report on real GPU results: suites/quick.json run twice
#             (two "nodes" of one GPU), merged as the SLURM merge job does, then
#             `report --fleet` (columns a and b; SLOW flags between two runs of
#             the same GPU would be false alarms) and its heatmap
#   see       what a person sees on a GPU run: a one-off run without a suite
#             file (--op --sizes --max-time), its context's NVIDIA driver and
#             library versions, the 100-column table, the HTML page with its
#             charts (OUTDIR/see.html), the schema document walked against
#             the file (with a build tree's tests), --pair against the
#             committed H100 reference
#
# OpenBLAS may detect a modern CPU as an old core (seen: Prescott on an
# AVX-512 host); gpubench then runs the best core by default, and info prints
# what OpenBLAS detected and what runs, so a reader can check. Every command
# here is as a user types it: no flag is needed for honest numbers.
set -u
OUTDIR=${1:?usage: gpu-host-check.sh OUTDIR [validate|sanitize|multigpu|fleet|measure|overhead|seed|seedops|svd|newcomer|again|see|regress|confirm]...}
shift
cd "$(dirname "$0")/../.."
if [ -x bin/gpubench ]; then B=bin/gpubench; else B=./gpubench; fi
mkdir -p "$OUTDIR"
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
# scale_case SRC DST OP DTYPE LABEL BACKEND TIMING FACTOR: SRC with that
# result's samples multiplied by FACTOR, written to DST (an injected change)
scale_case() {
    python3 - "$@" <<'PY'
import json, sys
src, dst, op, dtype, label, backend, timing, factor = sys.argv[1:]
doc = json.load(open(src))
hit = 0
for c in doc["cases"]:
    for r in c["results"]:
        if (c["op"], c["dtype"], c.get("label"), r["backend"], r["timing"]) == (op, dtype, label, backend, timing):
            r["samples_s"] = [x * float(factor) for x in r["samples_s"]]
            hit += 1
json.dump(doc, open(dst, "w"))
print("scaled %s/%s/%s/%s/%s by x%s (%d result)" % (op, dtype, label, backend, timing, factor, hit))
PY
}

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
        TEST_GPU_KEEP="$OUTDIR" scripts/dev/test-gpu.sh "$B"
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
        scripts/dev/test-gpu.sh "$B" --sanitize
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
        python3 scripts/dev/check-stability.py "$OUTDIR/quick-1.json" "$OUTDIR/quick-2.json"
        step "compare: two runs of the same build must show no regression"
        "$B" compare "$OUTDIR/quick-1.json" "$OUTDIR/quick-2.json" | grep -E "WARNING|REGRESSION|Summary|Result"
        ;;
    regress)
        for i in 1 2 3 4 5; do
            step "quick run $i of 5 (same build, back to back)"
            "$B" run suites/quick.json --quiet --out "$OUTDIR/regress-$i.json" > /dev/null
            echo "exit $?"
        done
        step "compare: all 10 pairs of same-build runs (expect 0 regressions, 0 improvements, exit 0)"
        for i in 1 2 3 4 5; do
            for j in 1 2 3 4 5; do
                [ "$i" -lt "$j" ] || continue
                "$B" compare "$OUTDIR/regress-$i.json" "$OUTDIR/regress-$j.json" > "$OUTDIR/regress-$i-$j.txt"
                echo "pair $i $j: exit $? $(grep -E '^Summary' "$OUTDIR/regress-$i-$j.txt")"
            done
        done
        step "compare: the CI workflow, a baseline of 4 runs against run 5 (expect exit 0)"
        "$B" compare "$OUTDIR"/regress-1.json "$OUTDIR"/regress-2.json "$OUTDIR"/regress-3.json \
            "$OUTDIR"/regress-4.json -- "$OUTDIR/regress-5.json" > "$OUTDIR/regress-ci.txt"
        echo "exit $?"
        grep -E 'WARNING|REGRESSION|process spread|^Summary|^Result' "$OUTDIR/regress-ci.txt"
        step "compare: run 5 with one case slowed, against the 4-run baseline (flagged where its own noise allows; never another case)"
        for spec in "matmul float32 64x64x64 cpu host 1.5" "solve float32 256x256 cuda device 1.1" \
                    "svd float32 200x50 cuda device 1.2"; do
            scale_case "$OUTDIR/regress-5.json" "$OUTDIR/regress-slow.json" $spec            "$B" compare "$OUTDIR"/regress-1.json "$OUTDIR"/regress-2.json "$OUTDIR"/regress-3.json \
                "$OUTDIR"/regress-4.json -- "$OUTDIR/regress-slow.json" > "$OUTDIR/regress-slow.txt"
            echo "exit $?"
            grep -E '^  REGRESSION|^Summary' "$OUTDIR/regress-slow.txt"
            grep -F "$(echo $spec | awk '{print $1"/"$2"/"$3}')" "$OUTDIR/regress-slow.txt" |
                grep -F "/$(echo $spec | awk '{print $4"/"$5}') " | cut -c1-240
        done
        ;;
    confirm)
        # compare --confirm (docs/regression-statistics.md): the suspects
        # re-measured in fresh processes of this build. Reuses the regress
        # step's five runs when they are there.
        for i in 1 2 3 4 5; do
            [ -f "$OUTDIR/regress-$i.json" ] && continue
            step "quick run $i of 5 (same build, back to back)"
            "$B" run suites/quick.json --quiet --out "$OUTDIR/regress-$i.json" > /dev/null
            echo "exit $?"
        done
        BASE="$OUTDIR/regress-1.json $OUTDIR/regress-2.json $OUTDIR/regress-3.json $OUTDIR/regress-4.json"
        step "compare --confirm: same build, runs 1-4 against run 5 (expect exit 0; Confirm: says how many suspects, how long)"
        "$B" compare --quiet --confirm suites/quick.json $BASE -- "$OUTDIR/regress-5.json" > "$OUTDIR/confirm-same.txt"
        echo "exit $?"
        grep -E 'confirmed\]|^Summary|^Confirm|^Result' "$OUTDIR/confirm-same.txt" | cut -c1-240
        step "compare --confirm: x2 on the 64^3 CPU GEMM in run 5 only (a one-process slowdown: expect [not confirmed], exit 0)"
        scale_case "$OUTDIR/regress-5.json" "$OUTDIR/confirm-cur-slow.json" matmul float32 64x64x64 cpu host 2
        "$B" compare --quiet --confirm suites/quick.json $BASE -- "$OUTDIR/confirm-cur-slow.json" > "$OUTDIR/confirm-anomaly.txt"
        echo "exit $?"
        grep -E 'matmul/float32/64x64x64/math=default/cpu/host |^Confirm|^Result' "$OUTDIR/confirm-anomaly.txt" | cut -c1-300
        for f in 2 1.5; do
            step "compare --confirm: the baseline's 64^3 CPU GEMM x$f faster (this build x$f slower in every process: expect [confirmed] at x2, exit 1)"
            FAST=""
            for i in 1 2 3 4; do
                scale_case "$OUTDIR/regress-$i.json" "$OUTDIR/confirm-base-$i.json" matmul float32 64x64x64 cpu host \
                    "$(python3 -c "print(1/$f)")"
                FAST="$FAST $OUTDIR/confirm-base-$i.json"
            done
            "$B" compare --quiet --confirm suites/quick.json $FAST -- "$OUTDIR/regress-5.json" > "$OUTDIR/confirm-real-$f.txt"
            echo "exit $?"
            grep -E 'matmul/float32/64x64x64/math=default/cpu/host |^Confirm|^Result' "$OUTDIR/confirm-real-$f.txt" | cut -c1-300
        done
        ;;
    overhead)
        step "CPU harness overhead"
        scripts/dev/check-cpu-overhead.sh --gpubench "$B" 2>&1
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
        grep -o '"interrupted":[[:space:]]*[a-z]*\|"interrupted_by":[[:space:]]*"[A-Z]*"' "$OUTDIR/term.json"
        if [ -f scripts/cpu-peer-check.py ]; then
            step "the CPU side against NumPy/SciPy on this host"
            python3 scripts/cpu-peer-check.py "$OUTDIR/newcomer.json" --ops spgemm --json "$OUTDIR/peers-spgemm.json" 2>&1 | tail -30
            timeout 180 python3 scripts/cpu-peer-check.py "$OUTDIR/newcomer.json" --budget 3 --max-size 4096 \
                --json "$OUTDIR/peers.json" 2>&1 | tail -80
        fi
        ;;
    again)
        step "gpubench run suites/default.json again (FFTW wisdom from the first run), piped"
        ls -la "${XDG_CACHE_HOME:-$HOME/.cache}/gpubench" 2>&1
        start=$(date +%s)
        "$B" run suites/default.json --out "$OUTDIR/again.json" 2> "$OUTDIR/again.err" > "$OUTDIR/again.log"
        echo "exit $? wall $(( $(date +%s) - start )) s"
        grep -A12 '^time:' "$OUTDIR/again.err"
        ;;
    seed)
        step "transfer sweep (GPU %peak: of the pinned ceiling of the direction)"
        "$B" run suites/transfer.json --out "$OUTDIR/transfer.json" --format md > "$OUTDIR/transfer.md"
        echo "exit $?"
        cat "$OUTDIR/transfer.md"
        step "batched GEMM crossover"
        "$B" run suites/batched-gemm.json --out "$OUTDIR/batched-gemm.json" --format md > "$OUTDIR/batched-gemm.md"
        echo "exit $?"
        sed -n '/Crossover/,$p' "$OUTDIR/batched-gemm.md"
        ;;
    svd)
        step "svd methods, with the host time inside each routine"
        "$B" run suites/svd-methods.json --no-peak --quiet \
            --out "$OUTDIR/svd-methods.json" --format md > "$OUTDIR/svd-methods.md"
        echo "exit $?"
        python3 scripts/svd-methods-table.py "$OUTDIR/svd-methods.json"
        step "SM clock while float32 1024² svd runs (xgesvd, then auto)"
        for m in xgesvd auto; do
            printf '{"name":"svd-%s","defaults":{"dtypes":["float32"],"warmup":2,"min_reps":20,"min_time_s":2,"max_time_s":10,"rounds":1},"benchmarks":[{"op":"svd","sizes":[1024],"params":{"method":"%s"}}]}\n' \
                "$m" "$m" > "$OUTDIR/svd-$m-suite.json"
            nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv,noheader \
                -lms 50 > "$OUTDIR/svd-$m-clocks.csv" 2>&1 &
            smi=$!
            "$B" run "$OUTDIR/svd-$m-suite.json" --no-peak --backend cpu,cuda --out "$OUTDIR/svd-$m.json" | grep 1024
            kill "$smi" 2>/dev/null
            echo "SM clock (MHz) min/max over the run: $(awk -F', ' '{sub(/ MHz/, "", $2); if (min == "" || $2 + 0 < min) min = $2 + 0; if ($2 + 0 > max) max = $2 + 0} END {print min "/" max}' "$OUTDIR/svd-$m-clocks.csv")"
            python3 scripts/svd-methods-table.py "$OUTDIR/svd-$m.json" | sed -n 2p
        done
        ;;
    multigpu)
        PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
        step "--devices all on suites/quick.json"
        nvidia-smi -L 2>&1
        "$B" run suites/quick.json --devices all --quiet --out "$OUTDIR/quick-devices.json" > "$OUTDIR/quick-devices.txt"
        echo "exit $?"
        "$PY" scripts/devices-summary.py "$OUTDIR/quick-devices.json"
        step "--devices all --devices-concurrent (matmul, fft, elementwise of suites/quick.json)"
        "$B" run suites/quick.json --devices all --devices-concurrent --op matmul,fft,elementwise \
            --out "$OUTDIR/quick-concurrent.json" > "$OUTDIR/quick-concurrent.txt" 2>&1
        echo "exit $?"
        sed -n '/All devices at once/,/^$/p' "$OUTDIR/quick-concurrent.txt"
        step "multi-GPU routines: suites/multigpu.json --devices all (float64, one round)"
        "$B" run suites/multigpu.json --devices all --dtype float64 --rounds 1 --out "$OUTDIR/multigpu.json" \
            > "$OUTDIR/multigpu.txt" 2>&1
        echo "exit $?"
        sed -n '/Strong scaling/,/^$/p' "$OUTDIR/multigpu.txt"
        "$PY" scripts/devices-summary.py "$OUTDIR/multigpu.json" --ops matmul_xt,solve_mg,fft_xt
        CS=/usr/local/cuda/bin/compute-sanitizer
        [ -x "$CS" ] || CS=$(command -v compute-sanitizer 2>/dev/null || echo "")
        if [ -n "$CS" ]; then
            step "compute-sanitizer memcheck over --devices all --devices-concurrent (the multi-GPU ops: step sanitize)"
            "$CS" --error-exitcode 86 --target-processes all --print-limit 20 --tool memcheck \
                "$B" run suites/quick.json --devices all --devices-concurrent --op matmul,fft --no-peak --quiet \
                --out "$OUTDIR/memcheck-concurrent.json" > "$OUTDIR/memcheck-concurrent.txt" 2>&1
            echo "exit $? (86: the sanitizer found an error)"
            grep -E "ERROR SUMMARY|========= (Invalid|Program hit)" "$OUTDIR/memcheck-concurrent.txt" | head -20
        else
            echo "SKIP: compute-sanitizer not found; memcheck NOT run"
        fi
        ;;
    fleet)
        for n in a b; do
            step "quick run as node $n"
            "$B" run suites/quick.json --quiet --no-peak --out "$OUTDIR/fleet-$n.json" > /dev/null
            echo "exit $?"
        done
        step "merge --allow-missing (one input missing on purpose) and report --fleet"
        "$B" merge --allow-missing --name a --name b --name c --note "task 2 (c): no results file (test)" \
            -o "$OUTDIR/fleet-merged.json" "$OUTDIR/fleet-a.json" "$OUTDIR/fleet-b.json" "$OUTDIR/fleet-c.json"
        "$B" report --fleet "$OUTDIR/fleet-merged.json" --plot "$OUTDIR/fleet-plot" | tee "$OUTDIR/fleet.txt"
        "$B" report --fleet "$OUTDIR/fleet-merged.json" --timing end_to_end | grep -A3 '^Columns:'
        ;;
    see)
        step "one-off run without a suite file"
        "$B" run --op matmul,elementwise,svd --sizes 256,1024 --max-time 2s --out "$OUTDIR/see.json" \
            > "$OUTDIR/see.txt" 2>&1
        echo "exit $?"
        head -12 "$OUTDIR/see.txt"
        step "versions: the NVIDIA driver and every library as it reports itself"
        grep -o '"nvidia_driver": *"[^"]*"\|"cuda_driver_api_version": *"[^"]*"\|"lapacke": *"[^"]*"\|"cublas": *"[^"]*"' \
            "$OUTDIR/see.json"
        step "the terminal table keeps to 100 columns"
        "$B" report "$OUTDIR/see.json" > "$OUTDIR/see-report.txt"
        awk '{ if (length($0) > m) m = length($0) } END { print "widest line:", m, "characters (bytes; UTF-8 counts more)" }' \
            "$OUTDIR/see-report.txt"
        "$B" report "$OUTDIR/see.json" --format html -o "$OUTDIR/see.html" && echo "wrote $OUTDIR/see.html"
        grep -c '<svg class="chart"' "$OUTDIR/see.html"
        if [ -x build/tests/run_tests ]; then
            step "the schema document walked against this GPU run"
            GB_SCHEMA_EXTRA="$OUTDIR/see.json" GPUBENCH="$B" build/tests/run_tests schema_doc
        fi
        step "this host's CPU against the reference H100's GPU"
        "$B" report "$OUTDIR/see.json" results/reference/default-h100-newcomer.json --pair | head -20
        ;;
    *) echo "gpu-host-check: unknown step '$what'" >&2; exit 2 ;;
    esac
done
