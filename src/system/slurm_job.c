/* slurm_job.c — writing the sbatch files of `gpubench slurm`.
 *
 * Why the scripts look the way they do (for whoever runs the cluster):
 *  - one array task per node, each --exclusive with --mem=0: a benchmark
 *    must own its node, or another job's threads, memory bandwidth and GPU
 *    work land in its numbers. --no-exclusive leaves both to the site.
 *  - per GPU (--per-gpu), still one array task per node, holding all G GPUs,
 *    running G srun tasks with --gpu-bind=single:1: SLURM binds each task to
 *    one GPU of its own, the one closest to its CPUs. An array of one-GPU
 *    jobs cannot promise that: a later job is handed whichever GPU is free,
 *    so with fewer CPUs than GPUs the same two GPUs were measured twice and
 *    two never. task.sh takes the SLURM_LOCALID-th GPU where a site's srun
 *    did not bind, and the array script checks that every GPU it was given
 *    was measured exactly once, naming the one that was not.
 *  - the run goes through srun with --cpus-per-task: since Slurm 22.05 a step
 *    no longer inherits the job's CPUs per task, and on a site with
 *    task/affinity or task/cgroup a bare srun would pin the CPU side to one
 *    core.
 *  - the site's limits are the task's limits: nothing here sets a ulimit;
 *    --sbatch-option lines come after ours, so a site's --mem wins over our
 *    --mem=0; and each task's log states the limits it got.
 *  - --nodelist pins one task per listed node. A job array cannot give its
 *    tasks different nodes, so submit.sh submits the same array script once
 *    per node (--array=<index> --nodelist=<node>); --nodes N lets SLURM pick.
 *  - the merge job depends on the array with afterany, so it runs when every
 *    task has ended however it ended, and merges what is there. It needs no
 *    GPU and little time: no partition of the array's, no gres, a limit
 *    scaled to the number of files. */
#include "slurm_job.h"

#include "slurm_merge.h"

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

/* A path that goes into #SBATCH --output="...": sbatch 22.05 reads a quoted
 * value with spaces (checked on the test SLURM), but not a quote or a
 * backslash inside it, and % starts one of its file name patterns. */
static int sbatch_quotable(const char *s) {
    if (!s || !*s) return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\' || *p == '%') return 0;
    return 1;
}

/* A control character (a line break ends a comment or a command in the
 * scripts; an escape sequence rewrites the terminal of whoever reads them). */
static int has_control(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
        if (*p < 0x20 || *p == 0x7f) return 1;
    return 0;
}

