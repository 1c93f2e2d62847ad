// cuda_reduction.cu — sum, mean and population standard deviation of one
// array in a single pass over the data.
//
// Numerics. Each thread accumulates, in double, the shifted sums
//     s1 = Σ (x - K),  s2 = Σ (x - K)²
// over the elements it visits, with K = the first element it visits. The
// shift keeps s2 - s1²/n (the thread's M2) free of the catastrophic
// cancellation of the textbook Σx² - (Σx)²/n: its relative error is about
// eps_double · (1 + z²), z the distance of K from the thread's mean in
// standard deviations, which a grid-stride sample of the data keeps small.
// Threads then merge (count, mean, M2) triples with Chan et al.'s pairwise
// update — warp shuffles, one partial per block, and a second one-block
// kernel that merges the block partials and writes {sum, mean, std} — so no
// step adds numbers of very different size.
//
// Why double for float32 input too: a float accumulator over the thousands
// of elements each thread visits loses most of float's 24 bits, and the
// result must match a CPU reference to float precision. The kernel is
// bound by memory bandwidth; on data-centre GPUs (A100/H100, FP64 at half
// the FP32 rate) three double operations per element cost nothing visible.
// On consumer GPUs with 1/64-rate FP64 this choice would show.
//
// Why not CUB: cub::DeviceReduce with a custom (n, mean, M2) operator would
// need a transform iterator producing per-element triples and a division per
// merge, i.e. per element; this kernel does one division per thread.
#include <math.h>
#include <stdlib.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda_common.h"

