/* sanity.h — checks that the CPU side is not a strawman, and the run's
 * health (issue: honest numbers). The caller shows each warning loudly on
 * stderr and stores it in the results' "warnings" array; nothing here prints
 * except gb_openblas_core_auto's one line before it re-executes. */
#ifndef GB_SANITY_H
#define GB_SANITY_H
#include <cjson/cJSON.h>

/* Inspect the provenance in context (cpu.isa, cpu.logical_cpus,
 * libraries.openblas.core, cpu_threads_used ...) and the machine (governor,
 * load) and append one string per problem to warnings. Returns the count. */
int gb_sanity_check(const cJSON *context, cJSON *warnings);
/* The two halves of gb_sanity_check, for callers (and tests) that want one:
 * checks of the provenance only (OpenBLAS core vs ISA, thread counts), and
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
int gb_sanity_check_ceilings(const cJSON *results, cJSON *warnings);
/* The OpenBLAS core to ask for when `core` (openblas_get_corename()) uses an
 * older ISA than the CPU's isa flags (context spelling), given the library's
 * openblas_get_config() string; NULL when core is already the best. */
const char *gb_openblas_recommended_core(const cJSON *isa, const char *config, const char *core);
/* --openblas-core auto: if OpenBLAS runs a core older than the CPU supports,
 * set OPENBLAS_CORETYPE to the right value and re-execute this process
 * (argv as given; an environment marker stops a second re-exec). Returns 0
 * when nothing needed changing; non-zero with a message in why when re-exec
 * failed, or when, after it, OpenBLAS still runs another core than asked. */
int gb_openblas_core_auto(char **argv, char *why, unsigned long why_len);
#endif