int gb_slurm_check(const gb_slurm_job *j, gb_err *e) {
    /* every name that reaches a script, quoted or in a comment: refused here,
     * the one place they enter, before anything is written */
    struct { const char *opt, *v; } named[] = {
        {"--setup", j->setup_path}, {"--container", j->container}, {"--gpubench", j->gpubench},
        {"the suite's path", j->suite}, {"--dir", j->dir},
    };
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (has_control(named[i].v))
            return gb_errf(e, GB_FAIL, "%s: the name holds a control character (a line break, a tab, an escape): "
                                       "the task scripts cannot hold it", named[i].opt);
    for (int i = 0; i < j->nrun_args; i++)
        if (has_control(j->run_args[i]))
            return gb_errf(e, GB_FAIL, "-- argument %d: holds a control character (a line break, a tab, an escape): "
                                       "the task scripts cannot hold it", i + 1);
    if (!sbatch_quotable(j->dir))
        return gb_errf(e, GB_FAIL, "--dir: \"%s\": the #SBATCH --output/--error paths cannot hold a double quote, a "
                                   "backslash, %% (SLURM's file name patterns) or a control character", j->dir);
    struct { const char *opt, *v, *extra, *what; } names[] = {
        {"--partition", j->partition, "._-,", "a partition name (letters, digits, ._-, and commas)"},
        {"--merge-partition", j->merge_partition, "._-", "a partition name (letters, digits, ._-)"},
        {"--account", j->account, "._-", "an account name"},
        {"--qos", j->qos, "._-,", "a QOS name"},
        {"--reservation", j->reservation, "._-,", "a reservation name"},
        {"--gpu-type", j->gpu_type, "._-", "a GPU type as gres.conf names it (h100, a100_80g)"},
        {"--exclude", j->exclude, "._-,[]", "a SLURM hostlist (node[01-04],gpu7)"},
        /* features with SLURM's operators: a100&ib, [rack1|rack2], gpu*2 */
        {"--constraint", j->constraint, "._-,&|[]()*:!", "a feature expression (a100&ib, [rack1|rack2])"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].v && !plain(names[i].v, names[i].extra))
            return gb_errf(e, GB_FAIL, "%s: \"%s\" is not %s", names[i].opt, names[i].v, names[i].what);
    if (j->time && !valid_time(j->time))
        return gb_errf(e, GB_FAIL, "--time: \"%s\" is not a SLURM time limit (minutes, MM:SS, HH:MM:SS, D-HH, "
                                   "D-HH:MM or D-HH:MM:SS)", j->time);
    if (j->nodelist && !plain(j->nodelist, "._-,[]"))
        return gb_errf(e, GB_FAIL, "--nodelist: \"%s\" is not a SLURM hostlist (node[01-04],gpu7)", j->nodelist);
    if (!j->nodelist && j->nodes < 1) return gb_errf(e, GB_FAIL, "--nodes: at least 1");
    if (j->per_gpu && j->gpus_per_node < 1) return gb_errf(e, GB_FAIL, "--per-gpu needs --gpus-per-node G");
    if (j->gpu_type && j->gpus_per_node < 1) return gb_errf(e, GB_FAIL, "--gpu-type needs --gpus-per-node G");
    for (int i = 0; i < j->nsbatch_opts; i++) {
        const char *o = j->sbatch_opts[i];
        if (o[0] != '-' || strpbrk(o, "\n\r"))
            return gb_errf(e, GB_FAIL, "--sbatch-option: \"%s\": one sbatch option on one line, starting with - "
                                       "(--sbatch-option \"--qos=high\")", o);
        if (!strncmp(o, "--array", 7) || !strncmp(o, "--output", 8) || !strncmp(o, "--error", 7) ||
            !strncmp(o, "--dependency", 12))
            return gb_errf(e, GB_FAIL, "--sbatch-option: \"%s\": gpubench sets this itself (the merge and the retry "
                                       "depend on it)", o);
    }
    for (int i = 0; i < j->nrun_args; i++) {
        /* -o, -oFILE, --out, --out=FILE and getopt's abbreviations (--ou):
         * a second --out wins over the task's own, and the merge then finds
         * no task's file */
        const char *a = j->run_args[i];
        size_t n = strcspn(a, "=");
        if (!strncmp(a, "-o", 2) || (n >= 4 && !strncmp(a, "--out", n)))
            return gb_errf(e, GB_FAIL, "-- %s: gpubench sets each task's --out itself (the merge reads those files)", a);
    }
    if (!plain(j->suite_name, "._-")) return gb_errf(e, GB_FAIL, "suite name \"%s\": letters, digits, ._- only", j->suite_name);
    return GB_OK;
}

/* gpu:G or gpu:<type>:G */
static void gres(FILE *f, const gb_slurm_job *j) {
    fprintf(f, "--gres=gpu:%s%s%ld", j->gpu_type ? j->gpu_type : "", j->gpu_type ? ":" : "", j->gpus_per_node);
}

