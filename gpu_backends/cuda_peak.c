/* cuda_peak.c — the GPU's measured ceilings, against which results are
 * judged (pct_of_peak): device memory bandwidth (a device-to-device copy),
 * cuBLAS GEMM rates (float32, float64, TF32 tensor cores), and host↔device
 * transfer rates from pinned and pageable memory.
 *
 * Every figure: warm-up first, then the median of several repetitions
 * (3–10, as many as fit in about a second), on the backend's own stream.
 * Device work is timed with CUDA events on gb_cuda.stream; pageable
 * transfers with the host clock around call + stream sync, because the
 * driver stages them through a pinned buffer on the host's time and the
 * host-side part is what a user waits for. Inputs are non-zero (a hash
 * pattern, uploaded), all memory is freed before returning. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.h"
#include "cuda_matmul_lowp.h"
#include "timer.h"

enum { MAX_REPS = 10 };
#define TILE_BYTES ((size_t)32 << 20)
#define MIB ((size_t)1 << 20)

/* ---- helpers ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Non-zero values in ±[0.25, 1): a SplitMix64 hash of the index (no cuRAND,
 * no kernel), so GEMM inputs are not zeros or constants that hardware or a
 * library could short-cut. */
static uint64_t hash64(uint64_t i) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void fill_tile(void *tile, size_t bytes, int f64) {
    size_t n = bytes / (f64 ? sizeof(double) : sizeof(float));
    for (size_t i = 0; i < n; i++) {
        uint64_t h = hash64(i);
        double v = 0.25 + 0.75 * (double)(h >> 11) * 0x1.0p-53;
        if (h & 1) v = -v;
        if (f64) ((double *)tile)[i] = v;
        else ((float *)tile)[i] = (float)v;
    }
}

/* Fill a device buffer by uploading the pinned tile over and over. */
static int fill_device(void *dev, size_t bytes, const void *tile, gb_err *e) {
    int status = GB_OK;
    for (size_t off = 0; off < bytes; off += TILE_BYTES) {
        size_t len = bytes - off < TILE_BYTES ? bytes - off : TILE_BYTES;
        CUDA_TRY(cudaMemcpyAsync((char *)dev + off, tile, len, cudaMemcpyHostToDevice, gb_cuda.stream));
    }
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
fail:
    return status;
}

/* One thing to measure: issue() enqueues one repetition on gb_cuda.stream. */
typedef struct {
    int (*issue)(void *arg, gb_err *e);
    void *arg;
    int host_clock; /* time with the host clock (pageable copies) */
} measurable;

static int one_rep(const measurable *m, double *seconds, gb_err *e) {
    int status = GB_OK;
    if (m->host_clock) {
        CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
        double t0 = gb_now();
        status = m->issue(m->arg, e);
        if (status != GB_OK) goto fail;
        CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
        *seconds = gb_now() - t0;
    } else {
        CUDA_TRY(cudaEventRecord(gb_cuda.ev_start, gb_cuda.stream));
        status = m->issue(m->arg, e);
        if (status != GB_OK) goto fail;
        CUDA_TRY(cudaEventRecord(gb_cuda.ev_stop, gb_cuda.stream));
        CUDA_TRY(cudaEventSynchronize(gb_cuda.ev_stop));
        float ms = 0;
        CUDA_TRY(cudaEventElapsedTime(&ms, gb_cuda.ev_start, gb_cuda.ev_stop));
        *seconds = 1e-3 * ms;
    }
fail:
    return status;
}

/* Two warm-up repetitions (clocks up, cuBLAS kernel chosen, TLBs warm),
 * then as many as fit in ~1 s (3 to MAX_REPS); the median. */
static int measure(const measurable *m, double *median_s, gb_err *e) {
    double t[MAX_REPS], w;
    int status = GB_OK;
    for (int i = 0; i < 2 && status == GB_OK; i++) status = one_rep(m, &w, e);
    if (status != GB_OK) return status;
    int reps = w > 0 ? (int)(1.0 / w) : MAX_REPS;
    if (reps < 3) reps = 3;
    if (reps > MAX_REPS) reps = MAX_REPS;
    for (int i = 0; i < reps; i++)
        if ((status = one_rep(m, &t[i], e)) != GB_OK) return status;
    *median_s = median_of(t, reps);
    return GB_OK;
}

