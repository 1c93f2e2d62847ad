// cuda_transfer.cu — what moving bytes between host and GPU costs: one copy
// host→device (h2d), device→host (d2h), or one each way at once (both), from
// or into pageable, pinned or mapped host memory.
//
//   memory    how a leg moves                        host buffer
//   pageable  cudaMemcpyAsync (the driver stages      gb_alloc (malloc'd, pages
//             through its own pinned buffer; the      touched in prepare)
//             call returns once staged / done)
//   pinned    cudaMemcpyAsync (DMA straight from      cudaMallocHost (the backend's
//             the page-locked buffer)                 kept pinned blocks; from
//                                                     128 MiB registered huge
//                                                     pages: cuda_common.c)
//   mapped    copy_kernel below reads (h2d) or        the same page-locked memory,
//             writes (d2h) host memory over the       dereferenced by the kernel
//             bus itself: zero-copy, no cudaMemcpy    through its device pointer
//
// Both directions at once: with cudaMemcpyAsync the D2H leg goes on a second
// stream of this case's own, forked from and joined back to the backend's
// stream by events (so the device timing's events on gb_cuda.stream bracket
// both legs, and the copy engines of each direction can run together); with
// mapped memory one kernel does both legs. Pageable copies stay mostly
// serial either way: each call blocks the host thread while it stages, which
// is what one host thread gets.
//
// Timings: "device" is the events on the stream around the copies (for
// pageable memory that includes the host-side staging, since the start event
// completes at once on an idle stream); "end_to_end" the host clock around
// the same, after a stream sync: there is nothing to upload or download
// besides the transfer itself (the io has no buffers).
//
// Verification reads back what arrived, untimed: the device target of the
// h2d leg (copied to the host in fetch) and the host target of the d2h leg.
// Both targets are poisoned (all-ones bytes) in prepare, so a skipped chunk
// stays poison and fails the byte comparison.
#include <stdlib.h>
#include <string.h>

#include "cuda_common.h"

namespace {

const int kThreads = 256;

// Copies n16 16-byte words (and one 8-byte tail when tail8) from a_src to
// a_dst and from b_src to b_dst; either pair may be null. Grid-stride, one
// 16-byte load and store per word per leg, so that a mapped leg keeps many
// reads in flight over the bus.
__global__ void __launch_bounds__(kThreads)
    copy_kernel(uint4 *__restrict__ a_dst, const uint4 *__restrict__ a_src, uint4 *__restrict__ b_dst,
                const uint4 *__restrict__ b_src, size_t n16, int tail8) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += stride) {
        if (a_dst) a_dst[i] = a_src[i];
        if (b_dst) b_dst[i] = b_src[i];
    }
    if (tail8 && blockIdx.x == 0 && threadIdx.x == 0) {
        if (a_dst) reinterpret_cast<uint2 *>(a_dst + n16)[0] = reinterpret_cast<const uint2 *>(a_src + n16)[0];
        if (b_dst) reinterpret_cast<uint2 *>(b_dst + n16)[0] = reinterpret_cast<const uint2 *>(b_src + n16)[0];
    }
}

struct tr_state {
    gb_cuda_io io;        // no buffers: nothing moves besides the transfer itself
    size_t bytes;
    gb_elem elem;         // x's element type, for the outputs
    int direction, memory;
    int h2d, d2h;         // which legs run
    void *h_src;          // host source of the h2d leg (holds x)
    void *h_dst;          // host target of the d2h leg (poisoned)
    void *d_dst;          // device target of the h2d leg (poisoned)
    void *d_src;          // device source of the d2h leg (holds x)
    void *h_src_dev, *h_dst_dev; // mapped: the host buffers' device pointers
    cudaStream_t second;  // both, with cudaMemcpyAsync: the D2H leg's stream
    cudaEvent_t fork, join;
    int blocks;
    const char *routine;
};