static void write_array(FILE *f, const gb_slurm_job *j) {
    long g = gb_slurm_units_per_task(j);
    gb_slurm_header(f, j, j->per_gpu ? "gpubench job array: one task per node, one srun task per GPU, each running the suite"
                                     : "gpubench job array: one task per node, each running the same suite");
    if (j->nodelist)
        fputs("# No array directive here: submit.sh submits this script once per node of the list with\n"
              "# --array=<task> --nodelist=<node> (a job array cannot place its tasks on given nodes).\n", f);
    else
        fprintf(f, "#SBATCH --array=0-%ld\n", j->nodes - 1);
    fprintf(f, "#SBATCH --job-name=gpubench-%s\n", j->suite_name);
    fprintf(f, "#SBATCH --nodes=1\n#SBATCH --ntasks=%ld\n", g);
    if (!j->shared) {
        fputs("# A benchmark must own its node: no other job's threads, memory traffic or GPU work.\n", f);
        fputs("#SBATCH --exclusive\n#SBATCH --mem=0\n", f);
    }
    if (j->gpus_per_node > 0) {
        fputs("#SBATCH ", f);
        gres(f, j);
        fputc('\n', f);
    }
    if (j->time) fprintf(f, "#SBATCH --time=%s\n", j->time);
    if (j->partition) fprintf(f, "#SBATCH --partition=%s\n", j->partition);
    if (j->account) fprintf(f, "#SBATCH --account=%s\n", j->account);
    if (j->qos) fprintf(f, "#SBATCH --qos=%s\n", j->qos);
    if (j->constraint) fprintf(f, "#SBATCH --constraint=%s\n", j->constraint);
    if (j->reservation) fprintf(f, "#SBATCH --reservation=%s\n", j->reservation);
    if (j->exclude) fprintf(f, "#SBATCH --exclude=%s\n", j->exclude);
    if (j->nsbatch_opts) fputs("# --sbatch-option, after ours: where both set one, the site's wins\n", f);
    for (int i = 0; i < j->nsbatch_opts; i++) fprintf(f, "#SBATCH %s\n", j->sbatch_opts[i]);
    fprintf(f, "#SBATCH --output=\"%s/logs/task_%%A_%%a.out\"\n", j->dir);
    fprintf(f, "#SBATCH --error=\"%s/logs/task_%%A_%%a.err\"\n", j->dir);
    fputs("set -u\n", f);
    gb_sh_assign(f, "DIR", j->dir);
    gb_sh_assign(f, "SUITE_NAME", j->suite_name);
    fputs("# The attempt (1, then one more per `gpubench slurm --retry-failed`): submit.sh exports it.\n"
          "export GPUBENCH_SLURM_ATTEMPT=${GPUBENCH_SLURM_ATTEMPT:-1}\n"
          "TASK=${SLURM_ARRAY_TASK_ID}\nHOST=$(hostname -s)\n"
          "echo \"gpubench task ${TASK} (job ${SLURM_JOB_ID}, attempt ${GPUBENCH_SLURM_ATTEMPT}) on ${HOST}\"\n"
          "# The limits this task runs under are the site's; say what they are.\n"
          "cg=$(awk -F: '$2 == \"\" || $2 ~ /memory/ {print $3; exit}' /proc/self/cgroup 2>/dev/null)\n"
          "cgmem=$(cat \"/sys/fs/cgroup${cg}/memory.max\" 2>/dev/null || cat \"/sys/fs/cgroup/memory${cg}/memory.limit_in_bytes\" 2>/dev/null)\n"
          "mem=$(squeue -h -j \"${SLURM_JOB_ID}\" -o %m 2>/dev/null || echo '?')\n"
          "[ \"$mem\" = 0 ] && mem=\"0 (all of the node's)\"\n"
          "echo \"limits: time $(squeue -h -j \"${SLURM_JOB_ID}\" -o %l 2>/dev/null || echo '?')\"\\\n"
          "\", memory ${mem}\"\\\n"
          "\" (cgroup ${cgmem:-none}, ulimit -v $(ulimit -v))\"\\\n"
          "\", CPUs ${SLURM_CPUS_ON_NODE:-?} ($(nproc) usable)\"\\\n"
          "\", GPUs ${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-none}}\"\n", f);
    fprintf(f, "GPUS_PER_TASK=%ld\n", g);
    if (j->per_gpu) fputs(": >\"$DIR/logs/gpus_${SLURM_JOB_ID}.txt\"\n", f);
    fputs("# Since 22.05 a step does not inherit the job's CPUs: give them out.\n"
          "cpt=$((SLURM_CPUS_ON_NODE / GPUS_PER_TASK))\n[ \"$cpt\" -ge 1 ] || cpt=1\n"
          "srun --nodes=1 --ntasks=\"$GPUS_PER_TASK\" --cpus-per-task=\"$cpt\"", f);
    if (j->gpus_per_node > 0) {
        fputc(' ', f);
        gres(f, j);
    }
    if (j->per_gpu) fputs(" --gpu-bind=single:1", f);
    fputs(" bash \"$DIR/task.sh\"\nrc=$?\n", f);
    if (j->per_gpu)
        fputs("# Every GPU this task was given measured exactly once, or the task fails naming the GPU:\n"
              "# each srun task wrote its results, and no two measured the same GPU (task.sh\n"
              "# recorded each one's GPU: its PCI bus id where nvidia-smi runs, else its index).\n"
              "map=\"$DIR/logs/gpus_${SLURM_JOB_ID}.txt\"\n"
              "IFS=, read -r -a given <<<\"${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-}}\"\n"
              "for ((l = 0; l < GPUS_PER_TASK; l++)); do\n"
              "    gpu=$(awk -v l=\"$l\" '$1 == l {print $3}' \"$map\" 2>/dev/null | head -n 1)\n"
              "    if ! ls \"$DIR/results/${SUITE_NAME}-task${TASK}.${l}-a${GPUBENCH_SLURM_ATTEMPT}-\"*.json >/dev/null 2>&1; then\n"
              "        echo \"gpubench task ${TASK} on ${HOST}: GPU ${gpu:-${given[$l]:-#$l}} was not measured (srun task ${l} wrote no results)\" >&2\n"
              "        [ \"$rc\" = 0 ] && rc=1\n"
              "    fi\n"
              "done\n"
              "twice=$(awk '{print $3}' \"$map\" 2>/dev/null | sort | uniq -d | tr '\\n' ' ')\n"
              "if [ -n \"$twice\" ]; then\n"
              "    echo \"gpubench task ${TASK} on ${HOST}: GPU(s) ${twice}measured by more than one srun task (see $map)\" >&2\n"
              "    [ \"$rc\" = 0 ] && rc=1\n"
              "fi\n", f);
    fputs("echo \"gpubench task ${TASK} on ${HOST}: exit status ${rc}\"\nexit $rc\n", f);
}

