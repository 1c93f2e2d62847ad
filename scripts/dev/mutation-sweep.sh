#!/bin/sh
# mutation-sweep.sh BIN_DIR EVERY JOBS — the mutation sweep of
# tests/results/test_mutation.c (docs/reliability.md, "Reading results files"): the
# mutants i with i % EVERY == 0 (EVERY=1: all 31,245), split over JOBS
# processes of BIN_DIR/tests/run_tests (shard j takes i % (EVERY*JOBS) ==
# j*EVERY), each reading command of BIN_DIR/gpubench. Deterministic: which
# mutants run depends on EVERY alone, not on JOBS or on timing. Prints each
# shard's counts; exits 1 when any shard failed or crashed.
set -u
bin=${1:?usage: mutation-sweep.sh BIN_DIR EVERY JOBS}
every=${2:-1}
jobs=${3:-2}
rm -f "$bin"/mutation-*.log "$bin"/mutation-*.current "$bin"/mutation-*.san.*
pids=
j=0
while [ "$j" -lt "$jobs" ]; do
    # one swept mutant in 500 also as processes (11 process starts each under
    # ASan; the test's default of 1 in 25 is for `make test`'s small share)
    # a sanitizer's report goes to a file (standard error is the test
    # runner's capture, lost with the process), the command under way too
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$bin/mutation-$j.san" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$bin/mutation-$j.san" \
    GB_MUTATION_TRACE="$bin/mutation-$j.current" GB_MUTATION_PROC_EVERY=${GB_MUTATION_PROC_EVERY:-500} \
    GPUBENCH="$bin/gpubench" GB_MUTATION_VERBOSE=1 GB_MUTATION_EVERY=$((every * jobs)) \
        GB_MUTATION_OFFSET=$((j * every)) "$bin/tests/run_tests" mutation_sweep >"$bin/mutation-$j.log" 2>&1 &
    pids="$pids $!"
    j=$((j + 1))
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
cat "$bin"/mutation-*.log
# what a crash left: the command under way, the sanitizer's report
for f in "$bin"/mutation-*.current "$bin"/mutation-*.san.*; do [ -e "$f" ] && cat "$f"; done
[ "$rc" -eq 0 ] && echo "mutation sweep: every ${every} of the mutants in $jobs processes: no failure"
exit "$rc"
