#!/bin/sh
# scripts/dev/history-example.sh — rebuild docs/history-example/, the example
# dashboard of docs/history.md, from the committed H100 quick runs in
# results/reference/ (five same-machine runs of suites/quick.json at two
# commits). Only the matmul cases are published, to keep the example small.
#
#   scripts/dev/history-example.sh [./gpubench]
set -eu
GB=${1:-./gpubench}
OUT=docs/history-example
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in quick-h100-run1 quick-h100-run2 quick-h100-run3-fresh-vm quick-h100-run4 quick-h100-run5; do
    "$GB" history add "results/reference/$f.json" --db "$work/history.sqlite" --branch main >/dev/null
done
rm -rf "$OUT"
# run from the work directory so the page names the database, not a temp path
(cd "$work" && "$OLDPWD/$GB" history publish site 'matmul/*' --db history.sqlite)
mv "$work/site" "$OUT"
echo "$OUT: $(ls "$OUT" | wc -l) files, $(du -sh "$OUT" | cut -f1)"
