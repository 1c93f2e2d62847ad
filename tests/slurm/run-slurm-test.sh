#!/bin/bash
# run-slurm-test.sh — `gpubench slurm` against a real SLURM, started here.
#
#   tests/slurm/run-slurm-test.sh [GPUBENCH]      (tests/system/test_slurm.c runs it in `make test`)
#
# Starts a private one-node cluster from Debian's packages (munged, slurmctld,
# slurmd: proctrack/linuxproc, task/none, select/cons_tres, unprivileged
# ports on localhost, every state and spool file in its own temp dir) with
# two fake GPUs (gres.conf on character devices that are /dev/null's, typed
# h100), two partitions (gbtest, gbgpu), node features h100,ib and a submit
# filter (job_submit.lua) that refuses node "refused". Then, against it:
#   - a 3-task array, merged, with the fleet report; the task log's limits;
#     the merge job's own limit, one CPU and no GPU;
#   - an array whose task 1 fails on its first attempt (--no-exclusive):
#     merged without it, task 1 named with its reason; then
#     `gpubench slurm --retry-failed`: only task 1 runs again (attempt 2),
#     its result replaces the failure, a stale file does not win;
#   - a node asked for GPUs that can use none: a FAILED task with the reason;
#   - --per-gpu: each GPU measured once by its own srun task (a --dir with a
#     space); and with one GPU's run failing, that GPU named;
#   - a --nodelist submission whose second sbatch is refused: the first job
#     cancelled, its id printed, no merge job;
#   - --reservation (a reservation of one core), --constraint,
#     --sbatch-option --mem (it wins over ours), --setup, --container (an
#     apptainer stand-in that records how it was called).
# The gpubench the tasks run is a stand-in script per situation (recording
# its arguments and SLURM's environment, then running the real gpubench),
# or the real one where it is what is tested. Every wait is bounded, polls
# SLURM's state and says what it waited for when it gives up; daemons are
# stopped by their pids on any exit (trap).
#
# GB_SLURM_TEST_HOLD=1 keeps the cluster up (for a person trying things) until
# the file the script names exists.
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
JobSubmitPlugins=lua
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM Gres=gpu:h100:$NGPU Features=h100,ib State=UNKNOWN
PartitionName=gbtest Nodes=localhost Default=YES MaxTime=30 State=UP
PartitionName=gbgpu Nodes=localhost MaxTime=30 State=UP
EOF
# The site's submit filter refuses jobs for node "refused" (sbatch fails, as it does for a
# node a site's rules refuse): the test of a submission that fails half-way.
cat >"$T/job_submit.lua" <<'EOF'
function slurm_job_submit(job_desc, part_list, submit_uid)
    if job_desc.req_nodes == "refused" then
        slurm.log_user("node refused: this site refuses jobs there (the test's submit filter)")
        return slurm.ERROR
    end
    return slurm.SUCCESS
end
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end
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
# Stand-ins for gpubench, each doing what a node does in one situation, then
# (except where the node fails) the real gpubench. Each records its argument
# list and what SLURM gave it in logs/argv-<task>.<local task>-a<attempt>.
cat >"$T/gb-common.sh" <<EOF
out=""; prev=""
for a in "\$@"; do [ "\$prev" = --out ] && out=\$a; prev=\$a; done
d=\$(dirname "\$(dirname "\$out")")
{ echo "argv: \$*"; echo "attempt=\${GPUBENCH_SLURM_ATTEMPT:-unset} cvd=\${CUDA_VISIBLE_DEVICES:-unset} setup=\${GB_TEST_SETUP:-unset}"; } \
    >"\$d/logs/argv-\${SLURM_ARRAY_TASK_ID:-x}.\${SLURM_LOCALID:-x}-a\${GPUBENCH_SLURM_ATTEMPT:-x}"
# on a GPU node the run measures the GPUs; here (no GPU) it measures the CPU side only
args=(); for a in "\$@"; do [ "\$a" = --require-gpu ] || args+=("\$a"); done
EOF
cat >"$T/fail-task1.sh" <<EOF
#!/bin/bash
# gpubench, except that array task 1 fails the way a broken node does on the first attempt
. "$T/gb-common.sh"
if [ "\${SLURM_ARRAY_TASK_ID:-}" = 1 ] && [ "\${GPUBENCH_SLURM_ATTEMPT:-}" = 1 ]; then
    echo "deliberate failure of task 1 on \$(hostname -s) (the test's broken node)" >&2
    exit 3