// A host buffer of this case's memory kind.
int host_alloc(const tr_state *s, void **p, gb_err *e) {
    if (s->memory == GB_MEM_PAGEABLE) {
        *p = gb_alloc(s->bytes);
        return *p ? GB_OK : gb_errf(e, GB_SKIP, "transfer: out of host memory for %zu pageable bytes", s->bytes);
    }
    return gb_cuda_check(gb_cuda_pinned_get(p, s->bytes), "cudaMallocHost", e);
}

void host_free(const tr_state *s, void *p) {
    if (!p) return;
    if (s->memory == GB_MEM_PAGEABLE) gb_free(p);
    else gb_cuda_pinned_put(p, s->bytes);
}

int tr_supports(const gb_case *c, gb_err *why) {
    double legs = c->params.direction == GB_DIR_BOTH ? 2 : 1;
    return gb_cuda_fits(legs * (double)c->shape[0], why);
}

void tr_release(void *state) {
    tr_state *s = (tr_state *)state;
    if (!s) return;
    (void)cudaStreamSynchronize(gb_cuda.stream);
    if (s->second) (void)cudaStreamSynchronize(s->second);
    if (s->d_dst) (void)cudaFree(s->d_dst);
    if (s->d_src) (void)cudaFree(s->d_src);
    host_free(s, s->h_src);
    host_free(s, s->h_dst);
    if (s->fork) (void)cudaEventDestroy(s->fork);
    if (s->join) (void)cudaEventDestroy(s->join);
    if (s->second) (void)cudaStreamDestroy(s->second);
    (void)cudaGetLastError();
    free(s);
}

int tr_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK, per_sm = 0;
    size_t words = 0, want = 0;
    const gb_array *x = gb_arrays_find(in, "x");
    tr_state *s = (tr_state *)calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "transfer: out of host memory");
    s->bytes = (size_t)c->shape[0];
    s->direction = c->params.direction;
    s->memory = c->params.memory;
    s->h2d = s->direction != GB_DIR_D2H;
    s->d2h = s->direction != GB_DIR_H2D;
    if (!x || x->count * gb_elem_size(x->elem) != s->bytes || s->bytes % 8 != 0) {
        status = gb_errf(e, GB_FAIL, "transfer: input x of %zu bytes (a multiple of 8) expected", s->bytes);
        goto fail;
    }
    s->elem = x->elem;
    if (s->h2d) {
        status = host_alloc(s, &s->h_src, e);
        if (status != GB_OK) goto fail;
        memcpy(s->h_src, x->data, s->bytes);
        CUDA_TRY(cudaMalloc(&s->d_dst, s->bytes));
        CUDA_TRY(cudaMemsetAsync(s->d_dst, 0xff, s->bytes, gb_cuda.stream));
    }
    if (s->d2h) {
        status = host_alloc(s, &s->h_dst, e);
        if (status != GB_OK) goto fail;
        memset(s->h_dst, 0xff, s->bytes); // poison, and touch every page before the clock
        CUDA_TRY(cudaMalloc(&s->d_src, s->bytes));
        CUDA_TRY(cudaMemcpyAsync(s->d_src, x->data, s->bytes, cudaMemcpyHostToDevice, gb_cuda.stream));
    }
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
    if (s->memory == GB_MEM_MAPPED) {
        if (s->h_src) CUDA_TRY(cudaHostGetDevicePointer(&s->h_src_dev, s->h_src, 0));
        if (s->h_dst) CUDA_TRY(cudaHostGetDevicePointer(&s->h_dst_dev, s->h_dst, 0));
        // One resident wave of blocks, fewer for small copies.
        CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_kernel, kThreads, 0));
        if (per_sm < 1) per_sm = 1;
        words = s->bytes / 16 + 1;
        want = (words + kThreads - 1) / kThreads;
        s->blocks = gb_cuda.prop.multiProcessorCount * per_sm;
        if ((size_t)s->blocks > want) s->blocks = (int)want;
        s->routine = "copy_kernel on mapped host memory (zero-copy)";
    } else if (s->h2d && s->d2h) {
        CUDA_TRY(cudaStreamCreateWithFlags(&s->second, cudaStreamNonBlocking));
        CUDA_TRY(cudaEventCreateWithFlags(&s->fork, cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&s->join, cudaEventDisableTiming));
        s->routine = "cudaMemcpyAsync H2D and D2H on two streams";
    } else {
        s->routine = s->h2d ? "cudaMemcpyAsync H2D" : "cudaMemcpyAsync D2H";
    }
    *state = s;
    return GB_OK;
