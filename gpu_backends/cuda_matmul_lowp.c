/* cuda_matmul_lowp.c — matmul and batched_matmul in bfloat16, float16,
 * float8_e4m3 and int8 on the tensor cores, through cublasLtMatmul
 * (cuda_matmul.c hands these dtypes here; float32/float64 stay with
 * cublas?gemm). The algorithm: the heuristic's first ALGO_CANDIDATES answers,
 * each timed in prepare (untimed for the result: best of ALGO_REPS after a
 * warm-up), the fastest kept — the heuristic's first answer ran 12-16%
 * behind PyTorch's cublasGemmEx at 8192 on an H200 (docs/precision.md).
 * The chosen configuration is the result's extra.plan (compare flags a
 * changed plan), its id extra.algo_id.
 *
 * Types (what PyTorch's torch.matmul / torch._scaled_mm compute):
 *   bfloat16, float16: C in the input type, CUBLAS_COMPUTE_32F (float32
 *     accumulate), scale type float32;
 *   float8_e4m3: E4M3 × E4M3 → float32 C, CUBLAS_COMPUTE_32F, per-tensor
 *     scales of 1.0 (the inputs are uniform [-1, 1) and fit E4M3 unscaled)
 *     passed as cuBLASLt's A/B scale pointers (device floats), as
 *     torch._scaled_mm does; where every candidate refuses the product with
 *     them set (cuBLASLt 13.0 on an H200 did once), prepare tries again
 *     without (scales of 1 are the identity) and the result says which;
 *     compute capability 8.9 or later, skipped before;
 *   int8: s8 × s8 → int32 C, CUBLAS_COMPUTE_32I (IMMA).
 * Layout: as cuda_matmul.c, row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ.
 * float8 and int8 kernels exist only for the "TN" form (cuBLASLt's
 * documented restriction: the first operand transposed), so for them B is
 * transposed once in prepare, untimed — the layout inference keeps its
 * weights in (PyTorch's nn.Linear stores W as out×in, k-contiguous) — and
 * the result says so. */
#include <stdio.h>
#include <stdlib.h>
#include <cublasLt.h>

#include "cuda_common.h"
#include "cuda_matmul_lowp.h"

#define WORKSPACE_BYTES (32u << 20) /* cuBLASLt's recommendation for Hopper */
#define ALGO_CANDIDATES 8
#define ALGO_REPS 3

