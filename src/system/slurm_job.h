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

#include "slurm_script.h"

/* Check the job's values (a time limit SLURM reads, names #SBATCH can hold
 * unquoted, a directory #SBATCH can hold quoted). GB_OK or GB_FAIL naming
 * the option and why. */
int gb_slurm_check(const gb_slurm_job *j, gb_err *e);
/* Write array.sbatch, task.sh, merge.sbatch and submit.sh into j->dir (which
 * must exist), and make results/ and logs/ there. GB_OK or GB_FAIL naming
 * the file. */
int gb_slurm_write(const gb_slurm_job *j, gb_err *e);
#endif
