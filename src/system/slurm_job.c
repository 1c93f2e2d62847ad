/* slurm_job.c — writing the sbatch files of `gpubench slurm`.
 *
 * Why the scripts look the way they do (for whoever runs the cluster):
 *  - one array task per node, each --exclusive with --mem=0: a benchmark
 *    must own its node, or another job's threads, memory bandwidth and GPU
 *    work land in its numbers. Per GPU (--per-gpu), each task gets one GPU
 *    (--gres=gpu:1) and shares the node with the array's other tasks: what
 *    it measures is a GPU while its neighbours work, as in production.
 *  - the run goes through srun with --cpus-per-task=$SLURM_CPUS_ON_NODE:
 *    since Slurm 22.05 a step no longer inherits the job's CPUs per task, and
 *    on a site with task/affinity or task/cgroup a bare srun would pin the
 *    CPU side to one core.
 *  - --nodelist pins one task per listed node. A job array cannot give its
 *    tasks different nodes, so submit.sh submits the same array script once
 *    per node (--array=<index> --nodelist=<node>); --nodes N lets SLURM pick
 *    (with --exclusive, N runs that each own a node; the same node may serve
 *    two of them one after the other).
 *  - the merge job depends on the array with afterany, so it runs when every
 *    task has ended however it ended, and merges what is there: on a
 *    cluster a node that fails or times out is normal. */
#include "slurm_job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Characters a value may hold where it goes into an #SBATCH line or a
 * file name unquoted. */
static int plain(const char *s, const char *extra) {
    if (!s || !*s) return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr(extra, *p)))
            return 0;
    return 1;
}

/* SLURM's time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. */
static int valid_time(const char *t) {
    const char *p = t, *dash = strchr(t, '-');
    int fields = 0, digits = 0;
    if (dash) {
        for (; p < dash; p++)
            if (*p < '0' || *p > '9') return 0;
        if (p == t) return 0;
        p++;
    }
    fields = 1;
    for (; *p; p++) {
        if (*p == ':') {
            if (!digits) return 0;
            fields++;
            digits = 0;
        } else if (*p >= '0' && *p <= '9') {
            digits++;
        } else {
            return 0;
        }
    }
    return digits > 0 && fields <= 3;
}

int gb_slurm_check(const gb_slurm_job *j, gb_err *e) {
    if (!plain(j->dir, "/._-+,@")) /* #SBATCH --output cannot quote */
        return gb_errf(e, GB_FAIL, "--dir: \"%s\": the #SBATCH --output/--error paths hold only letters, digits and "
                                   "/._-+,@ (no spaces)", j->dir);
    if (j->partition && !plain(j->partition, "._-,"))
        return gb_errf(e, GB_FAIL, "--partition: \"%s\" is not a partition name (letters, digits, ._-, and commas)",
                       j->partition);
    if (j->account && !plain(j->account, "._-"))
        return gb_errf(e, GB_FAIL, "--account: \"%s\" is not an account name", j->account);
    if (j->time && !valid_time(j->time))
        return gb_errf(e, GB_FAIL, "--time: \"%s\" is not a SLURM time limit (minutes, MM:SS, HH:MM:SS, D-HH, "
                                   "D-HH:MM or D-HH:MM:SS)", j->time);
    if (j->nodelist && !plain(j->nodelist, "._-,[]"))
        return gb_errf(e, GB_FAIL, "--nodelist: \"%s\" is not a SLURM hostlist (node[01-04],gpu7)", j->nodelist);
    if (!j->nodelist && j->nodes < 1) return gb_errf(e, GB_FAIL, "--nodes: at least 1");
    if (j->per_gpu && j->gpus_per_node < 1) return gb_errf(e, GB_FAIL, "--per-gpu needs --gpus-per-node G");
    if (!plain(j->suite_name, "._-")) return gb_errf(e, GB_FAIL, "suite name \"%s\": letters, digits, ._- only", j->suite_name);
    return GB_OK;
}