fi
exec "$GB" "\${args[@]}"
EOF
cat >"$T/gpu-node.sh" <<EOF
#!/bin/bash
# a GPU node: the run works (on the CPU side here); --per-gpu local task \$GB_TEST_FAIL_LOCALID fails
. "$T/gb-common.sh"
if [ "\${SLURM_LOCALID:-}" = "\${GB_TEST_FAIL_LOCALID:-none}" ]; then echo "deliberate failure on GPU \$CUDA_VISIBLE_DEVICES" >&2; exit 5; fi
exec "$GB" "\${args[@]}"
EOF
# A node asked for GPUs that has none usable: the real gpubench where its run has
# --require-gpu (this machine has no NVIDIA driver), else what that run does.
if "$GB" run --help 2>&1 | grep -q -- '--require-gpu'; then
    printf '#!/bin/bash\nexec "%s" "$@"\n' "$GB" >"$T/no-driver.sh"
else
    cat >"$T/no-driver.sh" <<EOF
#!/bin/bash
. "$T/gb-common.sh"
case " \$* " in *" --require-gpu "*) echo "gpubench run: --require-gpu: no GPU measured: no NVIDIA driver (libcuda.so.1: cannot open shared object file)" >&2; exit 1 ;; esac
exec "$GB" "\$@"
EOF
fi
# Apptainer stand-in: records how it was called, then runs the command after the image.
mkdir -p "$T/bin"
cat >"$T/bin/apptainer" <<EOF
#!/bin/bash
echo "apptainer \$*" >>"$T/apptainer-calls"
while [ "\$#" -gt 0 ] && [ "\$1" != "$T/image.sif" ]; do shift; done
shift
exec "\$@"
EOF
chmod 755 "$T"/*.sh "$T/bin/apptainer"
: >"$T/image.sif"

OPTS=(--backend cpu --no-peak --quiet --threads 1)
submit() { # DIR [gpubench slurm options...]; sets MERGE to the merge job's id
    local dir=$1
    shift
    "$GB" slurm "$T/tiny.json" --time 10 --dir "$dir" --submit "$@" -- "${OPTS[@]}" >"$dir.submit" 2>&1 ||
        fail "gpubench slurm --submit: $(cat "$dir.submit")"
    MERGE=$(sed -n 's/^merge job: \([0-9][0-9]*\)$/\1/p' "$dir.submit")
    [ -n "$MERGE" ] || fail "no merge job id in: $(cat "$dir.submit")"
    echo "submitted: $(tr '\n' ' ' <"$dir.submit" | cut -c1-200)"
}
# Wait (bounded, polling SLURM's state, never a fixed sleep) until no job is queued or running.
wait_jobs() {
    local waited=0
    while [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
        [ "$waited" -lt $((STEP_TIMEOUT * 2)) ] || fail "jobs still queued or running after ${STEP_TIMEOUT} s: $(squeue -h -o '%i %T %R' | tr '\n' ';')"
        kill -0 "$(pid_of slurmctld)" 2>/dev/null || fail "slurmctld exited while jobs ran"
        sleep 0.5
        waited=$((waited + 1))
    done
    echo "all jobs ended after about $((waited / 2)) s"
}
job_field() { scontrol -o show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# ---- phase 1: everything that does not need the reservation
submit "$T/job1" --nodes 3 --partition gbtest
# task 1 fails on its first attempt; not exclusive (item 4: --exclusive off)
submit "$T/job2" --nodes 3 --partition gbtest --no-exclusive --gpubench "$T/fail-task1.sh"
# a node asked for GPUs that cannot use them (item 1)
submit "$T/nodrv" --nodes 1 --partition gbgpu --gpus-per-node 2 --gpubench "$T/no-driver.sh"
# one task per GPU, every GPU measured exactly once; the directory has a space (items 10, 12)
submit "$T/per gpu" --nodes 1 --partition gbgpu --gpus-per-node 2 --gpu-type h100 --per-gpu --gpubench "$T/gpu-node.sh"
# one task per GPU where the run on the second GPU fails: the check names that GPU
GB_TEST_FAIL_LOCALID=1 submit "$T/pergpu-fail" --nodes 1 --partition gbgpu --gpus-per-node 2 --per-gpu --gpubench "$T/gpu-node.sh"
# a submission that fails half-way (item 6): sbatch refuses the node list's second node
"$GB" slurm "$T/tiny.json" --nodelist localhost,refused --partition gbtest --time 10 --dir "$T/badsub" --submit -- "${OPTS[@]}" \
    >"$T/badsub.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "badsub: exit $rc, expected 1: $(cat "$T/badsub.out")"
id=$(sed -n 's/.*cancelled the jobs already submitted: \([0-9][0-9]*\);.*/\1/p' "$T/badsub.out")
[ -n "$id" ] || fail "badsub: no cancelled job id printed: $(cat "$T/badsub.out")"
grep -q "nothing of this submission is queued; fix the cause and run" "$T/badsub.out" || fail "badsub: advice: $(cat "$T/badsub.out")"
grep -q "^merge job" "$T/badsub.out" && fail "badsub: a merge job was submitted: $(cat "$T/badsub.out")"
[ ! -s "$T/badsub/jobs.txt" ] || fail "badsub: jobs.txt names the cancelled job: $(cat "$T/badsub/jobs.txt")"
wait_jobs
st=$(job_field "$id" JobState)
[ "$st" = CANCELLED ] || fail "badsub: job $id (task 0 on localhost) is $st, not CANCELLED: an orphan"
echo "ok: a failed submission cancelled job $id and said so"