namespace {

struct moments {
    double n, mean, m2;
};

// Chan, Golub & LeVeque's pairwise merge of two (count, mean, M2) summaries.
__device__ __forceinline__ moments merge(moments a, moments b) {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    double n = a.n + b.n;
    double delta = b.mean - a.mean;
    double wb = b.n / n;
    moments r;
    r.n = n;
    r.mean = a.mean + delta * wb;
    r.m2 = a.m2 + b.m2 + delta * delta * a.n * wb;
    return r;
}

__device__ __forceinline__ moments warp_merge(moments v) {
    for (int off = 16; off > 0; off >>= 1) {
        moments o;
        o.n = __shfl_down_sync(0xffffffffu, v.n, off);
        o.mean = __shfl_down_sync(0xffffffffu, v.mean, off);
        o.m2 = __shfl_down_sync(0xffffffffu, v.m2, off);
        v = merge(v, o);
    }
    return v;
}

// Merge one value per thread of the block; the result is valid in thread 0.
// blockDim.x must be a multiple of 32 and at most 1024.
__device__ moments block_merge(moments v) {
    __shared__ moments warps[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_merge(v);
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const int nwarps = blockDim.x >> 5;
        moments w = lane < nwarps ? warps[lane] : moments{0, 0, 0};
        v = warp_merge(w);
    }
    return v;
}

__device__ __forceinline__ void add(double &s1, double &s2, double x, double k) {
    double d = x - k;
    s1 += d;
    s2 = fma(d, d, s2);
}

__device__ __forceinline__ void add_vec(double &s1, double &s2, float4 v, double k) {
    add(s1, s2, v.x, k);
    add(s1, s2, v.y, k);
    add(s1, s2, v.z, k);
    add(s1, s2, v.w, k);
}

__device__ __forceinline__ void add_vec(double &s1, double &s2, double2 v, double k) {
    add(s1, s2, v.x, k);
    add(s1, s2, v.y, k);
}

// An element as a double, exactly: float and double convert directly;
// bfloat16 and float16 through float (no direct conversion to double),
// which holds every value of theirs. (A cast through float for every T
// also narrowed float64 elements: the float64 tail lost its digits.)
template <typename T> __device__ __forceinline__ double widen(T v) { return (double)v; }
template <> __device__ __forceinline__ double widen<__nv_bfloat16>(__nv_bfloat16 v) {
    return (double)__bfloat162float(v);
}
template <> __device__ __forceinline__ double widen<__half>(__half v) { return (double)__half2float(v); }

// bfloat16 and float16: eight per 16-byte load, each widened exactly to
// double and accumulated as float64 data is.
template <typename T> struct alignas(16) vec8 {
    T v[8];
};
template <typename T> __device__ __forceinline__ void add_vec(double &s1, double &s2, vec8<T> v, double k) {
#pragma unroll
    for (int j = 0; j < 8; j++) add(s1, s2, widen(v.v[j]), k);
}

// Pass 1: each block writes the (count, mean, M2) of the elements it visits.
template <typename T, typename V, int W>
__global__ void __launch_bounds__(256) moments_kernel(const T *__restrict__ x, size_t n,
                                                      moments *__restrict__ partial) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t nv = n / W;
    const V *xv = reinterpret_cast<const V *>(x);
    // The first element this thread visits (vector part first, then tail).
    size_t first = tid < nv ? tid * W : nv * W + tid;
    double k = first < n ? widen(x[first]) : 0.0;
    double s1 = 0, s2 = 0, cnt = 0;
    for (size_t i = tid; i < nv; i += stride) {
        add_vec(s1, s2, xv[i], k);
        cnt += W;
    }
    for (size_t i = nv * W + tid; i < n; i += stride) {
        add(s1, s2, widen(x[i]), k);
        cnt += 1;
    }
    moments v = {0, 0, 0};
    if (cnt > 0) {
        double d = s1 / cnt;
        v.n = cnt;
        v.mean = k + d;
        v.m2 = fmax(s2 - s1 * d, 0.0);
    }
    v = block_merge(v);
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

// Pass 2: one block merges the partials and writes {sum, mean, std}.
__global__ void __launch_bounds__(1024) finish_kernel(const moments *__restrict__ partial, int nblocks,
                                                      double *__restrict__ stats) {
    moments v = {0, 0, 0};
    for (int i = threadIdx.x; i < nblocks; i += blockDim.x) v = merge(v, partial[i]);
    v = block_merge(v);
    if (threadIdx.x == 0) {
        stats[0] = v.mean * v.n;                         // sum
        stats[1] = v.mean;                               // mean
        stats[2] = v.n > 0 ? sqrt(v.m2 / v.n) : 0.0;     // population std
    }
}

const int kThreads = 256, kFinishThreads = 1024;

struct red_state {
    gb_cuda_io io;
    gb_dtype dtype;
    size_t n;
    const void *x;
    double *stats;
    moments *partial; // workspace: one summary per block of pass 1
    int blocks;
    // The overlapped end-to-end: each chunk's pass 1 writes chunk_blocks
    // summaries of its own into ov_partial; pass 2 merges them all.
    size_t chunks;
    int chunk_blocks;
    moments *ov_partial;
};

const void *kernel_ptr(gb_dtype d) {
    if (d == GB_BFLOAT16) return (const void *)moments_kernel<__nv_bfloat16, vec8<__nv_bfloat16>, 8>;
    if (d == GB_FLOAT16) return (const void *)moments_kernel<__half, vec8<__half>, 8>;
    return d == GB_FLOAT32 ? (const void *)moments_kernel<float, float4, 4>
                           : (const void *)moments_kernel<double, double2, 2>;
}

int red_supports(const gb_case *c, gb_err *why) {
    double n = (double)c->shape[0] * (double)c->shape[1];
    return gb_cuda_fits(n * gb_dtype_size(c->dtype), why);
}

int red_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    red_state *s = (red_state *)calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    const gb_array *x = gb_arrays_find(in, "x");
    void *dx = NULL, *dstats = NULL;
    int per_sm = 0;
    size_t want;
    if (!x) {
        status = gb_errf(e, GB_FAIL, "reduction: input x expected");
        goto fail;
    }
    s->dtype = c->dtype;
    s->n = x->count;
    status = gb_cuda_io_input(&s->io, x, &dx, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_output(&s->io, "stats", GB_E_F64, 3, &dstats, e);
    if (status != GB_OK) goto fail;
    s->x = dx;
    s->stats = (double *)dstats;
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_ptr(s->dtype), kThreads, 0));
    if (per_sm < 1) per_sm = 1;
    want = (s->n / (16 / gb_dtype_size(s->dtype)) + 1 + kThreads - 1) / kThreads;
    s->blocks = gb_cuda.prop.multiProcessorCount * per_sm;
    if ((size_t)s->blocks > want) s->blocks = (int)want;
    if (s->blocks < 1) s->blocks = 1;
    CUDA_TRY(cudaMalloc((void **)&s->partial, (size_t)s->blocks * sizeof(moments)));
    // Chunks run side by side on several streams: a chunk gets a share of
    // the device's blocks, not all of them.
    s->chunks = gb_cuda_overlap_chunks((double)s->n * gb_dtype_size(s->dtype));
    s->chunk_blocks = (int)((s->blocks + GB_CUDA_CHUNK_STREAMS - 1) / GB_CUDA_CHUNK_STREAMS);
    if (s->chunk_blocks < 1) s->chunk_blocks = 1;
    CUDA_TRY(cudaMalloc((void **)&s->ov_partial, s->chunks * (size_t)s->chunk_blocks * sizeof(moments)));
    *state = s;
    return GB_OK;
fail:
    if (s->partial) (void)cudaFree(s->partial);
    if (s->ov_partial) (void)cudaFree(s->ov_partial);
    gb_cuda_io_free(&s->io);
    free(s);
    return status;
}

// Pass 1 over elements [lo, lo + n) into `blocks` summaries at partial.
void launch_moments(const red_state *s, size_t lo, size_t n, int blocks, moments *partial, cudaStream_t st) {
    if (s->dtype == GB_FLOAT32)
        moments_kernel<float, float4, 4><<<blocks, kThreads, 0, st>>>((const float *)s->x + lo, n, partial);
    else if (s->dtype == GB_BFLOAT16)
        moments_kernel<__nv_bfloat16, vec8<__nv_bfloat16>, 8>
            <<<blocks, kThreads, 0, st>>>((const __nv_bfloat16 *)s->x + lo, n, partial);
    else if (s->dtype == GB_FLOAT16)
        moments_kernel<__half, vec8<__half>, 8><<<blocks, kThreads, 0, st>>>((const __half *)s->x + lo, n, partial);
    else
        moments_kernel<double, double2, 2><<<blocks, kThreads, 0, st>>>((const double *)s->x + lo, n, partial);
}