/* ---- what is measured ----------------------------------------------------- */

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    enum cudaMemcpyKind kind;
} copy_args;

static int issue_copy(void *arg, gb_err *e) {
    copy_args *c = arg;
    int status = GB_OK;
    CUDA_TRY(cudaMemcpyAsync(c->dst, c->src, c->bytes, c->kind, gb_cuda.stream));
fail:
    return status;
}

typedef struct {
    int f64, n;
    void *A, *B, *C;
} gemm_args;

static int issue_gemm(void *arg, gb_err *e) {
    gemm_args *g = arg;
    int status = GB_OK, n = g->n;
    if (g->f64) {
        const double one = 1.0, zero = 0.0;
        CUBLAS_TRY(cublasDgemm(gb_cuda.cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, g->A, n, g->B, n,
                               &zero, g->C, n));
    } else {
        const float one = 1.0f, zero = 0.0f;
        CUBLAS_TRY(cublasSgemm(gb_cuda.cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, g->A, n, g->B, n,
                               &zero, g->C, n));
    }
fail:
    return status;
}

/* Both directions at once: the D2H on a second stream, forked from and
 * joined back to gb_cuda.stream, so the events there bracket both. */
typedef struct {
    copy_args h2d, d2h;
    cudaStream_t second;
    cudaEvent_t fork, join;
} bidir_args;

static int issue_bidir(void *arg, gb_err *e) {
    bidir_args *b = arg;
    int status = GB_OK;
    CUDA_TRY(cudaEventRecord(b->fork, gb_cuda.stream));
    CUDA_TRY(cudaStreamWaitEvent(b->second, b->fork, 0));
    CUDA_TRY(cudaMemcpyAsync(b->d2h.dst, b->d2h.src, b->d2h.bytes, cudaMemcpyDeviceToHost, b->second));
    CUDA_TRY(cudaEventRecord(b->join, b->second));
    CUDA_TRY(cudaMemcpyAsync(b->h2d.dst, b->h2d.src, b->h2d.bytes, cudaMemcpyHostToDevice, gb_cuda.stream));
    CUDA_TRY(cudaStreamWaitEvent(gb_cuda.stream, b->join, 0));
fail:
    return status;
}

/* Everything allocated, so one exit path frees it whatever failed. */
typedef struct {
    void *tile;                  /* pinned hash pattern */
    void *d_a, *d_b;             /* device buffers */
    void *g_a, *g_b, *g_c;       /* GEMM operands */
    void *h_pinned, *h_pageable; /* transfer sources / targets */
    void *h_pinned2;             /* the D2H target of the bidirectional copy */
    cudaStream_t second;         /* its second stream and fork/join events */
    cudaEvent_t fork, join;
} resources;

static void release_all(resources *r) {
    /* Errors ignored: after a failure these may fail too, and there is
     * nothing better to do with the memory. */
    if (r->d_a) (void)cudaFree(r->d_a);
    if (r->d_b) (void)cudaFree(r->d_b);
    if (r->g_a) (void)cudaFree(r->g_a);
    if (r->g_b) (void)cudaFree(r->g_b);
    if (r->g_c) (void)cudaFree(r->g_c);
    if (r->tile) (void)cudaFreeHost(r->tile);
    if (r->h_pinned) (void)cudaFreeHost(r->h_pinned);
    if (r->h_pinned2) (void)cudaFreeHost(r->h_pinned2);
    if (r->fork) (void)cudaEventDestroy(r->fork);
    if (r->join) (void)cudaEventDestroy(r->join);
    if (r->second) (void)cudaStreamDestroy(r->second);
    free(r->h_pageable);
    memset(r, 0, sizeof *r);
}

static int free_bytes(size_t *out, gb_err *e) {
    size_t total = 0;
    int status = GB_OK;
    CUDA_TRY(cudaMemGetInfo(out, &total));
fail:
    return status;
}