# 1. three tasks, all merged, the fleet report over the three
J=$T/job1
[ -s "$J/merged.json" ] || fail "job1: the merge job wrote no merged.json ($(cat "$J"/logs/merge_*.out 2>/dev/null))"
n=$(ls "$J"/results/tiny-task*-a1-*.json 2>/dev/null | wc -l)
[ "$n" = 3 ] || fail "job1: $n results files, expected 3"
"$GB" report --fleet "$J/merged.json" >"$J/fleet-check.txt" 2>&1 || fail "job1: report --fleet failed: $(cat "$J/fleet-check.txt")"
grep -q '^Fleet: 3 columns, 3 cases, timing "host"' "$J/fleet-check.txt" || fail "job1: fleet report: $(head -n 3 "$J/fleet-check.txt")"
cmp -s "$J/fleet.txt" "$J/fleet-check.txt" || fail "job1: the merge job's fleet.txt differs from report --fleet on its merged.json"
for t in 0 1 2; do grep -q "task$t-" "$J/fleet.txt" || fail "job1: no column for task $t in the fleet report"; done
[ ! -s "$J/failed-tasks.txt" ] || fail "job1: failed tasks listed: $(cat "$J/failed-tasks.txt")"
grep -Eq '"schema":[[:space:]]*"gpubench-results"' "$J/merged.json" || fail "job1: merged.json is not a results file"
n=$(grep -Ec '^[[:space:]]*"source":[[:space:]]*"results/tiny-task[0-2]-a1-' "$J/merged.json")
[ "$n" = 3 ] || fail "job1: merged.json has $n runs from the tasks' results files, expected 3"
# item 11: the task's log states its limits, as SLURM set them
grep -q '^limits: time 10:00, memory 0 (all of the node.s).*, CPUs [0-9]' "$J"/logs/task_*_0.out ||
    fail "job1: task 0's log states no limits: $(cat "$J"/logs/task_*_0.out | head -n 5)"
