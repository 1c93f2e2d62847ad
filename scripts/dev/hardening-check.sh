#!/bin/bash
# hardening-check.sh [OUTDIR] — docs/reliability.md's guarantees tried from
# outside, on a binary as a user has it (an unpacked bundle's bin/gpubench on
# a GPU host, or ./gpubench here): bad results files, commands aimed at their
# own inputs, special files, a signal under `ulimit -v`, bad text and loose
# values. Each line says PASS or FAIL with what was seen; exits 1 on any FAIL.
# Needs python3 (to doctor a results file) and timeout.
set -u
OUTDIR=${1:-${OUT:-./hardening-check}}
GB=${GB:-./gpubench}
[ -x "$GB" ] || GB=bin/gpubench
[ -x "$GB" ] || { echo "hardening-check: no ./gpubench or bin/gpubench (set GB)" >&2; exit 2; }
GB=$(realpath "$GB")
SUITES=$(dirname "$GB")/../suites
[ -d "$SUITES" ] || SUITES=suites
SUITES=$(realpath "$SUITES")
mkdir -p "$OUTDIR"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 2
fails=0
check() { # name, expected exit code, command...
    local name=$1 want=$2
    shift 2
    timeout -s KILL 60 "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" = "$want" ]; then
        echo "PASS $name (exit $rc)"
    else
        echo "FAIL $name: exit $rc, wanted $want: $(head -c 300 "$T/err")"
        fails=$((fails + 1))
    fi
}
same() { # name, file, sha256 it must still have
    if [ "$(sha256sum "$2" | cut -d' ' -f1)" = "$3" ]; then echo "PASS $1 (unchanged)"; else
        echo "FAIL $1: $2 was changed"; fails=$((fails + 1)); fi
}

# A small real results file to doctor.
"$GB" run --op matmul --sizes 32 --dtype float32 --rounds 1 --no-peak --quiet --backend cpu --out r.json >/dev/null 2>&1 ||
    { echo "FAIL could not make a results file"; exit 1; }
cp r.json r2.json

# 1. a wrong-typed context field: exit 2 with the path named, never an abort
python3 - <<'EOF'
import json
d = json.load(open("r.json"))
d["context"]["date"] = 5
json.dump(d, open("bad-date.json", "w"))
d = json.load(open("r.json"))
d["context"]["hostname"] = [1]
json.dump(d, open("bad-host.json", "w"))
EOF
for f in bad-date.json bad-host.json; do
    check "report $f" 2 "$GB" report "$f"
    check "report --fleet $f" 2 "$GB" report --fleet "$f" r.json
    check "compare $f" 2 "$GB" compare "$f" r.json
    check "merge $f" 2 "$GB" merge "$f" r.json -o m.json
    check "export $f" 2 "$GB" export "$f" --format gbench
done
grep -q "context.date" <("$GB" report bad-date.json 2>&1) && echo "PASS the error names context.date" ||
    { echo "FAIL the error does not name context.date"; fails=$((fails + 1)); }

# 2. never over its own input
cp "$SUITES/quick.json" s.json
h=$(sha256sum s.json | cut -d' ' -f1)
check "run s.json --out s.json" 2 "$GB" run s.json --out s.json
same "the suite after run --out onto it" s.json "$h"
check "run --export-gbench onto the suite" 2 "$GB" run s.json --export-gbench s.json
same "the suite after --export-gbench onto it" s.json "$h"
check "run --out X --export-gbench X" 2 "$GB" run s.json --out x.json --export-gbench x.json
ln -s r.json link.json
h=$(sha256sum r.json | cut -d' ' -f1)
check "export R -o R (through a symlink)" 2 "$GB" export r.json --format gbench -o link.json
same "the results after export onto them" r.json "$h"
h=$(sha256sum r2.json | cut -d' ' -f1)
check "compare A B -o B" 2 "$GB" compare r.json r2.json -o r2.json
same "CURRENT after compare -o onto it" r2.json "$h"

