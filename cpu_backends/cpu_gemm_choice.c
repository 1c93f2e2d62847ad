/* cpu_gemm_choice.c — which library computes the CPU's GEMM of a case
 * (gb_cpu_gemm_library_for, cpu_backend.h), per dtype and shape class.
 *
 * --cpu-gemm openblas|onednn|blis forces one; --cpu-blas PATH sends float32
 * and float64 to the site's CBLAS (cpu_gemm_dl.c). Otherwise (auto): a dtype
 * only one library has goes to it (bfloat16, float16, int8: oneDNN), and
 * float32 and float64 go to the fastest candidate for the case's shape
 * class, measured once on this machine (huge is apart from large because
 * one size did not speak for the other: on the issue #27 Xeon the two
 * float32 libraries tied at 1024³, the kept oneDNN then ran 4096³ and 8192³,
 * where OpenBLAS was 30% faster):
 *   huge    m, k, n all >= 2048           measured at 2048 x 2048 x 2048
 *   large   m, k, n all >= 512 (not huge) measured at 1024 x 1024 x 1024
 *   skinny  m or n <= 64, k and the other >= 512 (inference: a few rows
 *           against a weight matrix)      measured at 32 x 4096 x 4096
 *   small   the rest                      measured at 128 x 128 x 128
 * Candidates: float32 OpenBLAS, oneDNN, BLIS; float64 OpenBLAS, BLIS (oneDNN
 * has no float64 matmul); the small class leaves oneDNN out — its time of a
 * 64³ product varied 3x between fresh processes on the development machine
 * (the --confirm tests caught it), so a choice kept across processes would
 * not hold. Each candidate: one warm-up, then the best of three, interleaved
 * (A B C A B C ...), with the run's thread count; one whose warm-up took 20x
 * the fastest's is dropped after it. Neither library wins
 * everywhere: on the issue #27 Xeon oneDNN 2.6.3's float32 ran at half
 * OpenBLAS's rate; on the development EPYC with OpenBLAS's Haswell kernels
 * at less than half oneDNN's.
 *
 * The answers are kept like FFTW's wisdom (cpu_fft.c): in
 * $GPUBENCH_CPU_GEMM_CHOICE when set (empty: off — float32/float64 stay on
 * OpenBLAS, unmeasured), else in $XDG_CACHE_HOME/gpubench (~/.cache/gpubench)
 * under a name with the host, the thread count, the OpenBLAS core and the
 * build's commit, since they hold only for those. One line per dtype and
 * class: "float32 large onednn openblas=67.1 onednn=107.0 blis=90.2"
 * (GFLOP/s); a class not in the file is measured when a case first needs it
 * and appended. Every result says in extra.library_choice how its library
 * was chosen and in extra.shape_class its class. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cblas.h>

#include "cpu_backend.h"
#include "cpu_onednn.h"
#include "file_read.h"
#include "results_io.h"
#include "rng.h"
#include "timer.h"

enum { CLASS_LARGE, CLASS_SKINNY, CLASS_SMALL, CLASS_HUGE, NCLASS };
static const char *const class_names[NCLASS] = {"large", "skinny", "small", "huge"};
static const int class_shape[NCLASS][3] = {
    {1024, 1024, 1024}, {32, 4096, 4096}, {128, 128, 128}, {2048, 2048, 2048}}; /* m, k, n */
static const char *const lib_names[] = {"auto", "openblas", "onednn", "blis", "cblas"};
#define NLIBS 5

static int gemm_choice = GB_CPU_GEMM_AUTO;
typedef struct {
    int lib; /* GB_CPU_GEMM_AUTO (0): not decided yet */
    char why[240];
} decision;
static decision decided[2][NCLASS]; /* [float64?][class] */
static char forced_why[400];

void gb_cpu_set_gemm(int lib) {
    gemm_choice = lib;
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < NCLASS; k++) decided[d][k].lib = GB_CPU_GEMM_AUTO;
}

const char *gb_cpu_gemm_lib_name(int lib) { return lib >= 0 && lib < NLIBS ? lib_names[lib] : "?"; }

