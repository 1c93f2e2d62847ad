/* cpu_gemm_choice.c — which library computes the CPU's GEMM in each dtype
 * (gb_cpu_gemm_library, cpu_backend.h).
 *
 * --cpu-gemm openblas|onednn forces one. Otherwise (auto): a dtype only one
 * library of this build has goes to it (float64: OpenBLAS; bfloat16,
 * float16, int8: oneDNN), and float32, which both have, goes to the faster
 * of the two on this machine, measured once: a 1024³ product by each, best
 * of three, interleaved (OpenBLAS, oneDNN, OpenBLAS, ...), with the run's
 * thread count. Neither wins everywhere: on the issue #27 Xeon oneDNN 2.6.3's
 * float32 ran at half OpenBLAS's rate; on the development EPYC with
 * OpenBLAS's Haswell kernels at less than half oneDNN's. The answer is kept
 * like FFTW's wisdom (cpu_fft.c): in $GPUBENCH_CPU_GEMM_CHOICE when set
 * (empty: off — float32 stays on OpenBLAS, unmeasured), else in
 * $XDG_CACHE_HOME/gpubench (~/.cache/gpubench) under a name with the host,
 * the thread count, the OpenBLAS core and the build's commit, since it holds
 * only for those. The file is one line, "float32 LIB OPENBLAS_GFLOPS
 * ONEDNN_GFLOPS"; every float32 result says in extra.library_choice how its
 * library was chosen. The measured choice applies to products of at least
 * 512 in every dimension; smaller ones stay on OpenBLAS (CHOICE_MIN_DIM).
 * Not done: a measured choice per shape class (skinny against square),
 * BLIS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cblas.h>

#include "cpu_backend.h"
#include "cpu_onednn.h"
#include "results_io.h"
#include "rng.h"
#include "timer.h"

#define CHOICE_N 1024

static int gemm_choice = GB_CPU_GEMM_AUTO;
static int f32_lib = -1;          /* the float32 library, once decided */
static char f32_why[160];         /* how it was decided, for the results */

void gb_cpu_set_gemm(int lib) {
    gemm_choice = lib;
    f32_lib = -1;
}

/* The cache file, or NULL when the choice is not kept (env set empty). */
static const char *choice_path(char *buf, size_t len) {
    const char *w = getenv("GPUBENCH_CPU_GEMM_CHOICE");
    if (w) return *w ? (snprintf(buf, len, "%s", w), buf) : NULL;
    char dir[2048], host[256] = "host";
    if (!gb_cpu_cache_dir(dir, sizeof dir)) return NULL;
    gethostname(host, sizeof host - 1);
    char safe[96];
    gb_safe_file_name(host, safe, sizeof safe);
    snprintf(buf, len, "%s/cpu-gemm-%s-%dthreads-%s-%s", dir, safe, gb_cpu_threads(), openblas_get_corename(),
             GB_GIT_COMMIT);
    return buf;
}

/* Best of three 1024³ float32 products by each library, interleaved. */
static int measure(double *openblas_gflops, double *onednn_gflops) {
    size_t n = CHOICE_N, nn = n * n;
    float *A = gb_alloc(nn * 4), *B = gb_alloc(nn * 4), *C = gb_alloc(nn * 4);
    gb_onednn_mm *dnnl = NULL;
    gb_case c = {.op_id = GB_OP_MATMUL, .dtype = GB_FLOAT32, .shape = {CHOICE_N, CHOICE_N, CHOICE_N}, .rank = 3};
    gb_err e = {{0}};
    int ok = A && B && C && gb_onednn_matmul_supports(&c, &e) == GB_OK &&
             gb_onednn_matmul_prepare(&c, 0, A, B, C, &dnnl, &e) == GB_OK;
    double best[2] = {1e30, 1e30};
    if (ok) {
        gb_rng_fill_f32(A, nn, 1, 1, -1, 1);
        gb_rng_fill_f32(B, nn, 1, 2, -1, 1);
        openblas_set_num_threads(gb_cpu_threads());
        for (int rep = 0; rep < 4 && ok; rep++) { /* the first of each warms up */
            double t0 = gb_now(), t;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, CHOICE_N, CHOICE_N, CHOICE_N, 1.0f, A, CHOICE_N, B,
                        CHOICE_N, 0.0f, C, CHOICE_N);
            t = gb_now() - t0;
            if (rep && t < best[0]) best[0] = t;
            ok = gb_onednn_matmul_run(dnnl, &t, &e) == GB_OK;
            if (rep && t < best[1]) best[1] = t;
        }
    }
    gb_onednn_matmul_release(dnnl);
    gb_free(A), gb_free(B), gb_free(C);
    *openblas_gflops = 2.0 * (double)n * nn / best[0] * 1e-9;
    *onednn_gflops = 2.0 * (double)n * nn / best[1] * 1e-9;
    return ok;
}