# 3. special files: refused at once, nothing hangs
mkfifo fifo
check "validate a FIFO" 2 timeout 10 "$GB" validate fifo
check "validate /dev/zero" 2 timeout 10 "$GB" validate /dev/zero
check "report /dev/urandom" 2 timeout 10 "$GB" report /dev/urandom
truncate -s 3G sparse.json
check "report a 3 GiB sparse file" 2 timeout 10 "$GB" report sparse.json
rm -f sparse.json
ln -s /dev/zero zero-wisdom
for w in fifo zero-wisdom; do
    GPUBENCH_FFTW_WISDOM=$T/$w check "FFT with wisdom path $w" 0 timeout 60 "$GB" run --op fft --sizes 64 \
        --dtype float32 --rounds 1 --no-peak --quiet --backend cpu --out "w-$w.json"
done
# history and the kept GEMM choice (found 2026-11-26): hashed or read with a
# plain open, /dev/zero read forever and a FIFO blocked
check "history add /dev/zero" 2 timeout 10 "$GB" history add /dev/zero --db h.sqlite
check "history add a FIFO" 2 timeout 10 "$GB" history add fifo --db h.sqlite
check "history list --db a FIFO" 2 timeout 10 "$GB" history list --db fifo
GPUBENCH_CPU_GEMM_CHOICE=$T/fifo check "GEMM with the kept choice a FIFO" 0 timeout 60 "$GB" run --op matmul \
    --sizes 64 --dtype float32 --rounds 1 --no-peak --quiet --backend cpu --out k.json
# a history named as a page publish writes, in the directory it publishes into
mkdir -p pub && "$GB" history add r.json --db pub/index.html >/dev/null 2>&1
h=$(sha256sum pub/index.html | cut -d' ' -f1)
check "history publish over its own --db" 2 "$GB" history publish pub --db pub/index.html
same "the history after publish into its directory" pub/index.html "$h"
# SIGTERM to compare --confirm while its child measures: the child ends too,
# and the temporary directory goes
mkdir -p ctmp
printf '{"name":"c","defaults":{"min_time_s":5,"dtypes":["float32"]},"benchmarks":[{"op":"matmul","sizes":[32]}]}\n' >c.json
(TMPDIR=$T/ctmp exec "$GB" compare r.json r.json --confirm c.json --confirm-unsure >/dev/null 2>c.err) &
pid=$!
for i in $(seq 1 200); do [ -n "$(ls ctmp)" ] && break; sleep 0.05; done
sleep 1
kill -TERM $pid
wait $pid
rc=$?
sleep 0.2
if [ "$rc" = 143 ] && [ -z "$(ls ctmp)" ] && ! pgrep -f "run c.json --case" >/dev/null; then
    echo "PASS SIGTERM to compare --confirm: exit 143, child ended, directory removed"
else
    echo "FAIL SIGTERM to compare --confirm: exit $rc, left $(ls ctmp), children $(pgrep -fa 'run c.json --case' | head -c 200)"
    fails=$((fails + 1))
fi

# 4. a signal ends a run stuck in a library under ulimit -v (OpenBLAS retries
#    mmap without end inside the first GEMM) within a bounded time. Two
#    OpenBLAS threads and two OpenMP threads: with one per core of a 16-core
#    host, 300 MB cannot hold their stacks, and OpenBLAS raises SIGINT while
#    the program loads, before gpubench runs (exit 130, its "pthread_create
#    failed" message), or libgomp ends the run (the check after these).
export OPENBLAS_NUM_THREADS=2
(ulimit -v 300000; exec "$GB" run --op matmul --sizes 64 --backend cpu --threads 2 --min-time 60s --max-time 120s \
    --out sig.json >/dev/null 2>sig.err) &
