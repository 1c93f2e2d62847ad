#!/bin/bash
# energy-gpu-check.sh OUTDIR — issue #28's checks on a GPU host, from an
# unpacked bundle (make bundle) or a build tree (docs/energy.md):
#
#   1. suites/default.json with --energy auto (the default), as a user runs it
#      (at most 330 s: its budget is 300 s);
#   2. GEMM and elementwise 8192 on the GPU alone with --energy on,
#      --min-time 3s, one round: phases long enough for an independent reader
#      averaging over ~1 s, and a second run to hold the first's J/op against
#      (at most 100 s);
#   meanwhile nvidia-smi logs power.draw and the clocks every 100 ms from a
#   process of its own (the independent reader), and GPUBENCH_ENERGY_LOG
#   makes gpubench log every energy window with its wall-clock times;
#   3. scripts/dev/energy_check.py compares them: OUTDIR/checks.txt.
#
# It never hangs: every step runs under timeout (the whole script ends within
# 8 minutes), the reader is stopped on any exit, and the checks are written
# from whatever the steps left (a run that timed out leaves its checkpointed
# results file), also when a step fails. Exit status: 0 when checks.txt was
# written, 1 otherwise.
set -u
OUTDIR=${1:?usage: scripts/dev/energy-gpu-check.sh OUTDIR}
mkdir -p "$OUTDIR" || exit 1
OUTDIR=$(cd "$OUTDIR" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -x bin/gpubench ]; then B=bin/gpubench; else B=./gpubench; fi
SUITES=suites
PY=$(command -v python3 || echo /usr/bin/python3)
LOG="$OUTDIR/steps.txt"
START=$(date +%s)
SMI_PID=

DEADLINE=$((START + 460))   # everything, checks included, within 8 minutes

say() { echo "[$(($(date +%s) - START))s] $*" | tee -a "$LOG"; }
# within(N): N seconds, or what is left before the deadline (at least 1)
within() { local left=$((DEADLINE - $(date +%s))); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }

finish() {
    if [ -n "$SMI_PID" ]; then kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null; SMI_PID=; fi
    say "checks (scripts/dev/energy_check.py)"
    timeout -k 5 30 "$PY" "$HERE/energy_check.py" "$OUTDIR" >>"$LOG" 2>&1 || say "energy_check.py failed (see above)"
    [ -s "$OUTDIR/checks.txt" ] && cat "$OUTDIR/checks.txt"
    say "done: $OUTDIR/checks.txt, steps.txt, run1.json, run2.json, smi.csv, energy-log.jsonl"
}
trap finish EXIT
trap 'say "interrupted"; exit 1' INT TERM

say "host: $(hostname); gpubench: $B; $(timeout -k 2 10 "$B" --version 2>&1 | head -1)"
timeout -k 2 20 nvidia-smi --query-gpu=name,driver_version,power.limit,enforced.power.limit,clocks.max.sm --format=csv \
    >"$OUTDIR/gpu.txt" 2>&1
cat "$OUTDIR/gpu.txt" >>"$LOG"

# The independent reader: its own process, 100 ms, for at most 8 minutes.
timeout -k 5 470 nvidia-smi \
    --query-gpu=timestamp,power.draw,clocks.sm,clocks.mem,clocks_event_reasons.active \
    --format=csv,noheader,nounits -lms 100 >"$OUTDIR/smi.csv" 2>"$OUTDIR/smi.err" &
SMI_PID=$!
sleep 2
if ! kill -0 "$SMI_PID" 2>/dev/null || [ ! -s "$OUTDIR/smi.csv" ]; then
    # older drivers name the field clocks_throttle_reasons.active
    timeout -k 5 470 nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,clocks.mem \
        --format=csv,noheader,nounits -lms 100 >"$OUTDIR/smi.csv" 2>>"$OUTDIR/smi.err" &
    SMI_PID=$!
    sleep 1
fi
say "independent reader: nvidia-smi pid $SMI_PID ($(wc -l <"$OUTDIR/smi.csv") lines so far)"

export GPUBENCH_ENERGY_LOG="$OUTDIR/energy-log.jsonl"
: >"$GPUBENCH_ENERGY_LOG"

say "run 1: $SUITES/default.json --energy auto"
timeout -k 10 "$(within 330)" "$B" run "$SUITES/default.json" --energy auto --out "$OUTDIR/run1.json" --quiet \
    --export-gbench "$OUTDIR/run1-gbench.json" >"$OUTDIR/run1.out" 2>"$OUTDIR/run1.err"
say "run 1 exit $? (124: timed out; its results so far are in run1.json)"
tail -n 30 "$OUTDIR/run1.err" >>"$LOG"

say "run 2: matmul and elementwise 8192, GPU only, --energy on --min-time 3s --rounds 1"
timeout -k 10 "$(within 90)" "$B" run --backend cuda --op matmul,elementwise --sizes 8192 \
    --energy on --min-time 3s --max-time 8s --rounds 1 --no-peak --out "$OUTDIR/run2.json" --quiet \
    >"$OUTDIR/run2.out" 2>"$OUTDIR/run2.err"
say "run 2 exit $?"
tail -n 20 "$OUTDIR/run2.err" >>"$LOG"

# the tables as a user sees them, energy columns included
timeout -k 2 "$(within 20)" "$B" report "$OUTDIR/run1.json" --format md >"$OUTDIR/run1.md" 2>>"$LOG"
timeout -k 2 "$(within 20)" "$B" report "$OUTDIR/run2.json" --format md >"$OUTDIR/run2.md" 2>>"$LOG"
exit 0
