#!/bin/sh
# cpu-pools-gpu-host.sh BUNDLE DELTA_DIR OUT [PROCESSES] [SUITE]
# (BUNDLE: make bundle's tarball, or the folder it unpacks to)
#
# Issue #42's measurement on the GPU host: the CPU side of SUITE (default
# suites/quick.json, --backend cpu) in PROCESSES processes (default 8) of
# the bundle's build, interleaved with PROCESSES/2 each of three comparison
# builds made from the same bundle and a small delta (so that the upload
# stays under the device tool's 64 MiB):
#   A  the build before issue #42 as shipped: the old bin/gpubench with
#      Debian's pthread OpenBLAS (its own pool) and FFTW's own threads;
#   B  the old bin/gpubench with Debian's OpenMP OpenBLAS (the bundle's):
#      one pool for OpenBLAS, workers told to sleep (the old PASSIVE);
#   C  B with OMP_WAIT_POLICY=ACTIVE (one pool whose workers never sleep);
#   new  the bundle as built.
# DELTA_DIR (made by scripts/dev/cpu-pools-delta.sh on the development
# machine) holds old-gpubench and the pthread libopenblas.so.0, libblas.so.3,
# liblapack.so.3 and libfftw3(f)_threads.so.3 under those names, with
# RUNPATH $ORIGIN. Each build has its own cache folder (kept teams, GEMM
# choice, wisdom), shared by its processes, as on a machine that runs it.
# Writes OUT/<build>-<i>.json and OUT/pools.txt (cpu-pools-compare.py's
# table: per result each build's median, best and max/min; per build the
# spread figures; the results where new is 5% above the better of A and C).
# DELTA may also be a .tar.xz of that folder. VARIANTS="S:GOMP_SPINCOUNT=30000
# ..." adds builds that are the bundle's with those settings, N/2 each.
set -eu
BUNDLE=$1 DELTA=$2 OUT=$3 N=${4:-8} SUITE=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/gb-pools.XXXXXX")
if [ -d "$BUNDLE" ]; then cp -a "$BUNDLE" "$T/"; else tar -C "$T" -xJf "$BUNDLE"; fi
case $DELTA in *.tar.xz) mkdir -p "$T/delta" && tar -C "$T/delta" --strip-components=1 -xJf "$DELTA" && DELTA=$T/delta ;; esac
NEW=$(ls -d "$T"/gpubench-*/)
NEW=${NEW%/}
[ -n "$SUITE" ] || SUITE=$NEW/suites/quick.json
for b in A B C; do
    cp -a "$NEW" "$T/$b"
    cp "$DELTA/old-gpubench" "$T/$b/bin/gpubench"
    cp "$DELTA"/libfftw3_threads.so.3 "$DELTA"/libfftw3f_threads.so.3 "$T/$b/lib/"
done
for l in libopenblas.so.0 libblas.so.3 liblapack.so.3; do cp "$DELTA/$l" "$T/A/lib/$l"; done
mkdir -p "$OUT" "$T/cache-new" "$T/cache-A" "$T/cache-B" "$T/cache-C"
VARIANTS=${VARIANTS:-}
run() { # build index
    case $1 in
    new) dir=$NEW env= ;;
    V*) # an if, not [ ] && echo: under set -e a last variant that does not
        # match made the substitution fail and the script end without a word
        dir=$NEW env=$(for v in $VARIANTS; do if [ "V${v%%:*}" = "$1" ]; then echo "${v#*:}"; fi; done) ;;
    A) dir=$T/A env= ;;
    B) dir=$T/B env= ;;
    C) dir=$T/C env=OMP_WAIT_POLICY=ACTIVE ;;
    esac
    env $env XDG_CACHE_HOME="$T/cache-$1" timeout "${PROCESS_TIMEOUT:-60}" "$dir/bin/gpubench" run "$SUITE" \
        --backend cpu --no-peak --energy off \
        --quiet -o "$OUT/$1-$2.json" > "$OUT/$1-$2.log" 2>&1 || echo "$1-$2: exit $?" >> "$OUT/failures.txt"
}
half=$((N / 2))
r=1
while [ $r -le "$half" ]; do # new A new B new C, each round: N of new, N/2 of each other
    run new $((2 * r - 1)); run A $r; run new $((2 * r)); run B $r; run C $r
    for v in $VARIANTS; do mkdir -p "$T/cache-V${v%%:*}"; run "V${v%%:*}" $r; done
    r=$((r + 1))
done
files=""
for f in "$OUT"/*.json; do
    [ -f "$f" ] || continue
    b=$(basename "$f" .json)
    files="$files ${b%-*}=$f"
done
# shellcheck disable=SC2086
python3 "$here/cpu-pools-compare.py" $files --against A,C --of new > "$OUT/pools.txt"
tail -n 40 "$OUT/pools.txt"
# the device tool returns 8 files: the results and logs travel as one archive
(cd "$OUT" && tar -cJf pools-results.tar.xz ./*.json ./*.log && rm -f ./*.json ./*.log)
rm -rf "$T"
echo "processes: $N of new, $half each of A, B and C"
