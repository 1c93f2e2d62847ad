// cuda_slicing.cu — x[::2, ::2] and x.T into new arrays, kernels of our own.
//
// stride2: one thread per output element, consecutive threads on
// consecutive output columns, so a warp reads 64 consecutive elements of an
// even row of x (every sector of which the op's byte count includes) and
// writes 32 consecutive elements of y. Rows are walked with a grid-stride
// loop in y so that any row count fits the grid.
//
// transpose: the classic shared-memory tile. A block of 32×8 threads reads a
// 32×32 tile of x row by row (coalesced), keeps it in shared memory padded to
// 33 columns (a column of the tile then falls in 32 different banks), and
// writes it to y row by row (coalesced); each thread moves 4 elements per
// tile. Without the tile, either the reads or the writes of a transpose are
// strided by a whole row, one sector per element.
#include <stdlib.h>

#include "cuda_common.h"

namespace {

const int kTile = 32, kTileRows = 8, kStrideThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kStrideThreads) stride2_kernel(const T *__restrict__ x, T *__restrict__ y, int R,
                                                                 int C) {
    const int oc = (C + 1) / 2, orr = (R + 1) / 2;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= oc) return;
    for (int r = blockIdx.y; r < orr; r += gridDim.y) y[(size_t)r * oc + k] = x[(size_t)2 * r * C + 2 * k];
}

// y = x.T for x of R rows × C; y's rows are ldy elements apart (R for the
// whole array; a band of x's rows writes a band of y's columns).
template <typename T>
__global__ void __launch_bounds__(kTile *kTileRows) transpose_kernel(const T *__restrict__ x, T *__restrict__ y,
                                                                     int R, int C, int ldy) {
    __shared__ T tile[kTile][kTile + 1];
    const int j = blockIdx.x * kTile + threadIdx.x; // column of x
    const int i0 = blockIdx.y * kTile;              // first row of x in the tile
    for (int k = threadIdx.y; k < kTile; k += kTileRows)
        if (i0 + k < R && j < C) tile[k][threadIdx.x] = x[(size_t)(i0 + k) * C + j];
    __syncthreads();
    const int i = i0 + threadIdx.x;         // column of y = row of x
    const int j0 = blockIdx.x * kTile;      // first row of y in the tile
    for (int k = threadIdx.y; k < kTile; k += kTileRows)
        if (j0 + k < C && i < R) y[(size_t)(j0 + k) * ldy + i] = tile[threadIdx.x][k];
}

struct sl_state {
    gb_cuda_io io;
    gb_dtype dtype;
    int kind, R, C;
    size_t es;
    const void *x;
    void *y;
    dim3 grid, block;
    size_t chunks; // of the overlapped end-to-end timing
};

// The kernel for rows [r0, r1) of x (a band; all of x is [0, R)) on st.
int launch(const sl_state *s, int r0, int r1, cudaStream_t st, gb_err *e) {
    const char *x = (const char *)s->x;
    char *y = (char *)s->y;
    int rows = r1 - r0;
    if (s->kind == GB_SLICE_TRANSPOSE) {
        // the band's columns of y start at column r0
        dim3 grid((unsigned)((s->C + kTile - 1) / kTile), (unsigned)((rows + kTile - 1) / kTile));
        const void *xb = x + (size_t)r0 * s->C * s->es;
        void *yb = y + (size_t)r0 * s->es;
        if (s->dtype == GB_FLOAT32)
            transpose_kernel<float><<<grid, s->block, 0, st>>>((const float *)xb, (float *)yb, rows, s->C, s->R);
        else
            transpose_kernel<double><<<grid, s->block, 0, st>>>((const double *)xb, (double *)yb, rows, s->C, s->R);
        return gb_cuda_check_launch("transpose_kernel", e);
    }
    // r0 even: the band's output rows start at r0 / 2
    const int oc = (s->C + 1) / 2, orr = (rows + 1) / 2;
    dim3 grid(s->grid.x, (unsigned)(orr < 65535 ? orr : 65535));
    const void *xb = x + (size_t)r0 * s->C * s->es;
    void *yb = y + (size_t)(r0 / 2) * oc * s->es;
    if (s->dtype == GB_FLOAT32)
        stride2_kernel<float><<<grid, s->block, 0, st>>>((const float *)xb, (float *)yb, rows, s->C);
    else
        stride2_kernel<double><<<grid, s->block, 0, st>>>((const double *)xb, (double *)yb, rows, s->C);
    return gb_cuda_check_launch("stride2_kernel", e);
}

int sl_issue(void *state, gb_err *e) {
    sl_state *s = (sl_state *)state;
    return launch(s, 0, s->R, gb_cuda.stream, e);
}

