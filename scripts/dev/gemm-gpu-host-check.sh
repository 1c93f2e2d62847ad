#!/bin/sh
# gemm-gpu-host-check.sh BUNDLE_DIR   (writes under $OUT, default ./gemm-check)
#
# Issue #43's measurement on the GPU host: the CPU's GEMM at 8192³ in float32
# and float64, `--cpu-gemm auto` against each candidate of the build
# (openblas, onednn for float32, blis) and PyTorch's CPU GEMM (torch.mm, on
# MKL), interleaved in rounds (auto A B C torch, auto A B C torch, ...) so a
# drift of the VM falls on all alike. BUNDLE_DIR is the unpacked bundle (the
# folder with bin/gpubench). auto's choice is made fresh: its kept file is
# $OUT/gemm-choice (the first auto run measures the giant class, the rest read
# it), and the kept line is copied to the summary with its figures.
#
# Bounded: no step starts after BUDGET_S (default 220 s) from the start, and
# each step is under `timeout 60`; so the whole takes about 4 minutes at most.
# Writes $OUT/<dtype>-<lib>-<round>.json (gpubench's results), $OUT/torch-*.txt,
# $OUT/log.txt (every command and its time) and $OUT/summary.txt: per dtype
# and library the median seconds of each round, the GFLOP/s of the best round,
# and auto's ratio to the best candidate and to PyTorch.
set -u
B=${1:?usage: gemm-gpu-host-check.sh BUNDLE_DIR}
[ -x "$B/bin/gpubench" ] || B=$(ls -d "$B"/gpubench-*/ 2>/dev/null | head -1)
B=${B%/}
[ -x "$B/bin/gpubench" ] || { echo "gemm-gpu-host-check: no bin/gpubench under $1" >&2; exit 2; }
OUT=${OUT:-./gemm-check}
mkdir -p "$OUT"
G=$B/bin/gpubench
N=${N:-8192}
ROUNDS=${ROUNDS:-2}
BUDGET_S=${BUDGET_S:-220}
export GPUBENCH_CPU_GEMM_CHOICE=$OUT/gemm-choice
rm -f "$GPUBENCH_CPU_GEMM_CHOICE"
start=$(date +%s)
log() { echo "$(date +%T) $*" >> "$OUT/log.txt"; }
left() { [ $(( $(date +%s) - start )) -lt "$BUDGET_S" ]; }

nproc > "$OUT/nproc.txt"
lscpu > "$OUT/lscpu.txt" 2>&1
"$G" info > "$OUT/info.txt" 2>&1
python3 -c 'import torch; print(torch.__version__, torch.get_num_threads(), torch.backends.mkl.is_available())' \
    > "$OUT/torch-version.txt" 2>&1 || echo "no torch" > "$OUT/torch-version.txt"

one() { # dtype lib round
    f=$OUT/$1-$2-$3.json
    if [ "$2" = torch ]; then
        log "torch $1 round $3"
        timeout 60 python3 -c "
import sys, time, statistics, torch
n = $N; dt = getattr(torch, '$1')
a = torch.rand(n, n, dtype=dt) * 2 - 1; b = torch.rand(n, n, dtype=dt) * 2 - 1
torch.mm(a, b)
ts = []
for _ in range(3):
    t0 = time.perf_counter(); torch.mm(a, b); ts.append(time.perf_counter() - t0)
print('median_s', statistics.median(ts), 'all', ts)
" > "$OUT/torch-$1-$3.txt" 2>&1
        return
    fi
    log "gpubench $1 --cpu-gemm $2 round $3"
    timeout 60 "$G" run --op matmul --sizes "$N" --dtype "$1" --backend cpu --cpu-gemm "$2" --no-peak \
        --warmup 1 --min-time 2s --max-time 6s --quiet --out "$f" >> "$OUT/log.txt" 2>&1 ||
        log "  exit $?"
}

for dt in float32 float64; do
    libs="auto openblas blis torch"
    [ "$dt" = float32 ] && libs="auto openblas onednn blis torch"
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        for lib in $libs; do
            left || { log "budget of ${BUDGET_S}s spent: $dt $lib round $r not started"; continue; }
            one "$dt" "$lib" "$r"
        done
        r=$((r + 1))
    done
done

python3 - "$OUT" "$N" > "$OUT/summary.txt" 2>&1 <<'EOF'
import glob, json, os, re, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
flop = 2.0 * n ** 3
rows = {}
for f in sorted(glob.glob(os.path.join(out, "*-*-*.json"))):
    dt, lib, rnd = os.path.basename(f)[:-5].split("-")
    try:
        doc = json.load(open(f))
        for c in doc.get("cases", []):
            for r in c.get("results", []):
                med = (r.get("stats") or {}).get("median")
                if med:
                    rows.setdefault((dt, lib), []).append(med)
                    if lib == "auto":
                        rows.setdefault((dt, "auto-choice"), []).append(r.get("extra", {}).get("library_choice", "?"))
    except Exception as e:
        print("unreadable", f, e)
for f in sorted(glob.glob(os.path.join(out, "torch-float*-*.txt"))):
    dt = os.path.basename(f).split("-")[1]
    m = re.search(r"median_s ([0-9.eE+-]+)", open(f).read())
    if m: rows.setdefault((dt, "torch"), []).append(float(m.group(1)))
for dt in ("float32", "float64"):
    print(dt, f"{n}^3")
    best = {}
    for lib in ("auto", "openblas", "onednn", "blis", "torch"):
        ts = rows.get((dt, lib))
        if not ts: continue
        best[lib] = min(ts)
        print(f"  {lib:9s} rounds {' '.join(f'{t:.3f}' for t in ts)} s   best {flop / min(ts) * 1e-9:.0f} GFLOP/s")
    cands = [best[l] for l in ("openblas", "onednn", "blis") if l in best]
    if "auto" in best and cands:
        print(f"  auto / best candidate: {best['auto'] / min(cands):.3f} (<= 1.03 is the target)")
    if "auto" in best and "torch" in best:
        print(f"  auto / PyTorch CPU: {best['auto'] / best['torch']:.3f}")
    for why in set(rows.get((dt, "auto-choice"), [])): print("  auto's choice:", why)
EOF
[ -f "$GPUBENCH_CPU_GEMM_CHOICE" ] && { echo "kept file:"; cat "$GPUBENCH_CPU_GEMM_CHOICE"; } >> "$OUT/summary.txt"
log "done in $(( $(date +%s) - start )) s"
cat "$OUT/summary.txt"
