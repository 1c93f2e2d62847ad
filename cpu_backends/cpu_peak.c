/* cpu_peak.c — the CPU's measured ceilings, against which results are judged
 * (pct_of_peak): STREAM-style memory bandwidth and the GEMM rate per dtype
 * (OpenBLAS; oneDNN for the reduced precisions, and for float32 where the
 * kept choice runs it), on this machine, in this process, with the run's
 * thread count; beside them the ISA's theoretical ones (cpu_isa_peak.c).
 *
 * Bandwidth follows the STREAM convention: bytes = what the kernel reads plus
 * what it writes (copy 2 × 8 B per element, triad 3 × 8 B), NOT counting the
 * write-allocate read a normal store causes, so the figures compare with
 * published STREAM numbers; the DRAM traffic really moved is up to 1.5×
 * (copy) or 1.33× (triad) higher. Best of several repetitions, as STREAM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <cblas.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "cpu_onednn.h"
#include "precision.h"
#include "rng.h"
#include "timer.h"

static volatile double peak_sink; /* results read back so no loop is dead code */
/* how long one GEMM product and the STREAM passes should take: full, or
 * quick for a run's first ceilings (gb_cpu_set_peak_quick) */
static double gemm_target_s = 0.3, stream_s = 2.0;
void gb_cpu_set_peak_quick(int quick) {
    gemm_target_s = quick ? 0.08 : 0.3;
    stream_s = quick ? 0.4 : 2.0;
}

/* MemAvailable from /proc/meminfo in bytes; 0 when unknown. */
static size_t mem_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return (size_t)kb << 10;
}

static void *alloc64(size_t bytes) {
    return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

/* ---- memory bandwidth --------------------------------------------------- */

static int measure_stream(cJSON *peaks, int threads, gb_err *e) {
    /* Each array at least 4× all last-level caches together and 256 MiB,
     * so no repetition finds its data in cache; three arrays within half
     * of the available memory. */
    size_t bytes = 4 * gb_cpu_llc_bytes();
    if (bytes < ((size_t)256 << 20)) bytes = (size_t)256 << 20;
    size_t avail = mem_available();
    if (avail && 3 * bytes > avail / 2) bytes = avail / 6;
    size_t n = bytes / sizeof(double);
    if (n < ((size_t)1 << 20))
        return gb_errf(e, GB_SKIP, "STREAM: only %zu MiB of memory available", avail >> 20);

    double *a = alloc64(n * sizeof(double)), *b = alloc64(n * sizeof(double)),
           *c = alloc64(n * sizeof(double));
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return gb_errf(e, GB_SKIP, "STREAM: cannot allocate 3 × %zu MiB", (n * sizeof(double)) >> 20);
    }
    /* First touch by the threads and schedule the kernels use, so each
     * page lives on the NUMA node of the thread that streams it. */
#pragma omp parallel for simd schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.5;
    }

    const double s = 0.5;
    double best_copy = 1e30, best_triad = 1e30, start = gb_now();
    for (int rep = 0; rep < 12; rep++) {
        double t0 = gb_now();
#pragma omp parallel for simd schedule(static) num_threads(threads)
        for (size_t i = 0; i < n; i++) c[i] = a[i];
        double t1 = gb_now();
#pragma omp parallel for simd schedule(static) num_threads(threads)
        for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        double t2 = gb_now();
        /* The first pass warms the thread pool and TLBs: not counted. */
        if (rep > 0) {
            if (t1 - t0 < best_copy) best_copy = t1 - t0;
            if (t2 - t1 < best_triad) best_triad = t2 - t1;
        }
        if (rep >= 4 && t2 - start > stream_s) break; /* enough on a slow machine */
    }
    peak_sink = a[n / 2] + c[n - 1];
    free(a), free(b), free(c);

    cJSON_AddNumberToObject(peaks, "copy_gbs", 2.0 * sizeof(double) * (double)n / best_copy * 1e-9);
    /* The same copy counted as a transfer counts: bytes delivered (the
     * ceiling of transfer's local copy). */
    cJSON_AddNumberToObject(peaks, "copy_delivered_gbs", sizeof(double) * (double)n / best_copy * 1e-9);
    cJSON_AddNumberToObject(peaks, "triad_gbs", 3.0 * sizeof(double) * (double)n / best_triad * 1e-9);
    cJSON_AddNumberToObject(peaks, "stream_array_bytes", (double)(n * sizeof(double)));
    return GB_OK;
}

