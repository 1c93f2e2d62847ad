#!/usr/bin/env bash
# check-cpu-overhead.sh — is gpubench's CPU side as fast as the libraries
# called directly? For fft, solve, spgemm and svd, runs the standalone program
# (tests/standalone/<op>.c: the plain library call a user would write) and
# `gpubench run` on a one-op suite at the same size, and prints
# gpubench median / standalone median. Fails (exit 1) if any ratio exceeds
# the limit (default 1.25).
#
#   scripts/dev/check-cpu-overhead.sh            largest default-suite sizes (run on the 16-core host)
#   scripts/dev/check-cpu-overhead.sh --small    small sizes (a quick run on a 2-core machine)
#   options: --limit R, --gpubench PATH, --only OP
#   env: GPUBENCH_RUN_FLAGS   extra flags for `gpubench run` (e.g. --threads N)
#
# The standalone times include neither input generation nor (for solve and
# svd) the copy that restores the destroyed input; gpubench's do include that
# copy, as its timing rules require, so the ratio bounds the whole harness
# overhead. Machines are noisy: rerun before believing a ratio near the limit.
set -euo pipefail

cd "$(dirname "$0")/../.."
mode=full
limit=1.25
gpubench=./gpubench
only=
while [ $# -gt 0 ]; do
    case "$1" in
        --small) mode=small ;;
        --limit) limit=$2; shift ;;
        --gpubench) gpubench=$2; shift ;;
        --only) only=$2; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "check-cpu-overhead: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done
PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "check-cpu-overhead: python3 is needed to read the results JSON" >&2; exit 2; }

# In the source tree the standalone programs are built here; an unpacked
# bundle (make bundle) carries them prebuilt in tools/ with bin/gpubench.
if [ -f Makefile ]; then
    tools=build/standalone
    make -s tools >/dev/null
    [ -x "$gpubench" ] || make -s gpubench >/dev/null
else
    tools=tools
    [ "$gpubench" != ./gpubench ] || gpubench=bin/gpubench
fi

# op dtype size params standalone-arguments (after the program name)
if [ $mode = small ]; then
    cases=(
        "fft float32 1024 {\"kind\":\"r2c\",\"planner\":\"measure\"} 1024 float32 r2c 20"
        "solve float64 2000 {\"nrhs\":1} 2000 float64 1 5"
        "spgemm float32 4096 {\"density\":0.01} 4096 float32 0.01 5"
        "svd float32 1000 {\"method\":\"gesdd\"} 1000 1000 float32 gesdd 3"
    )
else
    cases=(
        "fft float32 8192 {\"kind\":\"r2c\",\"planner\":\"measure\"} 8192 float32 r2c 10"
        "fft float64 8192 {\"kind\":\"r2c\",\"planner\":\"measure\"} 8192 float64 r2c 10"
        "solve float32 8192 {\"nrhs\":1} 8192 float32 1 5"
        "solve float64 8192 {\"nrhs\":1} 8192 float64 1 5"
        "spgemm float32 32768 {\"density\":0.001} 32768 float32 0.001 5"
        "spgemm float64 8192 {\"density\":0.01} 8192 float64 0.01 5"
        "svd float32 4096 {\"method\":\"gesdd\"} 4096 4096 float32 gesdd 3"
        "svd float64 4096 {\"method\":\"gesdd\"} 4096 4096 float64 gesdd 3"
    )
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
printf '%-8s %-8s %7s %12s %12s %7s\n' op dtype size standalone_s gpubench_s ratio
for c in "${cases[@]}"; do
    read -r op dtype size params rest <<<"$c"
    [ -z "$only" ] || [ "$only" = "$op" ] || continue
    # shellcheck disable=SC2086
    line=$("$tools/$op" $rest)
    sa=$(sed -n 's/.*median_s=\([^ ]*\).*/\1/p' <<<"$line")
    suite=$tmp/$op-$dtype.json
    cat >"$suite" <<JSON
{ "name": "overhead-$op", "description": "check-cpu-overhead.sh: one $op case",
  "defaults": { "dtypes": ["$dtype"], "warmup": 1, "min_reps": 5, "min_time_s": 0.5, "max_time_s": 120 },
  "benchmarks": [ { "op": "$op", "sizes": [$size], "params": $params } ] }
JSON
    res=$tmp/$op-$dtype-results.json
    # shellcheck disable=SC2086
    if ! "$gpubench" run "$suite" --out "$res" --backend cpu --no-peak --quiet --cpu-gemm openblas ${GPUBENCH_RUN_FLAGS:-} >"$tmp/log" 2>&1; then
        echo "check-cpu-overhead: gpubench run failed for $op $dtype $size:" >&2
        tail -n 20 "$tmp/log" >&2
        status=1
        continue
    fi
    gb=$("$PY" - "$res" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
for case in doc.get("cases", []):
    for r in case.get("results", []):
        if r.get("backend") == "cpu" and r.get("status") == "ok":
            print(r["stats"]["median"]); sys.exit(0)
        if r.get("backend") == "cpu":
            print("cpu result %s: %s" % (r.get("status"), r.get("reason")), file=sys.stderr); sys.exit(1)
print("no cpu result in " + sys.argv[1], file=sys.stderr); sys.exit(1)
PYEOF
) || { status=1; continue; }
    ratio=$("$PY" -c "print('%.3f' % ($gb / $sa))")
    flag=""
    if "$PY" -c "import sys; sys.exit(0 if $ratio > $limit else 1)"; then flag="  > $limit"; status=1; fi
    printf '%-8s %-8s %7s %12.4g %12.4g %7s%s\n' "$op" "$dtype" "$size" "$sa" "$gb" "$ratio" "$flag"
done
if [ $status -ne 0 ]; then
    echo "check-cpu-overhead: FAILED (a ratio above $limit or a run that failed)" >&2
fi
exit $status
