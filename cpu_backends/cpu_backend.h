/* cpu_backend.h — shared by the CPU backend's op files. */
#ifndef GB_CPU_BACKEND_H
#define GB_CPU_BACKEND_H
#include "backend.h"
#include "op_id.h"

/* The implementation of op op_id (GB_OP_*); NULL when there is no such op. */
const gb_op_impl *gb_cpu_op_impl(int op_id);

/* Threads the CPU backend uses (from --threads; default all cores). Ops set
 * their library's thread count from this (OpenBLAS, FFTW, GraphBLAS, OpenMP). */
int gb_cpu_threads(void);
/* Set by the backend's init (cpu_threads.c: apart from cpu_backend.c, which
 * calls every op file, so that an op file reading it depends on no caller). */
void gb_cpu_set_threads(int n);

/* What OpenBLAS detected by itself when gpubench chose another core (NULL
 * when not known: OPENBLAS_CORETYPE was set before gpubench started). */
const char *gb_cpu_openblas_detected_core(void);

/* Honest-numbers hooks (cpu_peak.c, cpu_flush.c, cpu_health.c): measured
 * ceilings, cold-cache flush, read-only health; sum of all last-level caches. */
int gb_cpu_measure_peaks(cJSON *peaks, gb_err *e);
void gb_cpu_flush_caches(void);
void gb_cpu_health(cJSON *health);
size_t gb_cpu_llc_bytes(void);

/* The per-op implementations (one file each), as the table of ops names
 * them (src/ops/ops.def, column cpu). Each op times one repetition with the
 * host monotonic clock (gb_now() in src/core/timer.h). */
#define GB_OP(ID, name, cpu, cuda) extern const gb_op_impl cpu;
#include "ops.def"
#endif
