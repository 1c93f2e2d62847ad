/* cuda_solve_mg.c — A·X = B for symmetric positive definite A by
 * cuSOLVERMg over the first `gpus` devices of --devices: cusolverMgPotrf
 * (A = L·Lᵀ, lower) then cusolverMgPotrs, column-major as solve.
 *
 * Layout: cuSOLVERMg takes a 1 × gpus device grid and matrices in 1-D
 * block-cyclic column tiles: global tile J (columns J·T .. J·T+T-1, T =
 * `block`, default 256) lives on device J mod gpus, as its local tile J div
 * gpus, each device holding an n × (local tiles · T) column-major array
 * (lda = n). B (n × nrhs) is tiled the same way. A column-major tile is one
 * contiguous run of memory, so distributing and gathering are one copy per
 * tile.
 *
 * A repetition (both timings on the host clock, cuda_multigpu.c):
 *   device:     restore A and B from pristine device copies (potrf and potrs
 *               overwrite them, as on the CPU), potrf, potrs, wait for all;
 *   end_to_end: distribute A and B from page-locked host memory, potrf,
 *               potrs, gather X back, wait for all.
 * fetch gathers X and reports potrf's info (k > 0: leading minor k is not
 * positive definite).
 *
 * cuSOLVERMg's grid and descriptor calls are marked deprecated in CUDA 13
 * (the library points to cuSOLVERMp); they are the only multi-GPU dense
 * solver in the toolkit that needs no MPI, so the warning is switched off
 * for this file alone. */
#define DISABLE_CUSOLVERMG_DEPRECATED
#include <stdlib.h>
#include <string.h>
#include <cusolverMg.h>

#include "cuda_common.h"
#include "timer.h"

#define MG_DEFAULT_TILE 256

typedef struct {
    cusolverMgHandle_t h;
    cudaLibMgGrid_t grid;
    cudaLibMgMatrixDesc_t dA, dB;
    cudaDataType dtype;
    int64_t n, nrhs, tile;
    size_t esz;
    gb_elem elem;          /* X's element type, as fetch hands it back */
    int gpus;
    int ids[GB_MAX_DEVICES];
    void *A[GB_MAX_DEVICES], *B[GB_MAX_DEVICES];       /* the tiles potrf/potrs work on */
    void *A0[GB_MAX_DEVICES], *B0[GB_MAX_DEVICES];     /* pristine copies (device timing) */
    size_t a_bytes[GB_MAX_DEVICES], b_bytes[GB_MAX_DEVICES];
    void *work[GB_MAX_DEVICES];
    int64_t lwork;                                      /* elements per device */
    void *hA, *hB, *hX;                                 /* page-locked host A, B, X */
    int info_potrf, info_potrs;
} mg_state;

static int64_t tiles_of(int64_t cols, int64_t tile) { return (cols + tile - 1) / tile; }

/* Local tiles of device d when `tiles` tiles are dealt round-robin. */
static int64_t local_tiles(int64_t tiles, int gpus, int d) { return tiles / gpus + (d < tiles % gpus ? 1 : 0); }

static int mg_supports(const gb_case *c, gb_err *why) {
    int status = gb_cuda_multigpu_supports(c, 1, "cuSOLVERMg", why);
    if (status != GB_OK) return status;
    if (c->shape[0] > 2147483647LL) return gb_errf(why, GB_SKIP, "n exceeds cuSOLVERMg's 32-bit int");
    int64_t n = c->shape[0], T = c->params.block > 0 ? c->params.block : MG_DEFAULT_TILE;
    int64_t nrhs = c->params.nrhs > 0 ? c->params.nrhs : 1;
    double esz = gb_dtype_size(c->dtype);
    /* the first device holds the most tiles: work + pristine copy of each,
     * and a panel of workspace as a stand-in for the real query */
    double per = esz * (2.0 * (double)n * (double)(local_tiles(tiles_of(n, T), c->params.gpus, 0) * T) +
                        2.0 * (double)n * (double)(local_tiles(tiles_of(nrhs, T), c->params.gpus, 0) * T) +
                        (double)n * (double)T);
    return gb_cuda_fits(per, why);
}

