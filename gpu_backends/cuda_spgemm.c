/* cuda_spgemm.c — C = A·B for sparse CSR A and B (n×n, int32 indices) on
 * the GPU: cuSPARSE's generic SpGEMM (cusparseSpGEMM_workEstimation →
 * _compute → _copy) with CUSPARSE_SPGEMM_DEFAULT.
 *
 * What one rep is, as a user who multiplies two sparse matrices lives it:
 *   1. cudaFreeAsync the previous rep's C (rowptr, colind, values) and destroy
 *      its descriptor — a user replacing last product with a new one;
 *   2. cudaMallocFromPoolAsync C's rowptr and create the empty C descriptor;
 *   3. cusparseSpGEMM_createDescr; workEstimation (size query, allocate
 *      buffer1, again); compute (size query, allocate buffer2, again);
 *   4. cusparseSpMatGetSize → nnz(C), a host value; allocate C's colind and
 *      values; cusparseCsrSetPointers; cusparseSpGEMM_copy;
 *   5. cudaFreeAsync buffer1 and buffer2; cusparseSpGEMM_destroyDescr.
 * The output's size is only known after compute, so its allocation is part
 * of the operation; every allocation in a rep comes from the device's
 * default memory pool (gb_cuda.pool, stream ordered, release threshold
 * raised by the backend), never cudaMalloc.
 *
 * Host synchronization inside a rep is forced by the API: nnz(C) and the
 * buffer sizes are returned to the host, so cuSPARSE waits for the device
 * inside the size queries / compute before it returns them. The "device"
 * timing therefore also contains the host-side gaps between those waits and
 * the next launches — exactly what a user's SpGEMM costs. The previous C is
 * freed at the start of a rep (not at its end) so that the last rep's C is
 * still there for fetch; either order costs the same inside a rep.
 *
 * end_to_end: the generic gb_cuda_time uploads the six registered inputs
 * from their pinned mirrors, calls the issue function, and downloads
 * registered outputs. C's size is only known inside the rep, so C is not
 * registered: the end_to_end issue function is the product followed by D2H
 * copies of C into pinned buffers sized in prepare from an untimed first
 * product (the product of fixed inputs has a fixed nnz; a rep that finds a
 * different nnz fails loudly rather than overrun them). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_common.h"

typedef struct {
    gb_cuda_io io;           /* the six inputs; no registered outputs (see above) */
    int64_t n, nnz_a, nnz_b;
    size_t esz;
    gb_elem val_elem;
    cudaDataType vtype;
    union { float f; double d; } alpha, beta;
    void *a_rowptr, *a_colind, *a_val, *b_rowptr, *b_colind, *b_val; /* owned by io */
    cusparseSpMatDescr_t mat_a, mat_b;
    /* the last rep's product (pool allocations) */
    cusparseSpMatDescr_t mat_c;
    void *c_rowptr, *c_colind, *c_val;
    int64_t nnz_c;
    size_t buffer1_bytes, buffer2_bytes;  /* of the last rep, for annotate */
    /* pinned D2H targets for end_to_end, capacity from the first product */
    int32_t *h_rowptr, *h_colind;
    void *h_val;
    int64_t h_cap;
} spgemm_state;

/* Expected nnz of C = A·B for independent uniform patterns of density d:
 * C(i,j) is structurally non-zero unless all n products A(i,k)·B(k,j) are
 * absent, probability (1-d²)^n. */
static double expected_nnz_c(double n, double d) {
    return n * n * -expm1(n * log1p(-d * d));
}

static int spgemm_supports(const gb_case *c, gb_err *why) {
    double n = (double)c->shape[0], d = c->params.density;
    double esz = gb_dtype_bytes(c->dtype);
    double nnz_in = d * n * n;
    double nnz_c = expected_nnz_c(n, d);
    double products = n * (d * n) * (d * n);  /* expected intermediate products */
    if (nnz_c > (double)INT32_MAX)
        return gb_errf(why, GB_SKIP, "C would have about %.3g non-zeros; this op uses int32 CSR indices "
                       "(limit %d)", nnz_c, INT32_MAX);
    /* inputs; the output; and the SpGEMM buffers: CUSPARSE_SPGEMM_DEFAULT
     * (ALG1) keeps the intermediate products (an index and a value each) in
     * buffer2, which dominates. The real sizes are known after the first
     * product in prepare. */
    double bytes = 2.0 * ((n + 1) * 4 + nnz_in * (4 + esz))
                 + (n + 1) * 4 + nnz_c * (4 + esz)
                 + products * (4 + esz) + (n + 1) * 8;
    return gb_cuda_fits(bytes, why);
}

/* Free the pool allocations of the current C and its descriptor, stream
 * ordered. Checked: used inside the timed rep. */
