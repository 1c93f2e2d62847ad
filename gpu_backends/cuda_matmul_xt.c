/* cuda_matmul_xt.c — C = A·B by cuBLASXt (cublasXt?gemm) over the first
 * `gpus` devices of --devices, row-major as matmul (C^T = B^T·A^T in
 * cuBLAS's column-major, see cuda_matmul.c).
 *
 * cuBLASXt takes host pointers and tiles the product over the devices,
 * streaming blocks of A, B and C through each one, so the operands may be
 * larger than one GPU's memory (the out-of-core case): nothing here asks
 * for device memory. The operands are page-locked copies (prepare), the
 * way a user who cares about speed hands them over; `block` sets the tile
 * edge (cublasXtSetBlockDim), 0 leaves the library's default.
 *
 * A repetition: the call, which returns when C is back in host memory.
 * Both timings are that call on the host clock (cuda_multigpu.c): with host
 * operands there is no separate upload to leave out. */
#include <stdlib.h>
#include <string.h>
#include <cublasXt.h>

#include "cuda_common.h"
#include "timer.h"

typedef struct {
    cublasXtHandle_t xt;
    gb_dtype dtype;
    size_t m, k, n, esz;
    int gpus, block;
    int ids[GB_MAX_DEVICES];
    void *A, *B, *C;        /* page-locked host operands */
} xt_state;

static int xt_supports(const gb_case *c, gb_err *why) {
    return gb_cuda_multigpu_supports(c, 1, "cuBLASXt", why);
}

static void xt_release(void *state) {
    xt_state *s = state;
    if (!s) return;
    if (s->xt) (void)cublasXtDestroy(s->xt);
    if (s->A) cudaFreeHost(s->A);
    if (s->B) cudaFreeHost(s->B);
    if (s->C) cudaFreeHost(s->C);
    (void)cudaSetDevice(gb_cuda.device);
    free(s);
}

static int xt_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    xt_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->m = (size_t)c->shape[0];
    s->k = (size_t)c->shape[1];
    s->n = (size_t)c->shape[2];
    s->esz = gb_elem_size(gb_real_elem(c->dtype));
    s->gpus = c->params.gpus;
    s->block = c->params.block;
    gb_cuda_multigpu_ids(s->gpus, s->ids);
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    if (!A || !B) {
        status = gb_errf(e, GB_FAIL, "matmul_xt: inputs A and B expected");
        goto fail;
    }
    if ((status = gb_cuda_host_alloc(&s->A, s->m * s->k * s->esz, e)) != GB_OK) goto fail;
    if ((status = gb_cuda_host_alloc(&s->B, s->k * s->n * s->esz, e)) != GB_OK) goto fail;
    if ((status = gb_cuda_host_alloc(&s->C, s->m * s->n * s->esz, e)) != GB_OK) goto fail;
    memcpy(s->A, A->data, s->m * s->k * s->esz);
    memcpy(s->B, B->data, s->k * s->n * s->esz);
    memset(s->C, 0xff, s->m * s->n * s->esz); /* NaN: an element never written fails verification */
    CUBLAS_TRY(cublasXtCreate(&s->xt));
    CUBLAS_TRY(cublasXtDeviceSelect(s->xt, s->gpus, s->ids));
    if (s->block > 0) CUBLAS_TRY(cublasXtSetBlockDim(s->xt, s->block));
    CUDA_TRY(cudaSetDevice(gb_cuda.device));
    *state = s;
    return GB_OK;
fail:
    xt_release(s);
    return status;
}

static int xt_run(void *state, int timing, double *seconds, gb_err *e) {
    xt_state *s = state;
    int status = GB_OK;
    (void)timing; /* both timings are the same call: see the top of the file */
    double t0 = gb_now();
    if (s->dtype == GB_FLOAT32) {
        const float one = 1.0f, zero = 0.0f;
        CUBLAS_TRY(cublasXtSgemm(s->xt, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one, s->B, s->n, s->A,
                                 s->k, &zero, s->C, s->n));
    } else {
        const double one = 1.0, zero = 0.0;
        CUBLAS_TRY(cublasXtDgemm(s->xt, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one, s->B, s->n, s->A,
                                 s->k, &zero, s->C, s->n));
    }
    status = gb_cuda_multigpu_sync(s->gpus, s->ids, e);
    *seconds = gb_now() - t0;
fail:
    (void)cudaSetDevice(gb_cuda.device);
    return status;
}

static int xt_fetch(void *state, gb_arrays *out, gb_err *e) {
    xt_state *s = state;
    return gb_arrays_add_copy(out, "C", gb_real_elem(s->dtype), s->m * s->n, s->C, e) ? GB_OK : GB_FAIL;
}

static void xt_annotate(void *state, cJSON *extra) {
    xt_state *s = state;
    int dim = 0;
    cJSON_AddStringToObject(extra, "routine", s->dtype == GB_FLOAT32 ? "cublasXtSgemm" : "cublasXtDgemm");
    cJSON *ids = cJSON_AddArrayToObject(extra, "devices");
    for (int i = 0; i < s->gpus; i++) cJSON_AddItemToArray(ids, cJSON_CreateNumber(s->ids[i]));
    if (cublasXtGetBlockDim(s->xt, &dim) == CUBLAS_STATUS_SUCCESS) cJSON_AddNumberToObject(extra, "block_dim", dim);
    cJSON_AddStringToObject(extra, "operands", "host memory (page-locked); both timings: the call, host clock");
}

const gb_op_impl gb_cuda_matmul_xt = {
    .supports = xt_supports,
    .prepare = xt_prepare,
    .run = xt_run,
    .fetch = xt_fetch,
    .annotate = xt_annotate,
    .release = xt_release,
};
