/* cuda_matmul_lowp.h — the tensor-core GEMM in bfloat16, float16,
 * float8_e4m3 and int8 through cuBLASLt (cuda_matmul_lowp.c). */
#ifndef GB_CUDA_MATMUL_LOWP_H
#define GB_CUDA_MATMUL_LOWP_H

#include <cjson/cJSON.h>
#include "gb.h"

typedef struct gb_cuda_lowp gb_cuda_lowp;

int gb_cuda_lowp_supports(const gb_case *c, gb_err *why);
/* On the current device: C = A·B (batch > 0: batch products) on device
 * arrays, row-major; the algorithm chosen by cuBLASLt's heuristic here. */
int gb_cuda_lowp_prepare(const gb_case *c, int batch, const void *dA, const void *dB, void *dC, gb_cuda_lowp **out,
                         gb_err *e);
/* One product, issued on the backend's stream (not waited for). */
int gb_cuda_lowp_issue(gb_cuda_lowp *s, gb_err *e);
void gb_cuda_lowp_annotate(const gb_cuda_lowp *s, cJSON *extra);
void gb_cuda_lowp_release(gb_cuda_lowp *s);

#endif
