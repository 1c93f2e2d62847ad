/* slurm_job.h — the files `gpubench slurm` writes: a job array that runs
 * one suite on many nodes (or GPUs) and a merge job that waits for it.
 *
 * Nothing here talks to SLURM: it writes, into the shared directory,
 *   array.sbatch  the job array; each task runs `gpubench run` on its node
 *                 under srun and writes results/<suite>-task<N>-<host>.json
 *   merge.sbatch  run after every task has ended (afterany: whether it
 *                 succeeded, failed or timed out); merges the results files
 *                 that exist (`merge --allow-missing`) into merged.json,
 *                 names each task that failed with its reason (sacct, else
 *                 scontrol, else its stderr log) and writes the fleet report
 *   submit.sh     the sbatch calls (parsable output), printing
 *                 "array job: ID" and "merge job: ID"
 * and results/ and logs/. The nodes never talk to each other: the files do.
 * docs/multi-gpu.md "A cluster through SLURM" shows the output. */
#ifndef GB_SLURM_JOB_H
#define GB_SLURM_JOB_H
#include <stddef.h>

#include "gb.h"

typedef struct {
    const char *gpubench;     /* absolute path of the binary the nodes run */
    const char *suite;        /* absolute path of the suite the nodes run (in dir) */
    const char *suite_name;   /* [A-Za-z0-9._-]: file and job names */
    const char *dir;          /* absolute shared directory */
    long nodes;               /* --nodes: tasks of the array (0 when nodelist is set) */
    const char *nodelist;     /* --nodelist (a SLURM hostlist: node[01-04],gpu7), or NULL */
    const char *partition, *account, *time;   /* NULL: not set */
    long gpus_per_node;       /* 0: no GPU requested */
    int per_gpu;              /* one task per GPU instead of per node */
    char **run_args;          /* passed to `gpubench run` after the suite */
    int nrun_args;
    const char *command_line; /* as typed, for the header comment */
} gb_slurm_job;

/* Check the job's values (a time limit SLURM reads, names without spaces,
 * paths #SBATCH can hold). GB_OK or GB_FAIL naming the option and why. */
int gb_slurm_check(const gb_slurm_job *j, gb_err *e);
/* Write array.sbatch, merge.sbatch and submit.sh into j->dir (which must
 * exist), and make results/ and logs/ there. GB_OK or GB_FAIL naming the
 * file. */
int gb_slurm_write(const gb_slurm_job *j, gb_err *e);
#endif
