/* slurm_job.h — the files `gpubench slurm` writes: a job array that runs
 * one suite on many nodes (or on every GPU of many nodes) and a merge job
 * that waits for it.
 *
 * Nothing here talks to SLURM: it writes, into the shared directory,
 *   array.sbatch  the job array; each array task owns a node (or, without
 *                 --exclusive, its share of one), states its limits in its
 *                 log and runs task.sh under srun: once, or once per GPU
 *                 (--per-gpu: one srun task per GPU, each bound to its own,
 *                 then a check that every GPU was measured exactly once)
 *   task.sh       one srun task: picks its GPU, runs the --setup lines, runs
 *                 `gpubench run` (in the --container image if one was
 *                 given), writing results/<suite>-<unit>-a<attempt>-<host>
 *                 [-gpu<id>].json, where a unit is task<N> or, per GPU,
 *                 task<N>.<local task>
 *   merge.sbatch  run after every task has ended (afterany); for each unit
 *                 takes the file of its newest attempt, merges them
 *                 (`merge --allow-missing`) into merged.json, names each
 *                 unit whose latest attempt failed, with why, in
 *                 failed-tasks.txt, which attempt each result came from in
 *                 attempts.txt, and writes the fleet report
 *   submit.sh     submit.sh [TASKS]: submits the array (all tasks, or the
 *                 comma list TASKS: a retry) as attempt K (one more than
 *                 jobs.txt holds; the tasks see GPUBENCH_SLURM_ATTEMPT=K) and
 *                 a merge job; a failed sbatch cancels what it submitted
 * and results/ and logs/. The nodes never talk to each other: the files do.
 * docs/clusters.md is the user's reference. */
#ifndef GB_SLURM_JOB_H
#define GB_SLURM_JOB_H
#include <stddef.h>
#include <stdio.h>

#include "gb.h"

typedef struct {
    const char *gpubench;     /* the binary the nodes run: absolute, or inside the container */
    const char *suite;        /* absolute path of the suite the nodes run (in dir) */
    const char *suite_name;   /* [A-Za-z0-9._-]: file and job names */
    const char *dir;          /* absolute shared directory */
    long nodes;               /* --nodes: tasks of the array (0 when nodelist is set) */
    const char *nodelist;     /* --nodelist (a SLURM hostlist: node[01-04],gpu7), or NULL */
    const char *partition, *account, *time;   /* NULL: not set */
    const char *qos, *constraint, *reservation, *exclude; /* NULL: not set */
    const char *merge_partition; /* the merge job's partition; NULL: the site's default */
    long gpus_per_node;       /* 0: no GPU requested */
    const char *gpu_type;     /* --gres=gpu:<type>:G; NULL: any type */
    int per_gpu;              /* one srun task per GPU instead of one per node */
    int shared;               /* --no-exclusive: no --exclusive, no --mem=0 */
    char **sbatch_opts;       /* --sbatch-option, each an #SBATCH line after ours (so they win) */
    int nsbatch_opts;
    const char *setup_path;   /* --setup FILE, for the comment */
    const char *setup;        /* its text, run before gpubench in every task; NULL: none */
    const char *container;    /* --container IMAGE (Apptainer/Singularity exec --nv); NULL: none */
    char **run_args;          /* passed to `gpubench run` after the suite */
    int nrun_args;
    const char *command_line; /* as typed, for the header comment */
} gb_slurm_job;

/* Check the job's values (a time limit SLURM reads, names #SBATCH can hold
 * unquoted, a directory #SBATCH can hold quoted). GB_OK or GB_FAIL naming
 * the option and why. */
int gb_slurm_check(const gb_slurm_job *j, gb_err *e);
/* Write array.sbatch, task.sh, merge.sbatch and submit.sh into j->dir (which
 * must exist), and make results/ and logs/ there. GB_OK or GB_FAIL naming
 * the file. */
int gb_slurm_write(const gb_slurm_job *j, gb_err *e);
/* The merge job's script (slurm_merge.c), for gb_slurm_write. */
void gb_slurm_write_merge(FILE *f, const gb_slurm_job *j);
/* Shell quoting shared by the two writers: s as one single-quoted word;
 * NAME='value' on a line of its own. */
void gb_sh_word(FILE *f, const char *s);
void gb_sh_assign(FILE *f, const char *name, const char *value);
/* The header every script starts with: #!/bin/bash, what, the command line. */
void gb_slurm_header(FILE *f, const gb_slurm_job *j, const char *what);
/* Units of one array task: its GPUs with --per-gpu, else 1. */
long gb_slurm_units_per_task(const gb_slurm_job *j);
#endif
