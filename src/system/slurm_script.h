/* slurm_script.h — what the writers of `gpubench slurm`'s files share: the
 * job's description and the shell quoting (slurm_script.c). slurm_job.c
 * writes the array, task and submit scripts, slurm_merge.c the merge job's. */
#ifndef GB_SLURM_SCRIPT_H
#define GB_SLURM_SCRIPT_H
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

/* Shell quoting shared by the two writers: s as one single-quoted word;
 * NAME='value' on a line of its own. */
void gb_sh_word(FILE *f, const char *s);
void gb_sh_assign(FILE *f, const char *name, const char *value);
/* The header every script starts with: #!/bin/bash, what, the command line. */
void gb_slurm_header(FILE *f, const gb_slurm_job *j, const char *what);
/* Units of one array task: its GPUs with --per-gpu, else 1. */
long gb_slurm_units_per_task(const gb_slurm_job *j);
#endif
