/* cuda_matmul_lowp.c — matmul and batched_matmul in bfloat16, float16,
 * float8_e4m3 and int8 on the tensor cores, through cublasLtMatmul with the
 * algorithm its heuristic ranks first (cuda_matmul.c hands these dtypes
 * here; float32/float64 stay with cublas?gemm).
 *
 * Types (what PyTorch's torch.matmul / torch._scaled_mm compute):
 *   bfloat16, float16: C in the input type, CUBLAS_COMPUTE_32F (float32
 *     accumulate), scale type float32;
 *   float8_e4m3: E4M3 × E4M3 → float32 C, CUBLAS_COMPUTE_32F, per-tensor
 *     scales of 1.0 (the inputs are uniform [-1, 1) and fit E4M3 unscaled)
 *     recorded in the result, not passed to cuBLASLt (see prepare); compute
 *     capability 8.9 or later, skipped before;
 *   int8: s8 × s8 → int32 C, CUBLAS_COMPUTE_32I (IMMA).
 * Layout: as cuda_matmul.c, row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ.
 * float8 and int8 kernels exist only for the "TN" form (cuBLASLt's
 * documented restriction: the first operand transposed), so for them B is
 * transposed once in prepare, untimed — the layout inference keeps its
 * weights in (PyTorch's nn.Linear stores W as out×in, k-contiguous) — and
 * the result says so. */
#include <stdlib.h>
#include <cublasLt.h>

#include "cuda_common.h"
#include "cuda_matmul_lowp.h"

#define WORKSPACE_BYTES (32u << 20) /* cuBLASLt's recommendation for Hopper */

struct gb_cuda_lowp {
    gb_dtype dtype;
    int m, k, n, batch, tn, algo_id;
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulHeuristicResult_t heur;
    const void *A, *B; /* device inputs as uploaded (row-major) */
    void *Bt;          /* TN: B transposed (n×k row-major), made in prepare */
    void *C, *work;
};

static int is_tn(gb_dtype d) { return d == GB_FLOAT8_E4M3 || d == GB_INT8; }

int gb_cuda_lowp_supports(const gb_case *c, gb_err *why) {
    if (c->dtype == GB_FLOAT8_E4M3 && (gb_cuda.prop.major * 10 + gb_cuda.prop.minor) < 89)
        return gb_errf(why, GB_SKIP, "float8 GEMM needs compute capability 8.9 or later (Ada, Hopper); %s is %d.%d",
                       gb_cuda.prop.name, gb_cuda.prop.major, gb_cuda.prop.minor);
    double m = (double)c->shape[0], k = (double)c->shape[1], n = (double)c->shape[2];
    double b = c->op_id == GB_OP_BATCHED_MATMUL ? c->params.batch : 1, in = (double)gb_dtype_size(c->dtype);
    double out = (double)gb_elem_size(gb_gemm_out_elem(c->dtype));
    double bytes = b * ((m * k + k * n) * in + m * n * out) + (is_tn(c->dtype) ? b * k * n * in : 0) + WORKSPACE_BYTES;
    return gb_cuda_fits(bytes, why);
}

static void types_of(gb_dtype d, cudaDataType *in, cudaDataType *out, cublasComputeType_t *comp, cudaDataType *scale) {
    *comp = CUBLAS_COMPUTE_32F;
    *scale = CUDA_R_32F;
    switch (d) {
    case GB_BFLOAT16: *in = *out = CUDA_R_16BF; break;
    case GB_FLOAT16: *in = *out = CUDA_R_16F; break;
    case GB_FLOAT8_E4M3: *in = CUDA_R_8F_E4M3; *out = CUDA_R_32F; break;
    default: *in = CUDA_R_8I; *out = CUDA_R_32I; *comp = CUBLAS_COMPUTE_32I; *scale = CUDA_R_32I; break;
    }
}

/* One column-major layout, with its batch when batched. */
static cublasStatus_t layout(cublasLtMatrixLayout_t *l, cudaDataType t, int rows, int cols, int ld, int batch,
                             long long stride) {
    cublasStatus_t rc = cublasLtMatrixLayoutCreate(l, t, (uint64_t)rows, (uint64_t)cols, ld);
    if (rc != CUBLAS_STATUS_SUCCESS || !batch) return rc;
    int32_t count = batch;
    int64_t off = stride;
    rc = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    if (rc == CUBLAS_STATUS_SUCCESS)
        rc = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &off, sizeof off);
    return rc;
}