int gb_cpu_gemm_lib_parse(const char *name) {
    for (int i = 0; i < NLIBS - 1; i++) /* "cblas" is --cpu-blas's, not a --cpu-gemm value */
        if (!strcmp(name, lib_names[i])) return i;
    return -1;
}

static int class_of(const gb_case *c) {
    long long m = c->shape[0], k = c->shape[1], n = c->shape[2];
    if (m >= 2048 && k >= 2048 && n >= 2048) return CLASS_HUGE;
    if (m >= 512 && k >= 512 && n >= 512) return CLASS_LARGE;
    if ((m <= 64 || n <= 64) && k >= 512 && (m >= 512 || n >= 512)) return CLASS_SKINNY;
    return CLASS_SMALL;
}

const char *gb_cpu_gemm_shape_class(const gb_case *c) { return class_names[class_of(c)]; }

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

/* Parse one kept line: "float32 large onednn openblas=67.1 ...". */
int gb_cpu_gemm_parse_choice(const char *line, gb_dtype *d, int *cls, int *lib) {
    char dt[16], cl[16], which[16];
    if (!line || sscanf(line, "%15s %15s %15s", dt, cl, which) != 3) return 0;
    if (!strcmp(dt, "float32")) *d = GB_FLOAT32;
    else if (!strcmp(dt, "float64")) *d = GB_FLOAT64;
    else return 0;
    *cls = -1;
    for (int k = 0; k < NCLASS; k++)
        if (!strcmp(cl, class_names[k])) *cls = k;
    *lib = gb_cpu_gemm_lib_parse(which);
    return *cls >= 0 && *lib > GB_CPU_GEMM_AUTO;
}

/* One product by lib on m×k·k×n buffers; its time, or < 0 on failure. */
static double time_once(int lib, gb_dtype d, const int s[3], const void *A, const void *B, void *C, gb_onednn_mm *dnnl) {
    double t = -1;
    gb_err e = {{0}};
    if (lib == GB_CPU_GEMM_ONEDNN) return gb_onednn_matmul_run(dnnl, &t, &e) == GB_OK ? t : -1;
    double t0 = gb_now();
    if (lib == GB_CPU_GEMM_OPENBLAS && d == GB_FLOAT32)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s[0], s[2], s[1], 1.0f, A, s[1], B, s[2], 0.0f, C, s[2]);
    else if (lib == GB_CPU_GEMM_OPENBLAS)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s[0], s[2], s[1], 1.0, A, s[1], B, s[2], 0.0, C, s[2]);
    else
        gb_cpu_dl_gemm(lib, d, s[0], s[2], s[1], A, B, C);
    return gb_now() - t0;
}

/* Measure the candidates of (d, cls); the fastest, its line into line;
 * *keepable: whether the measurement was whole enough to keep. */
