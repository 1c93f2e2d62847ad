/* cuda_solve.c — solve A·X = B for symmetric positive definite A on the GPU:
 * cuSOLVER Cholesky through the 64-bit generic API, cusolverDnXpotrf (A = L·Lᵀ,
 * lower triangle) then cusolverDnXpotrs (X from L), column-major as LAPACK.
 *
 * prepare: uploads the pristine A and B once (gb_cuda_io_input), allocates a
 *          work copy of A and the output X (which doubles as potrs's B
 *          in/out), queries potrf's workspace and allocates it, and devInfo.
 * a rep:   cudaMemcpyAsync A → A_work and B → X (device to device: potrf and
 *          potrs overwrite their inputs, so restoring them is part of every
 *          rep, as on the CPU), potrf, potrs. All on gb_cuda.stream, no sync.
 * fetch:   reads devInfo (potrf's info: k > 0 means the leading minor of
 *          order k is not positive definite), then X.
 *
 * potrs needs no workspace. The 64-bit API takes a host workspace too; its
 * size is queried and, where non-zero, allocated in prepare. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_common.h"

typedef struct {
    gb_cuda_io io;
    int64_t n, nrhs;
    size_t esz;
    cudaDataType dtype;
    void *d_A, *d_B;        /* pristine inputs (owned by io) */
    void *d_X;              /* output X, potrs's B (owned by io) */
    void *d_Awork;          /* potrf overwrites this with L */
    int *d_info;            /* [0] potrf, [1] potrs */
    void *d_work;           /* potrf device workspace */
    size_t work_bytes;
    void *h_work;           /* potrf host workspace (may be NULL) */
    size_t host_work_bytes;
    cusolverDnParams_t params;
} solve_state;

static int solve_supports(const gb_case *c, gb_err *why) {
    int64_t n = c->shape[0];
    int64_t nrhs = c->params.nrhs > 0 ? c->params.nrhs : 1;
    double esz = gb_dtype_bytes(c->dtype);
    /* pristine A + its work copy, pristine B + X, and potrf's workspace:
     * cuSOLVER's blocked potrf asks for about one panel (a few n×nb blocks);
     * 256 columns is a generous stand-in until the real query in prepare. */
    double bytes = esz * (2.0 * (double)n * (double)n + 2.0 * (double)n * (double)nrhs
                          + 256.0 * (double)n) + 2 * sizeof(int);
    return gb_cuda_fits(bytes, why);
}

static void solve_release(void *p) {
    solve_state *st = p;
    if (!st) return;
    /* Release may follow a failure mid-rep: let the stream drain first. */
    cudaStreamSynchronize(gb_cuda.stream);
    cudaFree(st->d_Awork);
    cudaFree(st->d_info);
    cudaFree(st->d_work);
    free(st->h_work);
    if (st->params) cusolverDnDestroyParams(st->params);
    gb_cuda_io_free(&st->io);
    free(st);
}

