#!/bin/sh
# scripts/dev/verdicts-gpu-host.sh BUNDLE_DIR — issue #44 on the GPU host
# (16 vCPUs, H200), bounded to about 3 minutes, everything under $OUT as ONE
# archive (the device returns at most 8 files): $OUT/verdicts-gpu-host.tar.xz
# and $OUT/summary.txt beside it.
#
#   BUNDLE_DIR: the unpacked bundle (bin/gpubench, suites/); run from anywhere.
#
# 1. eight same-build runs of suites/quick.json --backend cpu (~4 s a
#    process), --peak fresh as the CI recipe does, added to a fresh history
#    (`run --history`);
# 2. leave-one-out: each of the eight checked (`history check`) against the
#    other seven (a fresh history each): exit 0 expected for every one; the
#    shift lines (spread, which of build/libraries/ceilings differ) kept;
# 3. `history calibrate` over the eight (--inject 1.2): runs check would fail
#    and the reasons, the stage-1 detection of x1.2;
# 4. SLOWED_RUNS (default 3) runs with GPUBENCH_FAULT_SLOW=1.2 on one pattern
#    (the two 512^3 CPU matmuls: 2 of the ~54 results, well under a tenth),
#    each checked against the eight with --confirm (CONFIRM_RUNS, default 3,
#    fresh processes inheriting the slowdown): how many of the slowed
#    results are flagged, and whether anything else is.
# Each step runs under `timeout`; a step cut short says so in summary.txt.
set -u
B=${1:?usage: verdicts-gpu-host.sh BUNDLE_DIR}
OUT=${OUT:-./verdicts-gpu-host-out}
GB=$B/bin/gpubench
[ -x "$GB" ] || GB=$B/gpubench
[ -x "$GB" ] || { echo "verdicts-gpu-host: no bin/gpubench in $B" >&2; exit 2; }
SUITE=$B/suites/quick.json
PATTERN=${PATTERN:-matmul/float*/512x512x512/*/cpu/host}
SLOWED_RUNS=${SLOWED_RUNS:-3}
CONFIRM_RUNS=${CONFIRM_RUNS:-3}
W=$(mktemp -d)
mkdir -p "$OUT" "$W/runs" "$W/loo" "$W/slow"
S=$W/summary.txt
: > "$S"
say() { echo "$*" | tee -a "$S"; }
START=$(date +%s)
left() { echo $(( ${BUDGET_S:-175} - ($(date +%s) - START) )); } # seconds left of BUDGET_S (default 175)
step() { # step SECONDS LOG cmd...: run under timeout, at most what is left
    t=$1; log=$2; shift 2
    l=$(left); [ "$l" -lt "$t" ] && t=$l
    [ "$t" -le 0 ] && { echo "skipped: out of time" > "$log"; return 124; }
    timeout "$t" "$@" > "$log" 2>&1
}
DB=$W/history.sqlite
unset GPUBENCH_FAULT_SLOW
say "verdicts-gpu-host: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $GB, $SUITE --backend cpu"
"$GB" info > "$W/info.txt" 2>&1 || true

# 1. the eight-run history
for i in 1 2 3 4 5 6 7 8; do
    t0=$(date +%s)
    step 20 "$W/runs/run$i.log" "$GB" run "$SUITE" --backend cpu --quiet --peak fresh \
        --out "$W/runs/run$i.json" --history="$DB"
    say "run $i: exit $? in $(( $(date +%s) - t0 )) s"
done

# 2. leave-one-out: run i against the other seven
fails=0
for i in 1 2 3 4 5 6 7 8; do
    [ -f "$W/runs/run$i.json" ] || continue
    db=$W/loo/without$i.sqlite
    for j in 1 2 3 4 5 6 7 8; do
        [ "$j" = "$i" ] || [ ! -f "$W/runs/run$j.json" ] || "$GB" history add "$W/runs/run$j.json" --db "$db" >/dev/null 2>&1
    done
    step 15 "$W/loo/check$i.txt" "$GB" history check "$W/runs/run$i.json" --db "$db"
    rc=$?
    "$GB" history check "$W/runs/run$i.json" --db "$db" --format json > "$W/loo/check$i.json" 2>/dev/null
    [ "$rc" = 0 ] || fails=$((fails + 1))
    say "leave-one-out run $i vs the other 7: exit $rc; $(grep -m3 '^Shift' "$W/loo/check$i.txt" | tr '\n' ' ' | cut -c1-400)"
done
say "leave-one-out: $fails of 8 same-build runs fail (target: at most one judgement in 40)"

# 3. calibrate over the eight
t0=$(date +%s)
step 60 "$W/calibrate.txt" "$GB" history calibrate "$W/runs/run1.json" --db "$DB" --inject 1.2
say "calibrate --inject 1.2: exit $? in $(( $(date +%s) - t0 )) s; $(grep -E '^Runs check would fail|^Runs flagging' "$W/calibrate.txt" | tr '\n' ' ')"
"$GB" history calibrate "$W/runs/run1.json" --db "$DB" -f json > "$W/calibrate.json" 2>/dev/null

# 4. x1.2 made for real in one pattern, checked with --confirm
for k in $(seq 1 "$SLOWED_RUNS"); do
    t0=$(date +%s)
    (export GPUBENCH_FAULT_SLOW="1.2:$PATTERN"; step 20 "$W/slow/slow$k.log" "$GB" run "$SUITE" --backend cpu \
        --quiet --peak fresh --out "$W/slow/slow$k.json")
    say "slowed run $k: exit $? in $(( $(date +%s) - t0 )) s"
    [ -f "$W/slow/slow$k.json" ] || continue
    t0=$(date +%s)
    (export GPUBENCH_FAULT_SLOW="1.2:$PATTERN"; step 60 "$W/slow/check$k.json" "$GB" history check \
        "$W/slow/slow$k.json" --db "$DB" --confirm "$SUITE" --confirm-runs "$CONFIRM_RUNS" --quiet --format json)
    rc=$?
    line=$(python3 - "$W/slow/check$k.json" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
slow = [c for c in d["comparisons"] if "512x512x512" in c["name"] and c["name"].endswith("cpu/host")]
other = [c for c in d["comparisons"] if c not in slow and c["verdict"] in ("regression", "improvement")]
flag = sum(c["verdict"] == "regression" or (c.get("confirm") or {}).get("verdict") == "regression" for c in slow)
print(f"slowed results flagged {flag} of {len(slow)}; other cases flagged {len(other)}")
PY
)
    say "check slowed run $k --confirm ($CONFIRM_RUNS processes): exit $rc in $(( $(date +%s) - t0 )) s; $line"
done
say "total: $(( $(date +%s) - START )) s"
cp "$S" "$OUT/summary.txt"
tar -C "$W" -cJf "$OUT/verdicts-gpu-host.tar.xz" . && rm -rf "$W"
