#!/bin/sh
# scripts/dev/verdicts-gpu-check.sh — issue #30 on the GPU host, in one call
# from the bundle directory (no network needed), about 7 minutes on an H100:
#
#   scripts/dev/verdicts-gpu-check.sh [OUTDIR]     (default $OUT, else ./verdicts-check)
#
# 1. five same-build runs of suites/quick.json added to a fresh history
#    (`run --history`; the baseline, one lease, one VM; ~46 s a run);
# 2. a sixth run (not added): the A/A. `history check --confirm` against the
#    history (5-run baseline; the suspects re-measured in 16 fresh processes,
#    ~1.5 min), and `compare` of the five files against it (stage 1 only);
# 3. the sixth run with one result of 100 us or more made x1.2 slower (its
#    samples scaled, python3): history check and compare, stage 1 only (a
#    fresh process would measure the case unslowed);
# 4. the sixth run made x1.2 slower everywhere: the machine-wide shift line
#    (ceilings unchanged: an unexplained shift, exit 1).
# OUTDIR/summary.txt has each verdict summary and exit code; the full
# outputs (table, --verbose, JSON) are beside it.
set -u
OUTDIR=${1:-${OUT:-./verdicts-check}}
GB=${GB:-./gpubench}
[ -x "$GB" ] || GB=bin/gpubench
[ -x "$GB" ] || { echo "verdicts-gpu-check: no ./gpubench or bin/gpubench here (run from the bundle directory, or set GB)" >&2; exit 2; }
SUITE=${SUITE:-suites/quick.json}
N=${N:-5}
mkdir -p "$OUTDIR"
DB=$OUTDIR/history.sqlite
rm -f "$DB" "$DB-wal" "$DB-shm"
S=$OUTDIR/summary.txt
: > "$S"
say() { echo "$*" | tee -a "$S"; }
# the summary block of a compare/check table: from "Summary:" to "Result:"
summ() { sed -n '/^Summary:/,/^Result:/p' "$1" | tee -a "$S"; }

say "gpubench verdicts check: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $GB, $SUITE, $N history runs"
"$GB" info > "$OUTDIR/info.txt" 2>&1 || true
BASES=""
for i in $(seq 1 "$N"); do
    t0=$(date +%s)
    "$GB" run "$SUITE" --quiet --out "$OUTDIR/run$i.json" --history="$DB" > "$OUTDIR/run$i.log" 2>&1
    say "run $i: exit $? in $(( $(date +%s) - t0 )) s"
    BASES="$BASES $OUTDIR/run$i.json"
done
t0=$(date +%s)
"$GB" run "$SUITE" --quiet --out "$OUTDIR/cur.json" > "$OUTDIR/cur.log" 2>&1
say "current run (not added): exit $? in $(( $(date +%s) - t0 )) s"

check() { # name file [history check options...]
    name=$1 file=$2
    shift 2
    t0=$(date +%s)
    "$GB" history check "$file" --db "$DB" --verbose "$@" > "$OUTDIR/$name.check.txt" 2> "$OUTDIR/$name.check.err"
    say "== $name: history check ($N-run baseline) $*: exit $? in $(( $(date +%s) - t0 )) s"
    summ "$OUTDIR/$name.check.txt"
    "$GB" history check "$file" --db "$DB" --format json > "$OUTDIR/$name.check.json" 2>/dev/null
    # shellcheck disable=SC2086
    "$GB" compare $BASES -- "$file" > "$OUTDIR/$name.compare.txt" 2> "$OUTDIR/$name.compare.err"
    say "== $name: compare ($N baseline files, no --confirm): exit $?"
    summ "$OUTDIR/$name.compare.txt"
}
# the A/A with the CI default: the history's baseline and --confirm (16 fresh processes of the suspects)
check aa "$OUTDIR/cur.json" --confirm "$SUITE" --quiet

if command -v python3 >/dev/null 2>&1; then
    python3 - "$OUTDIR/cur.json" "$OUTDIR" > "$OUTDIR/slowed.txt" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
def scaled(one):
    d = json.load(open(src))
    done = None
    for c in d["cases"]:
        for r in c["results"]:
            st = r.get("stats") or {}
            if r.get("status") != "ok" or not r.get("samples_s"):
                continue
            if one and (done or (st.get("median") or 0) < 1e-4):
                continue
            r["samples_s"] = [s * 1.2 for s in r["samples_s"]]
            for k in ("min", "max", "median", "mean", "stddev", "ci95_low", "ci95_high"):
                if isinstance(st.get(k), (int, float)):
                    st[k] *= 1.2
            done = done or {"op": c.get("op"), "dtype": c.get("dtype"), "label": c.get("label"),
                            "backend": r["backend"], "timing": r["timing"]}
    return d, done
d, which = scaled(True)
json.dump(d, open(out + "/cur-one-x1.2.json", "w"))
print(json.dumps(which))
d, _ = scaled(False)
json.dump(d, open(out + "/cur-all-x1.2.json", "w"))
PY
    say "slowed x1.2: $(cat "$OUTDIR/slowed.txt")"
    check one-x1.2 "$OUTDIR/cur-one-x1.2.json"
    check all-x1.2 "$OUTDIR/cur-all-x1.2.json"
    python3 - "$OUTDIR" <<'PY' | tee -a "$S"
import json, sys, collections
o = sys.argv[1]
target = json.loads(open(o + "/slowed.txt").read())
for name in ("aa", "one-x1.2", "all-x1.2"):
    try:
        d = json.load(open(f"{o}/{name}.check.json"))
    except Exception as e:
        print(name, "no JSON:", e); continue
    v = collections.Counter(c["verdict"] for c in d["comparisons"])
    hit = [c for c in d["comparisons"] if all(c.get(k) == target[k] for k in target)]
    print(f"{name}: outcome {d.get('outcome')}, exit {d.get('exit_code')}, verdicts {dict(v)},",
          "shifts", [(s["backend"], round(s["ratio"], 3), s["status"]) for s in d.get("shifts", [])],
          "| slowed case:", hit[0]["verdict"] if hit else "-", f"{hit[0]['change']:+.3f}" if hit and hit[0].get("change") is not None else "")
PY
else
    say "python3 not found: the x1.2 parts skipped (they scale samples in the JSON)"
fi
echo "done: $S"
