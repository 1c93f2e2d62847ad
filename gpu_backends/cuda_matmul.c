/* cuda_matmul.c — C = A·B with cuBLAS ?gemm, row-major; and batched_matmul,
 * `batch` such products a fixed stride apart, with one
 * cublas?gemmStridedBatched call (one implementation serves both ops).
 *
 * cuBLAS is column-major. A row-major r×c matrix is the column-major c×r
 * matrix of its transpose, so instead of transposing anything we compute
 * C^T = B^T·A^T in column-major: gemm(N, N, n, m, k, B, ld=n, A, ld=k, C, ld=n).
 * The bytes of C^T column-major are exactly the bytes of C row-major. */
#include <limits.h>
#include <stdlib.h>

#include "cuda_common.h"
#include "cuda_matmul_lowp.h"
#include "precision.h"

typedef struct {
    gb_cuda_io io;
    gb_dtype dtype;
    int m, k, n;
    int batch;                /* 0: matmul, one ?gemm */
    int tf32;
    const void *A, *B;
    void *C;
    gb_cuda_lowp *lowp; /* bfloat16, float16, float8_e4m3, int8: cuBLASLt */
} matmul_state;

static int is_lowp(gb_dtype d) { return d != GB_FLOAT32 && d != GB_FLOAT64; }

static int matmul_supports(const gb_case *c, gb_err *why) {
    if (c->params.math == GB_MATH_TF32 && c->dtype != GB_FLOAT32)
        return gb_errf(why, GB_SKIP, "tf32 applies to float32 only");
    for (int i = 0; i < 3; i++)
        if (c->shape[i] > INT_MAX)
            return gb_errf(why, GB_SKIP, "dimension %lld exceeds cuBLAS's 32-bit int", (long long)c->shape[i]);
    if (is_lowp(c->dtype)) return gb_cuda_lowp_supports(c, why);
    double m = (double)c->shape[0], k = (double)c->shape[1], n = (double)c->shape[2];
    double elem = gb_dtype_size(c->dtype), b = c->op_id == GB_OP_BATCHED_MATMUL ? c->params.batch : 1;
    /* A, B, C; cuBLAS's own workspace is inside gb_cuda_fits's headroom. */
    return gb_cuda_fits(b * (m * k + k * n + m * n) * elem, why);
}

static int matmul_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    matmul_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->m = (int)c->shape[0];
    s->k = (int)c->shape[1];
    s->n = (int)c->shape[2];
    s->batch = c->op_id == GB_OP_BATCHED_MATMUL ? c->params.batch : 0;
    s->tf32 = c->params.math == GB_MATH_TF32;
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    if (!A || !B) {
        status = gb_errf(e, GB_FAIL, "matmul: inputs A and B expected");
        goto fail;
    }
    void *dA, *dB, *dC;
    status = gb_cuda_io_input(&s->io, A, &dA, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_input(&s->io, B, &dB, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_output(&s->io, "C", gb_gemm_out_elem(c->dtype),
                               (size_t)s->m * (size_t)s->n * (size_t)(s->batch ? s->batch : 1), &dC, e);
    if (status != GB_OK) goto fail;
    s->A = dA;
    s->B = dB;
    s->C = dC;
    if (is_lowp(c->dtype)) {
        status = gb_cuda_lowp_prepare(c, s->batch, dA, dB, dC, &s->lowp, e);
        if (status != GB_OK) goto fail;
    }
    *state = s;
    return GB_OK;
fail:
    gb_cuda_io_free(&s->io);
    free(s);
    return status;
}

static int matmul_issue(void *state, gb_err *e) {
    matmul_state *s = state;
    int status = GB_OK;
    if (s->lowp) return gb_cuda_lowp_issue(s->lowp, e);
    if (s->batch) {
        /* Product i: C_iᵀ = B_iᵀ·A_iᵀ, the same trick per product. */
        long long sa = (long long)s->m * s->k, sb = (long long)s->k * s->n, sc = (long long)s->m * s->n;
        if (s->dtype == GB_FLOAT32) {
            const float one = 1.0f, zero = 0.0f;
            CUBLAS_TRY(cublasSgemmStridedBatched(gb_cuda.cublas, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one,
                                                 s->B, s->n, sb, s->A, s->k, sa, &zero, s->C, s->n, sc, s->batch));
        } else {
            const double one = 1.0, zero = 0.0;
            CUBLAS_TRY(cublasDgemmStridedBatched(gb_cuda.cublas, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one,
                                                 s->B, s->n, sb, s->A, s->k, sa, &zero, s->C, s->n, sc, s->batch));
        }
    } else if (s->dtype == GB_FLOAT32) {
        const float one = 1.0f, zero = 0.0f;
        /* TF32 is chosen per case and the handle goes back to the default
         * (full FP32) right after, so no other case inherits it. Setting the
         * mode is a host-side flag, not device work. */
        if (s->tf32) CUBLAS_TRY(cublasSetMathMode(gb_cuda.cublas, CUBLAS_TF32_TENSOR_OP_MATH));
        cublasStatus_t rc = cublasSgemm(gb_cuda.cublas, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one,
                                        s->B, s->n, s->A, s->k, &zero, s->C, s->n);
        if (s->tf32) (void)cublasSetMathMode(gb_cuda.cublas, CUBLAS_DEFAULT_MATH);
        CUBLAS_TRY(rc);
    } else {
        const double one = 1.0, zero = 0.0;
        CUBLAS_TRY(cublasDgemm(gb_cuda.cublas, CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one, s->B,
                               s->n, s->A, s->k, &zero, s->C, s->n));
    }
    return GB_OK;
fail:
    return status;
}

static int matmul_run(void *state, int timing, double *seconds, gb_err *e) {
    matmul_state *s = state;
    return gb_cuda_time(&s->io, timing, matmul_issue, s, seconds, e);
}

static int matmul_fetch(void *state, gb_arrays *out, gb_err *e) {
    matmul_state *s = state;
    return gb_cuda_io_fetch(&s->io, out, e);
}

static void matmul_annotate(void *state, cJSON *extra) {
    matmul_state *s = state;
    gb_gemm_types_annotate(extra, s->dtype);
    if (s->lowp) {
        gb_cuda_lowp_annotate(s->lowp, extra);
        cJSON_AddStringToObject(extra, "layout", "row-major as C^T = B^T A^T column-major");
        return;
    }
    if (s->batch)
        cJSON_AddStringToObject(extra, "routine",
                                s->dtype == GB_FLOAT32 ? "cublasSgemmStridedBatched" : "cublasDgemmStridedBatched");
    else
        cJSON_AddStringToObject(extra, "routine", s->dtype == GB_FLOAT32 ? "cublasSgemm" : "cublasDgemm");
    cJSON_AddStringToObject(extra, "math", s->tf32 ? "tf32" : "default");
    cJSON_AddStringToObject(extra, "layout", "row-major as C^T = B^T A^T column-major");
}

static void matmul_release(void *state) {
    matmul_state *s = state;
    if (!s) return;
    gb_cuda_lowp_release(s->lowp);
    gb_cuda_io_free(&s->io);
    free(s);
}

const gb_op_impl gb_cuda_matmul = {
    .supports = matmul_supports,
    .prepare = matmul_prepare,
    .run = matmul_run,
    .fetch = matmul_fetch,
    .annotate = matmul_annotate,
    .release = matmul_release,
};