int red_issue(void *state, gb_err *e) {
    red_state *s = (red_state *)state;
    int status;
    launch_moments(s, 0, s->n, s->blocks, s->partial, gb_cuda.stream);
    status = gb_cuda_check_launch("moments_kernel", e);
    if (status != GB_OK) return status;
    finish_kernel<<<1, kFinishThreads, 0, gb_cuda.stream>>>(s->partial, s->blocks, s->stats);
    return gb_cuda_check_launch("finish_kernel", e);
}

// One chunk of the overlapped end-to-end: its part of x up, pass 1 on it.
// An empty chunk still writes its summaries (count 0), which merge as nothing.
int red_chunk(void *state, size_t k, size_t nchunks, cudaStream_t st, gb_err *e) {
    red_state *s = (red_state *)state;
    int status = GB_OK;
    size_t lo, hi, es = gb_dtype_size(s->dtype);
    gb_cuda_chunk_range(s->n, nchunks, k, 64, &lo, &hi);
    if (hi > lo)
        CUDA_TRY(cudaMemcpyAsync((char *)s->io.in[0].dev + lo * es, (const char *)s->io.in[0].pinned + lo * es,
                                 (hi - lo) * es, cudaMemcpyHostToDevice, st));
    launch_moments(s, lo, hi - lo, s->chunk_blocks, s->ov_partial + k * (size_t)s->chunk_blocks, st);
    return gb_cuda_check_launch("moments_kernel", e);
fail:
    return status;
}

// After every chunk: pass 2 over all their summaries, the 24 bytes down.
int red_join(void *state, gb_err *e) {
    red_state *s = (red_state *)state;
    int status = GB_OK;
    finish_kernel<<<1, kFinishThreads, 0, gb_cuda.stream>>>(s->ov_partial, (int)(s->chunks * (size_t)s->chunk_blocks),
                                                            s->stats);
    status = gb_cuda_check_launch("finish_kernel", e);
    if (status != GB_OK) return status;
    CUDA_TRY(cudaMemcpyAsync(s->io.out[0].pinned, s->io.out[0].dev, s->io.out[0].bytes, cudaMemcpyDeviceToHost,
                             gb_cuda.stream));
    return GB_OK;
fail:
    return status;
}

int red_run(void *state, int timing, double *seconds, gb_err *e) {
    red_state *s = (red_state *)state;
    if (timing == GB_CUDA_TIMING_OVERLAPPED)
        return gb_cuda_time_overlapped(&s->io, s->chunks, red_chunk, red_join, s, seconds, e);
    return gb_cuda_time(&s->io, timing, red_issue, s, seconds, e);
}

int red_fetch(void *state, gb_arrays *out, gb_err *e) {
    return gb_cuda_io_fetch(&((red_state *)state)->io, out, e);
}

void red_annotate(void *state, cJSON *extra) {
    red_state *s = (red_state *)state;
    cJSON_AddStringToObject(extra, "kernel", s->dtype == GB_FLOAT32    ? "moments_kernel<float4> + finish_kernel"
                                             : s->dtype == GB_FLOAT64  ? "moments_kernel<double2> + finish_kernel"
                                             : s->dtype == GB_BFLOAT16 ? "moments_kernel<8 x bfloat16> + finish_kernel"
                                                                       : "moments_kernel<8 x half> + finish_kernel");
    if (s->dtype == GB_BFLOAT16 || s->dtype == GB_FLOAT16)
        cJSON_AddStringToObject(extra, "accumulate", "float64 (inputs widened exactly)");
    cJSON_AddStringToObject(extra, "accumulator", "float64 shifted sums, Chan merge");
    cJSON_AddNumberToObject(extra, "grid_blocks", s->blocks);
    cJSON_AddNumberToObject(extra, "block_threads", kThreads);
    cJSON_AddNumberToObject(extra, "overlap_chunks", (double)s->chunks);
    cJSON_AddNumberToObject(extra, "overlap_streams", GB_CUDA_CHUNK_STREAMS);
}

void red_release(void *state) {
    red_state *s = (red_state *)state;
    if (!s) return;
    if (s->partial) (void)cudaFree(s->partial);
    if (s->ov_partial) (void)cudaFree(s->ov_partial);
    gb_cuda_io_free(&s->io);
    free(s);
}

} // namespace

extern "C" const gb_op_impl gb_cuda_reduction = {red_supports, red_prepare, red_run, red_fetch, red_annotate,
                                                 red_release, gb_cuda_has_overlapped};
