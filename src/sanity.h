/* sanity.h — checks that the CPU side is not a strawman, and the run's
 * health (issue: honest numbers). Warnings go loudly to stderr and into the
 * results' "warnings" array. */
#ifndef GB_SANITY_H
#define GB_SANITY_H
#include <cjson/cJSON.h>

/* Inspect the provenance in context (cpu.isa, cpu.logical_cpus,
 * libraries.openblas.core, cpu_threads_used ...) and the machine (governor,
 * load) and append one string per problem to warnings. Returns the count. */
int gb_sanity_check(const cJSON *context, cJSON *warnings);
/* --openblas-core auto: if OpenBLAS runs a core older than the CPU supports,
 * set OPENBLAS_CORETYPE to the right value and re-execute this process
 * (argv as given). Returns only when nothing needed changing or re-exec
 * failed (then with a message in why, non-zero). */
int gb_openblas_core_auto(char **argv, char *why, unsigned long why_len);
#endif