pid=$!
for i in $(seq 1 400); do grep -q 'measuring cpu ceilings' sig.err 2>/dev/null && break; sleep 0.05; done
sleep 1
s=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$?
ms=$((($(date +%s%N) - s) / 1000000))
if python3 -c "import json,sys; d=json.load(open('sig.json')); sys.exit(0 if d.get('interrupted') else 1)" 2>/dev/null &&
    [ "$ms" -lt 3000 ] && [ "$rc" = 143 ]; then
    echo "PASS SIGTERM under ulimit -v ended in $ms ms (exit $rc), results valid and marked interrupted"
else
    echo "FAIL SIGTERM under ulimit -v: exit $rc after $ms ms; results: $(head -c 200 sig.json 2>/dev/null)"
    fails=$((fails + 1))
fi
# and a run that finishes under such a limit exits (OpenBLAS's shutdown
# joined threads stuck retrying mmap: a finished run never ended)
cat >big.json <<'EOF2'
{"name":"big","defaults":{"dtypes":["float64"],"rounds":1},"benchmarks":[{"op":"matmul","sizes":[16384]}]}
EOF2
check "a finished run under ulimit -v exits" 0 bash -c "ulimit -v 300000; exec timeout -s KILL 30 \"$GB\" run big.json --backend cpu --threads 2 --no-peak --quiet --out fin.json"
# and a run that a library ends (libgomp cannot start 16 threads in 300 MB):
# exit 2 with its results so far (none when it ended before the first case,
# as on the 16-core GPU host, where the CPU backend pins its threads first),
# no lock, not a process hung in OpenBLAS's exit
check "a run a library ends under ulimit -v" 2 bash -c "ulimit -v 300000; exec timeout -s KILL 30 \"$GB\" run --op matmul --sizes 64 --backend cpu --threads 16 --no-peak --quiet --out lib.json"
if { [ ! -e lib.json ] ||
     python3 -c "import json,sys; d=json.load(open('lib.json')); sys.exit(0 if d.get('interrupted_by') == 'library-exit' else 1)"; } &&
    [ ! -e lib.json.lock ]; then
    echo "PASS a run a library ends: $([ -e lib.json ] && echo 'results written, marked library-exit' || echo 'ended before its first case, no results'), no lock left"
else
    echo "FAIL a run a library ends: results $(head -c 200 lib.json 2>/dev/null), lock $(ls lib.json.lock 2>/dev/null)"
    fails=$((fails + 1))
fi
unset OPENBLAS_NUM_THREADS

# 5. text and values
printf '{"name":"bad\\u0000x","benchmarks":[{"op":"matmul","sizes":[8]}]}' >nul.json
check "a NUL escape in a suite string" 2 "$GB" validate nul.json
printf '{"name":"bad\xff","benchmarks":[{"op":"matmul","sizes":[8]}]}' >utf.json
check "invalid UTF-8 in a suite" 2 "$GB" validate utf.json
check "--sizes 1x" 2 "$GB" run --op matmul --sizes 1x --backend cpu --out v.json
check "--sizes 1,,2" 2 "$GB" run --op matmul --sizes 1,,2 --backend cpu --out v.json
check "--max-time 0x10s" 2 "$GB" run --op matmul --sizes 8 --max-time 0x10s --backend cpu --out v.json
check "--backend ''" 2 "$GB" run --op matmul --sizes 8 --backend '' --out v.json
long=$(printf 'n%.0s' $(seq 1 250)).json
check "a 255-byte --out name" 0 "$GB" run --op matmul --sizes 8 --dtype float32 --rounds 1 --no-peak --quiet \
    --backend cpu --out "$long"

# 6. provenance
"$GB" info >info.txt 2>&1
grep -E "nvidia_driver|driver" info.txt | head -5
if grep -qE 'nvidia_driver: "?for"?' info.txt; then echo "FAIL nvidia_driver reads 'for'"; fails=$((fails + 1)); fi

cp info.txt "$OUTDIR"/ 2>/dev/null
echo "hardening-check: $fails failed"
[ "$fails" = 0 ]
