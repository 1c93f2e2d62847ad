// cuda_elementwise.cu — out = a*b + sin(a) + cos(b) in one fused kernel.
//
// Memory-bound: two loads and one store per element. The kernel reads and
// writes 16 bytes per access (float4 / double2; cudaMalloc returns 256-byte
// aligned buffers, so the vector view is aligned), walks the array with a
// grid-stride loop over a grid sized to fill the device once (SMs × resident
// blocks per SM), and finishes the n mod 4 (or 2) tail with scalar accesses.
// Precise sinf/cosf (sin/cos for double) unless params.fast_math asks for
// the __sinf/__cosf intrinsics; the file is built without --use_fast_math so
// that "precise" means precise.
// bfloat16 and float16: 8 elements per 16-byte access, each widened to
// float, the expression in float32 with the precise sinf/cosf, rounded once
// to the type (__float2bfloat16_rn / __float2half_rn), as PyTorch's CUDA
// kernels compute a bfloat16 expression.
#include <stdlib.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda_common.h"

namespace {

template <bool FAST> __device__ __forceinline__ float f(float a, float b) {
    if (FAST) return a * b + __sinf(a) + __cosf(b);
    return a * b + sinf(a) + cosf(b);
}

// No fast double intrinsics exist; supports() refuses fast_math for float64.
template <bool FAST> __device__ __forceinline__ double f(double a, double b) {
    return a * b + sin(a) + cos(b);
}

__device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float widen(__half x) { return __half2float(x); }
__device__ __forceinline__ void narrow(float x, __nv_bfloat16 *o) { *o = __float2bfloat16_rn(x); }
__device__ __forceinline__ void narrow(float x, __half *o) { *o = __float2half_rn(x); }

template <bool FAST> __device__ __forceinline__ __nv_bfloat16 f(__nv_bfloat16 a, __nv_bfloat16 b) {
    __nv_bfloat16 o;
    narrow(f<false>(widen(a), widen(b)), &o);
    return o;
}
template <bool FAST> __device__ __forceinline__ __half f(__half a, __half b) {
    __half o;
    narrow(f<false>(widen(a), widen(b)), &o);
    return o;
}

// Eight 2-byte elements: one 16-byte load or store.
template <typename T> struct alignas(16) vec8 {
    T v[8];
};
template <bool FAST, typename T> __device__ __forceinline__ vec8<T> fv(vec8<T> a, vec8<T> b) {
    vec8<T> o;
#pragma unroll
    for (int j = 0; j < 8; j++) o.v[j] = f<FAST>(a.v[j], b.v[j]);
    return o;
}

template <bool FAST> __device__ __forceinline__ float4 fv(float4 a, float4 b) {
    return make_float4(f<FAST>(a.x, b.x), f<FAST>(a.y, b.y), f<FAST>(a.z, b.z), f<FAST>(a.w, b.w));
}

template <bool FAST> __device__ __forceinline__ double2 fv(double2 a, double2 b) {
    return make_double2(f<FAST>(a.x, b.x), f<FAST>(a.y, b.y));
}

// T: element type; V: its 16-byte vector; W: elements per vector.
template <typename T, typename V, int W, bool FAST>
__global__ void __launch_bounds__(256) elementwise_kernel(const T *__restrict__ a, const T *__restrict__ b,
                                                          T *__restrict__ out, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t nv = n / W;
    const V *av = reinterpret_cast<const V *>(a);
    const V *bv = reinterpret_cast<const V *>(b);
    V *ov = reinterpret_cast<V *>(out);
    for (size_t i = tid; i < nv; i += stride) ov[i] = fv<FAST>(av[i], bv[i]);
    for (size_t i = nv * W + tid; i < n; i += stride) out[i] = f<FAST>(a[i], b[i]);
}

const int kThreads = 256;

struct ew_state {
    gb_cuda_io io;
    gb_dtype dtype;
    int fast;
    size_t n;
    const void *a, *b;
    void *out;
    int blocks;
    size_t chunks; // of the overlapped end-to-end timing
    const char *kernel_name;
};

// Launch the right instantiation over elements [lo, lo + n) on stream st
// with `blocks` blocks; one place names them all. lo keeps the vector view
// aligned (a multiple of 4 elements: cudaMalloc's 256-byte alignment holds).
void launch(const ew_state *s, size_t lo, size_t n, int blocks, cudaStream_t st) {
    dim3 grid(blocks), block(kThreads);
    if (s->dtype == GB_FLOAT32) {
        const float *a = (const float *)s->a + lo, *b = (const float *)s->b + lo;
        float *o = (float *)s->out + lo;
        if (s->fast)
            elementwise_kernel<float, float4, 4, true><<<grid, block, 0, st>>>(a, b, o, n);
        else
            elementwise_kernel<float, float4, 4, false><<<grid, block, 0, st>>>(a, b, o, n);
    } else if (s->dtype == GB_BFLOAT16) {
        elementwise_kernel<__nv_bfloat16, vec8<__nv_bfloat16>, 8, false><<<grid, block, 0, st>>>(
            (const __nv_bfloat16 *)s->a + lo, (const __nv_bfloat16 *)s->b + lo, (__nv_bfloat16 *)s->out + lo, n);
    } else if (s->dtype == GB_FLOAT16) {
        elementwise_kernel<__half, vec8<__half>, 8, false><<<grid, block, 0, st>>>(
            (const __half *)s->a + lo, (const __half *)s->b + lo, (__half *)s->out + lo, n);
    } else {
        elementwise_kernel<double, double2, 2, false><<<grid, block, 0, st>>>(
            (const double *)s->a + lo, (const double *)s->b + lo, (double *)s->out + lo, n);
    }
}

const void *kernel_ptr(gb_dtype d, int fast) {
    if (d == GB_FLOAT32)
        return fast ? (const void *)elementwise_kernel<float, float4, 4, true>
                    : (const void *)elementwise_kernel<float, float4, 4, false>;
    if (d == GB_BFLOAT16) return (const void *)elementwise_kernel<__nv_bfloat16, vec8<__nv_bfloat16>, 8, false>;
    if (d == GB_FLOAT16) return (const void *)elementwise_kernel<__half, vec8<__half>, 8, false>;
    return (const void *)elementwise_kernel<double, double2, 2, false>;
}

// Elements per 16-byte vector access.
size_t per_vector(gb_dtype d) { return 16 / gb_dtype_size(d); }

int ew_supports(const gb_case *c, gb_err *why) {
    if (c->params.fast_math && c->dtype != GB_FLOAT32)
        return gb_errf(why, GB_SKIP, "fast_math applies to float32 only");
    double n = (double)c->shape[0] * (double)c->shape[1];
    return gb_cuda_fits(3.0 * n * gb_dtype_size(c->dtype), why);
}

int ew_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    ew_state *s = (ew_state *)calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    const gb_array *a = gb_arrays_find(in, "a"), *b = gb_arrays_find(in, "b");
    void *da = NULL, *db = NULL, *dout = NULL;
    int per_sm = 0;
    size_t vectors, want;
    if (!a || !b || a->count != b->count) {
        status = gb_errf(e, GB_FAIL, "elementwise: inputs a and b of equal length expected");
        goto fail;
    }
    s->dtype = c->dtype;
    s->fast = c->params.fast_math != 0;
    s->n = a->count;
    s->kernel_name = s->dtype == GB_FLOAT32    ? (s->fast ? "elementwise_kernel<float4, __sinf/__cosf>"
                                                          : "elementwise_kernel<float4, sinf/cosf>")
                     : s->dtype == GB_BFLOAT16 ? "elementwise_kernel<8 x bfloat16, float32 sinf/cosf>"
                     : s->dtype == GB_FLOAT16  ? "elementwise_kernel<8 x half, float32 sinf/cosf>"
                                               : "elementwise_kernel<double2, sin/cos>";
    status = gb_cuda_io_input(&s->io, a, &da, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_input(&s->io, b, &db, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_output(&s->io, "out", a->elem, s->n, &dout, e);
    if (status != GB_OK) goto fail;
    s->a = da;
    s->b = db;
    s->out = dout;
    // One resident wave of blocks; the grid-stride loop covers the rest.
    // Fewer when the array is small, so no block starts with nothing to do.
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_ptr(s->dtype, s->fast), kThreads, 0));
    if (per_sm < 1) per_sm = 1;
    vectors = s->n / per_vector(s->dtype) + 1;
    want = (vectors + kThreads - 1) / kThreads;
    s->blocks = gb_cuda.prop.multiProcessorCount * per_sm;
    if ((size_t)s->blocks > want) s->blocks = (int)want;
    if (s->blocks < 1) s->blocks = 1;
    s->chunks = gb_cuda_overlap_chunks(2.0 * (double)s->n * gb_dtype_size(s->dtype));
    *state = s;
    return GB_OK;
fail:
    gb_cuda_io_free(&s->io);
    free(s);
    return status;
}

