#!/bin/sh
# scripts/dev/history-synthetic.sh — a synthetic history to look at: N runs made
# from one results file by scaling its samples, with a step in one case and a
# slow drift in another, added with commits s00, s01, ... (docs/history.md).
#
#   scripts/dev/history-synthetic.sh RESULTS.json DB [N=20] [STEP_AT=12] [DRIFT_FROM=8]
#
# Case 1 (the file's second case) gets x1.2 from run STEP_AT on; case 2 gets
# +2% a run from run DRIFT_FROM on; every run gets a deterministic +-1%
# wobble. Then try:  gpubench history bisect '*' --db DB;  history publish
# site --db DB. Needs python3 (the scaling) and ./gpubench (or $GB).
set -eu
[ $# -ge 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
SRC=$1 DB=$2 N=${3:-20} STEP_AT=${4:-12} DRIFT_FROM=${5:-8}
GB=${GB:-./gpubench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$SRC" "$work" "$N" "$STEP_AT" "$DRIFT_FROM" <<'PY'
import json, sys
src, work, n, step_at, drift_from = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
doc = json.load(open(src))
for i in range(n):
    d = json.loads(json.dumps(doc))
    wobble = 1 + 0.01 * (((i * 2654435761) % 2**32 % 2001) / 1000 - 1)
    for ci, c in enumerate(d["cases"]):
        f = wobble
        if ci == 1 and i >= step_at: f *= 1.2
        if ci == 2 and i >= drift_from: f *= 1.02 ** (i - drift_from + 1)
        for r in c["results"]:
            if r.get("samples_s"): r["samples_s"] = [s * f for s in r["samples_s"]]
            st = r.get("stats") or {}
            for k in ("min", "max", "median", "mean", "stddev", "ci95_low", "ci95_high"):
                if isinstance(st.get(k), (int, float)): st[k] *= f
    json.dump(d, open(f"{work}/s{i:02d}.json", "w"))
PY
i=0
while [ "$i" -lt "$N" ]; do
    c=$(printf 's%02d' "$i")
    "$GB" history add "$work/$c.json" --db "$DB" --commit "$c" --branch synthetic \
        --commit-time "$(printf '2026-01-01T%02d:00:00Z' "$i")" >/dev/null
    i=$((i + 1))
done
echo "$DB: $N synthetic runs (step x1.2 in case 1 from s$(printf %02d "$STEP_AT"), drift +2%/run in case 2 from s$(printf %02d "$DRIFT_FROM"))"