/* s as one shell word, single-quoted. */
static void sh_word(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

/* NAME='value' on a line of its own. */
static void sh_assign(FILE *f, const char *name, const char *value) {
    fprintf(f, "%s=", name);
    sh_word(f, value);
    fputc('\n', f);
}

static void header(FILE *f, const gb_slurm_job *j, const char *what) {
    fprintf(f, "#!/bin/bash\n# %s\n# Written by gpubench %s: ", what, GB_VERSION);
    fputs(j->command_line, f);
    fputs("\n", f);
}

static void common_directives(FILE *f, const gb_slurm_job *j) {
    if (j->partition) fprintf(f, "#SBATCH --partition=%s\n", j->partition);
    if (j->account) fprintf(f, "#SBATCH --account=%s\n", j->account);
}

static long tasks_per_node(const gb_slurm_job *j) { return j->per_gpu ? j->gpus_per_node : 1; }

static int write_array(FILE *f, const gb_slurm_job *j) {
    header(f, j, j->per_gpu ? "gpubench job array: one task per GPU, each running the same suite"
                            : "gpubench job array: one task per node, each running the same suite");
    if (j->nodelist)
        fputs("# No array directive here: submit.sh submits this script once per node of the list with\n"
              "# --array=<task> --nodelist=<node> (a job array cannot place its tasks on given nodes).\n", f);
    else
        fprintf(f, "#SBATCH --array=0-%ld\n", j->nodes * tasks_per_node(j) - 1);
    fprintf(f, "#SBATCH --job-name=gpubench-%s\n", j->suite_name);
    fputs("#SBATCH --nodes=1\n#SBATCH --ntasks=1\n", f);
    if (j->per_gpu) {
        fputs("# One GPU per task; the node's other GPUs run the array's other tasks meanwhile.\n", f);
        fputs("#SBATCH --gres=gpu:1\n", f);
    } else {
        fputs("# A benchmark must own its node: no other job's threads, memory traffic or GPU work.\n", f);
        fputs("#SBATCH --exclusive\n#SBATCH --mem=0\n", f);
        if (j->gpus_per_node > 0) fprintf(f, "#SBATCH --gres=gpu:%ld\n", j->gpus_per_node);
    }
    if (j->time) fprintf(f, "#SBATCH --time=%s\n", j->time);
    common_directives(f, j);
    fprintf(f, "#SBATCH --output=%s/logs/task_%%A_%%a.out\n", j->dir);
    fprintf(f, "#SBATCH --error=%s/logs/task_%%A_%%a.err\n", j->dir);
    fputs("set -u\n", f);
    sh_assign(f, "GPUBENCH", j->gpubench);
    sh_assign(f, "SUITE", j->suite);
    sh_assign(f, "DIR", j->dir);
    fprintf(f, "HOST=$(hostname -s)\nOUT=\"$DIR/results/%s-task${SLURM_ARRAY_TASK_ID}-${HOST}%s.json\"\n",
            j->suite_name, j->per_gpu ? "-gpu${CUDA_VISIBLE_DEVICES:-none}" : "");
    fputs("echo \"gpubench task ${SLURM_ARRAY_TASK_ID} (job ${SLURM_JOB_ID}) on ${HOST}: results -> ${OUT}\"\n", f);
    /* Since 22.05 a step does not inherit the job's CPUs: ask for them all. */
    fputs("srun --nodes=1 --ntasks=1 --cpus-per-task=\"${SLURM_CPUS_ON_NODE}\"", f);
    if (j->gpus_per_node > 0) fprintf(f, " --gres=gpu:%ld", j->per_gpu ? 1L : j->gpus_per_node);
    fputs(" \\\n    \"$GPUBENCH\" run \"$SUITE\" --out \"$OUT\"", f);
    if (j->gpus_per_node > 0 && !j->per_gpu) fputs(" --devices all", f);
    for (int i = 0; i < j->nrun_args; i++) {
        fputc(' ', f);
        sh_word(f, j->run_args[i]);
    }
    fputs("\nrc=$?\necho \"gpubench task ${SLURM_ARRAY_TASK_ID} on ${HOST}: exit status ${rc}\"\nexit $rc\n", f);
    return 0;
}

/* The merge job. Its arguments (submit.sh passes them): the number of
 * tasks, then the array job id(s). */
/* ${a[@]+"${a[@]}"}: an empty array under set -u in bash before 4.4
 * (RHEL 7's 4.2) is an unbound variable. */
static const char merge_body[] =
    "set -u\n"
    "NTASKS=$1\n"
    "shift\n"
    "JOBS=\"$*\"\n"
    "cd \"$DIR\" || exit 2\n"
    "# What SLURM says about task $1: from sacct where accounting is on, else from\n"
    "# slurmctld's memory of the job (scontrol: kept MinJobAge seconds, 300 by default).\n"
    "slurm_state() {\n"
    "    local t=$1 line id st ec nl rs info\n"
    "    if command -v sacct >/dev/null 2>&1; then\n"
    "        line=$(sacct -n -P -X -j \"$(echo $JOBS | tr ' ' ,)\" -o JobID,State,ExitCode,NodeList,Reason 2>/dev/null |\n"
    "               grep \"_${t}|\" | tail -n 1)\n"
    "        if [ -n \"$line\" ]; then\n"
    "            IFS='|' read -r id st ec nl rs <<<\"$line\"\n"
    "            echo \"${st}, exit code ${ec}, node ${nl}${rs:+, reason ${rs}} (sacct)\"\n"
    "            return\n"
    "        fi\n"
    "    fi\n"
    "    for id in $JOBS; do\n"
    "        info=$(scontrol -o show job \"${id}_${t}\" 2>/dev/null) || continue\n"
    "        [ -n \"$info\" ] || continue\n"
    "        st=$(sed -n 's/.*[[:space:]]JobState=\\([^[:space:]]*\\).*/\\1/p' <<<\"$info\")\n"
    "        ec=$(sed -n 's/.*[[:space:]]ExitCode=\\([^[:space:]]*\\).*/\\1/p' <<<\"$info\")\n"
    "        rs=$(sed -n 's/.*[[:space:]]Reason=\\([^[:space:]]*\\).*/\\1/p' <<<\"$info\")\n"
    "        nl=$(sed -n 's/.*[[:space:]]NodeList=\\([^[:space:]]*\\).*/\\1/p' <<<\"$info\")\n"
    "        echo \"${st:-?}, exit code ${ec:-?}, node ${nl:-?}, reason ${rs:-?} (scontrol)\"\n"
    "        return\n"
    "    done\n"
    "}\n"
    "inputs=(); bases=(); notes=(); failed=()\n"
    "for ((t = 0; t < NTASKS; t++)); do\n"
    "    f=$(ls -1 results/\"${SUITE_NAME}-task${t}-\"*.json 2>/dev/null | head -n 1)\n"
    "    state=$(slurm_state \"$t\")\n"
    "    if [ -n \"$f\" ]; then\n"
    "        inputs+=(\"$f\")\n"
    "        base=$(basename \"$f\" .json)\n"
    "        bases+=(\"${base#\"${SUITE_NAME}-task${t}-\"}\")\n"
    "        case \"$state\" in\n"
    "        \"\" | COMPLETED*) ;;\n"
    "        *) failed+=(\"task ${t}: ${state}; its results file ${f} was merged (what it measured before it ended)\") ;;\n"
    "        esac\n"
    "    else\n"
    "        err=$(ls -1t logs/task_*_\"${t}\".err 2>/dev/null | head -n 1)\n"
    "        why=\"\"\n"
    "        [ -n \"$err\" ] && why=$(grep -v '^[[:space:]]*$' \"$err\" | tail -n 3 | tr '\\n' ' ' | sed 's/ *$//' | cut -c1-400)\n"
    "        failed+=(\"task ${t}: no results file; ${state:-no record in sacct or scontrol}${why:+; stderr (${err}): ${why}}\")\n"
    "    fi\n"
    "done\n"
    "# Runs are named by host (and GPU); where a host ran several tasks, by task too.\n"
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
    "echo \"gpubench merge job: ${#inputs[@]} of ${NTASKS} tasks wrote results; ${#failed[@]} failed or ended early\"\n"
    "for line in ${failed[@]+\"${failed[@]}\"}; do echo \"  FAILED ${line}\"; done\n"
    "if [ \"${#inputs[@]}\" -eq 0 ]; then\n"
    "    echo \"gpubench merge job: no task wrote a results file; nothing to merge\" >&2\n"
    "    exit 1\n"
    "fi\n"
    "\"$GPUBENCH\" merge --allow-missing \"${names[@]}\" ${notes[@]+\"${notes[@]}\"} -o merged.json \"${inputs[@]}\" || exit $?\n"
    "\"$GPUBENCH\" report --fleet merged.json > fleet.txt\n"
    "rc=$?\n"
    "cat fleet.txt\n"
    "echo \"merged: ${DIR}/merged.json; fleet report: ${DIR}/fleet.txt\"\n"
    "exit $rc\n";

static int write_merge(FILE *f, const gb_slurm_job *j) {
    header(f, j, "gpubench merge job: merges what the array's tasks wrote, names the tasks that failed");
    fputs("# Submitted by submit.sh with --dependency=afterany:<array job>, and the arguments\n"
          "# NTASKS ARRAY_JOB_ID...: it runs once every task has ended, however it ended.\n", f);
    fprintf(f, "#SBATCH --job-name=gpubench-%s-merge\n", j->suite_name);
    fputs("#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --time=00:10:00\n", f);
    common_directives(f, j);
    fprintf(f, "#SBATCH --output=%s/logs/merge_%%j.out\n", j->dir);
    sh_assign(f, "GPUBENCH", j->gpubench);
    sh_assign(f, "DIR", j->dir);
    sh_assign(f, "SUITE_NAME", j->suite_name);
    fputs(merge_body, f);
    return 0;
}

static int write_submit(FILE *f, const gb_slurm_job *j) {
    header(f, j, "submits the job array and the merge job that waits for it (`gpubench slurm --submit` runs this)");
    fputs("set -eu\n", f);
    sh_assign(f, "DIR", j->dir);
    fputs("# --parsable prints \"jobid\" or \"jobid;cluster\"\n", f);
    if (!j->nodelist) {
        fputs("array=$(sbatch --parsable \"$DIR/array.sbatch\")\narray=${array%%;*}\n", f);
        fprintf(f, "ntasks=%ld\nids=(\"$array\")\n", j->nodes * tasks_per_node(j));
    } else {
        fputs("ids=()\nntasks=0\nfor node in $(scontrol show hostnames ", f);
        sh_word(f, j->nodelist);
        fprintf(f, "); do\n    for ((g = 0; g < %ld; g++)); do\n", tasks_per_node(j));
        fputs("        id=$(sbatch --parsable --array=\"$ntasks\" --nodelist=\"$node\" \"$DIR/array.sbatch\")\n"
              "        ids+=(\"${id%%;*}\")\n"
              "        ntasks=$((ntasks + 1))\n"
              "    done\n"
              "done\n"
              "array=$(IFS=,; echo \"${ids[*]}\")\n", f);
    }
    fputs("dep=$(IFS=:; echo \"${ids[*]}\")\n"
          "merge=$(sbatch --parsable --dependency=afterany:\"$dep\" \"$DIR/merge.sbatch\" \"$ntasks\" \"${ids[@]}\")\n"
          "merge=${merge%%;*}\n"
          "echo \"array job: ${array}\"\n"
          "echo \"merge job: ${merge}\"\n"
          "echo \"${ntasks} tasks; when job ${merge} ends: ${DIR}/merged.json, ${DIR}/fleet.txt, ${DIR}/failed-tasks.txt\"\n",
          f);
    return 0;
}

static int write_file(const char *dir, const char *name, int mode, int (*fn)(FILE *, const gb_slurm_job *),
                      const gb_slurm_job *j, gb_err *e) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return gb_errf(e, GB_FAIL, "%s: cannot write: %s", path, strerror(errno));
    fn(f, j);
    if (ferror(f) | (fclose(f) != 0)) return gb_errf(e, GB_FAIL, "%s: write failed: %s", path, strerror(errno));
    if (chmod(path, (mode_t)mode) != 0) return gb_errf(e, GB_FAIL, "%s: chmod: %s", path, strerror(errno));
    return GB_OK;
}

int gb_slurm_write(const gb_slurm_job *j, gb_err *e) {
    const char *sub[] = {"results", "logs"};
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", j->dir, sub[i]);
        if (mkdir(path, 0777) != 0 && errno != EEXIST) return gb_errf(e, GB_FAIL, "%s: cannot create: %s", path, strerror(errno));
    }
    if (write_file(j->dir, "array.sbatch", 0644, write_array, j, e) != GB_OK) return GB_FAIL;
    if (write_file(j->dir, "merge.sbatch", 0644, write_merge, j, e) != GB_OK) return GB_FAIL;
    return write_file(j->dir, "submit.sh", 0755, write_submit, j, e);
}
