/* sanity.h — checks that the CPU side is not a strawman, and the run's
 * health (issue: honest numbers). The caller shows each warning loudly on
 * stderr and stores it in the results' "warnings" array; nothing here
 * prints. What is specific to one backend's libraries (OpenBLAS's core and
 * threads, OpenMP's wait policy) is that backend's own check
 * (gb_backend.check, run through gb_backends_check). */
#ifndef GB_SANITY_H
#define GB_SANITY_H
#include <cjson/cJSON.h>

#include "results_model.h"

/* Inspect the provenance in context (cpu.cores, cpu.logical_cpus,
 * cpu_threads_used) and the machine (governor, load) and append one string
 * per problem to warnings. Returns the count. */
int gb_sanity_check(const cJSON *context, cJSON *warnings);
/* The two halves of gb_sanity_check, for callers (and tests) that want one:
 * checks of the provenance only (thread counts), and
 * of the machine now (scaling governor, other load: samples ~200 ms).
 * Neither prints: the caller shows the warnings. */
int gb_sanity_check_context(const cJSON *context, cJSON *warnings);
int gb_sanity_check_machine(cJSON *warnings);
/* After a run: a result above GB_CEILING_SLACK of its compute (GEMM)
 * ceiling shows that
 * the ceiling (measured once, at the start) came in a slow moment of the
 * machine. One warning per ceiling, naming the case that beat it most; the
 * % of peak against that ceiling is then overstated. Returns the count. */
#define GB_CEILING_SLACK 105.0
int gb_sanity_check_ceilings(const gb_results *results, cJSON *warnings);
#endif
