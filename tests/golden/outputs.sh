#!/bin/sh
# tests/golden/outputs.sh — write what `report`, `compare`, `export` and the
# fleet report print for a set of results files into OUTDIR, one file per
# command (stdout, then "--- stderr", then "--- exit N"), so that two builds
# can be diffed byte for byte (a change to how output is produced, not to
# what it says, must leave every one of them identical).
#
#   tests/golden/outputs.sh GPUBENCH OUTDIR          the small fixtures only
#                                                    (what tests/golden/expected holds)
#   tests/golden/outputs.sh GPUBENCH OUTDIR --all    also every committed reference
#                                                    result (results/reference)
#
# `make golden-check` runs the first against tests/golden/expected.
# Colour: output is never a terminal here, so the colour-less table is what
# is recorded; NO_COLOR is set as well, as the tests set it.
set -u
GB=$1
OUT=$2
ALL=${3:-}
mkdir -p "$OUT"
export NO_COLOR=1
n=0
run() { # name, then the command's arguments
    name=$1
    shift
    {
        "$GB" "$@" 2>"$OUT/.err"
        rc=$?
        echo "--- stderr"
        cat "$OUT/.err"
        echo "--- exit $rc"
    } >"$OUT/$name" 
    n=$((n + 1))
}
tag() { echo "$1" | sed 's|/|_|g; s|\.json$||'; }

SINGLE="tests/data/results_small.json tests/data/results_cpu_only.json tests/data/results_multigpu.json
tests/data/results_merged.json tests/data/results_peer_small.json tests/data/results_small_cpu_only.json"
if [ "$ALL" = --all ]; then
    SINGLE="$SINGLE tests/data/results_h100.json $(ls results/reference/*.json) $(ls tests/data/fleet/*.json)"
fi
for f in $SINGLE; do
    t=$(tag "$f")
    run "report.table.$t" report "$f"
    run "report.wide.$t" report "$f" --wide
    run "report.md.$t" report "$f" --format md
    run "report.csv.$t" report "$f" --format csv
    run "report.html.$t" report "$f" --format html
    # (the Google Benchmark export is a line per sample: large, so the small
    # set keeps one file's)
    if [ "$ALL" = --all ] || [ "$f" = tests/data/results_small.json ]; then
        run "export.gbench.$t" export "$f" --format gbench
    fi
    run "export.action.$t" export "$f" --format benchmark-action
done
run report.pair.small report tests/data/results_small_cpu_only.json tests/data/results_small.json --pair
run report.pair.small.md report tests/data/results_small_cpu_only.json tests/data/results_small.json --pair --format md
run report.pair.small.html report tests/data/results_small_cpu_only.json tests/data/results_small.json --pair --format html
run report.op.small report tests/data/results_small.json --op matmul --format md

# compare: the fixture baseline against each of the others, every format
C=tests/data/compare
for f in $C/*.json; do
    t=$(tag "$(basename "$f")")
    for fmt in table md json; do
        run "compare.$fmt.base-$t" compare $C/base.json "$f" --format "$fmt"
    done
done
for fmt in table md json; do
    run "compare.$fmt.drift" compare $C/drift_base.json $C/drift_cur.json --format "$fmt"
    run "compare.$fmt.drift30" compare $C/drift_base.json $C/drift_slower30.json --format "$fmt"
    run "compare.$fmt.few" compare $C/few_base.json $C/few_cur.json --format "$fmt"
    run "compare.$fmt.multi" compare --format "$fmt" $C/base.json $C/same.json -- $C/slower10.json $C/slower2.json
    run "compare.$fmt.policy" compare $C/base.json $C/slower10.json --policy $C/policy.json --format "$fmt"
    run "compare.$fmt.thr" compare $C/base.json $C/slower2.json --threshold 1% --min-change 1us --format "$fmt"
done

# the fleet report
F=tests/data/fleet
for fmt in table md csv json; do
    run "fleet.$fmt.cpus" report --fleet $F/cpu_a.json $F/cpu_b.json --format "$fmt"
    run "fleet.$fmt.devices" report --fleet $F/devices.json --format "$fmt"
    run "fleet.$fmt.merged" report --fleet $F/merged.json --format "$fmt"
    run "fleet.$fmt.merged-host" report --fleet $F/merged.json --timing host --threshold 10% --format "$fmt"
done

if [ "$ALL" = --all ]; then
    R=results/reference
    for fmt in table md json; do
        run "compare.$fmt.ref-run1-run2" compare $R/quick-h100-run1.json $R/quick-h100-run2.json --format "$fmt"
        run "compare.$fmt.ref-runs" compare --format "$fmt" $R/quick-h100-run1.json $R/quick-h100-run2.json -- \
            $R/quick-h100-run4.json $R/quick-h100-run5.json
        run "compare.$fmt.ref-fresh" compare $R/default-h100.json $R/default-h100-fresh-vm.json --format "$fmt"
        run "compare.$fmt.ref-second" compare $R/default-h100.json $R/default-h100-second-run.json --format "$fmt"
    done
    for fmt in table md csv json; do
        run "fleet.$fmt.ref-quick" report --fleet $R/quick-h100-run1.json $R/quick-h100-run2.json \
            $R/quick-h100-run3-fresh-vm.json $R/quick-h100-run4.json $R/quick-h100-run5.json --format "$fmt"
        run "fleet.$fmt.ref-devices" report --fleet $R/quick-devices-h200x2.json --format "$fmt"
        run "fleet.$fmt.ref-multigpu" report --fleet $R/multigpu-h200x2.json --format "$fmt"
    done
    run report.pair.ref report $R/quick-h100-threads4.json $R/quick-h100-run1.json --pair
fi
rm -f "$OUT/.err"
echo "$n outputs in $OUT"