/* The kept line (at most 127 bytes), or NULL. */
static char *read_line(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *buf = calloc(1, 128);
    if (buf && !fgets(buf, 128, f)) buf[0] = '\0';
    fclose(f);
    return buf;
}

/* Parse a kept choice: "float32 onednn 134.1 147.5". */
int gb_cpu_gemm_parse_choice(const char *text, int *lib, double *ob, double *dn) {
    char name[16], which[16];
    if (!text || sscanf(text, "%15s %15s %lf %lf", name, which, ob, dn) != 4 || strcmp(name, "float32")) return 0;
    if (!strcmp(which, "openblas")) *lib = GB_CPU_GEMM_OPENBLAS;
    else if (!strcmp(which, "onednn")) *lib = GB_CPU_GEMM_ONEDNN;
    else return 0;
    return 1;
}

static void decide_float32(void) {
    char path[2400];
    const char *p = choice_path(path, sizeof path);
    double ob = 0, dn = 0;
    int lib = GB_CPU_GEMM_OPENBLAS;
    if (!p) {
        f32_lib = GB_CPU_GEMM_OPENBLAS;
        snprintf(f32_why, sizeof f32_why, "default (GPUBENCH_CPU_GEMM_CHOICE is empty: not measured)");
        return;
    }
    char *text = read_line(p);
    if (gb_cpu_gemm_parse_choice(text, &lib, &ob, &dn)) {
        free(text);
        f32_lib = lib;
        snprintf(f32_why, sizeof f32_why, "kept: %s (OpenBLAS %.0f, oneDNN %.0f GFLOP/s at %d^3)",
                 lib == GB_CPU_GEMM_ONEDNN ? "onednn" : "openblas", ob, dn, CHOICE_N);
        return;
    }
    free(text);
    if (!measure(&ob, &dn)) {
        f32_lib = GB_CPU_GEMM_OPENBLAS;
        snprintf(f32_why, sizeof f32_why, "default (oneDNN could not be measured)");
        return;
    }
    f32_lib = dn > ob ? GB_CPU_GEMM_ONEDNN : GB_CPU_GEMM_OPENBLAS;
    char line[96];
    int len = snprintf(line, sizeof line, "float32 %s %.1f %.1f\n", f32_lib == GB_CPU_GEMM_ONEDNN ? "onednn" : "openblas",
                       ob, dn);
    gb_err e = {{0}};
    (void)gb_file_write(p, line, (size_t)len, &e); /* a cache: failing to keep it costs a re-measurement */
    snprintf(f32_why, sizeof f32_why, "measured: %s (OpenBLAS %.0f, oneDNN %.0f GFLOP/s at %d^3)",
             f32_lib == GB_CPU_GEMM_ONEDNN ? "onednn" : "openblas", ob, dn, CHOICE_N);
}

/* Below this in any dimension a float32 product stays on OpenBLAS: the
 * 1024³ measurement says nothing about small products, and oneDNN's time
 * of a 64³ one varied by 3x between fresh processes on the development
 * machine (the --confirm tests caught it), OpenBLAS's did not. */
#define CHOICE_MIN_DIM 512

int gb_cpu_gemm_library_for(const gb_case *c) {
    if (gemm_choice == GB_CPU_GEMM_AUTO && c->dtype == GB_FLOAT32 &&
        (c->shape[0] < CHOICE_MIN_DIM || c->shape[1] < CHOICE_MIN_DIM || c->shape[2] < CHOICE_MIN_DIM))
        return GB_CPU_GEMM_OPENBLAS;
    return gb_cpu_gemm_library(c->dtype);
}

const char *gb_cpu_gemm_choice_reason_for(const gb_case *c) {
    if (gb_cpu_gemm_library_for(c) == GB_CPU_GEMM_OPENBLAS && gemm_choice == GB_CPU_GEMM_AUTO &&
        c->dtype == GB_FLOAT32 && gb_cpu_gemm_library(GB_FLOAT32) != GB_CPU_GEMM_OPENBLAS)
        return "OpenBLAS below 512 in a dimension (the measured choice is for large products)";
    return gb_cpu_gemm_choice_reason(c->dtype);
}

int gb_cpu_gemm_library(gb_dtype d) {
    if (gemm_choice != GB_CPU_GEMM_AUTO) return gemm_choice;
    if (d == GB_FLOAT64) return GB_CPU_GEMM_OPENBLAS;
    if (d != GB_FLOAT32) return GB_CPU_GEMM_ONEDNN;
    if (f32_lib < 0) decide_float32();
    return f32_lib;
}

const char *gb_cpu_gemm_choice_reason(gb_dtype d) {
    if (gemm_choice != GB_CPU_GEMM_AUTO) return "forced (--cpu-gemm)";
    if (d == GB_FLOAT32) return f32_lib < 0 ? "undecided" : f32_why;
    return "the only library of this build with the dtype";
}