// One chunk of the overlapped end-to-end: a band of x's rows up (the same
// bytes the serial end-to-end copies, odd rows included), the kernel on the
// band, and its part of y down: y's rows [r0/2, r1/2) for stride2, a band of
// y's columns (a 2-D copy) for the transpose.
int sl_chunk(void *state, size_t k, size_t nchunks, cudaStream_t st, gb_err *e) {
    sl_state *s = (sl_state *)state;
    int status = GB_OK;
    size_t lo, hi, row = (size_t)s->C * s->es;
    gb_cuda_chunk_range((size_t)s->R, nchunks, k, kTile, &lo, &hi); // lo even, tile-aligned
    if (hi <= lo) return GB_OK;
    CUDA_TRY(cudaMemcpyAsync((char *)s->io.in[0].dev + lo * row, (const char *)s->io.in[0].pinned + lo * row,
                             (hi - lo) * row, cudaMemcpyHostToDevice, st));
    status = launch(s, (int)lo, (int)hi, st, e);
    if (status != GB_OK) return status;
    if (s->kind == GB_SLICE_TRANSPOSE) {
        size_t pitch = (size_t)s->R * s->es;
        CUDA_TRY(cudaMemcpy2DAsync((char *)s->io.out[0].pinned + lo * s->es, pitch,
                                   (const char *)s->io.out[0].dev + lo * s->es, pitch, (hi - lo) * s->es,
                                   (size_t)s->C, cudaMemcpyDeviceToHost, st));
    } else {
        size_t orow = (size_t)((s->C + 1) / 2) * s->es, y0 = lo / 2, y1 = (hi + 1) / 2;
        CUDA_TRY(cudaMemcpyAsync((char *)s->io.out[0].pinned + y0 * orow, (const char *)s->io.out[0].dev + y0 * orow,
                                 (y1 - y0) * orow, cudaMemcpyDeviceToHost, st));
    }
    return GB_OK;
fail:
    return status;
}

int sl_supports(const gb_case *c, gb_err *why) {
    if (c->shape[0] > 2147483647 || c->shape[1] > 2147483647 ||
        (c->params.slice_kind == GB_SLICE_TRANSPOSE && (c->shape[0] + kTile - 1) / kTile > 65535))
        return gb_errf(why, GB_SKIP, "slicing: shape %s is beyond this kernel's grid (rows ≤ %d for transpose)",
                       c->label, 65535 * kTile);
    int64_t orr, oc;
    gb_slicing_out_shape(c, &orr, &oc);
    double n = (double)c->shape[0] * (double)c->shape[1] + (double)orr * (double)oc;
    return gb_cuda_fits(n * gb_dtype_size(c->dtype), why);
}

int sl_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    sl_state *s = (sl_state *)calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    const gb_array *x = gb_arrays_find(in, "x");
    void *dx = NULL, *dy = NULL;
    int64_t orr, oc;
    gb_slicing_out_shape(c, &orr, &oc);
    if (!x) {
        status = gb_errf(e, GB_FAIL, "slicing: input x expected");
        goto fail;
    }
    s->dtype = c->dtype;
    s->kind = c->params.slice_kind;
    s->R = (int)c->shape[0];
    s->C = (int)c->shape[1];
    s->es = gb_elem_size(x->elem);
    s->chunks = gb_cuda_overlap_chunks((double)x->count * (double)s->es);
    status = gb_cuda_io_input(&s->io, x, &dx, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_output(&s->io, "y", x->elem, (size_t)orr * (size_t)oc, &dy, e);
    if (status != GB_OK) goto fail;
    s->x = dx;
    s->y = dy;
    if (s->kind == GB_SLICE_TRANSPOSE) {
        s->block = dim3(kTile, kTileRows);
        s->grid = dim3((unsigned)((s->C + kTile - 1) / kTile), (unsigned)((s->R + kTile - 1) / kTile));
    } else {
        s->block = dim3(kStrideThreads);
        s->grid = dim3((unsigned)((oc + kStrideThreads - 1) / kStrideThreads), (unsigned)(orr < 65535 ? orr : 65535));
    }
    *state = s;
    return GB_OK;
fail:
    gb_cuda_io_free(&s->io);
    free(s);
    return status;
}

int sl_run(void *state, int timing, double *seconds, gb_err *e) {
    sl_state *s = (sl_state *)state;
    if (timing == GB_CUDA_TIMING_OVERLAPPED)
        return gb_cuda_time_overlapped(&s->io, s->chunks, sl_chunk, NULL, s, seconds, e);
    return gb_cuda_time(&s->io, timing, sl_issue, s, seconds, e);
}

int sl_fetch(void *state, gb_arrays *out, gb_err *e) { return gb_cuda_io_fetch(&((sl_state *)state)->io, out, e); }

void sl_annotate(void *state, cJSON *extra) {
    sl_state *s = (sl_state *)state;
    cJSON_AddStringToObject(extra, "kernel", s->kind == GB_SLICE_TRANSPOSE ? "transpose_kernel (32x32 shared tile)"
                                                                           : "stride2_kernel");
    cJSON_AddNumberToObject(extra, "grid_blocks", (double)s->grid.x * s->grid.y);
    cJSON_AddNumberToObject(extra, "block_threads", (double)s->block.x * s->block.y);
    cJSON_AddNumberToObject(extra, "overlap_chunks", (double)s->chunks);
    cJSON_AddNumberToObject(extra, "overlap_streams", GB_CUDA_CHUNK_STREAMS);
}

void sl_release(void *state) {
    sl_state *s = (sl_state *)state;
    if (!s) return;
    gb_cuda_io_free(&s->io);
    free(s);
}

} // namespace

extern "C" const gb_op_impl gb_cuda_slicing = {sl_supports, sl_prepare, sl_run, sl_fetch, sl_annotate, sl_release,
                                               gb_cuda_has_overlapped};