static void mg_release(void *state) {
    mg_state *s = state;
    if (!s) return;
    for (int d = 0; d < s->gpus; d++) {
        (void)cudaSetDevice(s->ids[d]);
        (void)cudaDeviceSynchronize();
        cudaFree(s->A[d]);
        cudaFree(s->B[d]);
        cudaFree(s->A0[d]);
        cudaFree(s->B0[d]);
        cudaFree(s->work[d]);
    }
    if (s->dA) (void)cusolverMgDestroyMatrixDesc(s->dA);
    if (s->dB) (void)cusolverMgDestroyMatrixDesc(s->dB);
    if (s->grid) (void)cusolverMgDestroyGrid(s->grid);
    if (s->h) (void)cusolverMgDestroy(s->h);
    if (s->hA) cudaFreeHost(s->hA);
    if (s->hB) cudaFreeHost(s->hB);
    if (s->hX) cudaFreeHost(s->hX);
    (void)cudaGetLastError();
    (void)cudaSetDevice(gb_cuda.device);
    free(s);
}

/* Copy every tile of a cols-column matrix between host (column-major,
 * lda = n) and the devices' local arrays, in direction kind. */
static int move_tiles(const mg_state *s, int64_t cols, void *host, void *const *dev, enum cudaMemcpyKind kind, gb_err *e) {
    int status = GB_OK;
    size_t col_bytes = (size_t)s->n * s->esz;
    for (int64_t J = 0; J < tiles_of(cols, s->tile); J++) {
        int d = (int)(J % s->gpus);
        int64_t width = cols - J * s->tile < s->tile ? cols - J * s->tile : s->tile;
        char *h = (char *)host + (size_t)(J * s->tile) * col_bytes;
        char *g = (char *)dev[d] + (size_t)((J / s->gpus) * s->tile) * col_bytes;
        CUDA_TRY(cudaSetDevice(s->ids[d]));
        if (kind == cudaMemcpyHostToDevice) CUDA_TRY(cudaMemcpyAsync(g, h, (size_t)width * col_bytes, kind, 0));
        else CUDA_TRY(cudaMemcpyAsync(h, g, (size_t)width * col_bytes, kind, 0));
    }
fail:
    return status;
}