static int measure(gb_dtype d, int cls, char *line, size_t len, int *keepable) {
    const int *s = class_shape[cls];
    size_t es = d == GB_FLOAT32 ? 4 : 8, na = (size_t)s[0] * s[1], nb = (size_t)s[1] * s[2], nc = (size_t)s[0] * s[2];
    void *A = gb_alloc(na * es), *B = gb_alloc(nb * es), *C = gb_alloc(nc * es);
    int libs[3], nlib = 0;
    gb_onednn_mm *dnnl = NULL;
    gb_err e = {{0}};
    libs[nlib++] = GB_CPU_GEMM_OPENBLAS;
    gb_case c = {.op_id = GB_OP_MATMUL, .dtype = d, .shape = {s[0], s[1], s[2]}, .rank = 3};
    if (A && B && C && d == GB_FLOAT32 && cls != CLASS_SMALL && gb_onednn_matmul_supports(&c, &e) == GB_OK &&
        gb_onednn_matmul_prepare(&c, 0, A, B, C, &dnnl, &e) == GB_OK)
        libs[nlib++] = GB_CPU_GEMM_ONEDNN;
    if (gb_cpu_dl_available(GB_CPU_GEMM_BLIS, &e) == GB_OK) libs[nlib++] = GB_CPU_GEMM_BLIS;
    double best[3] = {1e30, 1e30, 1e30};
    int failed[3] = {0, 0, 0}; /* a candidate whose GEMM could not run */
    if (A && B && C) {
        if (d == GB_FLOAT32) {
            gb_rng_fill_f32(A, na, 1, 1, -1, 1);
            gb_rng_fill_f32(B, nb, 1, 2, -1, 1);
        } else {
            gb_rng_fill_f64(A, na, 1, 1, -1, 1);
            gb_rng_fill_f64(B, nb, 1, 2, -1, 1);
        }
        openblas_set_num_threads(gb_cpu_threads());
        gb_cpu_dl_set_threads(GB_CPU_GEMM_BLIS, gb_cpu_threads());
        /* the first of each warms up; a candidate whose warm-up took 20x
         * the fastest one's is out (BLIS's generic kernels with threads
         * fighting over shared cores took seconds where OpenBLAS took
         * milliseconds: measuring it three more times would cost the run
         * that much) */
        double warm[3] = {0, 0, 0}, fastest = 1e30;
        int out[3] = {0, 0, 0};
        /* a choice is kept only from a whole measurement: a candidate that
         * failed, or OpenBLAS (the default) dropped as 20x slower, means the
         * moment was not a normal one (a run under `ulimit -v`, where OpenBLAS
         * retried its buffers, kept "BLIS" for small products, and every later
         * run of the build used it): used for this run, measured again next */
        for (int rep = 0; rep < 4; rep++)
            for (int i = 0; i < nlib; i++) {
                if (out[i]) continue;
                double t = time_once(libs[i], d, s, A, B, C, dnnl);
                if (t <= 0) out[i] = failed[i] = 1;
                else if (rep && t < best[i]) best[i] = t;
                else if (!rep && (warm[i] = t) < fastest) fastest = t;
                if (rep == 0 && i == nlib - 1)
                    for (int j = 0; j < nlib; j++) out[j] |= warm[j] > 20 * fastest;
            }
    }
    gb_onednn_matmul_release(dnnl);
    gb_free(A), gb_free(B), gb_free(C);
    *keepable = 1;
    for (int i = 0; i < nlib; i++)
        if (failed[i] || (libs[i] == GB_CPU_GEMM_OPENBLAS && best[i] >= 1e30)) *keepable = 0;
    double flop = 2.0 * s[0] * s[1] * (double)s[2];
    int win = -1;
    size_t used = (size_t)snprintf(line, len, "%s %s", gb_dtype_name(d), class_names[cls]);
    char rates[160] = "";
    size_t ru = 0;
    for (int i = 0; i < nlib; i++) {
        if (best[i] >= 1e30) continue;
        if (win < 0 || best[i] < best[win]) win = i;
        ru += (size_t)snprintf(rates + ru, sizeof rates - ru, " %s=%.1f", lib_names[libs[i]], flop / best[i] * 1e-9);
        if (ru >= sizeof rates) ru = sizeof rates - 1;
    }
    if (win < 0) return -1;
    snprintf(line + used, len - used, " %s%s\n", lib_names[libs[win]], rates);
    return libs[win];
}

/* The kept file's text, or NULL: read as every file gpubench reads
 * (file_read.h), so a FIFO or a device named by GPUBENCH_CPU_GEMM_CHOICE is
 * refused (and the choice measured again), never waited on. */
#define GB_LIMIT_KEPT_CHOICE ((size_t)64 << 10) /* a few lines; 64 KiB */
static char *read_kept(const char *path) {
    char *buf = NULL;
    size_t len;
    gb_err e = {{0}};
    if (access(path, F_OK) != 0) return NULL; /* none yet */
    if (gb_read_bounded(path, "a kept GEMM choice", GB_LIMIT_KEPT_CHOICE, &buf, &len, &e) == GB_OK) return buf;
    static int warned;
    if (!warned++) fprintf(stderr, "warning: kept CPU GEMM choice not used: %s\n", e.msg);
    return NULL;
}

/* "openblas=67.1 onednn=107.0" of a kept line, for the reason. */
static const char *rates_of(const char *line) {
    const char *p = line;
    for (int field = 0; field < 3 && p; field++) p = strchr(p + (field ? 1 : 0), ' ');
    return p ? p + 1 : "";
}