/* ---- GEMM rate ---------------------------------------------------------- */

static double time_gemm(gb_dtype dt, int n, void *A, void *B, void *C) {
    double t0 = gb_now();
    if (dt == GB_FLOAT32)
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
    else
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
    return gb_now() - t0;
}

/* Grow n by 1.5× from start (512, or for float64 four fifths of float32's
 * final size: float64 runs at about half float32's rate, so a product there
 * takes about as long as float32's last, and the search ends at once
 * instead of repeating float32's steps or timing three products twice as
 * long as needed) until one product takes more
 * than 0.3 s (so the final size runs ~0.3–1 s per product, large enough for
 * OpenBLAS to reach its steady rate), then best of three products at that
 * size. */
static int measure_gemm(cJSON *peaks, gb_dtype dt, int start, int *n_out, gb_err *e) {
    size_t es = gb_dtype_size(dt);
    size_t avail = mem_available();
    int n = start;
    double t = 0;
    void *A = NULL, *B = NULL, *C = NULL;
    for (;;) {
        size_t bytes = (size_t)n * (size_t)n * es;
        A = alloc64(bytes), B = alloc64(bytes), C = alloc64(bytes);
        if (!A || !B || !C) {
            free(A), free(B), free(C);
            return gb_errf(e, GB_SKIP, "GEMM peak: cannot allocate 3 × %zu MiB", bytes >> 20);
        }
        /* Random non-zero inputs: zeros or constants could take shortcuts. */
        if (dt == GB_FLOAT32) {
            gb_rng_fill_f32(A, (size_t)n * n, 1, 1, -1, 1);
            gb_rng_fill_f32(B, (size_t)n * n, 1, 2, -1, 1);
        } else {
            gb_rng_fill_f64(A, (size_t)n * n, 1, 1, -1, 1);
            gb_rng_fill_f64(B, (size_t)n * n, 1, 2, -1, 1);
        }
        /* OpenBLAS's first call sets up its buffers (float64 follows float32:
         * set up, and its first size is already a large one, best of three) */
        if (n == 512) time_gemm(dt, n, A, B, C);
        t = time_gemm(dt, n, A, B, C);
        int next = (n * 3 / 2 + 63) / 64 * 64;
        size_t next_bytes = 3 * (size_t)next * (size_t)next * es;
        if (t > gemm_target_s || (avail && next_bytes > avail / 4)) break;
        free(A), free(B), free(C);
        n = next;
    }
    double best = t;
    for (int rep = 0; rep < 2; rep++) {
        double r = time_gemm(dt, n, A, B, C);
        if (r < best) best = r;
    }
    peak_sink = dt == GB_FLOAT32 ? ((float *)C)[n + 1] : ((double *)C)[n + 1];
    free(A), free(B), free(C);

    char key[48];
    snprintf(key, sizeof key, "gemm_%s_gflops", gb_dtype_name(dt));
    cJSON_AddNumberToObject(peaks, key, 2.0 * (double)n * n * n / best * 1e-9);
    *n_out = n;
    return GB_OK;
}

static unsigned peak_dtypes;
void gb_cpu_set_peak_dtypes(unsigned mask) { peak_dtypes = mask; }

/* A reduced-precision GEMM ceiling: oneDNN's matmul (the library those
 * dtypes run on), n grown by 1.5x from 1024 until a product takes 0.3 s,
 * best of three there; the ceiling is the best rate of all sizes tried,
 * since oneDNN's rate falls with n (issue #27: bfloat16 4.6 TFLOP/s at
 * 1024, 4.0 at 8192 on the H100 host's Xeon), and a ceiling below what
 * mid sizes reach would read as more than 100%. Under the dtype's key
 * (gemm_bfloat16_gflops, ...; int8 counts 2mnk integer operations, as its
 * results do). A dtype with no kernel here is left out. */