int ew_issue(void *state, gb_err *e) {
    ew_state *s = (ew_state *)state;
    launch(s, 0, s->n, s->blocks, gb_cuda.stream);
    return gb_cuda_check_launch(s->kernel_name, e);
}

// One chunk of the overlapped end-to-end: a and b up, the kernel on the
// chunk (a grid for the chunk's size: chunks of other streams run beside
// it), out down.
int ew_chunk(void *state, size_t k, size_t nchunks, cudaStream_t st, gb_err *e) {
    ew_state *s = (ew_state *)state;
    int status = GB_OK;
    size_t lo, hi, es = gb_dtype_size(s->dtype);
    gb_cuda_chunk_range(s->n, nchunks, k, 64, &lo, &hi);
    if (hi <= lo) return GB_OK;
    size_t want = ((hi - lo) / (16 / es) + kThreads) / kThreads;
    int blocks = want < (size_t)s->blocks ? (int)want : s->blocks;
    for (int i = 0; i < 2; i++)
        CUDA_TRY(cudaMemcpyAsync((char *)s->io.in[i].dev + lo * es, (const char *)s->io.in[i].pinned + lo * es,
                                 (hi - lo) * es, cudaMemcpyHostToDevice, st));
    launch(s, lo, hi - lo, blocks < 1 ? 1 : blocks, st);
    status = gb_cuda_check_launch(s->kernel_name, e);
    if (status != GB_OK) return status;
    CUDA_TRY(cudaMemcpyAsync((char *)s->io.out[0].pinned + lo * es, (const char *)s->io.out[0].dev + lo * es,
                             (hi - lo) * es, cudaMemcpyDeviceToHost, st));
    return GB_OK;
fail:
    return status;
}

