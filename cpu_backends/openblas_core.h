/* openblas_core.h — which OpenBLAS kernels ("core") the CPU side runs.
 *
 * OpenBLAS's DYNAMIC_ARCH builds pick their kernels from the CPU at load
 * time, and old releases mis-detect new CPUs: Debian 12's 0.3.21 runs its
 * Prescott (SSE) kernels on the H100 host's AVX-512/AMX Xeon, five times
 * slower at GEMM. gpubench therefore runs the best core this CPU supports
 * unless someone chose otherwise (docs/usage.md "Honest by default"):
 *
 *   who chose       when                                      what runs
 *   "openblas"      nothing set, detection already right,     what OpenBLAS detected
 *                   or --openblas-core detected
 *   "gpubench"      nothing set and OpenBLAS detected a core  the best core for the ISA
 *                   older than the CPU (or --openblas-core auto)
 *   "environment"   OPENBLAS_CORETYPE set (by the user or     that core, with a warning
 *                   an image's preset)                        when it is older than the CPU
 *                   (a name OpenBLAS does not take counts as
 *                   nothing set, with a warning naming it)
 *   "flag"          --openblas-core NAME                      that core, likewise
 *
 * OpenBLAS reads OPENBLAS_CORETYPE only when it loads, so a change means
 * re-executing the process (cpu_environment.c does it, once). */
#ifndef GB_OPENBLAS_CORE_H
#define GB_OPENBLAS_CORE_H
#include <cjson/cJSON.h>

/* The core to ask for when `core` (openblas_get_corename()) uses an older
 * ISA than the CPU's isa flags (context spelling: "avx2", "avx512f",
 * "avx512_bf16", "amx_tile"), given the library's openblas_get_config()
 * string; NULL when core is already the best or unknown. */
const char *gb_openblas_recommended_core(const cJSON *isa, const char *config, const char *core);
/* The best core for this machine's CPU (from /proc/cpuinfo) and this
 * OpenBLAS; NULL when no core is known for it (another architecture). */
const char *gb_openblas_best_core_here(void);
/* "AVX-512 (and AMX)", ...: the CPU's ISA level in words. */
const char *gb_openblas_isa_text(const cJSON *isa);

/* Who chose the core this process runs (table above). */
const char *gb_openblas_core_chosen_by(void);
void gb_openblas_set_core_chosen_by(const char *who);

/* OPENBLAS_CORETYPE's value when OpenBLAS did not take it (an unknown name,
 * or a core this build lacks: OpenBLAS then silently runs what it detects),
 * so that the run neither records "environment" as who chose nor keeps quiet
 * about it; NULL when it was taken or not set. */
const char *gb_openblas_ignored_env(void);
void gb_openblas_set_ignored_env(const char *name);

/* Append a warning when the core recorded in context is older than the
 * CPU: it names the core, who chose it (and so where to change it) and the
 * flag that overrides it. Returns the number of warnings added. */
int gb_openblas_check(const cJSON *context, cJSON *warnings);
#endif