static void write_task(FILE *f, const gb_slurm_job *j) {
    gb_slurm_header(f, j, "gpubench: one srun task of array.sbatch: its GPU, the --setup lines, the run");
    fputs("set -u\n", f);
    gb_sh_assign(f, "GPUBENCH", j->gpubench);
    gb_sh_assign(f, "SUITE", j->suite);
    gb_sh_assign(f, "DIR", j->dir);
    gb_sh_assign(f, "SUITE_NAME", j->suite_name);
    fputs("TASK=${SLURM_ARRAY_TASK_ID}\nHOST=$(hostname -s)\n"
          "# CUDA numbers GPUs fastest first unless told: by PCI bus, as nvidia-smi and SLURM do\n"
          "export CUDA_DEVICE_ORDER=PCI_BUS_ID\n", f);
    if (j->per_gpu) {
        fputs("L=${SLURM_LOCALID:-0}\n"
              "IFS=, read -r -a gpus <<<\"${CUDA_VISIBLE_DEVICES:-}\"\n"
              "if [ \"${#gpus[@]}\" -gt 1 ]; then\n"
              "    # this site's srun did not bind one GPU per task: take the L-th of the step's\n"
              "    export CUDA_VISIBLE_DEVICES=${gpus[$L]:-}\n"
              "fi\n"
              "GPU=${CUDA_VISIBLE_DEVICES:-none}\n"
              "# which GPU this is, for the array script's check: its PCI bus id where nvidia-smi\n"
              "# sees only it (a device cgroup) or can be asked by index, else SLURM's index\n"
              "ids=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null)\n"
              "if [ \"$(printf '%s\\n' \"$ids\" | grep -c .)\" != 1 ]; then\n"
              "    ids=$(nvidia-smi -i \"$GPU\" --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null)\n"
              "fi\n"
              "echo \"$L $GPU ${ids:-gpu$GPU}\" >>\"$DIR/logs/gpus_${SLURM_JOB_ID}.txt\"\n"
              "OUT=\"$DIR/results/${SUITE_NAME}-task${TASK}.${L}-a${GPUBENCH_SLURM_ATTEMPT}-${HOST}-gpu${GPU}.json\"\n", f);
    } else {
        fputs("OUT=\"$DIR/results/${SUITE_NAME}-task${TASK}-a${GPUBENCH_SLURM_ATTEMPT}-${HOST}.json\"\n", f);
    }
    fputs("echo \"gpubench task ${TASK}${L:+.$L} on ${HOST}${GPU:+, GPU $GPU}: results -> ${OUT}\"\n", f);
    if (j->setup) {
        fputs("# ---- --setup ", f);
        fputs(j->setup_path, f);
        fputs(": the site's lines, run before gpubench in every task\n", f);
        fputs(j->setup, f);
        if (*j->setup && j->setup[strlen(j->setup) - 1] != '\n') fputc('\n', f);
        fputs("# ---- end of --setup\n", f);
    }
    if (j->container) {
        gb_sh_assign(f, "IMAGE", j->container);
        fputs("RUNTIME=$(command -v apptainer || command -v singularity) ||\n"
              "    { echo \"gpubench task ${TASK} on ${HOST}: --container: neither apptainer nor singularity is on PATH\" >&2; exit 127; }\n"
              "exec \"$RUNTIME\" exec --nv --bind \"$DIR\" \"$IMAGE\" \\\n    ", f);
    } else {
        fputs("exec ", f);
    }
    fputs("\"$GPUBENCH\" run \"$SUITE\" --out \"$OUT\"", f);
    if (j->gpus_per_node > 0 && !j->per_gpu) fputs(" --devices all", f);
    /* asked for GPUs: a node that cannot use one fails, with why (no driver, none visible) */
    if (j->gpus_per_node > 0) fputs(" --require-gpu", f);
    for (int i = 0; i < j->nrun_args; i++) {
        fputc(' ', f);
        gb_sh_word(f, j->run_args[i]);
    }
    fputc('\n', f);
}