static int mg_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    mg_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->n = c->shape[0];
    s->nrhs = c->params.nrhs > 0 ? c->params.nrhs : 1;
    s->tile = c->params.block > 0 ? c->params.block : MG_DEFAULT_TILE;
    s->esz = gb_dtype_size(c->dtype);
    s->elem = gb_real_elem(c->dtype);
    s->dtype = gb_cuda_data_type(c->dtype);
    s->gpus = c->params.gpus;
    gb_cuda_multigpu_ids(s->gpus, s->ids);
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    if (!A || !B || A->count != (size_t)(s->n * s->n) || B->count != (size_t)(s->n * s->nrhs)) {
        status = gb_errf(e, GB_FAIL, "solve_mg: inputs A (n×n) and B (n×nrhs) expected");
        goto fail;
    }
    if ((status = gb_cuda_host_alloc(&s->hA, A->count * s->esz, e)) != GB_OK) goto fail;
    if ((status = gb_cuda_host_alloc(&s->hB, B->count * s->esz, e)) != GB_OK) goto fail;
    if ((status = gb_cuda_host_alloc(&s->hX, B->count * s->esz, e)) != GB_OK) goto fail;
    memcpy(s->hA, A->data, A->count * s->esz);
    memcpy(s->hB, B->data, B->count * s->esz);
    memset(s->hX, 0xff, B->count * s->esz); /* NaN until gathered */

    gb_cuda_multigpu_peer(s->gpus, s->ids);
    CUSOLVER_TRY(cusolverMgCreate(&s->h));
    CUSOLVER_TRY(cusolverMgDeviceSelect(s->h, s->gpus, s->ids));
    CUSOLVER_TRY(cusolverMgCreateDeviceGrid(&s->grid, 1, s->gpus, s->ids, CUDALIBMG_GRID_MAPPING_COL_MAJOR));
    CUSOLVER_TRY(cusolverMgCreateMatrixDesc(&s->dA, s->n, s->n, s->n, s->tile, s->dtype, s->grid));
    CUSOLVER_TRY(cusolverMgCreateMatrixDesc(&s->dB, s->n, s->nrhs, s->n, s->tile, s->dtype, s->grid));
    for (int d = 0; d < s->gpus; d++) {
        s->a_bytes[d] = (size_t)(s->n * local_tiles(tiles_of(s->n, s->tile), s->gpus, d) * s->tile) * s->esz;
        s->b_bytes[d] = (size_t)(s->n * local_tiles(tiles_of(s->nrhs, s->tile), s->gpus, d) * s->tile) * s->esz;
        CUDA_TRY(cudaSetDevice(s->ids[d]));
        /* a device with no tile still gets a valid pointer */
        CUDA_TRY(cudaMalloc(&s->A[d], s->a_bytes[d] ? s->a_bytes[d] : 16));
        CUDA_TRY(cudaMalloc(&s->A0[d], s->a_bytes[d] ? s->a_bytes[d] : 16));
        CUDA_TRY(cudaMalloc(&s->B[d], s->b_bytes[d] ? s->b_bytes[d] : 16));
        CUDA_TRY(cudaMalloc(&s->B0[d], s->b_bytes[d] ? s->b_bytes[d] : 16));
    }
    if ((status = move_tiles(s, s->n, s->hA, s->A0, cudaMemcpyHostToDevice, e)) != GB_OK) goto fail;
    if ((status = move_tiles(s, s->nrhs, s->hB, s->B0, cudaMemcpyHostToDevice, e)) != GB_OK) goto fail;
    if ((status = gb_cuda_multigpu_sync(s->gpus, s->ids, e)) != GB_OK) goto fail;
    int64_t lw_f = 0, lw_s = 0;
    CUSOLVER_TRY(cusolverMgPotrf_bufferSize(s->h, CUBLAS_FILL_MODE_LOWER, (int)s->n, s->A0, 1, 1, s->dA, s->dtype,
                                            &lw_f));
    CUSOLVER_TRY(cusolverMgPotrs_bufferSize(s->h, CUBLAS_FILL_MODE_LOWER, (int)s->n, (int)s->nrhs, s->A0, 1, 1,
                                            s->dA, s->B0, 1, 1, s->dB, s->dtype, &lw_s));
    s->lwork = lw_f > lw_s ? lw_f : lw_s;
    for (int d = 0; d < s->gpus; d++) {
        CUDA_TRY(cudaSetDevice(s->ids[d]));
        CUDA_TRY(cudaMalloc(&s->work[d], (size_t)(s->lwork > 0 ? s->lwork : 1) * s->esz));
    }
    if ((status = gb_cuda_multigpu_sync(s->gpus, s->ids, e)) != GB_OK) goto fail;
    *state = s;
    return GB_OK;
fail:
    mg_release(s);
    return status;
}

static int factor_and_solve(mg_state *s, gb_err *e) {
    int status = GB_OK;
    CUSOLVER_TRY(cusolverMgPotrf(s->h, CUBLAS_FILL_MODE_LOWER, (int)s->n, s->A, 1, 1, s->dA, s->dtype, s->work,
                                 s->lwork, &s->info_potrf));
    CUSOLVER_TRY(cusolverMgPotrs(s->h, CUBLAS_FILL_MODE_LOWER, (int)s->n, (int)s->nrhs, s->A, 1, 1, s->dA, s->B, 1,
                                 1, s->dB, s->dtype, s->work, s->lwork, &s->info_potrs));
fail:
    return status;
}

