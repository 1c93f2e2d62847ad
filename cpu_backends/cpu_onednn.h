/* cpu_onednn.h — the CPU GEMM through oneDNN's matmul primitive (cpu_onednn.c). */
#ifndef GB_CPU_ONEDNN_H
#define GB_CPU_ONEDNN_H

#include <cjson/cJSON.h>
#include "gb.h"

typedef struct gb_onednn_mm gb_onednn_mm;

/* GB_OK when oneDNN has a matmul kernel for c's dtype on this CPU; GB_SKIP
 * with the reason otherwise (float64, float8; float16 without AVX512-FP16). */
int gb_onednn_matmul_supports(const gb_case *c, gb_err *why);
/* A primitive computing C = A·B (batch > 0: batch products) on the given
 * arrays in place, row-major. */
int gb_onednn_matmul_prepare(const gb_case *c, int batch, const void *A, const void *B, void *C,
                             gb_onednn_mm **out, gb_err *e);
/* One execution, timed on the host clock (the stream is waited for). */
int gb_onednn_matmul_run(gb_onednn_mm *s, double *seconds, gb_err *e);
/* library, version, implementation ("brg:avx512_core_bf16") and ISA, into extra. */
void gb_onednn_matmul_annotate(const gb_onednn_mm *s, cJSON *extra);
void gb_onednn_matmul_release(gb_onednn_mm *s);
/* oneDNN's effective ISA on this CPU ("avx512_core_amx"), and its version. */
const char *gb_onednn_isa_name(void);
const char *gb_onednn_version(char *buf, size_t len);

#endif
