/* slurm_merge.h — the merge job of `gpubench slurm` (slurm_merge.c). */
#ifndef GB_SLURM_MERGE_H
#define GB_SLURM_MERGE_H
#include <stdio.h>

#include "slurm_script.h"

/* Write merge.sbatch's text for the job j to f. */
void gb_slurm_write_merge(FILE *f, const gb_slurm_job *j);
#endif
