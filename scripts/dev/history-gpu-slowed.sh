#!/bin/sh
# scripts/dev/history-gpu-slowed.sh — issue #29's "a x1.2 slowdown made in one
# case of the ninth run is flagged", made for real and judged as the CI recipe
# judges (docs/ci.md): from the bundle directory, after
# scripts/dev/history-gpu-targets.sh has left OUTDIR/history.sqlite (eight
# runs) and OUTDIR/check9.json:
#
#   scripts/dev/history-gpu-slowed.sh [OUTDIR] [COUNT]   (default $OUT, 4)
#
# For COUNT results of 100 us or more in turn (CPU and CUDA alternately, in an
# order fixed by a hash of their names, not chosen by their noise), a fresh
# quick run with GPUBENCH_FAULT_SLOW=1.2:THAT-RESULT (every repetition of it
# 1.2 times as long, src/run/run_fault.c), then `history check --confirm
# suites/quick.json` with the variable still set, so that the suspects'
# fresh processes (16, the recipe's) are as slow as the run. A real
# slowdown is there in every process; one scaled into a file afterwards is
# not, and the confirmation rightly clears it. Each result's verdict, and any
# other result flagged beside it, go to OUTDIR/slowed-real.txt. It stops
# starting a new result after SLOW_BUDGET_S seconds (default 480);
# SLOW_SKIP=K starts at the (K+1)th result of the order (a second call
# going on where a first one stopped).
set -u
OUTDIR=${1:-${OUT:-./history-targets}}
COUNT=${2:-4}
GB=${GB:-./gpubench}
[ -x "$GB" ] || GB=bin/gpubench
SUITE=${SUITE:-suites/quick.json}
DB=$OUTDIR/history.sqlite
S=$OUTDIR/slowed-real.txt
[ -f "$DB" ] && [ -f "$OUTDIR/check9.json" ] || { echo "history-gpu-slowed: run history-gpu-targets.sh into $OUTDIR first" >&2; exit 2; }
start=$(date +%s)
python3 - "$OUTDIR/check9.json" "$(( COUNT + ${SLOW_SKIP:-0} ))" > "$OUTDIR/slowed-names.txt" <<'PY'
import json, sys, hashlib, itertools
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
names = {"cpu": [], "cuda": []}
for c in d["comparisons"]:
    if (c.get("baseline") or {}).get("median_s", 0) >= 1e-4 and c["backend"] in names:
        names[c["backend"]].append(c["name"])
for k in names: names[k].sort(key=lambda s: hashlib.sha256(s.encode()).hexdigest())
order = [x for pair in itertools.zip_longest(names["cpu"], names["cuda"]) for x in pair if x]
for name in order[:n]: print(name)
PY
echo "x1.2 made for real, judged with --confirm $SUITE (16 fresh processes): $(date -u +%Y-%m-%dT%H:%M:%SZ)" | tee -a "$S"
k=${SLOW_SKIP:-0}
tail -n +$(( ${SLOW_SKIP:-0} + 1 )) "$OUTDIR/slowed-names.txt" > "$OUTDIR/slowed-todo.txt"
while read -r name; do
    [ -n "$name" ] || continue
    [ $(( $(date +%s) - start )) -lt "${SLOW_BUDGET_S:-480}" ] || { echo "budget spent: stopping before $name" | tee -a "$S"; break; }
    k=$((k + 1))
    # the name as an exact glob: its last character in brackets (a pattern
    # with no wildcard is a substring: .../end_to_end would match
    # .../end_to_end_overlapped too)
    last=$(printf '%s' "$name" | tail -c 1)
    pattern="$(printf '%s' "$name" | sed 's/.$//')[$last]"
    t0=$(date +%s)
    GPUBENCH_FAULT_SLOW="1.2:$pattern" "$GB" run "$SUITE" --quiet --out "$OUTDIR/slowreal$k.json" > "$OUTDIR/slowreal$k.log" 2>&1
    GPUBENCH_FAULT_SLOW="1.2:$pattern" "$GB" history check "$OUTDIR/slowreal$k.json" --db "$DB" --confirm "$SUITE" \
        --quiet --format json > "$OUTDIR/slowreal$k-check.json" 2> "$OUTDIR/slowreal$k-check.err"
    rc=$?
    python3 - "$OUTDIR/slowreal$k-check.json" "$name" "$rc" "$(( $(date +%s) - t0 ))" <<'PY' | tee -a "$S"
import json, sys
d = json.load(open(sys.argv[1])); name = sys.argv[2]
hit = [c for c in d["comparisons"] if c["name"] == name]
others = [c["name"] for c in d["comparisons"] if c["name"] != name and c["verdict"] in ("regression", "improvement")]
c = hit[0] if hit else {}
conf = c.get("confirm") or {}
print(f"{name}: {c.get('verdict', 'NOT FOUND')}; stage 1 {100 * (c.get('change') or 0):+.1f}%"
      + (f", {conf.get('runs')} fresh processes {100 * (conf.get('change') or 0):+.1f}% [{100 * (conf.get('lo') or 0):+.1f}%, {100 * (conf.get('hi') or 0):+.1f}%]" if conf else ", not re-measured")
      + f"; exit {sys.argv[3]} in {sys.argv[4]} s; others flagged: {others if others else 'none'}")
PY
done < "$OUTDIR/slowed-todo.txt"
python3 - "$S" <<'PY' | tee -a "$S"
import sys
lines = [l for l in open(sys.argv[1]) if ": " in l and "; exit " in l]
flagged = sum(": regression;" in l for l in lines)
print(f"flagged {flagged} of {len(lines)} results made x1.2 slower for real")
PY
