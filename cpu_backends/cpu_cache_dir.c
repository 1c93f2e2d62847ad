/* cpu_cache_dir.c — the folder where the CPU side keeps what it measured once
 * (cpu_backend.h). Apart from cpu_backend.c, which calls every op file, so
 * that the op files reading it (cpu_fft.c, cpu_gemm_choice.c) depend on no
 * caller of theirs. */
#include "cpu_backend.h"

/* The folder is the project's (core: gb_cache_dir); the kept ceilings of
 * every backend live there too (run/peaks_kept.c). */
const char *gb_cpu_cache_dir(char *buf, size_t len) { return gb_cache_dir(buf, len); }
