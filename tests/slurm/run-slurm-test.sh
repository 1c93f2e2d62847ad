#!/bin/bash
# run-slurm-test.sh — `gpubench slurm` against a real SLURM, started here.
#
#   tests/slurm/run-slurm-test.sh [GPUBENCH]      (tests/system/test_slurm.c runs it in `make test`)
#
# Starts a private one-node cluster from Debian's packages (munged, slurmctld,
# slurmd: proctrack/linuxproc, task/none, select/cons_tres, unprivileged
# ports on localhost, every state and spool file in its own temp dir), then
#   1. submits `gpubench slurm SUITE --nodes 3 --submit -- --backend cpu ...`
#      and checks the merge job's merged.json (3 runs) and fleet report;
#   2. submits again with a gpubench wrapper that makes task 1 fail, and
#      checks that the other two are merged and task 1 is listed with its
#      reason (exit code, stderr);
# and stops its daemons by their pids on any exit (trap). Every wait is
# bounded and says what it waited for when it gives up.
#
# GB_SLURM_TEST_KEEP=1 keeps the test directory (scripts, results, logs) after a pass.
# Exit: 0 passed, 1 failed (with the logs), 77 skipped (not root, or the
# packages are missing: `apt-get install slurm-wlm munge`).
set -u
export PATH="$PATH:/usr/sbin:/sbin"
GB=$(realpath "${1:-./gpubench}")
STEP_TIMEOUT=${GB_SLURM_TEST_TIMEOUT:-600}   # seconds for each submission's jobs to end (their --time 10)
PREFIX=/tmp/gpubench-slurm-test

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root: the test cluster's munged and slurmd run as root"
for b in munged slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
    command -v "$b" >/dev/null 2>&1 || skip "$b not found (apt-get install slurm-wlm munge, or scripts/dev/install-deps.sh)"
done
[ -x "$GB" ] || { echo "FAIL: $GB is not an executable gpubench"; exit 1; }

