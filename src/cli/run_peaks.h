/* run_peaks.h — the ceilings of `gpubench run`: measured, or kept from an
 * earlier run on this machine and build (peaks_kept.h), and raised where a
 * result beat one (never measured again for it: the run's warning flags it). */
#ifndef GB_RUN_PEAKS_H
#define GB_RUN_PEAKS_H
#include <cjson/cJSON.h>
#include "backends.h"
#include "results_model.h"

typedef struct {
    int fresh;      /* --peak fresh: measure even where kept ones exist */
    int quiet;
    char kept[GB_MAX_BACKENDS][2048]; /* the kept file each slot used or wrote ("" none) */
    char name[GB_MAX_BACKENDS][32];   /* that slot's backend ("cpu") */
} gb_run_peaks;

/* Into doc's "peaks": each selected backend's ceilings on its first device. */
void gb_run_peaks_measure(gb_backend_set *set, cJSON *doc, const gb_backend_options *bopt, gb_run_peaks *rp);
/* After the run: a compute ceiling that a result went past by more than
 * GB_CEILING_SLACK (gb_sanity_check_ceilings warns) came in a slow moment;
 * its kept value is raised to the best rate a result reached, so the next
 * run starts from it. Returns how many kept values were raised. */
int gb_run_peaks_after(const gb_run_peaks *rp, const gb_results *results);
#endif