static int solve_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    *state = NULL;
    solve_state *st = calloc(1, sizeof *st);
    if (!st) return gb_errf(e, GB_SKIP, "solve: out of host memory for the plan");
    st->n = c->shape[0];
    st->nrhs = c->params.nrhs > 0 ? c->params.nrhs : 1;
    st->esz = gb_dtype_size(c->dtype);
    st->dtype = gb_cuda_data_type(c->dtype);

    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    if (!A || !B) {
        status = gb_errf(e, GB_FAIL, "solve: inputs A and B expected, %s missing", !A ? "A" : "B");
        goto fail;
    }
    if (A->count != (size_t)(st->n * st->n) || B->count != (size_t)(st->n * st->nrhs)) {
        status = gb_errf(e, GB_FAIL, "solve: A has %zu elements and B %zu; expected %lld and %lld (n=%lld, nrhs=%lld)",
                         A->count, B->count, (long long)(st->n * st->n), (long long)(st->n * st->nrhs),
                         (long long)st->n, (long long)st->nrhs);
        goto fail;
    }
    status = gb_cuda_io_input(&st->io, A, &st->d_A, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_input(&st->io, B, &st->d_B, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_output(&st->io, "X", B->elem, B->count, &st->d_X, e);
    if (status != GB_OK) goto fail;

    CUDA_TRY(cudaMalloc(&st->d_Awork, (size_t)(st->n * st->n) * st->esz));
    CUDA_TRY(cudaMalloc((void **)&st->d_info, 2 * sizeof(int)));
    CUDA_TRY(cudaMemsetAsync(st->d_info, 0, 2 * sizeof(int), gb_cuda.stream));
    CUSOLVER_TRY(cusolverDnCreateParams(&st->params));
    CUSOLVER_TRY(cusolverDnXpotrf_bufferSize(gb_cuda.cusolver, st->params, CUBLAS_FILL_MODE_LOWER, st->n,
                                             st->dtype, st->d_Awork, st->n, st->dtype,
                                             &st->work_bytes, &st->host_work_bytes));
    /* The buffers must be non-NULL even when the size is 0. */
    CUDA_TRY(cudaMalloc(&st->d_work, st->work_bytes ? st->work_bytes : 16));
    if (st->host_work_bytes) {
        st->h_work = malloc(st->host_work_bytes);
        if (!st->h_work) {
            status = gb_errf(e, GB_FAIL, "solve: out of host memory for potrf's host workspace (%zu bytes)",
                             st->host_work_bytes);
            goto fail;
        }
    }
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
    *state = st;
    return GB_OK;
fail:
    solve_release(st);
    return status;
}

/* One rep: restore the inputs, factor, solve. Enqueued only. */
static int solve_issue(void *p, gb_err *e) {
    solve_state *st = p;
    int status = GB_OK;
    cudaStream_t s = gb_cuda.stream;
    CUDA_TRY(cudaMemcpyAsync(st->d_Awork, st->d_A, (size_t)(st->n * st->n) * st->esz,
                             cudaMemcpyDeviceToDevice, s));
    CUDA_TRY(cudaMemcpyAsync(st->d_X, st->d_B, (size_t)(st->n * st->nrhs) * st->esz,
                             cudaMemcpyDeviceToDevice, s));
    CUSOLVER_TRY(cusolverDnXpotrf(gb_cuda.cusolver, st->params, CUBLAS_FILL_MODE_LOWER, st->n,
                                  st->dtype, st->d_Awork, st->n, st->dtype,
                                  st->d_work, st->work_bytes, st->h_work, st->host_work_bytes,
                                  &st->d_info[0]));
    CUSOLVER_TRY(cusolverDnXpotrs(gb_cuda.cusolver, st->params, CUBLAS_FILL_MODE_LOWER, st->n, st->nrhs,
                                  st->dtype, st->d_Awork, st->n, st->dtype, st->d_X, st->n,
                                  &st->d_info[1]));
fail:
    return status;
}

static int solve_run(void *p, int timing, double *seconds, gb_err *e) {
    solve_state *st = p;
    return gb_cuda_time(&st->io, timing, solve_issue, st, seconds, e);
}

static int solve_fetch(void *p, gb_arrays *out, gb_err *e) {
    solve_state *st = p;
    int status = GB_OK;
    int info[2] = {0, 0};
    /* The backend's stream does not synchronize with the legacy default
     * stream, so the copy goes on it and is waited for explicitly. */
    CUDA_TRY(cudaMemcpyAsync(info, st->d_info, sizeof info, cudaMemcpyDeviceToHost, gb_cuda.stream));
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
    if (info[0] > 0)
        return gb_errf(e, GB_FAIL, "cusolverDnXpotrf: devInfo = %d: leading minor %d not positive definite",
                       info[0], info[0]);
    if (info[0] < 0)
        return gb_errf(e, GB_FAIL, "cusolverDnXpotrf: devInfo = %d: parameter %d is wrong", info[0], -info[0]);
    if (info[1] != 0)
        return gb_errf(e, GB_FAIL, "cusolverDnXpotrs: devInfo = %d: parameter %d is wrong", info[1], -info[1]);
    return gb_cuda_io_fetch(&st->io, out, e);
fail:
    return status;
}

static void solve_annotate(void *p, cJSON *extra) {
    solve_state *st = p;
    cJSON_AddStringToObject(extra, "routine", "cusolverDnXpotrf+cusolverDnXpotrs");
    cJSON_AddStringToObject(extra, "uplo", "lower");
    cJSON_AddNumberToObject(extra, "workspace_bytes", (double)st->work_bytes);
    cJSON_AddNumberToObject(extra, "host_workspace_bytes", (double)st->host_work_bytes);
}

const gb_op_impl gb_cuda_solve = {
    .supports = solve_supports,
    .prepare = solve_prepare,
    .run = solve_run,
    .fetch = solve_fetch,
    .annotate = solve_annotate,
    .release = solve_release,
};