static double measure_lowp_gemm(cJSON *peaks, gb_dtype dt) {
    size_t avail = mem_available(), in = gb_dtype_size(dt), out = gb_elem_size(gb_gemm_out_elem(dt));
    gb_case c = {.op_id = GB_OP_MATMUL, .dtype = dt, .rank = 3};
    gb_err e = {{0}};
    double top = 0;
    for (int n = 1024;; n = (n * 3 / 2 + 63) / 64 * 64) {
        size_t nn = (size_t)n * (size_t)n;
        void *A = alloc64(nn * in), *B = alloc64(nn * in), *C = alloc64(nn * out);
        gb_onednn_mm *mm = NULL;
        c.shape[0] = c.shape[1] = c.shape[2] = n;
        int ok = A && B && C && gb_onednn_matmul_supports(&c, &e) == GB_OK &&
                 gb_onednn_matmul_prepare(&c, 0, A, B, C, &mm, &e) == GB_OK;
        double best = 1e30, t = 0;
        if (ok) {
            gb_fill_rounded(gb_real_elem(dt), A, nn, 1, 1, -1, 1, gb_int8_range(n));
            gb_fill_rounded(gb_real_elem(dt), B, nn, 1, 2, -1, 1, gb_int8_range(n));
            ok = gb_onednn_matmul_run(mm, &t, &e) == GB_OK; /* the first call sets up */
            if (ok) ok = gb_onednn_matmul_run(mm, &best, &e) == GB_OK;
        }
        int next = (n * 3 / 2 + 63) / 64 * 64, last = best >= gemm_target_s || n >= 16384 ||
                                                     (avail && 3 * (size_t)next * next * out > avail / 4);
        for (int rep = 0; ok && last && rep < 2; rep++) { /* the size: best of three */
            ok = gb_onednn_matmul_run(mm, &t, &e) == GB_OK;
            if (t < best) best = t;
        }
        gb_onednn_matmul_release(mm);
        free(A), free(B), free(C);
        if (!ok) return 0;
        double rate = 2.0 * (double)n * nn / best * 1e-9;
        if (rate > top) top = rate;
        if (last) {
            if (peaks) cJSON_AddNumberToObject(peaks, gb_dtype_gemm_peak(dt), top);
            return top;
        }
    }
}

int gb_cpu_measure_peaks(cJSON *peaks, gb_err *e) {
    int threads = gb_cpu_threads();
    double start = gb_now();
    openblas_set_num_threads(threads);
    int status = measure_stream(peaks, threads, e);
    if (status != GB_OK) return status;
    int n32 = 0, n64 = 0;
    status = measure_gemm(peaks, GB_FLOAT32, 512, &n32, e);
    if (status != GB_OK) return status;
    status = measure_gemm(peaks, GB_FLOAT64, (n32 * 4 / 5 + 63) / 64 * 64, &n64, e);
    if (status != GB_OK) return status;
    for (int d = 0; d < GB_DTYPE_COUNT; d++)
        if ((peak_dtypes & (1u << d)) && d != GB_FLOAT32 && d != GB_FLOAT64) (void)measure_lowp_gemm(peaks, (gb_dtype)d);
    /* The float32 ceiling is the best library's: where the kept choice puts
     * large float32 products on oneDNN, its rate too (else a oneDNN result
     * would read as more than 100% of an OpenBLAS ceiling). */
    gb_case large = {.op_id = GB_OP_MATMUL, .dtype = GB_FLOAT32, .shape = {1024, 1024, 1024}, .rank = 3};
    cJSON *g32 = cJSON_GetObjectItemCaseSensitive(peaks, "gemm_float32_gflops");
    const char *lib32 = "openblas";
    if (gb_cpu_gemm_library_for(&large) == GB_CPU_GEMM_ONEDNN && cJSON_IsNumber(g32)) {
        double dn = measure_lowp_gemm(NULL, GB_FLOAT32);
        if (dn > g32->valuedouble) {
            cJSON_SetNumberValue(g32, dn);
            lib32 = "onednn";
        }
    }
    cJSON_AddStringToObject(peaks, "gemm_float32_library", lib32);
    gb_cpu_isa_peaks(peaks, threads);
    cJSON_AddNumberToObject(peaks, "gemm_n", n32);
    cJSON_AddNumberToObject(peaks, "gemm_float64_n", n64);
    cJSON_AddNumberToObject(peaks, "threads", threads);
    cJSON_AddNumberToObject(peaks, "measure_s", gb_now() - start);
    cJSON_AddNumberToObject(peaks, "gemm_target_s", gemm_target_s);
    return GB_OK;
}