static int mg_run(void *state, int timing, double *seconds, gb_err *e) {
    mg_state *s = state;
    int status = gb_cuda_multigpu_sync(s->gpus, s->ids, e);
    if (status != GB_OK) return status;
    double t0 = gb_now();
    if (timing == GB_CUDA_TIMING_DEVICE) {
        for (int d = 0; d < s->gpus; d++) {
            CUDA_TRY(cudaSetDevice(s->ids[d]));
            CUDA_TRY(cudaMemcpyAsync(s->A[d], s->A0[d], s->a_bytes[d], cudaMemcpyDeviceToDevice, 0));
            CUDA_TRY(cudaMemcpyAsync(s->B[d], s->B0[d], s->b_bytes[d], cudaMemcpyDeviceToDevice, 0));
        }
    } else {
        if ((status = move_tiles(s, s->n, s->hA, s->A, cudaMemcpyHostToDevice, e)) != GB_OK) goto fail;
        if ((status = move_tiles(s, s->nrhs, s->hB, s->B, cudaMemcpyHostToDevice, e)) != GB_OK) goto fail;
    }
    /* the copies went on each device's legacy stream; the library's own
     * streams do not wait for them */
    if ((status = gb_cuda_multigpu_sync(s->gpus, s->ids, e)) != GB_OK) goto fail;
    if ((status = factor_and_solve(s, e)) != GB_OK) goto fail;
    if ((status = gb_cuda_multigpu_sync(s->gpus, s->ids, e)) != GB_OK) goto fail;
    if (timing != GB_CUDA_TIMING_DEVICE) {
        if ((status = move_tiles(s, s->nrhs, s->hX, s->B, cudaMemcpyDeviceToHost, e)) != GB_OK) goto fail;
        if ((status = gb_cuda_multigpu_sync(s->gpus, s->ids, e)) != GB_OK) goto fail;
    }
    *seconds = gb_now() - t0;
fail:
    (void)cudaSetDevice(gb_cuda.device);
    return status;
}

static int mg_fetch(void *state, gb_arrays *out, gb_err *e) {
    mg_state *s = state;
    if (s->info_potrf > 0)
        return gb_errf(e, GB_FAIL, "cusolverMgPotrf: info = %d: leading minor %d not positive definite",
                       s->info_potrf, s->info_potrf);
    if (s->info_potrf < 0)
        return gb_errf(e, GB_FAIL, "cusolverMgPotrf: info = %d: parameter %d is wrong", s->info_potrf, -s->info_potrf);
    if (s->info_potrs != 0)
        return gb_errf(e, GB_FAIL, "cusolverMgPotrs: info = %d: parameter %d is wrong", s->info_potrs, -s->info_potrs);
    int status = move_tiles(s, s->nrhs, s->hX, s->B, cudaMemcpyDeviceToHost, e);
    if (status == GB_OK) status = gb_cuda_multigpu_sync(s->gpus, s->ids, e);
    if (status != GB_OK) return status;
    return gb_arrays_add_copy(out, "X", s->elem, (size_t)(s->n * s->nrhs),
                              s->hX, e)
               ? GB_OK
               : GB_FAIL;
}

static void mg_annotate(void *state, cJSON *extra) {
    mg_state *s = state;
    cJSON_AddStringToObject(extra, "routine", "cusolverMgPotrf+cusolverMgPotrs");
    cJSON_AddStringToObject(extra, "uplo", "lower");
    cJSON *ids = cJSON_AddArrayToObject(extra, "devices");
    for (int i = 0; i < s->gpus; i++) cJSON_AddItemToArray(ids, cJSON_CreateNumber(s->ids[i]));
    cJSON_AddNumberToObject(extra, "tile_columns", (double)s->tile);
    cJSON_AddNumberToObject(extra, "workspace_bytes_per_device", (double)s->lwork * (double)s->esz);
}

const gb_op_impl gb_cuda_solve_mg = {
    .supports = mg_supports,
    .prepare = mg_prepare,
    .run = mg_run,
    .fetch = mg_fetch,
    .annotate = mg_annotate,
    .release = mg_release,
};