static int free_c(spgemm_state *st, gb_err *e) {
    int status = GB_OK;
    cudaStream_t s = gb_cuda.stream;
    if (st->mat_c) {
        CUSPARSE_TRY(cusparseDestroySpMat(st->mat_c));
        st->mat_c = NULL;
    }
    if (st->c_rowptr) { CUDA_TRY(cudaFreeAsync(st->c_rowptr, s)); st->c_rowptr = NULL; }
    if (st->c_colind) { CUDA_TRY(cudaFreeAsync(st->c_colind, s)); st->c_colind = NULL; }
    if (st->c_val) { CUDA_TRY(cudaFreeAsync(st->c_val, s)); st->c_val = NULL; }
fail:
    return status;
}

/* The product as a user issues it (steps 1–5 in the header comment). */
static int spgemm_product(void *p, gb_err *e) {
    spgemm_state *st = p;
    int status = GB_OK;
    cudaStream_t s = gb_cuda.stream;
    cusparseHandle_t h = gb_cuda.cusparse;
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
    cusparseSpGEMMDescr_t desc = NULL;
    void *buf1 = NULL, *buf2 = NULL;
    size_t size1 = 0, size2 = 0;
    int64_t rows = 0, cols = 0, nnz = 0;

    status = free_c(st, e);
    if (status != GB_OK) goto fail;
    CUDA_TRY(cudaMallocFromPoolAsync(&st->c_rowptr, (size_t)(st->n + 1) * sizeof(int32_t), gb_cuda.pool, s));
    CUSPARSE_TRY(cusparseCreateCsr(&st->mat_c, st->n, st->n, 0, st->c_rowptr, NULL, NULL,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, st->vtype));
    CUSPARSE_TRY(cusparseSpGEMM_createDescr(&desc));

    CUSPARSE_TRY(cusparseSpGEMM_workEstimation(h, op, op, &st->alpha, st->mat_a, st->mat_b, &st->beta, st->mat_c,
                                               st->vtype, alg, desc, &size1, NULL));
    /* A NULL buffer means "size query", so a zero-byte answer still gets a
     * real (small) allocation. */
    CUDA_TRY(cudaMallocFromPoolAsync(&buf1, size1 ? size1 : 16, gb_cuda.pool, s));
    CUSPARSE_TRY(cusparseSpGEMM_workEstimation(h, op, op, &st->alpha, st->mat_a, st->mat_b, &st->beta, st->mat_c,
                                               st->vtype, alg, desc, &size1, buf1));

    CUSPARSE_TRY(cusparseSpGEMM_compute(h, op, op, &st->alpha, st->mat_a, st->mat_b, &st->beta, st->mat_c,
                                        st->vtype, alg, desc, &size2, NULL));
    CUDA_TRY(cudaMallocFromPoolAsync(&buf2, size2 ? size2 : 16, gb_cuda.pool, s));
    CUSPARSE_TRY(cusparseSpGEMM_compute(h, op, op, &st->alpha, st->mat_a, st->mat_b, &st->beta, st->mat_c,
                                        st->vtype, alg, desc, &size2, buf2));

    /* nnz(C) is a host value, filled in by compute. */
    CUSPARSE_TRY(cusparseSpMatGetSize(st->mat_c, &rows, &cols, &nnz));
    if (nnz < 0 || nnz > INT32_MAX) {
        status = gb_errf(e, GB_FAIL, "cusparseSpMatGetSize: nnz(C) = %lld does not fit int32 CSR indices",
                         (long long)nnz);
        goto fail;
    }
    st->nnz_c = nnz;
    CUDA_TRY(cudaMallocFromPoolAsync(&st->c_colind, (size_t)(nnz ? nnz : 1) * sizeof(int32_t), gb_cuda.pool, s));
    CUDA_TRY(cudaMallocFromPoolAsync(&st->c_val, (size_t)(nnz ? nnz : 1) * st->esz, gb_cuda.pool, s));
    CUSPARSE_TRY(cusparseCsrSetPointers(st->mat_c, st->c_rowptr, st->c_colind, st->c_val));
    CUSPARSE_TRY(cusparseSpGEMM_copy(h, op, op, &st->alpha, st->mat_a, st->mat_b, &st->beta, st->mat_c,
                                     st->vtype, alg, desc));

    CUDA_TRY(cudaFreeAsync(buf1, s));
    buf1 = NULL;
    CUDA_TRY(cudaFreeAsync(buf2, s));
    buf2 = NULL;
    CUSPARSE_TRY(cusparseSpGEMM_destroyDescr(desc));
    desc = NULL;
    st->buffer1_bytes = size1;
    st->buffer2_bytes = size2;
    return GB_OK;
fail:
    /* Best effort: the first error is the one reported. */
    if (buf1) (void)cudaFreeAsync(buf1, s);
    if (buf2) (void)cudaFreeAsync(buf2, s);
    if (desc) (void)cusparseSpGEMM_destroyDescr(desc);
    return status;
}