/* Device memory bandwidth: a device-to-device copy of min(2 GiB, free/4),
 * counted as bytes read + bytes written (2 × size), the convention of
 * STREAM and BabelStream's copy. */
static int peak_d2d(cJSON *peaks, resources *r, gb_err *e) {
    size_t avail = 0;
    int status = free_bytes(&avail, e);
    if (status != GB_OK) return status;
    size_t bytes = avail / 4 < ((size_t)2 << 30) ? avail / 4 : ((size_t)2 << 30);
    bytes = bytes / MIB * MIB;
    if (bytes < 64 * MIB) return gb_errf(e, GB_SKIP, "d2d copy: only %zu MiB of device memory free", avail / MIB);
    CUDA_TRY(cudaMalloc(&r->d_a, bytes));
    CUDA_TRY(cudaMalloc(&r->d_b, bytes));
    if ((status = fill_device(r->d_a, bytes, r->tile, e)) != GB_OK) goto fail;
    copy_args c = {r->d_b, r->d_a, bytes, cudaMemcpyDeviceToDevice};
    measurable m = {issue_copy, &c, 0};
    double t;
    if ((status = measure(&m, &t, e)) != GB_OK) goto fail;
    cJSON_AddNumberToObject(peaks, "d2d_copy_gbs", 2.0 * (double)bytes / t * 1e-9);
    cJSON_AddNumberToObject(peaks, "d2d_bytes", (double)bytes);
fail:
    if (r->d_a) (void)cudaFree(r->d_a);
    if (r->d_b) (void)cudaFree(r->d_b);
    r->d_a = r->d_b = NULL;
    return status;
}

/* GEMM rates at n = 8192, halved until three float64 matrices fit in half
 * the free memory: large enough that cuBLAS runs its steady-state kernels. */
static int peak_gemm(cJSON *peaks, resources *r, gb_err *e) {
    size_t avail = 0;
    int status = free_bytes(&avail, e);
    if (status != GB_OK) return status;
    int n = 8192;
    while (n > 1024 && 3 * (size_t)n * (size_t)n * sizeof(double) > avail / 2) n /= 2;
    size_t bytes = (size_t)n * (size_t)n * sizeof(double); /* float32 uses the first half */
    CUDA_TRY(cudaMalloc(&r->g_a, bytes));
    CUDA_TRY(cudaMalloc(&r->g_b, bytes));
    CUDA_TRY(cudaMalloc(&r->g_c, bytes));

    /* The handle's math mode is shared with the matmul op: set it for each
     * measurement and put the caller's back afterwards. */
    cublasMath_t saved;
    CUBLAS_TRY(cublasGetMathMode(gb_cuda.cublas, &saved));
    static const struct {
        const char *key;
        int f64;
        cublasMath_t math;
    } kinds[] = {
        {"gemm_float32_gflops", 0, CUBLAS_DEFAULT_MATH},
        {"gemm_tf32_gflops", 0, CUBLAS_TF32_TENSOR_OP_MATH},
        {"gemm_float64_gflops", 1, CUBLAS_DEFAULT_MATH},
    };
    int filled_as = -1;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (filled_as != kinds[k].f64) {
            fill_tile(r->tile, TILE_BYTES, kinds[k].f64);
            size_t used = (size_t)n * (size_t)n * (kinds[k].f64 ? sizeof(double) : sizeof(float));
            if ((status = fill_device(r->g_a, used, r->tile, e)) != GB_OK) break;
            if ((status = fill_device(r->g_b, used, r->tile, e)) != GB_OK) break;
            filled_as = kinds[k].f64;
        }
        status = gb_cublas_check(cublasSetMathMode(gb_cuda.cublas, kinds[k].math), "cublasSetMathMode", e);
        if (status != GB_OK) break;
        gemm_args g = {kinds[k].f64, n, r->g_a, r->g_b, r->g_c};
        measurable m = {issue_gemm, &g, 0};
        double t;
        if ((status = measure(&m, &t, e)) != GB_OK) break;
        cJSON_AddNumberToObject(peaks, kinds[k].key, 2.0 * (double)n * n * n / t * 1e-9);
    }
    (void)cublasSetMathMode(gb_cuda.cublas, saved);
    if (status == GB_OK) cJSON_AddNumberToObject(peaks, "gemm_n", n);