# item 8: the merge job asks for no partition of the array's and no GPU, with its own short limit
m=$(sed -n 's/^merge job: //p' "$J.submit")
[ "$(job_field "$m" TimeLimit)" = 00:06:00 ] || fail "job1: merge job time limit $(job_field "$m" TimeLimit), expected 00:06:00 (5 min + 1 per 20 files)"
[ -z "$(job_field "$m" TresPerNode)" ] || fail "job1: the merge job asks for $(job_field "$m" TresPerNode)"
[ "$(job_field "$m" NumCPUs)" = 1 ] || fail "job1: the merge job asks for $(job_field "$m" NumCPUs) CPUs"

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
n=$(grep -Ec '^[[:space:]]*"source":[[:space:]]*"results/tiny-task[02]-a1-' "$J/merged.json")
[ "$n" = 2 ] || fail "job2: merged.json has $n runs from tasks 0 and 2, expected 2"
grep -q 'task 1: no results file; FAILED' "$J/merged.json" || fail "job2: merged.json's warnings do not name task 1"
grep -q 'task 1: no results file; FAILED' "$J/fleet-check.txt" || fail "job2: the fleet report does not list task 1"
grep -q 'FAILED task 1' "$J"/logs/merge_*.out || fail "job2: the merge job's log does not list task 1"
grep -q 'attempt=1 ' "$J/logs/argv-0.0-a1" || fail "job2: GPUBENCH_SLURM_ATTEMPT is not 1 in the first attempt: $(cat "$J/logs/argv-0.0-a1")"
[ "$(job_field "$(sed -n 's/^array job: //p' "$J.submit")_0" OverSubscribe)" != NO ] || fail "job2: --no-exclusive, yet the job is exclusive"
grep -q -- '--require-gpu' "$J/logs/argv-0.0-a1" && fail "job2: --require-gpu passed though no GPU was asked for"
echo "ok: 3-task array merged; a failed task listed with its reason ($(head -n 1 "$J/failed-tasks.txt" | cut -c1-120))"

# 3. item 1: asked for GPUs, none usable: a FAILED task with the reason
J=$T/nodrv
grep -Eq '^task 0: .*FAILED.*(no NVIDIA driver|cuda unavailable|no device visible)' "$J/failed-tasks.txt" ||
    fail "nodrv: failed-tasks.txt does not name task 0 as FAILED with the reason: $(cat "$J/failed-tasks.txt")"
grep -q -- '--devices all --require-gpu' "$J/task.sh" || fail "nodrv: task.sh does not pass --require-gpu"
grep -q 'limits: .*GPUs 0,1' "$J"/logs/task_*_0.out || fail "nodrv: the task log does not state its GPUs: $(cat "$J"/logs/task_*_0.out)"
echo "ok: a node asked for GPUs that could use none is FAILED ($(head -n 1 "$J/failed-tasks.txt" | cut -c1-160))"

# 4. item 10: each GPU measured exactly once, by its own task
J="$T/per gpu"
[ -s "$J/merged.json" ] || fail "per gpu: no merged.json ($(cat "$J"/logs/merge_*.out 2>/dev/null))"
[ ! -s "$J/failed-tasks.txt" ] || fail "per gpu: failed: $(cat "$J/failed-tasks.txt")"
ls "$J"/results/tiny-task0.0-a1-*-gpu0.json >/dev/null 2>&1 && ls "$J"/results/tiny-task0.1-a1-*-gpu1.json >/dev/null 2>&1 ||
    fail "per gpu: not one file per GPU: $(ls "$J/results")"
grep -q 'cvd=0 ' "$J/logs/argv-0.0-a1" && grep -q 'cvd=1 ' "$J/logs/argv-0.1-a1" ||
    fail "per gpu: the tasks did not get GPUs 0 and 1: $(cat "$J"/logs/argv-*)"
grep -q -- '--gpu-bind=single:1' "$J/array.sbatch" || fail "per gpu: srun binds no GPU per task"
[ "$(job_field "$(sed -n 's/^array job: //p' "$J.submit")_0" TresPerNode)" = "gres:gpu:h100:2" ] || fail "per gpu: typed GPUs not asked for"
echo "ok: --per-gpu measured GPUs 0 and 1 once each (a --dir with a space)"
J=$T/pergpu-fail
grep -q '^task 0.1: no results file; FAILED.*GPU gpu1 was not measured' "$J/failed-tasks.txt" ||
    fail "pergpu-fail: the GPU not measured is not named: $(cat "$J/failed-tasks.txt")"
echo "ok: a GPU not measured is named ($(grep '^task 0.1' "$J/failed-tasks.txt" | cut -c1-160))"

