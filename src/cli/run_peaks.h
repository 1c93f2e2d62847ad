/* run_peaks.h — the ceilings of `gpubench run`: measured, or kept from an
 * earlier run on this machine and build (peaks_kept.h), and forgotten when a
 * result beat a kept one. */
#ifndef GB_RUN_PEAKS_H
#define GB_RUN_PEAKS_H
#include <cjson/cJSON.h>
#include "backends.h"

typedef struct {
    int fresh;      /* --peak fresh: measure even where kept ones exist */
    int quiet;
    char kept[GB_MAX_BACKENDS][2048]; /* the kept file each slot used or wrote ("" none) */
} gb_run_peaks;

/* Into doc's "peaks": each selected backend's ceilings on its first device. */
void gb_run_peaks_measure(gb_backend_set *set, cJSON *doc, const gb_backend_options *bopt, gb_run_peaks *rp);
/* After the run: ceilings some result went past (ceiling_warnings > 0:
 * gb_sanity_check_ceilings) came in a slow moment; forget them, kept or
 * just measured, so that the next run measures them again. */
void gb_run_peaks_after(const gb_run_peaks *rp, int ceiling_warnings);
#endif