struct gb_cuda_lowp {
    gb_dtype dtype;
    int m, k, n, batch, tn, algo_id, tried, scales_passed;
    float tried_ms[ALGO_CANDIDATES]; /* each candidate's best time in prepare; < 0: refused */
    char plan[96];                   /* the chosen configuration (extra.plan) */
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulHeuristicResult_t heur;
    const void *A, *B; /* device inputs as uploaded (row-major) */
    void *Bt;          /* TN: B transposed (n×k row-major), made in prepare */
    void *C, *work;
    float *scales; /* float8: device floats {a_scale, b_scale} = {1, 1} */
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

/* The heuristic's first ALGO_CANDIDATES answers for the descriptors of s. */
static cublasStatus_t heuristic(gb_cuda_lowp *s, cublasLtMatmulHeuristicResult_t *cand, int *found) {
    cublasLtMatmulPreference_t pref = NULL;
    cublasStatus_t rc = cublasLtMatmulPreferenceCreate(&pref);
    if (rc != CUBLAS_STATUS_SUCCESS) return rc;
    size_t ws = WORKSPACE_BYTES;
    *found = 0;
    rc = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (rc == CUBLAS_STATUS_SUCCESS)
        rc = cublasLtMatmulAlgoGetHeuristic(s->lt, s->desc, s->la, s->lb, s->lc, s->lc, pref, ALGO_CANDIDATES, cand,
                                            found);
    cublasLtMatmulPreferenceDestroy(pref);
    return rc;
}

static cublasStatus_t issue_with(gb_cuda_lowp *s, const cublasLtMatmulAlgo_t *algo) {
    const float onef = 1.0f, zerof = 0.0f;
    const int32_t onei = 1, zeroi = 0;
    int integer = s->dtype == GB_INT8;
    return cublasLtMatmul(s->lt, s->desc, integer ? (const void *)&onei : (const void *)&onef, s->tn ? s->Bt : s->B,
                          s->la, s->A, s->lb, integer ? (const void *)&zeroi : (const void *)&zerof, s->C, s->lc, s->C,
                          s->lc, algo, s->work, WORKSPACE_BYTES, gb_cuda.stream);
}

/* Each candidate: one warm-up, then the best of ALGO_REPS timed with events
 * on the backend's stream; the index of the fastest, -1 when every one was
 * refused. A candidate the heuristic offers may still refuse the matmul. */
static int pick_fastest(gb_cuda_lowp *s, const cublasLtMatmulHeuristicResult_t *cand, int found) {
    cudaEvent_t t0, t1;
    if (cudaEventCreate(&t0) != cudaSuccess) return found > 0 && issue_with(s, &cand[0].algo) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
    if (cudaEventCreate(&t1) != cudaSuccess) {
        cudaEventDestroy(t0);
        return -1;
    }
    int best = -1;
    float best_ms = 0;
    s->tried = found;
    for (int i = 0; i < found; i++) {
        float ms = -1;
        if (issue_with(s, &cand[i].algo) == CUBLAS_STATUS_SUCCESS && cudaStreamSynchronize(gb_cuda.stream) == cudaSuccess) {
            for (int r = 0; r < ALGO_REPS; r++) {
                float t = 0;
                cudaEventRecord(t0, gb_cuda.stream);
                cublasStatus_t rc = issue_with(s, &cand[i].algo);
                cudaEventRecord(t1, gb_cuda.stream);
                if (rc != CUBLAS_STATUS_SUCCESS || cudaEventSynchronize(t1) != cudaSuccess ||
                    cudaEventElapsedTime(&t, t0, t1) != cudaSuccess)
                    break;
                if (ms < 0 || t < ms) ms = t;
            }
        }
        (void)cudaGetLastError(); /* a refused candidate leaves no sticky error: clear what it set */
        s->tried_ms[i] = ms;
        if (ms >= 0 && (best < 0 || ms < best_ms)) best = i, best_ms = ms;
    }
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    return best;
}

/* extra.plan: the chosen algorithm's id and configuration, which a
 * changed plan between two runs shows. */
static void describe_algo(gb_cuda_lowp *s) {
    int32_t tile = -1, stages = -1, splitk = -1, swizzle = -1, custom = -1;
    uint32_t red = 0;
    size_t got = 0;
    const cublasLtMatmulAlgo_t *a = &s->heur.algo;
    s->algo_id = -1;
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_ID, &s->algo_id, sizeof s->algo_id, &got);
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &got);
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &got);
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &got);
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof red, &got);
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle, &got);
    (void)cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof custom, &got);
    snprintf(s->plan, sizeof s->plan, "cublaslt:algo=%d,tile=%d,stages=%d,splitk=%d,red=%u,swizzle=%d,custom=%d",
             s->algo_id, tile, stages, splitk, red, swizzle, custom);
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
    if (c->dtype == GB_FLOAT8_E4M3) {
        const float ones[2] = {1.0f, 1.0f};
        CUDA_TRY(cudaMalloc((void **)&s->scales, sizeof ones));
        CUDA_TRY(cudaMemcpy(s->scales, ones, sizeof ones, cudaMemcpyHostToDevice));
        const float *pa = s->scales, *pb = s->scales + 1;
        CUBLAS_TRY(cublasLtMatmulDescSetAttribute(s->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &pa, sizeof pa));
        CUBLAS_TRY(cublasLtMatmulDescSetAttribute(s->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &pb, sizeof pb));
        s->scales_passed = 1;
    }
    /* Cᵀ (n×m) = opA(first) · Bᵀ-as-col-major: first = our B (n×k col-major,
     * ld n) or, TN, its transpose stored k×n col-major (ld k) and read
     * transposed; second = our A, k×m col-major (ld k). */
    long long sk = (long long)s->k;
    if (s->tn) CUBLAS_TRY(layout(&s->la, tin, s->k, s->n, s->k, batch, sk * s->n));
    else CUBLAS_TRY(layout(&s->la, tin, s->n, s->k, s->n, batch, sk * s->n));
    CUBLAS_TRY(layout(&s->lb, tin, s->k, s->m, s->k, batch, sk * s->m));
    CUBLAS_TRY(layout(&s->lc, tout, s->n, s->m, s->n, batch, (long long)s->n * s->m));
    cublasLtMatmulHeuristicResult_t cand[ALGO_CANDIDATES];
    int found = 0;
    cublasStatus_t rc = heuristic(s, cand, &found);
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
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream)); /* the transposition, before any timing */
    int best = pick_fastest(s, cand, found);
    if (best < 0 && s->scales_passed) {
        /* every candidate refused with the scale pointers set: again
         * without them (scales of 1 are the identity) */
        void *none = NULL;
        CUBLAS_TRY(cublasLtMatmulDescSetAttribute(s->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &none, sizeof none));
        CUBLAS_TRY(cublasLtMatmulDescSetAttribute(s->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &none, sizeof none));
        s->scales_passed = 0;
        rc = heuristic(s, cand, &found);
        best = rc == CUBLAS_STATUS_SUCCESS && found ? pick_fastest(s, cand, found) : -1;
    }
    if (best < 0) {
        status = gb_errf(e, GB_SKIP, "cuBLASLt offered %d %s algorithm(s) for %dx%dx%d on %s and refused each",
                         found, gb_dtype_name(c->dtype), s->m, s->k, s->n, gb_cuda.prop.name);
        goto fail;
    }
    s->heur = cand[best];
    describe_algo(s);
    /* the candidates wrote C: poison it again (as gb_cuda_io_output did), so
     * that an element the kept algorithm fails to write still fails the check */
    size_t out_bytes = b * (size_t)s->m * (size_t)s->n * gb_elem_size(gb_gemm_out_elem(c->dtype));
    CUDA_TRY(cudaMemsetAsync(s->C, 0xff, out_bytes, gb_cuda.stream));
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
    *out = s;
    return GB_OK;