fail:
    tr_release(s);
    return status;
}

int tr_issue(void *state, gb_err *e) {
    tr_state *s = (tr_state *)state;
    int status = GB_OK;
    if (s->memory == GB_MEM_MAPPED) {
        copy_kernel<<<s->blocks, kThreads, 0, gb_cuda.stream>>>(
            (uint4 *)s->d_dst, (const uint4 *)s->h_src_dev, (uint4 *)s->h_dst_dev, (const uint4 *)s->d_src,
            s->bytes / 16, (int)(s->bytes % 16 != 0));
        return gb_cuda_check_launch("copy_kernel", e);
    }
    if (s->h2d && s->d2h) {
        CUDA_TRY(cudaEventRecord(s->fork, gb_cuda.stream));
        CUDA_TRY(cudaStreamWaitEvent(s->second, s->fork, 0));
        CUDA_TRY(cudaMemcpyAsync(s->h_dst, s->d_src, s->bytes, cudaMemcpyDeviceToHost, s->second));
        CUDA_TRY(cudaEventRecord(s->join, s->second));
        CUDA_TRY(cudaMemcpyAsync(s->d_dst, s->h_src, s->bytes, cudaMemcpyHostToDevice, gb_cuda.stream));
        CUDA_TRY(cudaStreamWaitEvent(gb_cuda.stream, s->join, 0));
    } else if (s->h2d) {
        CUDA_TRY(cudaMemcpyAsync(s->d_dst, s->h_src, s->bytes, cudaMemcpyHostToDevice, gb_cuda.stream));
    } else {
        CUDA_TRY(cudaMemcpyAsync(s->h_dst, s->d_src, s->bytes, cudaMemcpyDeviceToHost, gb_cuda.stream));
    }
fail:
    return status;
}

int tr_run(void *state, int timing, double *seconds, gb_err *e) {
    tr_state *s = (tr_state *)state;
    return gb_cuda_time(&s->io, timing, tr_issue, s, seconds, e);
}

// y: what the (first) leg delivered; y_back: the D2H leg's when both.
int tr_fetch(void *state, gb_arrays *out, gb_err *e) {
    tr_state *s = (tr_state *)state;
    int status = GB_OK;
    gb_elem el = s->elem;
    size_t count = s->bytes / gb_elem_size(el);
    gb_array *y = NULL;
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
    if (s->h2d) {
        y = gb_arrays_add(out, "y", el, count, e);
        if (!y) return GB_FAIL;
        CUDA_TRY(cudaMemcpy(y->data, s->d_dst, s->bytes, cudaMemcpyDeviceToHost));
    }
    if (s->d2h && !gb_arrays_add_copy(out, s->h2d ? "y_back" : "y", el, count, s->h_dst, e)) return GB_FAIL;
fail:
    return status;
}

void tr_annotate(void *state, cJSON *extra) {
    tr_state *s = (tr_state *)state;
    static const char *const memory[] = {"pageable", "pinned", "mapped"};
    cJSON_AddStringToObject(extra, "routine", s->routine);
    cJSON_AddStringToObject(extra, "host_memory", memory[s->memory]);
    if (s->memory == GB_MEM_MAPPED) {
        cJSON_AddNumberToObject(extra, "grid_blocks", s->blocks);
        cJSON_AddNumberToObject(extra, "block_threads", kThreads);
    }
}

} // namespace

extern "C" const gb_op_impl gb_cuda_transfer = {tr_supports, tr_prepare, tr_run, tr_fetch, tr_annotate, tr_release};