/* submit.sh [TASKS]: a first submission, or (TASKS) a retry of some tasks. */
static void write_submit(FILE *f, const gb_slurm_job *j) {
    gb_slurm_header(f, j, "submits the job array and the merge job that waits for it (`gpubench slurm --submit` runs this;\n"
                          "# `submit.sh 1,4` resubmits tasks 1 and 4 only: `gpubench slurm --retry-failed DIR`)");
    fputs("set -u\n", f);
    gb_sh_assign(f, "DIR", j->dir);
    fputs("TASKS=${1:-}\n"
          "attempt=1\n"
          "if [ -s \"$DIR/jobs.txt\" ]; then attempt=$(($(awk '{print $1}' \"$DIR/jobs.txt\" | sort -n | tail -n 1) + 1)); fi\n"
          "ids=()\n"
          "# A failed sbatch takes back what this run submitted, so that running it again\n"
          "# submits no task twice.\n"
          "give_up() {\n"
          "    echo \"gpubench slurm: $1\" >&2\n"
          "    if [ \"${#ids[@]}\" -eq 0 ]; then\n"
          "        echo \"gpubench slurm: nothing was submitted; fix the cause and run $0${TASKS:+ $TASKS} again\" >&2\n"
          "    elif scancel \"${ids[@]}\"; then\n"
          "        echo \"gpubench slurm: cancelled the jobs already submitted: ${ids[*]}; nothing of this submission is queued; fix the cause and run $0${TASKS:+ $TASKS} again\" >&2\n"
          "    else\n"
          "        echo \"gpubench slurm: could not cancel the jobs already submitted: ${ids[*]}; cancel them (scancel ${ids[*]}) before running $0 again\" >&2\n"
          "    fi\n"
          "    [ -f \"$DIR/jobs.txt.prev\" ] && mv -f \"$DIR/jobs.txt.prev\" \"$DIR/jobs.txt\"\n"
          "    exit 1\n"
          "}\n"
          "# sbatch --parsable prints \"jobid\" or \"jobid;cluster\"\n"
          "sb() {\n"
          "    local out\n"
          "    out=$(sbatch --parsable \"$@\") || return 1\n"
          "    id=${out%%;*}\n"
          "    case $id in '' | *[!0-9]*) echo \"sbatch printed no job id: $out\" >&2; return 1 ;; esac\n"
          "}\n"
          "want() { [ -z \"$TASKS\" ] || [[ \",$TASKS,\" == *\",$1,\"* ]]; }\n"
          "exp=\"--export=ALL,GPUBENCH_SLURM_ATTEMPT=${attempt}\"\n", f);
    fprintf(f, "UNITS_PER_TASK=%ld\n", gb_slurm_units_per_task(j));
    if (!j->nodelist) {
        fprintf(f, "ntasks=%ld\n", j->nodes);
        fputs("sb \"$exp\" --array=\"${TASKS:-0-$((ntasks - 1))}\" \"$DIR/array.sbatch\" || give_up \"sbatch of the array failed\"\n"
              "ids+=(\"$id\")\n", f);
    } else {
        fputs("nodes=$(scontrol show hostnames ", f);
        gb_sh_word(f, j->nodelist);
        fputs(") || give_up \"scontrol could not expand the node list\"\n"
              "ntasks=0\n"
              "for node in $nodes; do\n"
              "    if want \"$ntasks\"; then\n"
              "        sb \"$exp\" --array=\"$ntasks\" --nodelist=\"$node\" \"$DIR/array.sbatch\" ||\n"
              "            give_up \"sbatch of task ${ntasks} on node ${node} failed\"\n"
              "        ids+=(\"$id\")\n"
              "    fi\n"
              "    ntasks=$((ntasks + 1))\n"
              "done\n", f);
    }
    fputs("[ \"${#ids[@]}\" -gt 0 ] || give_up \"no task to submit (tasks: ${TASKS})\"\n"
          "# jobs.txt: ATTEMPT JOB_ID per array job, read by the merge job before it starts\n"
          "[ -f \"$DIR/jobs.txt\" ] && cp -p \"$DIR/jobs.txt\" \"$DIR/jobs.txt.prev\"\n"
          "for i in \"${ids[@]}\"; do echo \"$attempt $i\" >>\"$DIR/jobs.txt\"; done\n"
          "dep=$(IFS=:; echo \"${ids[*]}\")\n"
          "# the merge's time: 5 minutes and one more per 20 results files\n"
          "sb --dependency=afterany:\"$dep\" --time=$((5 + (ntasks * UNITS_PER_TASK + 19) / 20)) \"$DIR/merge.sbatch\" \"$ntasks\" ||\n"
          "    give_up \"sbatch of the merge job failed\"\n"
          "rm -f \"$DIR/jobs.txt.prev\"\n"
          "echo \"attempt: ${attempt}${TASKS:+ (tasks ${TASKS})}\"\n"
          "echo \"array job: $(IFS=,; echo \"${ids[*]}\")\"\n"
          "echo \"merge job: ${id}\"\n"
          "echo \"${ntasks} tasks; when job ${id} ends: ${DIR}/merged.json, ${DIR}/fleet.txt, ${DIR}/failed-tasks.txt, ${DIR}/attempts.txt\"\n",
          f);
}

static int write_file(const char *dir, const char *name, int mode, void (*fn)(FILE *, const gb_slurm_job *),
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
    if (write_file(j->dir, "task.sh", 0644, write_task, j, e) != GB_OK) return GB_FAIL;
    if (write_file(j->dir, "merge.sbatch", 0644, gb_slurm_write_merge, j, e) != GB_OK) return GB_FAIL;
    return write_file(j->dir, "submit.sh", 0755, write_submit, j, e);
}