# Processes of test dir $1 other than this script: their command line or an
# open file names the dir (job scripts, srun, gpubench, slurmstepd's spool
# files). Only this test's own processes can name its private temp dir.
ours() {
    local p
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [ "$p" = $$ ] && continue
        if tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -qF "$1/" ||
            ls -l "/proc/$p/fd" 2>/dev/null | grep -qF "$1/"; then
            echo "$p"
        fi
    done
}
# pid and start time of this shell: a pid alone may be reused.
me() { echo "$1 $(cut -d' ' -f22 "/proc/$1/stat" 2>/dev/null)"; }
alive() { # "pid starttime" still running (not a zombie)
    local pid=${1%% *} start=${1#* }
    [ -r "/proc/$pid/stat" ] || return 1
    [ "$(cut -d' ' -f3 "/proc/$pid/stat")" != Z ] && [ "$(me "$pid")" = "$1" ]
}

# A run killed with SIGKILL leaves its cluster running: stop those of test
# dirs whose owner is gone — their jobs first (scancel through their own
# slurm.conf), then the processes that name the dir.
for d in "$PREFIX".*; do
    [ -d "$d" ] && [ -f "$d/owner" ] || continue
    alive "$(cat "$d/owner")" && continue
    echo "cleaning up after an earlier run that was killed: $d"
    SLURM_CONF=$d/slurm.conf timeout 10 scancel --quiet --user=root 2>/dev/null && sleep 2
    for p in $(ours "$d"); do kill -9 "$p" 2>/dev/null; done
    rm -rf "$d"
done

T=$(mktemp -d "$PREFIX.XXXXXX")
me $$ >"$T/owner"
mkdir -p "$T/pids" "$T/state" "$T/spool" "$T/log" "$T/munge"
export SLURM_CONF="$T/slurm.conf"

pid_of() { cat "$T/pids/$1" 2>/dev/null; }
stop() {
    local rc=$?
    trap - EXIT INT TERM
    # jobs first (slurmctld signals their steps), then the daemons by pid
    if [ -n "$(pid_of slurmctld)" ] && kill -0 "$(pid_of slurmctld)" 2>/dev/null; then
        ids=$(squeue -h -o %i 2>/dev/null | tr '\n' ' ')
        [ -n "$ids" ] && scancel $ids 2>/dev/null && sleep 1
    fi
    for name in slurmd slurmctld munged; do
        p=$(pid_of "$name")
        [ -n "$p" ] && kill "$p" 2>/dev/null
    done
    for name in slurmd slurmctld munged; do
        p=$(pid_of "$name")
        [ -n "$p" ] || continue
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    # anything still running from this test's directory (a job step left behind)
    for p in $(ours "$T"); do kill -9 "$p" 2>/dev/null; done
    if [ "$rc" = 0 ] && [ -z "${GB_SLURM_TEST_KEEP:-}" ]; then rm -rf "$T"; else echo "(test files kept in $T)"; fi
    exit "$rc"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
    echo "FAIL: $*"
    for f in "$T"/log/slurmctld.log "$T"/log/slurmd.log "$T"/job*/logs/*; do
        [ -f "$f" ] || continue
        echo "---- $f (last 15 lines)"
        tail -n 15 "$f"
    done
    exit 1
}

# Two free ports on localhost, both picked at random (another test may run beside this one).
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 50); do
    P1=$((20000 + RANDOM % 30000))
    P2=$((P1 + 1))
    port_free "$P1" && port_free "$P2" && break
done

dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge/key"
munged --force --key-file="$T/munge/key" --socket="$T/munge/sock" --pid-file="$T/munge/munged.pid" \
    --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" || fail "munged did not start (see $T/log/munged.log)"
for _ in $(seq 600); do [ -s "$T/munge/munged.pid" ] && [ -S "$T/munge/sock" ] && break; sleep 0.1; done
cp "$T/munge/munged.pid" "$T/pids/munged" 2>/dev/null || fail "munged wrote no pid file"

CPUS=$(nproc)
NGPU=2   # one per CPU here: --per-gpu runs a task per GPU, each needing a CPU
MEM=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
cat >"$T/slurm.conf" <<EOF
ClusterName=gbtest
SlurmctldHost=localhost
SlurmctldPort=$P1
SlurmdPort=$P2
AuthType=auth/munge
AuthInfo=socket=$T/munge/sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM Gres=gpu:h100:$NGPU State=UNKNOWN
PartitionName=gbtest Nodes=localhost Default=YES MaxTime=30 State=UP
PartitionName=gbgpu Nodes=localhost MaxTime=30 State=UP
EOF
# Fake GPUs: SLURM needs a character device per GPU (these are /dev/null's, 1:3; task/none: no
# device cgroup), and sets CUDA_VISIBLE_DEVICES from their indices.
mkdir -p "$T/dev"
for ((g = 0; g < NGPU; g++)); do mknod "$T/dev/nvidia$g" c 1 3 || fail "mknod $T/dev/nvidia$g"; done
echo "NodeName=localhost Name=gpu Type=h100 File=$T/dev/nvidia[0-$((NGPU - 1))]" >"$T/gres.conf"

slurmctld -D -f "$T/slurm.conf" >"$T/log/slurmctld.stdout" 2>&1 &
echo $! >"$T/pids/slurmctld"
slurmd -D -f "$T/slurm.conf" -N localhost >"$T/log/slurmd.stdout" 2>&1 &
echo $! >"$T/pids/slurmd"

up=""
for _ in $(seq 1200); do
    state=$(sinfo -h -n localhost -o %T 2>/dev/null)
    case "$state" in idle*) up=1; break ;; esac
    kill -0 "$(pid_of slurmctld)" 2>/dev/null || fail "slurmctld exited"
    kill -0 "$(pid_of slurmd)" 2>/dev/null || fail "slurmd exited"
    sleep 0.1
done
[ -n "$up" ] || fail "the node did not become idle within 120 s (sinfo says: ${state:-nothing})"
echo "cluster up in $T (ports $P1, $P2): $(sinfo -h -o '%P %D %T %C %G')"
if [ -n "${GB_SLURM_TEST_HOLD:-}" ]; then # for a person trying things: keep the cluster up
    echo "SLURM_CONF=$T/slurm.conf; holding until $T/release exists"
    while [ ! -e "$T/release" ]; do sleep 1; done
    exit 0
fi

# A tiny suite: a few small CPU cases, enough samples for the statistics.
cat >"$T/tiny.json" <<'EOF'
{ "name": "tiny",
  "defaults": { "dtypes": ["float64"], "warmup": 1, "min_reps": 6, "min_time_s": 0.01, "max_time_s": 0.5,
                "rounds": 2, "seed": 7 },
  "benchmarks": [ { "op": "matmul", "sizes": [64] },
                  { "op": "elementwise", "sizes": [256] },
                  { "op": "fft", "sizes": [64], "params": { "kind": "r2c" } } ] }
EOF
cat >"$T/fail-task1.sh" <<EOF
#!/bin/sh
# gpubench, except that array task 1 fails the way a broken node does
if [ "\${SLURM_ARRAY_TASK_ID:-}" = 1 ]; then
    echo "deliberate failure of task 1 on \$(hostname -s) (the test's broken node)" >&2
    exit 3
fi
exec "$GB" "\$@"
EOF
chmod 755 "$T/fail-task1.sh"

submit() { # DIR [gpubench slurm options...]; sets MERGE to the merge job's id
    local dir=$1
    shift
    "$GB" slurm "$T/tiny.json" --nodes 3 --partition gbtest --time 10 --dir "$dir" --submit "$@" \
        -- --backend cpu --no-peak --quiet --threads 1 >"$dir.submit" 2>&1 || fail "gpubench slurm --submit: $(cat "$dir.submit")"
    MERGE=$(sed -n 's/^merge job: \([0-9][0-9]*\)$/\1/p' "$dir.submit")
}
submit "$T/job1"
M1=$MERGE
submit "$T/job2" --gpubench "$T/fail-task1.sh"
M2=$MERGE
[ -n "$M1" ] && [ -n "$M2" ] || fail "no merge job id in: $(cat "$T/job1.submit" "$T/job2.submit")"
echo "submitted: $(tr '\n' ' ' <"$T/job1.submit")"
echo "submitted: $(tr '\n' ' ' <"$T/job2.submit")"

waited=0
while [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
    [ "$waited" -lt $((STEP_TIMEOUT * 2)) ] || fail "jobs still queued or running after ${STEP_TIMEOUT} s: $(squeue -h -o '%i %T %R' | tr '\n' ';')"
    kill -0 "$(pid_of slurmctld)" 2>/dev/null || fail "slurmctld exited while jobs ran"
    sleep 0.5
    waited=$((waited + 1))
done
echo "all jobs ended after about $((waited / 2)) s"

# 1. three tasks, all merged, the fleet report over the three
J=$T/job1
[ -s "$J/merged.json" ] || fail "job1: the merge job wrote no merged.json ($(cat "$J"/logs/merge_*.out 2>/dev/null))"
n=$(ls "$J"/results/tiny-task*.json 2>/dev/null | wc -l)
[ "$n" = 3 ] || fail "job1: $n results files, expected 3"
"$GB" report --fleet "$J/merged.json" >"$J/fleet-check.txt" 2>&1 || fail "job1: report --fleet failed: $(cat "$J/fleet-check.txt")"
grep -q '^Fleet: 3 columns, 3 cases, timing "host"' "$J/fleet-check.txt" || fail "job1: fleet report: $(head -n 3 "$J/fleet-check.txt")"
cmp -s "$J/fleet.txt" "$J/fleet-check.txt" || fail "job1: the merge job's fleet.txt differs from report --fleet on its merged.json"
for t in 0 1 2; do grep -q "task$t-" "$J/fleet.txt" || fail "job1: no column for task $t in the fleet report"; done
[ ! -s "$J/failed-tasks.txt" ] || fail "job1: failed tasks listed: $(cat "$J/failed-tasks.txt")"
grep -Eq '"schema":[[:space:]]*"gpubench-results"' "$J/merged.json" || fail "job1: merged.json is not a results file"
n=$(grep -Ec '^[[:space:]]*"source":[[:space:]]*"results/tiny-task[0-2]-' "$J/merged.json")
[ "$n" = 3 ] || fail "job1: merged.json has $n runs from the tasks' results files, expected 3"

# 2. task 1 failed on purpose: two merged, task 1 listed with its reason
J=$T/job2
[ -s "$J/merged.json" ] || fail "job2: no merged.json ($(cat "$J"/logs/merge_*.out 2>/dev/null))"
n=$(ls "$J"/results/tiny-task*.json 2>/dev/null | wc -l)
[ "$n" = 2 ] || fail "job2: $n results files, expected 2 (task 1 fails)"
grep -q '^task 1: no results file; FAILED, exit code 3:0' "$J/failed-tasks.txt" ||
    fail "job2: failed-tasks.txt does not name task 1 with SLURM's state: $(cat "$J/failed-tasks.txt")"
grep -q 'deliberate failure of task 1' "$J/failed-tasks.txt" || fail "job2: task 1's stderr is not quoted: $(cat "$J/failed-tasks.txt")"
"$GB" report --fleet "$J/merged.json" >"$J/fleet-check.txt" 2>&1 || fail "job2: report --fleet failed"
grep -q '^Fleet: 2 columns' "$J/fleet-check.txt" || fail "job2: $(head -n 1 "$J/fleet-check.txt")"
n=$(grep -Ec '^[[:space:]]*"source":[[:space:]]*"results/tiny-task[02]-' "$J/merged.json")
[ "$n" = 2 ] || fail "job2: merged.json has $n runs from tasks 0 and 2, expected 2"
grep -q 'task 1: no results file; FAILED' "$J/merged.json" || fail "job2: merged.json's warnings do not name task 1"
grep -q 'task 1: no results file; FAILED' "$J/fleet-check.txt" || fail "job2: the fleet report does not list task 1"
grep -q 'FAILED task 1' "$J"/logs/merge_*.out || fail "job2: the merge job's log does not list task 1"
echo "PASS: 3-task array merged; a failed task listed with its reason ($(head -n 1 "$J/failed-tasks.txt" | cut -c1-160))"
exit 0
