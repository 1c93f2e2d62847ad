/* slurm_merge.c — the merge job of `gpubench slurm` (merge.sbatch).
 *
 * It runs once every task of every attempt has ended (afterany). For each
 * unit (an array task, or with --per-gpu one GPU of it) it takes the file of
 * the unit's newest attempt — the attempt is in the file name, -a<K>-, so a
 * stale file of an earlier attempt can never win over a retry's — and asks
 * SLURM about the task's latest attempt only (jobs.txt lists every array
 * job with its attempt, in the order submitted), so that a task a retry
 * fixed is no longer named as failed. */
#include "slurm_merge.h"

#include <stdio.h>

/* ${a[@]+"${a[@]}"}: an empty array under set -u in bash before 4.4
 * (RHEL 7's 4.2) is an unbound variable. */
static const char merge_body[] =
    "set -u\n"
    "NTASKS=$1\n"
    "cd \"$DIR\" || exit 2\n"
    "[ -s jobs.txt ] || { echo \"gpubench merge job: ${DIR}/jobs.txt is missing: which jobs to read is unknown\" >&2; exit 2; }\n"
    "ALLIDS=$(awk '{print $2}' jobs.txt | paste -sd, -)\n"
    "# What SLURM says about array task $1 in its latest attempt: ATTEMPT|JOB_ID|STATE. From\n"
    "# sacct where accounting is on, else from slurmctld's memory of the job (scontrol: kept\n"
    "# MinJobAge seconds, 300 by default); the last job of jobs.txt that ran the task wins.\n"
    "slurm_state() {\n"
    "    local t=$1 line id st ec nl rs info a found=\"\"\n"
    "    if command -v sacct >/dev/null 2>&1; then\n"
    "        line=$(sacct -n -P -X -j \"$ALLIDS\" -o JobID,State,ExitCode,NodeList,Reason 2>/dev/null |\n"
    "               grep \"_${t}|\" | sort -t_ -k1,1n | tail -n 1)\n"
    "        if [ -n \"$line\" ]; then\n"
    "            IFS='|' read -r id st ec nl rs <<<\"$line\"\n"
    "            id=${id%%_*}\n"
    "            a=$(awk -v i=\"$id\" '$2 == i {print $1}' jobs.txt)\n"
    "            echo \"${a}|${id}|${st}, exit code ${ec}, node ${nl}${rs:+, reason ${rs}} (sacct)\"\n"
    "            return\n"
    "        fi\n"
    "    fi\n"
    "    while read -r a id; do\n"
    "        info=$(scontrol -o show job \"${id}_${t}\" 2>/dev/null) || continue\n"
    "        [ -n \"$info\" ] || continue\n"
    "        st=$(sed -n 's/.*[[:space:]]JobState=\\([^[:space:]]*\\).*/\\1/p' <<<\"$info\")\n"
    "        ec=$(sed -n 's/.*[[:space:]]ExitCode=\\([^[:space:]]*\\).*/\\1/p' <<<\"$info\")\n"
    "        rs=$(sed -n 's/.*[[:space:]]Reason=\\([^[:space:]]*\\).*/\\1/p' <<<\"$info\")\n"
    "        nl=$(sed -n 's/.*[[:space:]]NodeList=\\([^[:space:]]*\\).*/\\1/p' <<<\"$info\")\n"
    "        found=\"${a}|${id}|${st:-?}, exit code ${ec:-?}, node ${nl:-?}, reason ${rs:-?} (scontrol)\"\n"
    "    done <jobs.txt\n"
    "    echo \"$found\"\n"
    "}\n"
    "# The results file of unit $1's newest attempt: the highest -a<K>-, the newest on a tie.\n"
    "pick() {\n"
    "    local best=\"\" bk=0 f k\n"
    "    for f in results/\"${SUITE_NAME}-$1-a\"*.json; do\n"
    "        [ -f \"$f\" ] || continue\n"
    "        k=${f#results/\"${SUITE_NAME}-$1-a\"}\n"
    "        k=${k%%-*}\n"
    "        case $k in '' | *[!0-9]*) continue ;; esac\n"
    "        if [ \"$k\" -gt \"$bk\" ] || { [ \"$k\" -eq \"$bk\" ] && [ \"$f\" -nt \"$best\" ]; }; then best=$f; bk=$k; fi\n"
    "    done\n"
    "    echo \"$best\"\n"
    "}\n"
    "# The attempt a results file came from: its context.job.attempt (a number, or a string\n"
    "# of digits), else its name's -a<K>-.\n"
    "file_attempt() {\n"
    "    local k\n"
    "    k=$(grep -o '\"attempt\":[[:space:]]*\"\\{0,1\\}[0-9][0-9]*' \"$1\" 2>/dev/null | head -n 1 | grep -o '[0-9]*$')\n"
    "    if [ -z \"$k\" ]; then k=${1#results/\"${SUITE_NAME}-$2-a\"}; k=${k%%-*}; fi\n"
    "    echo \"$k\"\n"
    "}\n"
    "inputs=(); bases=(); notes=(); failed=(); report=()\n"
    "for ((t = 0; t < NTASKS; t++)); do\n"
    "    sa=$(slurm_state \"$t\")\n"
    "    att=\"\" jid=\"\" state=\"\"\n"
    "    [ -n \"$sa\" ] && IFS='|' read -r att jid state <<<\"$sa\"\n"
    "    err=\"\"\n"
    "    if [ -n \"$jid\" ] && [ -f \"logs/task_${jid}_${t}.err\" ]; then err=logs/task_${jid}_${t}.err\n"
    "    else err=$(ls -1t logs/task_*_\"${t}\".err 2>/dev/null | head -n 1); fi\n"
    "    # the last 3 lines, each cut to 200 characters: the last (the task's own verdict) whole\n"
    "    why=\"\"\n"
    "    [ -n \"$err\" ] && why=$(grep -v '^[[:space:]]*$' \"$err\" | tail -n 3 | cut -c1-200 | tr '\\n' ' ' | sed 's/ *$//')\n"
    "    for ((l = 0; l < UNITS_PER_TASK; l++)); do\n"
    "        u=task${t} label=\"task ${t}\"\n"
    "        [ \"$PER_GPU\" = 1 ] && u=task${t}.${l} label=\"task ${t}.${l}\"\n"
    "        f=$(pick \"$u\")\n"
    "        latest=\"${att:+; latest attempt ${att}: ${state%%,*}}\"\n"
    "        if [ -n \"$f\" ]; then\n"
    "            k=$(file_attempt \"$f\" \"$u\")\n"
    "            inputs+=(\"$f\")\n"
    "            b=$(basename \"$f\" .json)\n"
    "            b=${b#\"${SUITE_NAME}-${u}-a\"}\n"
    "            bases+=(\"${b#*-}\")\n"
    "            report+=(\"${label}: attempt ${k}: ${f}${latest}\")\n"
    "            case \"$state\" in\n"
    "            \"\" | COMPLETED*) ;;\n"
    "            *) failed+=(\"${label}: ${state}${att:+ (attempt ${att})}; its results file ${f} (attempt ${k}) was merged (what it measured before it ended)${why:+; stderr (${err}): ${why}}\") ;;\n"
    "            esac\n"
    "        else\n"
    "            report+=(\"${label}: no results${latest}\")\n"
    "            failed+=(\"${label}: no results file; ${state:-no record in sacct or scontrol}${att:+ (attempt ${att})}${why:+; stderr (${err}): ${why}}\")\n"
    "        fi\n"
    "    done\n"
    "done\n"
    "# Runs are named by host (and GPU); where a host ran several units, by unit too.\n"
    "names=()\n"
    "dup=$(printf '%s\\n' ${bases[@]+\"${bases[@]}\"} | sort | uniq -d)\n"
    "for i in \"${!inputs[@]}\"; do\n"
    "    n=${bases[$i]}\n"
    "    if [ -n \"$dup\" ]; then n=$(basename \"${inputs[$i]}\" .json); n=${n#\"${SUITE_NAME}-\"}; fi\n"
    "    names+=(--name \"$n\")\n"
    "done\n"
    "for line in ${failed[@]+\"${failed[@]}\"}; do notes+=(--note \"$line\"); done\n"
    ": >failed-tasks.txt\n"
    "for line in ${failed[@]+\"${failed[@]}\"}; do echo \"$line\" >>failed-tasks.txt; done\n"
    ": >attempts.txt\n"
    "for line in ${report[@]+\"${report[@]}\"}; do echo \"$line\" >>attempts.txt; done\n"
    "echo \"gpubench merge job: ${#inputs[@]} of $((NTASKS * UNITS_PER_TASK)) ${UNIT_WORD} wrote results; ${#failed[@]} failed or ended early\"\n"
    "for line in ${failed[@]+\"${failed[@]}\"}; do echo \"  FAILED ${line}\"; done\n"
    "echo \"where each result came from (${DIR}/attempts.txt):\"\n"
    "sed 's/^/  /' attempts.txt\n"
    "if [ \"${#inputs[@]}\" -eq 0 ]; then\n"
    "    echo \"gpubench merge job: no task wrote a results file; nothing to merge\" >&2\n"
    "    exit 1\n"
    "fi\n"
    "gb merge --allow-missing \"${names[@]}\" ${notes[@]+\"${notes[@]}\"} -o merged.json \"${inputs[@]}\" || exit $?\n"
    "gb report --fleet merged.json > fleet.txt\n"
    "rc=$?\n"
    "cat fleet.txt\n"
    "echo \"merged: ${DIR}/merged.json; fleet report: ${DIR}/fleet.txt\"\n"
    "exit $rc\n";