/* end_to_end: the product, then C back into the pinned buffers (the inputs'
 * H2D copies are gb_cuda_time's). */
static int spgemm_product_and_download(void *p, gb_err *e) {
    spgemm_state *st = p;
    int status = spgemm_product(p, e);
    if (status != GB_OK) return status;
    cudaStream_t s = gb_cuda.stream;
    if (st->nnz_c > st->h_cap)
        return gb_errf(e, GB_FAIL, "spgemm: nnz(C) = %lld in this rep, %lld in the first product; the pinned "
                       "output buffers were sized from the first", (long long)st->nnz_c, (long long)st->h_cap);
    CUDA_TRY(cudaMemcpyAsync(st->h_rowptr, st->c_rowptr, (size_t)(st->n + 1) * sizeof(int32_t),
                             cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaMemcpyAsync(st->h_colind, st->c_colind, (size_t)st->nnz_c * sizeof(int32_t),
                             cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaMemcpyAsync(st->h_val, st->c_val, (size_t)st->nnz_c * st->esz, cudaMemcpyDeviceToHost, s));
fail:
    return status;
}

static void spgemm_release(void *p) {
    spgemm_state *st = p;
    if (!st) return;
    gb_err ignored;
    (void)cudaStreamSynchronize(gb_cuda.stream);
    (void)free_c(st, &ignored);
    (void)cudaStreamSynchronize(gb_cuda.stream);
    if (st->mat_a) (void)cusparseDestroySpMat(st->mat_a);
    if (st->mat_b) (void)cusparseDestroySpMat(st->mat_b);
    if (st->h_rowptr) (void)cudaFreeHost(st->h_rowptr);
    if (st->h_colind) (void)cudaFreeHost(st->h_colind);
    if (st->h_val) (void)cudaFreeHost(st->h_val);
    gb_cuda_io_free(&st->io);
    free(st);
}

static int add_input(spgemm_state *st, const gb_arrays *in, const char *name, gb_elem elem, void **dev,
                     gb_err *e) {
    const gb_array *a = gb_arrays_find(in, name);
    if (!a) return gb_errf(e, GB_FAIL, "spgemm: input %s missing", name);
    if (a->elem != elem)
        return gb_errf(e, GB_FAIL, "spgemm: input %s has element type %d, expected %d", name, (int)a->elem,
                       (int)elem);
    return gb_cuda_io_input(&st->io, a, dev, e);
}

static int spgemm_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    *state = NULL;
    spgemm_state *st = calloc(1, sizeof *st);
    if (!st) return gb_errf(e, GB_SKIP, "spgemm: out of host memory for the plan");
    st->esz = gb_dtype_size(c->dtype);
    st->val_elem = gb_real_elem(c->dtype);
    st->vtype = gb_cuda_data_type(c->dtype);
    if (c->dtype == GB_FLOAT32) { st->alpha.f = 1.0f; st->beta.f = 0.0f; }
    else { st->alpha.d = 1.0; st->beta.d = 0.0; }

    const gb_array *arp = gb_arrays_find(in, "A_rowptr"), *aci = gb_arrays_find(in, "A_colind");
    const gb_array *brp = gb_arrays_find(in, "B_rowptr"), *bci = gb_arrays_find(in, "B_colind");
    if (!arp || !aci || !brp || !bci) {
        status = gb_errf(e, GB_FAIL, "spgemm: CSR inputs A_rowptr, A_colind, B_rowptr, B_colind expected");
        goto fail;
    }
    st->n = (int64_t)arp->count - 1;
    st->nnz_a = (int64_t)aci->count;
    st->nnz_b = (int64_t)bci->count;
    if (st->n != c->shape[0] || (int64_t)brp->count != st->n + 1) {
        status = gb_errf(e, GB_FAIL, "spgemm: A_rowptr has %zu entries and B_rowptr %zu; expected n+1 = %lld",
                         arp->count, brp->count, (long long)(c->shape[0] + 1));
        goto fail;
    }
    status = add_input(st, in, "A_rowptr", GB_E_I32, &st->a_rowptr, e);
    if (status == GB_OK) status = add_input(st, in, "A_colind", GB_E_I32, &st->a_colind, e);
    if (status == GB_OK) status = add_input(st, in, "A_val", st->val_elem, &st->a_val, e);
    if (status == GB_OK) status = add_input(st, in, "B_rowptr", GB_E_I32, &st->b_rowptr, e);
    if (status == GB_OK) status = add_input(st, in, "B_colind", GB_E_I32, &st->b_colind, e);
    if (status == GB_OK) status = add_input(st, in, "B_val", st->val_elem, &st->b_val, e);
    if (status != GB_OK) goto fail;

    CUSPARSE_TRY(cusparseCreateCsr(&st->mat_a, st->n, st->n, st->nnz_a, st->a_rowptr, st->a_colind, st->a_val,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, st->vtype));
    CUSPARSE_TRY(cusparseCreateCsr(&st->mat_b, st->n, st->n, st->nnz_b, st->b_rowptr, st->b_colind, st->b_val,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, st->vtype));

    /* One untimed product: learns nnz(C) for the pinned end_to_end buffers,
     * and fails here (not mid-measurement) if the buffers do not fit. */
    status = spgemm_product(st, e);
    if (status != GB_OK) goto fail;
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
    st->h_cap = st->nnz_c;
    size_t cap = (size_t)(st->h_cap ? st->h_cap : 1);
    CUDA_TRY(cudaMallocHost((void **)&st->h_rowptr, (size_t)(st->n + 1) * sizeof(int32_t)));
    CUDA_TRY(cudaMallocHost((void **)&st->h_colind, cap * sizeof(int32_t)));
    CUDA_TRY(cudaMallocHost(&st->h_val, cap * st->esz));
    *state = st;
    return GB_OK;
fail:
    spgemm_release(st);
    return status;
}

static int spgemm_run(void *p, int timing, double *seconds, gb_err *e) {
    spgemm_state *st = p;
    gb_cuda_issue_fn issue =
        timing == GB_CUDA_TIMING_END_TO_END ? spgemm_product_and_download : spgemm_product;
    return gb_cuda_time(&st->io, timing, issue, st, seconds, e);
}

static int spgemm_fetch(void *p, gb_arrays *out, gb_err *e) {
    spgemm_state *st = p;
    int status = GB_OK;
    cudaStream_t s = gb_cuda.stream;
    if (!st->c_rowptr || !st->c_colind || !st->c_val)
        return gb_errf(e, GB_FAIL, "spgemm: no product to fetch (no repetition completed)");
    gb_array *rp = gb_arrays_add(out, "C_rowptr", GB_E_I32, (size_t)(st->n + 1), e);
    if (!rp) return GB_FAIL;
    gb_array *ci = gb_arrays_add(out, "C_colind", GB_E_I32, (size_t)st->nnz_c, e);
    if (!ci) return GB_FAIL;
    gb_array *cv = gb_arrays_add(out, "C_val", st->val_elem, (size_t)st->nnz_c, e);
    if (!cv) return GB_FAIL;
    /* Pageable targets: cudaMemcpyAsync stages them; the stream sync below
     * is what makes the copies complete. */
    CUDA_TRY(cudaMemcpyAsync(rp->data, st->c_rowptr, (size_t)(st->n + 1) * sizeof(int32_t),
                             cudaMemcpyDeviceToHost, s));
    if (st->nnz_c) {
        CUDA_TRY(cudaMemcpyAsync(ci->data, st->c_colind, (size_t)st->nnz_c * sizeof(int32_t),
                                 cudaMemcpyDeviceToHost, s));
        CUDA_TRY(cudaMemcpyAsync(cv->data, st->c_val, (size_t)st->nnz_c * st->esz, cudaMemcpyDeviceToHost, s));
    }
    CUDA_TRY(cudaStreamSynchronize(s));
fail:
    return status;
}

static void spgemm_annotate(void *p, cJSON *extra) {
    spgemm_state *st = p;
    cJSON_AddStringToObject(extra, "routine", "cusparseSpGEMM");
    cJSON_AddStringToObject(extra, "algorithm", "CUSPARSE_SPGEMM_DEFAULT");
    cJSON_AddNumberToObject(extra, "output_nnz", (double)st->nnz_c);
    cJSON_AddNumberToObject(extra, "input_nnz_a", (double)st->nnz_a);
    cJSON_AddNumberToObject(extra, "input_nnz_b", (double)st->nnz_b);
    cJSON_AddNumberToObject(extra, "buffer1_bytes", (double)st->buffer1_bytes);
    cJSON_AddNumberToObject(extra, "buffer2_bytes", (double)st->buffer2_bytes);
    cJSON_AddStringToObject(extra, "output_allocation", "cudaMallocFromPoolAsync inside each rep");
}

const gb_op_impl gb_cuda_spgemm = {
    .supports = spgemm_supports,
    .prepare = spgemm_prepare,
    .run = spgemm_run,
    .fetch = spgemm_fetch,
    .annotate = spgemm_annotate,
    .release = spgemm_release,
};
