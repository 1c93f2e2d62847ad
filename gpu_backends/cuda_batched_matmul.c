/* cuda_batched_matmul.c — batch independent products C_i = A_i·B_i with
 * one cuBLAS ?gemmStridedBatched call, row-major as matmul: each product is
 * computed as C_iᵀ = B_iᵀ·A_iᵀ in column-major (cuda_matmul.c explains why
 * the bytes come out right), the products a fixed stride apart. */
#include <limits.h>
#include <stdlib.h>

#include "cuda_common.h"

typedef struct {
    gb_cuda_io io;
    gb_dtype dtype;
    int m, k, n, batch;
    long long sa, sb, sc; /* strides between products, in elements */
    const void *A, *B;
    void *C;
} bmm_state;

static int bmm_supports(const gb_case *c, gb_err *why) {
    for (int i = 0; i < 3; i++)
        if (c->shape[i] > INT_MAX)
            return gb_errf(why, GB_SKIP, "dimension %lld exceeds cuBLAS's 32-bit int", (long long)c->shape[i]);
    double m = (double)c->shape[0], k = (double)c->shape[1], n = (double)c->shape[2], b = c->params.batch;
    return gb_cuda_fits(b * (m * k + k * n + m * n) * (c->dtype == GB_FLOAT32 ? 4 : 8), why);
}

static int bmm_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    bmm_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->m = (int)c->shape[0];
    s->k = (int)c->shape[1];
    s->n = (int)c->shape[2];
    s->batch = c->params.batch;
    s->sa = (long long)s->m * s->k;
    s->sb = (long long)s->k * s->n;
    s->sc = (long long)s->m * s->n;
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    void *dA, *dB, *dC;
    if (!A || !B) {
        status = gb_errf(e, GB_FAIL, "batched_matmul: inputs A and B expected");
        goto fail;
    }
    status = gb_cuda_io_input(&s->io, A, &dA, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_input(&s->io, B, &dB, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_output(&s->io, "C", gb_real_elem(c->dtype), (size_t)s->sc * (size_t)s->batch, &dC, e);
    if (status != GB_OK) goto fail;
    s->A = dA;
    s->B = dB;
    s->C = dC;
    *state = s;
    return GB_OK;
fail:
    gb_cuda_io_free(&s->io);
    free(s);
    return status;
}

static int bmm_issue(void *state, gb_err *e) {
    bmm_state *s = state;
    int status = GB_OK;
    if (s->dtype == GB_FLOAT32) {
        const float one = 1.0f, zero = 0.0f;
        CUBLAS_TRY(cublasSgemmStridedBatched(gb_cuda.cublas, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one,
                                             s->B, s->n, s->sb, s->A, s->k, s->sa, &zero, s->C, s->n, s->sc,
                                             s->batch));
    } else {
        const double one = 1.0, zero = 0.0;
        CUBLAS_TRY(cublasDgemmStridedBatched(gb_cuda.cublas, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one,
                                             s->B, s->n, s->sb, s->A, s->k, s->sa, &zero, s->C, s->n, s->sc,
                                             s->batch));
    }
fail:
    return status;
}

static int bmm_run(void *state, int timing, double *seconds, gb_err *e) {
    bmm_state *s = state;
    return gb_cuda_time(&s->io, timing, bmm_issue, s, seconds, e);
}

static int bmm_fetch(void *state, gb_arrays *out, gb_err *e) {
    bmm_state *s = state;
    return gb_cuda_io_fetch(&s->io, out, e);
}

static void bmm_annotate(void *state, cJSON *extra) {
    bmm_state *s = state;
    cJSON_AddStringToObject(extra, "routine",
                            s->dtype == GB_FLOAT32 ? "cublasSgemmStridedBatched" : "cublasDgemmStridedBatched");
    cJSON_AddStringToObject(extra, "layout", "row-major as C_i^T = B_i^T A_i^T column-major");
}

static void bmm_release(void *state) {
    bmm_state *s = state;
    if (!s) return;
    gb_cuda_io_free(&s->io);
    free(s);
}

const gb_op_impl gb_cuda_batched_matmul = {
    .supports = bmm_supports,
    .prepare = bmm_prepare,
    .run = bmm_run,
    .fetch = bmm_fetch,
    .annotate = bmm_annotate,
    .release = bmm_release,
};