static void decide(gb_dtype d, int cls) {
    decision *x = &decided[d == GB_FLOAT64][cls];
    char path[2400];
    const char *p = choice_path(path, sizeof path);
    const int *s = class_shape[cls];
    x->lib = GB_CPU_GEMM_OPENBLAS;
    if (!p) {
        snprintf(x->why, sizeof x->why, "default (GPUBENCH_CPU_GEMM_CHOICE is empty: not measured)");
        return;
    }
    char *text = read_kept(p), *copy = text ? strdup(text) : NULL; /* copy: cut at the newlines while parsing */
    for (char *line = copy; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        gb_dtype kd;
        int kc, kl;
        if (gb_cpu_gemm_parse_choice(line, &kd, &kc, &kl) && kd == d && kc == cls) {
            gb_err e = {{0}};
            if (kl == GB_CPU_GEMM_BLIS && gb_cpu_dl_available(kl, &e) != GB_OK) break; /* gone since: measure again */
            x->lib = kl;
            snprintf(x->why, sizeof x->why, "kept: %s for %s products (%.90s GFLOP/s at %dx%dx%d)", lib_names[kl],
                     class_names[cls], rates_of(line), s[0], s[1], s[2]);
            free(copy);
            free(text);
            return;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(copy);
    char line[256];
    int keepable = 0;
    int lib = measure(d, cls, line, sizeof line, &keepable);
    if (lib < 0) {
        free(text);
        snprintf(x->why, sizeof x->why, "default (the candidates could not be measured)");
        return;
    }
    x->lib = lib;
    /* the file again, with the new line appended */
    size_t old = text ? strlen(text) : 0, cap = old + strlen(line) + 2;
    char *all = keepable ? malloc(cap) : NULL;
    if (all) {
        snprintf(all, cap, "%s%s%s", text ? text : "", old && text[old - 1] != '\n' ? "\n" : "", line);
        gb_cache_write(p, all, strlen(all)); /* a regular file only: never a FIFO named by the variable */
        free(all);
    }
    free(text);
    line[strcspn(line, "\n")] = '\0';
    snprintf(x->why, sizeof x->why, "measured: %s for %s products (%.90s GFLOP/s at %dx%dx%d)", lib_names[lib],
             class_names[cls], rates_of(line), s[0], s[1], s[2]);
}

int gb_cpu_gemm_library_for(const gb_case *c) {
    int f32 = c->dtype == GB_FLOAT32, f64 = c->dtype == GB_FLOAT64;
    if (gb_cpu_blas_path() && (f32 || f64)) return GB_CPU_GEMM_CBLAS;
    if (gemm_choice != GB_CPU_GEMM_AUTO) return gemm_choice;
    if (!f32 && !f64) return GB_CPU_GEMM_ONEDNN;
    /* batched products run one single-threaded GEMM per OpenMP thread
     * (cpu_matmul.c): OpenBLAS's path, not what the classes measured */
    if (c->op_id == GB_OP_BATCHED_MATMUL) return GB_CPU_GEMM_OPENBLAS;
    int cls = class_of(c);
    if (decided[f64][cls].lib == GB_CPU_GEMM_AUTO) decide(c->dtype, cls);
    return decided[f64][cls].lib;
}

const char *gb_cpu_gemm_choice_reason_for(const gb_case *c) {
    int f32 = c->dtype == GB_FLOAT32, f64 = c->dtype == GB_FLOAT64;
    if (gb_cpu_blas_path() && (f32 || f64)) {
        snprintf(forced_why, sizeof forced_why, "forced (--cpu-blas %.300s)", gb_cpu_blas_path());
        return forced_why;
    }
    if (gemm_choice != GB_CPU_GEMM_AUTO) {
        snprintf(forced_why, sizeof forced_why, "forced (--cpu-gemm %s)", lib_names[gemm_choice]);
        return forced_why;
    }
    if (!f32 && !f64) return "the only library of this build with the dtype";
    if (c->op_id == GB_OP_BATCHED_MATMUL) return "OpenBLAS: one single-threaded GEMM per product, OpenMP over the batch";
    int lib = gb_cpu_gemm_library_for(c);
    (void)lib;
    return decided[f64][class_of(c)].why;
}