fail:
    if (r->g_a) (void)cudaFree(r->g_a);
    if (r->g_b) (void)cudaFree(r->g_b);
    if (r->g_c) (void)cudaFree(r->g_c);
    r->g_a = r->g_b = r->g_c = NULL;
    return status;
}

/* Host↔device: 256 MiB (or a quarter of free memory) each way, from pinned
 * and from pageable (malloc'd, pages touched) host memory; then pinned both
 * ways at once (bidir_pinned_gbs: PCIe and NVLink-C2C are full duplex, so
 * this is the ceiling of transfer's direction "both"). Bytes counted once
 * per direction: what crossed the bus. */
static int peak_transfers(cJSON *peaks, resources *r, gb_err *e) {
    size_t avail = 0;
    int status = free_bytes(&avail, e);
    if (status != GB_OK) return status;
    size_t bytes = (size_t)256 << 20;
    if (bytes > avail / 4) bytes = avail / 4 / MIB * MIB;
    if (bytes < 16 * MIB) return gb_errf(e, GB_SKIP, "transfers: only %zu MiB of device memory free", avail / MIB);
    CUDA_TRY(cudaMalloc(&r->d_a, bytes));
    CUDA_TRY(cudaMallocHost(&r->h_pinned, bytes));
    r->h_pageable = malloc(bytes);
    if (!r->h_pageable) {
        status = gb_errf(e, GB_SKIP, "transfers: cannot allocate %zu MiB of host memory", bytes / MIB);
        goto fail;
    }
    for (size_t off = 0; off < bytes; off += TILE_BYTES) {
        size_t len = bytes - off < TILE_BYTES ? bytes - off : TILE_BYTES;
        memcpy((char *)r->h_pinned + off, r->tile, len);
        memcpy((char *)r->h_pageable + off, r->tile, len);
    }
    static const struct {
        const char *key;
        int to_device, pinned;
    } kinds[] = {
        {"h2d_pinned_gbs", 1, 1},
        {"d2h_pinned_gbs", 0, 1},
        {"h2d_pageable_gbs", 1, 0},
        {"d2h_pageable_gbs", 0, 0},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        void *host = kinds[k].pinned ? r->h_pinned : r->h_pageable;
        copy_args c = kinds[k].to_device
                          ? (copy_args){r->d_a, host, bytes, cudaMemcpyHostToDevice}
                          : (copy_args){host, r->d_a, bytes, cudaMemcpyDeviceToHost};
        measurable m = {issue_copy, &c, !kinds[k].pinned};
        double t;
        if ((status = measure(&m, &t, e)) != GB_OK) goto fail;
        cJSON_AddNumberToObject(peaks, kinds[k].key, (double)bytes / t * 1e-9);
    }
    {
        CUDA_TRY(cudaMalloc(&r->d_b, bytes));
        CUDA_TRY(cudaMallocHost(&r->h_pinned2, bytes));
        CUDA_TRY(cudaStreamCreateWithFlags(&r->second, cudaStreamNonBlocking));
        CUDA_TRY(cudaEventCreateWithFlags(&r->fork, cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&r->join, cudaEventDisableTiming));
        bidir_args b = {{r->d_a, r->h_pinned, bytes, cudaMemcpyHostToDevice},
                        {r->h_pinned2, r->d_b, bytes, cudaMemcpyDeviceToHost},
                        r->second, r->fork, r->join};
        measurable m = {issue_bidir, &b, 0};
        double t;
        if ((status = measure(&m, &t, e)) != GB_OK) goto fail;
        cJSON_AddNumberToObject(peaks, "bidir_pinned_gbs", 2.0 * (double)bytes / t * 1e-9);
    }
    cJSON_AddNumberToObject(peaks, "transfer_bytes", (double)bytes);
fail:
    if (r->d_a) (void)cudaFree(r->d_a);
    if (r->d_b) (void)cudaFree(r->d_b);
    if (r->h_pinned) (void)cudaFreeHost(r->h_pinned);
    if (r->h_pinned2) (void)cudaFreeHost(r->h_pinned2);
    if (r->fork) (void)cudaEventDestroy(r->fork);
    if (r->join) (void)cudaEventDestroy(r->join);
    if (r->second) (void)cudaStreamSynchronize(r->second), (void)cudaStreamDestroy(r->second);
    free(r->h_pageable);
    r->d_a = r->d_b = r->h_pinned = r->h_pinned2 = r->h_pageable = NULL;
    r->fork = r->join = NULL;
    r->second = NULL;
    return status;
}