void gb_slurm_write_merge(FILE *f, const gb_slurm_job *j) {
    gb_slurm_header(f, j, "gpubench merge job: merges what the array's tasks wrote, names the tasks that failed");
    fputs("# Submitted by submit.sh with --dependency=afterany:<array jobs> and the argument NTASKS:\n"
          "# it runs once every task has ended, however it ended. It needs no GPU: no partition\n"
          "# of the array's (--merge-partition, else the site's default), no gres, one CPU, and\n"
          "# a time limit submit.sh scales to the number of results files.\n", f);
    fprintf(f, "#SBATCH --job-name=gpubench-%s-merge\n", j->suite_name);
    fputs("#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n", f);
    if (j->merge_partition) fprintf(f, "#SBATCH --partition=%s\n", j->merge_partition);
    if (j->account) fprintf(f, "#SBATCH --account=%s\n", j->account);
    fprintf(f, "#SBATCH --output=\"%s/logs/merge_%%j.out\"\n", j->dir);
    gb_sh_assign(f, "GPUBENCH", j->gpubench);
    gb_sh_assign(f, "DIR", j->dir);
    gb_sh_assign(f, "SUITE_NAME", j->suite_name);
    fprintf(f, "PER_GPU=%d\nUNITS_PER_TASK=%ld\nUNIT_WORD=%s\n", j->per_gpu ? 1 : 0, gb_slurm_units_per_task(j),
            j->per_gpu ? "GPUs" : "tasks");
    if (j->container) {
        gb_sh_assign(f, "IMAGE", j->container);
        fputs("gb() { \"$(command -v apptainer || command -v singularity)\" exec --bind \"$DIR\" \"$IMAGE\" \"$GPUBENCH\" \"$@\"; }\n", f);
    } else {
        fputs("gb() { \"$GPUBENCH\" \"$@\"; }\n", f);
    }
    fputs(merge_body, f);
}