# ---- phase 2: a retry of job2's failed task, and the site options through a reservation
# a stale file that a look-up by name order would take for task 1 (item 5)
cp "$(ls "$T"/job2/results/tiny-task0-a1-*.json | head -n 1)" "$T/job2/results/tiny-task1-a1-aaa-stale.json"
touch -d '2020-01-01' "$T/job2/results/tiny-task1-a1-aaa-stale.json"
"$GB" slurm --retry-failed "$T/job2" >"$T/retry.out" 2>&1 || fail "retry: $(cat "$T/retry.out")"
grep -q '^retrying tasks 1 of ' "$T/retry.out" && grep -q '^attempt: 2 (tasks 1)' "$T/retry.out" || fail "retry: $(cat "$T/retry.out")"
scontrol create reservation ReservationName=gbres Users=root Nodes=localhost CoreCnt=1 StartTime=now Duration=60 \
    >"$T/res.out" 2>&1 || fail "cannot create the test reservation: $(cat "$T/res.out")"
printf 'export GB_TEST_SETUP=ran\necho "setup ran on $(hostname -s)"\n' >"$T/setup.sh"
PATH="$T/bin:$PATH" submit "$T/site" --nodes 1 --partition gbgpu --reservation gbres --constraint 'h100&ib' \
    --no-exclusive --sbatch-option --mem=100 --qos normal --setup "$T/setup.sh" --container "$T/image.sif" --gpubench "$T/gpu-node.sh"
wait_jobs

J=$T/job2
[ ! -s "$J/failed-tasks.txt" ] || fail "retry: failed-tasks.txt still names: $(cat "$J/failed-tasks.txt")"
grep -q '^task 1: attempt 2: results/tiny-task1-a2-' "$J/attempts.txt" || fail "retry: attempts.txt: $(cat "$J/attempts.txt")"
grep -q '^task 0: attempt 1: ' "$J/attempts.txt" || fail "retry: attempts.txt: $(cat "$J/attempts.txt")"
grep -q 'attempt=2 ' "$J/logs/argv-1.0-a2" || fail "retry: GPUBENCH_SLURM_ATTEMPT is not 2: $(cat "$J"/logs/argv-1.*)"
[ ! -e "$J/logs/argv-0.0-a2" ] || fail "retry: task 0, which did not fail, ran again"
grep -q 'stale' "$J/merged.json" && fail "retry: the stale file was merged"
n=$(grep -Ec '^[[:space:]]*"source":[[:space:]]*"results/tiny-task[0-2]-a[12]-' "$J/merged.json")
[ "$n" = 3 ] || fail "retry: merged.json has $n runs, expected 3"
[ "$(wc -l <"$J/jobs.txt")" = 2 ] || fail "retry: jobs.txt: $(cat "$J/jobs.txt")"
echo "ok: the retried task's result replaced its failed attempt ($(grep '^task 1' "$J/attempts.txt"))"

J=$T/site
a=$(sed -n 's/^array job: //p' "$J.submit")_0
[ -s "$J/merged.json" ] || fail "site: no merged.json: $(cat "$J"/logs/* 2>/dev/null | tail -n 20)"
[ "$(job_field "$a" Reservation)" = gbres ] || fail "site: reservation $(job_field "$a" Reservation)"
[ "$(job_field "$a" Features)" = 'h100&ib' ] || fail "site: features $(job_field "$a" Features)"
[ "$(job_field "$a" MinMemoryNode)" = 100M ] || fail "site: --sbatch-option --mem=100 did not win: $(job_field "$a" MinMemoryNode)"
grep -q '^limits: time 10:00, memory 100M' "$J"/logs/task_*_0.out || fail "site: the log's limits: $(grep limits "$J"/logs/task_*_0.out)"
grep -q '^#SBATCH --qos=normal$' "$J/array.sbatch" || fail "site: no --qos line"
grep -q 'setup ran on' "$J"/logs/task_*_0.out && grep -q 'setup=ran' "$J/logs/argv-0.0-a1" || fail "site: the --setup lines did not run before gpubench"
grep -q "^apptainer exec --nv --bind $J $T/image.sif $T/gpu-node.sh run $J/suite.json" "$T/apptainer-calls" ||
    fail "site: not run through apptainer exec --nv: $(cat "$T/apptainer-calls" 2>/dev/null)"
scontrol delete reservation gbres >/dev/null 2>&1
echo "ok: --reservation, --constraint, --sbatch-option, --setup, --container reached SLURM and the task"
echo "PASS: all scenarios"
exit 0
