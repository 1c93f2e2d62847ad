#!/bin/sh
# Run each libFuzzer harness for a while (make fuzz FUZZ_TIME=secs).
#   scripts/dev/fuzz.sh BUILD_DIR SECONDS HARNESS...
# Each starts from its committed corpus (tests/fuzz/corpus/<name>/) and writes
# what it adds to BUILD_DIR/corpus/<name>/ (not committed: copy an input worth
# keeping into tests/fuzz/corpus by hand). A crash, a leak (LeakSanitizer), a
# slow input (-timeout, seconds per input) or running out of memory stops the
# harness, leaves the input in BUILD_DIR/crashes/<name>/ and makes this script
# fail; commit such an input under tests/fuzz/crashes/<name>/ with its fix, and
# `make test` replays it from then on.
set -u
build=$1; secs=$2; shift 2
cd "$(dirname "$0")/../.."
status=0
summary=""
for h in "$@"; do
    bin="$build/fuzz/fuzz_$h"
    mkdir -p "$build/corpus/$h" "$build/crashes/$h"
    echo "fuzz: $h for ${secs}s"
    log="$build/fuzz_$h.log"
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$build/crashes/$h/" \
        "$build/corpus/$h" "tests/fuzz/corpus/$h" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    if [ "$rc" -ne 0 ]; then
        status=1
        echo "fuzz: $h FAILED (exit $rc) after ${execs:-?} executions; the input is in $build/crashes/$h/:"
        grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -n 20
        summary="$summary $h:FAILED"
    else
        summary="$summary $h:${execs:-?}"
    fi
done
echo "fuzz: executions per harness:$summary"
exit $status