unsigned gb_cuda_peak_dtypes;

static int issue_lowp(void *arg, gb_err *e) { return gb_cuda_lowp_issue(arg, e); }

/* The tensor-core GEMM ceiling of a reduced-precision dtype the run uses:
 * the matmul op's own cuBLASLt path (cuda_matmul_lowp.c) on n×n operands,
 * n as the float32 ceiling's (8192 where it fits). Inputs are the byte 0x3C
 * everywhere: finite and non-zero in every one of these types (bfloat16
 * 0.0115, float16 1.06, E4M3 1.5, int8 60, whose k·60² fits int32 to
 * k = 596,523). Best effort: a dtype with no kernel here (float8 before
 * sm_89) or any failure leaves its key out, the run goes on. */
static void peak_lowp_gemm(cJSON *peaks, gb_dtype dt, int n) {
    gb_err e = {{0}};
    size_t nn = (size_t)n * (size_t)n, in = gb_dtype_size(dt), out = gb_elem_size(gb_gemm_out_elem(dt));
    void *a = NULL, *b = NULL, *c = NULL;
    gb_cuda_lowp *s = NULL;
    gb_case cs = {.op_id = GB_OP_MATMUL, .dtype = dt, .shape = {n, n, n}, .rank = 3};
    double t = 0;
    if (gb_cuda_lowp_supports(&cs, &e) == GB_OK && cudaMalloc(&a, nn * in) == cudaSuccess &&
        cudaMalloc(&b, nn * in) == cudaSuccess && cudaMalloc(&c, nn * out) == cudaSuccess &&
        cudaMemsetAsync(a, 0x3C, nn * in, gb_cuda.stream) == cudaSuccess &&
        cudaMemsetAsync(b, 0x3C, nn * in, gb_cuda.stream) == cudaSuccess &&
        gb_cuda_lowp_prepare(&cs, 0, a, b, c, &s, &e) == GB_OK) {
        measurable m = {issue_lowp, s, 0};
        if (measure(&m, &t, &e) == GB_OK && t > 0)
            cJSON_AddNumberToObject(peaks, gb_dtype_gemm_peak(dt), 2.0 * (double)nn * n / t * 1e-9);
    }
    gb_cuda_lowp_release(s);
    if (a) (void)cudaFree(a);
    if (b) (void)cudaFree(b);
    if (c) (void)cudaFree(c);
    (void)cudaGetLastError(); /* a refused allocation is not the next call's error */
}

int gb_cuda_measure_peaks(cJSON *peaks, gb_err *e) {
    resources r = {0};
    double start = gb_now();
    int status = GB_OK;
    CUDA_TRY(cudaMallocHost(&r.tile, TILE_BYTES));
    fill_tile(r.tile, TILE_BYTES, 0);
    if ((status = peak_d2d(peaks, &r, e)) != GB_OK) goto fail;
    if ((status = peak_gemm(peaks, &r, e)) != GB_OK) goto fail;
    const cJSON *gn = cJSON_GetObjectItemCaseSensitive(peaks, "gemm_n");
    for (int d = 0; d < GB_DTYPE_COUNT && cJSON_IsNumber(gn); d++)
        if ((gb_cuda_peak_dtypes & (1u << d)) && d != GB_FLOAT32 && d != GB_FLOAT64)
            peak_lowp_gemm(peaks, (gb_dtype)d, (int)gn->valuedouble);
    fill_tile(r.tile, TILE_BYTES, 0);
    if ((status = peak_transfers(peaks, &r, e)) != GB_OK) goto fail;
    cJSON_AddNumberToObject(peaks, "measure_s", gb_now() - start);
fail:
    release_all(&r);
    return status;
}
