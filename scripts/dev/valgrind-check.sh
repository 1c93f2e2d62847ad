#!/bin/sh
# make valgrind: a quick CPU run and every command that reads files, under
# valgrind; any memory error or definite leak fails (--error-exitcode=1).
#   scripts/dev/valgrind-check.sh [./gpubench]
# The run is suites/quick.json on the CPU backend cut down to what valgrind
# can do in a few minutes (float32, one round, no ceilings, two threads):
# every op still runs once through prepare, measure, verify and release.
set -eu
cd "$(dirname "$0")/../.."
bin=${1:-./gpubench}
command -v valgrind >/dev/null 2>&1 || { echo "valgrind-check: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run re-executes itself (/proc/self/exe) to set the OpenBLAS core, which
# valgrind cannot follow: the core OpenBLAS runs now keeps the process as it
# started. That core is OPENBLAS_CORETYPE's where the environment sets it
# (some machine images preset it: "detected" would unset it and re-execute),
# else OpenBLAS's own.
core=${OPENBLAS_CORETYPE:-detected}
# Likewise the binding of the one OpenMP pool (OMP_PLACES set by gpubench
# needs a re-execution before libgomp starts): a binding of the user's own,
# here none, is respected and keeps the process as it started.
export OMP_PROC_BIND=false
# OpenMP and OpenBLAS keep thread pools and per-thread buffers until exit:
# "still reachable", not leaks. Definite leaks and every error count.
# scripts/dev/valgrind.supp: the dynamic loader's own false positives (opening
# the CUDA plugin), named there; nothing of gpubench is suppressed.
vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --suppressions=scripts/dev/valgrind.supp"
# step ALLOWED_EXIT_CODES COMMAND...: run under valgrind; fail on a valgrind
# error or an exit code not listed.
step() {
    ok=$1; shift
    echo "valgrind-check: $*"
    rc=0
    # shellcheck disable=SC2086
    $vg "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    case " $ok " in *" $rc "*) return 0 ;; esac
    cat "$tmp/err" >&2
    echo "valgrind-check: FAILED (exit $rc): $*" >&2
    exit 1
}
step 0 "$bin" validate suites/quick.json
step 0 "$bin" run suites/quick.json --backend cpu --dtype float32 --rounds 1 --no-peak --threads 2 --openblas-core "$core" --quiet --out "$tmp/run.json"
step 0 "$bin" report "$tmp/run.json"
step 0 "$bin" report "$tmp/run.json" --format html
# the run against itself: every case matched and judged (two unrelated files
# now end "nothing was compared", exit 2, before the judging this should walk)
step "0 1" "$bin" compare "$tmp/run.json" "$tmp/run.json" --format md
step 0 "$bin" export "$tmp/run.json" --format gbench -o "$tmp/gbench.json"
step 0 "$bin" merge "$tmp/run.json" tests/data/results_merged.json -o "$tmp/merged.json"
step 0 "$bin" report "$tmp/merged.json"
# the history: three copies of the run (a newline apart: three files by
# their hash) added, read back, judged, calibrated and published
printf '\n' | cat "$tmp/run.json" - >"$tmp/run2.json"
printf '\n\n' | cat "$tmp/run.json" - >"$tmp/run3.json"
for f in run run2 run3; do step 0 "$bin" history add "$tmp/$f.json" --db "$tmp/h.sqlite" --commit "$f"; done
step 0 "$bin" history list --db "$tmp/h.sqlite"
step 0 "$bin" history show matmul --db "$tmp/h.sqlite"
step 0 "$bin" history export --format json --db "$tmp/h.sqlite"
step "0 1" "$bin" history check "$tmp/run.json" --db "$tmp/h.sqlite"
step 0 "$bin" history calibrate "$tmp/run.json" --db "$tmp/h.sqlite" --inject 1.2 --min-time 1ms
step "0 1" "$bin" history bisect matmul --db "$tmp/h.sqlite"
step 0 "$bin" history publish "$tmp/site" --db "$tmp/h.sqlite"
# and the refusals: a broken file is read, refused, and nothing leaks
for f in tests/data/hardening/*.json; do
    case $f in
        */suite_*) step "0 2" "$bin" validate "$f" ;;
        *) step "0 2" "$bin" report "$f" ;;
    esac
done
echo "valgrind-check: clean"