int ew_run(void *state, int timing, double *seconds, gb_err *e) {
    ew_state *s = (ew_state *)state;
    if (timing == GB_CUDA_TIMING_OVERLAPPED)
        return gb_cuda_time_overlapped(&s->io, s->chunks, ew_chunk, NULL, s, seconds, e);
    return gb_cuda_time(&s->io, timing, ew_issue, s, seconds, e);
}

int ew_fetch(void *state, gb_arrays *out, gb_err *e) {
    return gb_cuda_io_fetch(&((ew_state *)state)->io, out, e);
}

void ew_annotate(void *state, cJSON *extra) {
    ew_state *s = (ew_state *)state;
    cJSON_AddStringToObject(extra, "kernel", s->kernel_name);
    cJSON_AddBoolToObject(extra, "fast_math", s->fast);
    cJSON_AddNumberToObject(extra, "grid_blocks", s->blocks);
    cJSON_AddNumberToObject(extra, "block_threads", kThreads);
    cJSON_AddNumberToObject(extra, "overlap_chunks", (double)s->chunks);
    cJSON_AddNumberToObject(extra, "overlap_streams", GB_CUDA_CHUNK_STREAMS);
}

void ew_release(void *state) {
    ew_state *s = (ew_state *)state;
    if (!s) return;
    gb_cuda_io_free(&s->io);
    free(s);
}

} // namespace

extern "C" const gb_op_impl gb_cuda_elementwise = {ew_supports, ew_prepare, ew_run, ew_fetch, ew_annotate,
                                                   ew_release, gb_cuda_has_overlapped};