int gb_cuda_lowp_prepare(const gb_case *c, int batch, const void *dA, const void *dB, void *dC, gb_cuda_lowp **out,
                         gb_err *e) {
    int status = GB_OK;
    gb_cuda_lowp *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->m = (int)c->shape[0];
    s->k = (int)c->shape[1];
    s->n = (int)c->shape[2];
    s->batch = batch;
    s->tn = is_tn(c->dtype);
    s->A = dA;
    s->B = dB;
    s->C = dC;
    size_t b = batch ? (size_t)batch : 1;
    cudaDataType tin, tout, tscale;
    cublasComputeType_t comp;
    types_of(c->dtype, &tin, &tout, &comp, &tscale);
    CUBLAS_TRY(cublasLtCreate(&s->lt));
    CUDA_TRY(cudaMalloc(&s->work, WORKSPACE_BYTES));
    if (s->tn) {
        CUDA_TRY(cudaMalloc(&s->Bt, b * (size_t)s->k * (size_t)s->n));
        status = gb_cuda_transpose_bytes(dB, s->Bt, (size_t)s->k, (size_t)s->n, b, e);
        if (status != GB_OK) goto fail;
    }
    CUBLAS_TRY(cublasLtMatmulDescCreate(&s->desc, comp, tscale));
    cublasOperation_t opa = s->tn ? CUBLAS_OP_T : CUBLAS_OP_N, opb = CUBLAS_OP_N;
    CUBLAS_TRY(cublasLtMatmulDescSetAttribute(s->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa));
    CUBLAS_TRY(cublasLtMatmulDescSetAttribute(s->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb));
    /* float8's scales are 1.0 and are not handed to cuBLASLt: with
     * A_SCALE_POINTER and B_SCALE_POINTER set (device floats of 1.0),
     * cuBLASLt 13.0 on an H200 offered an algorithm and then refused every
     * cublasLtMatmul with NOT_SUPPORTED (E4M3 × E4M3 → float32 or bfloat16,
     * 64³ to 1024³); without them the same product runs. Scales of 1 are the
     * identity, so the product is the same either way. */
    /* Cᵀ (n×m) = opA(first) · Bᵀ-as-col-major: first = our B (n×k col-major,
     * ld n) or, TN, its transpose stored k×n col-major (ld k) and read
     * transposed; second = our A, k×m col-major (ld k). */
    long long sk = (long long)s->k;
    if (s->tn) CUBLAS_TRY(layout(&s->la, tin, s->k, s->n, s->k, batch, sk * s->n));
    else CUBLAS_TRY(layout(&s->la, tin, s->n, s->k, s->n, batch, sk * s->n));
    CUBLAS_TRY(layout(&s->lb, tin, s->k, s->m, s->k, batch, sk * s->m));
    CUBLAS_TRY(layout(&s->lc, tout, s->n, s->m, s->n, batch, (long long)s->n * s->m));
    cublasLtMatmulPreference_t pref = NULL;
    CUBLAS_TRY(cublasLtMatmulPreferenceCreate(&pref));
    size_t ws = WORKSPACE_BYTES;
    int found = 0;
    cublasStatus_t rc = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (rc == CUBLAS_STATUS_SUCCESS)
        rc = cublasLtMatmulAlgoGetHeuristic(s->lt, s->desc, s->la, s->lb, s->lc, s->lc, pref, 1, &s->heur, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    /* The heuristic's refusals (NOT_SUPPORTED, or INVALID_VALUE for a
     * layout a type does not allow: float8/int8 want leading dimensions
     * that are multiples of 16 bytes) mean no kernel for this shape: a skip
     * naming the status, not a failed run. */
    if (rc != CUBLAS_STATUS_SUCCESS || found == 0) {
        status = gb_errf(e, GB_SKIP, "cuBLASLt has no %s kernel for %dx%dx%d on %s (heuristic: %s)",
                         gb_dtype_name(c->dtype), s->m, s->k, s->n, gb_cuda.prop.name,
                         rc != CUBLAS_STATUS_SUCCESS ? cublasGetStatusString(rc) : "no algorithm");
        goto fail;
    }
    size_t got = 0;
    s->algo_id = -1;
    (void)cublasLtMatmulAlgoConfigGetAttribute(&s->heur.algo, CUBLASLT_ALGO_CONFIG_ID, &s->algo_id, sizeof s->algo_id, &got);
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream)); /* the transposition, before any timing */
    *out = s;
    return GB_OK;
fail:
    gb_cuda_lowp_release(s);
    return status;
}

int gb_cuda_lowp_issue(gb_cuda_lowp *s, gb_err *e) {
    int status = GB_OK;
    const float onef = 1.0f, zerof = 0.0f;
    const int32_t onei = 1, zeroi = 0;
    int integer = s->dtype == GB_INT8;
    CUBLAS_TRY(cublasLtMatmul(s->lt, s->desc, integer ? (const void *)&onei : (const void *)&onef,
                              s->tn ? s->Bt : s->B, s->la, s->A, s->lb,
                              integer ? (const void *)&zeroi : (const void *)&zerof, s->C, s->lc, s->C, s->lc,
                              &s->heur.algo, s->work, WORKSPACE_BYTES, gb_cuda.stream));
    return GB_OK;
fail:
    return status;
}

void gb_cuda_lowp_annotate(const gb_cuda_lowp *s, cJSON *extra) {
    cJSON_AddStringToObject(extra, "library", "cublaslt");
    cJSON_AddStringToObject(extra, "routine", "cublasLtMatmul");
    cJSON_AddNumberToObject(extra, "algo_id", s->algo_id);
    cJSON_AddNumberToObject(extra, "workspace_bytes", WORKSPACE_BYTES);
    if (s->tn)
        cJSON_AddStringToObject(extra, "b_layout", "transposed once in prepare (k-contiguous, untimed): TN is the only "
                                                   "form cuBLASLt has float8/int8 kernels for");
    if (s->dtype == GB_FLOAT8_E4M3) {
        cJSON_AddNumberToObject(extra, "a_scale", 1.0);
        cJSON_AddNumberToObject(extra, "b_scale", 1.0);
        cJSON_AddStringToObject(extra, "scales_passed", "no: scales of 1 are the identity, and cuBLASLt 13.0 refused "
                                                        "the matmul with scale pointers set");
    }
}

void gb_cuda_lowp_release(gb_cuda_lowp *s) {
    if (!s) return;
    if (s->la) cublasLtMatrixLayoutDestroy(s->la);
    if (s->lb) cublasLtMatrixLayoutDestroy(s->lb);
    if (s->lc) cublasLtMatrixLayoutDestroy(s->lc);
    if (s->desc) cublasLtMatmulDescDestroy(s->desc);
    if (s->lt) cublasLtDestroy(s->lt);
    cudaFree(s->work);
    cudaFree(s->Bt);
    free(s);
}