fail:
    gb_cuda_lowp_release(s);
    return status;
}

int gb_cuda_lowp_issue(gb_cuda_lowp *s, gb_err *e) {
    int status = GB_OK;
    CUBLAS_TRY(issue_with(s, &s->heur.algo));
    return GB_OK;
fail:
    return status;
}

void gb_cuda_lowp_annotate(const gb_cuda_lowp *s, cJSON *extra) {
    cJSON_AddStringToObject(extra, "library", "cublaslt");
    cJSON_AddStringToObject(extra, "routine", "cublasLtMatmul");
    cJSON_AddNumberToObject(extra, "algo_id", s->algo_id);
    cJSON_AddStringToObject(extra, "plan", s->plan);
    cJSON *ms = cJSON_AddArrayToObject(extra, "algo_candidates_ms"); /* the heuristic's order; -1: refused */
    for (int i = 0; ms && i < s->tried; i++) cJSON_AddItemToArray(ms, cJSON_CreateNumber(s->tried_ms[i]));
    cJSON_AddNumberToObject(extra, "workspace_bytes", WORKSPACE_BYTES);
    if (s->tn)
        cJSON_AddStringToObject(extra, "b_layout", "transposed once in prepare (k-contiguous, untimed): TN is the only "
                                                   "form cuBLASLt has float8/int8 kernels for");
    if (s->dtype == GB_FLOAT8_E4M3) {
        cJSON_AddNumberToObject(extra, "a_scale", 1.0);
        cJSON_AddNumberToObject(extra, "b_scale", 1.0);
        cJSON_AddStringToObject(extra, "scales_passed",
                                s->scales_passed ? "yes: A/B scale pointers (device floats)"
                                                 : "no: every algorithm refused the matmul with scale pointers set; "
                                                   "scales of 1 are the identity");
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
    cudaFree(s->scales);
    free(s);
}
