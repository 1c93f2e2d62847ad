/* cpu_gemm_choice.c — which library computes the CPU's GEMM of a case
 * (gb_cpu_gemm_library_for, cpu_backend.h), per dtype and shape class.
 *
 * --cpu-gemm openblas|onednn|blis forces one; --cpu-blas PATH sends float32
 * and float64 to the site's CBLAS (cpu_gemm_dl.c). Otherwise (auto): a dtype
 * only one library has goes to it (bfloat16, float16, int8: oneDNN), and
 * float32 and float64 go to the candidate measured fastest for the case's
 * shape class on this machine, each class measured where its cases are
 * (issue #43: on the GPU host's Xeon the old huge class, decided at 2048³,
 * kept oneDNN, which ran 8192³ 10% slower than OpenBLAS):
 *   giant   m, k, n all >= 6144              measured at 8192 x 8192 x 8192
 *   huge    m, k, n all >= 2048 (not giant)  measured at 4096 x 4096 x 4096
 *   large   m, k, n all >= 512 (not huge)    measured at 1024 x 1024 x 1024
 *   skinny  m or n <= 64, k and the other >= 512 (inference: a few rows
 *           against a weight matrix)         measured at 32 x 4096 x 4096
 *   small   the rest                         measured at the case's own shape
 * The small class is decided per shape because no one size speaks for it:
 * on the GPU host (16 threads) BLIS ran float32 200x300x100 3.5x faster
 * than OpenBLAS, and OpenBLAS ran 64³ 2x and 256³ 1.8x faster than BLIS,
 * where one choice made at 128³ had sent all of them to BLIS (issue #42).
 * Its products take microseconds to milliseconds, so measuring each costs
 * little (GB_SMALL_BUDGET_S at most); past GB_SMALL_SHAPES shapes in one
 * process the rest share the choice made at 128 x 128 x 128.
 * Candidates: float32 OpenBLAS, oneDNN, BLIS; float64 OpenBLAS, BLIS (oneDNN
 * has no float64 matmul); the small class leaves oneDNN out — its time of a
 * 64³ product varied 3x between fresh processes on the development machine.
 *
 * How a class is decided: one warm-up of each candidate (one whose warm-up
 * took 20x the fastest's is dropped), then rounds in which every candidate
 * runs once, the order rotated each round (A B C, B C A, ...) so a drift of
 * the machine falls on all alike; at least 5 rounds, at most 15, fewer when
 * the class's time budget (30 s, or GPUBENCH_CPU_GEMM_BUDGET_S) is spent.
 * Against the established default, OpenBLAS, each candidate's per-round
 * speed ratio (log of OpenBLAS's time over its own) gives a mean and a 95%
 * interval (Student's t); a candidate wins only when the whole interval lies
 * above a 3% gain, and then the one with the largest mean gain; otherwise
 * OpenBLAS stays. Measuring stops early once every candidate's interval is
 * wholly above or wholly below 3%.
 *
 * The answers are kept like FFTW's wisdom (cpu_fft.c): in
 * $GPUBENCH_CPU_GEMM_CHOICE when set (empty: off — float32/float64 stay on
 * OpenBLAS, unmeasured), else in $XDG_CACHE_HOME/gpubench (~/.cache/gpubench)
 * under a name made from what decides the answer: the CPU model, its logical
 * CPUs, the thread count, each library's version and core (OpenBLAS's config
 * and core, oneDNN's version, BLIS's), and the build's commit — not the host
 * name (every VM of the GPU host is called "vm"). The file's first line is
 * that key ("key ..."); a file whose key differs is measured again. Then one
 * line per dtype and class, a small product's class with its shape:
 *   "float32 huge openblas rounds=9 openblas=1130.2 onednn=1010.0 blis=800.1"
 *   "float32 small@64x64x64 openblas rounds=5 openblas=134.3 blis=82.2"
 * (median GFLOP/s of each candidate). A line is read strictly: a known dtype,
 * class and library, a library that has the dtype and is here, rounds a
 * positive integer, each rate a positive number, the chosen library among
 * the rates, nothing else; a bad line is ignored with a warning naming the
 * file, the line and why, and its class measured again. Every result says in
 * extra.library_choice how its library was chosen (with the figures) and in
 * extra.shape_class its class. */
#include <math.h>
#include <stdint.h>
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

enum { CLASS_LARGE, CLASS_SKINNY, CLASS_SMALL, CLASS_HUGE, CLASS_GIANT, NCLASS };
static const char *const class_names[NCLASS] = {"large", "skinny", "small", "huge", "giant"};
static const int class_shape[NCLASS][3] = {{1024, 1024, 1024}, {32, 4096, 4096}, {128, 128, 128},
                                           {4096, 4096, 4096}, {8192, 8192, 8192}}; /* m, k, n */
static const char *const lib_names[] = {"auto", "openblas", "onednn", "blis", "cblas"};
#define NLIBS 5
#define MARGIN 0.03   /* a gain below 3% leaves the default */
#define MIN_ROUNDS 5
#define MAX_ROUNDS 15
#define GB_SMALL_SHAPES 256    /* small shapes decided one by one per process */
#define GB_SMALL_BUDGET_S 1.0  /* the most one small shape's measurement takes */
#define GB_ROUND_MIN_S 200e-6  /* a round's calls of one candidate last at least this */

static int gemm_choice = GB_CPU_GEMM_AUTO;
typedef struct {
    int lib; /* GB_CPU_GEMM_AUTO (0): not decided yet */
    char why[320];
} decision;
static decision decided[2][NCLASS]; /* [float64?][class]; the small class: its 128³ fallback */
typedef struct {
    int f64, shape[3];
    decision d;
} small_decision;
static small_decision small_decided[GB_SMALL_SHAPES];
static int n_small_decided;
static char forced_why[400];

void gb_cpu_set_gemm(int lib) {
    gemm_choice = lib;
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < NCLASS; k++) decided[d][k].lib = GB_CPU_GEMM_AUTO;
    n_small_decided = 0;
}

const char *gb_cpu_gemm_lib_name(int lib) { return lib >= 0 && lib < NLIBS ? lib_names[lib] : "?"; }

int gb_cpu_gemm_lib_parse(const char *name) {
    for (int i = 0; i < NLIBS - 1; i++) /* "cblas" is --cpu-blas's, not a --cpu-gemm value */
        if (!strcmp(name, lib_names[i])) return i;
    return -1;
}

static int class_of(const gb_case *c) {
    long long m = c->shape[0], k = c->shape[1], n = c->shape[2];
    if (m >= 6144 && k >= 6144 && n >= 6144) return CLASS_GIANT;
    if (m >= 2048 && k >= 2048 && n >= 2048) return CLASS_HUGE;
    if (m >= 512 && k >= 512 && n >= 512) return CLASS_LARGE;
    if ((m <= 64 || n <= 64) && k >= 512 && (m >= 512 || n >= 512)) return CLASS_SKINNY;
    return CLASS_SMALL;
}

const char *gb_cpu_gemm_shape_class(const gb_case *c) { return class_names[class_of(c)]; }

/* Whether lib computes dtype d's GEMM here (oneDNN: float32 only of the two). */
static int lib_has(int lib, gb_dtype d) {
    gb_err e = {{0}};
    if (lib == GB_CPU_GEMM_OPENBLAS) return 1;
    if (lib == GB_CPU_GEMM_ONEDNN) return d == GB_FLOAT32;
    if (lib == GB_CPU_GEMM_BLIS) return gb_cpu_dl_available(lib, &e) == GB_OK;
    return 0;
}

/* What decides the answer, as one line: "key cpu=...; ...". */
const char *gb_cpu_gemm_choice_key(void) {
    static char key[1200];
    if (key[0]) return key;
    char model[160] = "?", line[512];
    FILE *in = fopen("/proc/cpuinfo", "r");
    while (in && fgets(line, sizeof line, in))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    if (in) fclose(in);
    char dnnl[32] = "";
    gb_err e = {{0}};
    const char *blis = gb_cpu_dl_available(GB_CPU_GEMM_BLIS, &e) == GB_OK ? gb_cpu_dl_name(GB_CPU_GEMM_BLIS) : "none";
    snprintf(key, sizeof key, "key cpu=%s; cpus=%ld; threads=%d; openblas=%s; core=%s; onednn=%s; blis=%s; build=%s",
             model, sysconf(_SC_NPROCESSORS_ONLN), gb_cpu_threads(), openblas_get_config(), openblas_get_corename(),
             gb_onednn_version(dnnl, sizeof dnnl), blis, GB_GIT_COMMIT);
    for (char *p = key; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return key;
}

/* The cache file, or NULL when the choice is not kept (env set empty). */
static const char *choice_path(char *buf, size_t len) {
    const char *w = getenv("GPUBENCH_CPU_GEMM_CHOICE");
    if (w) return *w ? (snprintf(buf, len, "%s", w), buf) : NULL;
    char dir[2048];
    if (!gb_cpu_cache_dir(dir, sizeof dir)) return NULL;
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the key */
    for (const char *p = gb_cpu_gemm_choice_key(); *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    snprintf(buf, len, "%s/cpu-gemm-%016llx", dir, (unsigned long long)h);
    return buf;
}

/* A class token: a class name, the small class with its shape
 * ("small@200x300x100"); the class, or -1 with the reason in why. */
static int parse_class(const char *token, int shape[3], char *why, size_t wl) {
    shape[0] = shape[1] = shape[2] = 0;
    if (!strncmp(token, "small@", 6)) {
        const char *p = token + 6;
        for (int i = 0; i < 3; i++) {
            char *end = NULL;
            long v = strtol(p, &end, 10);
            if (end == p || v <= 0 || v > (1L << 30) || (i < 2 ? *end != 'x' : *end != '\0'))
                return snprintf(why, wl, "shape of '%.30s' is not MxKxN of positive counts", token), -1;
            shape[i] = (int)v;
            p = end + 1;
        }
        return CLASS_SMALL;
    }
    for (int k = 0; k < NCLASS; k++)
        if (k != CLASS_SMALL && !strcmp(token, class_names[k])) return k;
    if (!strcmp(token, "small")) return snprintf(why, wl, "the small class is kept per shape (small@MxKxN)"), -1;
    return snprintf(why, wl, "unknown shape class '%.20s'", token), -1;
}

/* Parse one kept line strictly: "float32 huge onednn rounds=9 openblas=67.1
 * onednn=107.0" or "float64 small@64x64x64 openblas rounds=5 openblas=80.2
 * blis=41.0"; 1 when good (shape: the small class's, else zeros), else 0
 * with the reason in why (may be NULL). */
static int parse_line(const char *line, gb_dtype *d, int *cls, int shape[3], int *lib, char *why, size_t wl) {
    char buf[512], *save = NULL, dummy[8];
    if (!why) why = dummy, wl = sizeof dummy;
    if (!line || strlen(line) >= sizeof buf) return snprintf(why, wl, "empty or longer than %zu", sizeof buf), 0;
    snprintf(buf, sizeof buf, "%s", line);
    buf[strcspn(buf, "\n")] = '\0';
    char *dt = strtok_r(buf, " ", &save), *cl = strtok_r(NULL, " ", &save), *which = strtok_r(NULL, " ", &save);
    if (!dt || !cl || !which) return snprintf(why, wl, "expected 'dtype class library rounds=N lib=GFLOP/s...'"), 0;
    if (!strcmp(dt, "float32")) *d = GB_FLOAT32;
    else if (!strcmp(dt, "float64")) *d = GB_FLOAT64;
    else return snprintf(why, wl, "dtype '%.20s' is not float32 or float64", dt), 0;
    if ((*cls = parse_class(cl, shape, why, wl)) < 0) return 0;
    *lib = gb_cpu_gemm_lib_parse(which);
    if (*lib <= GB_CPU_GEMM_AUTO) return snprintf(why, wl, "unknown library '%.20s'", which), 0;
    if (*lib == GB_CPU_GEMM_ONEDNN && *d != GB_FLOAT32) return snprintf(why, wl, "onednn has no %s GEMM", dt), 0;
    int rounds = 0, chosen_rated = 0, rated = 0;
    for (char *tok; (tok = strtok_r(NULL, " ", &save)) != NULL;) {
        char *eq = strchr(tok, '='), *end = NULL;
        if (!eq || eq == tok || !eq[1]) return snprintf(why, wl, "field '%.30s' is not name=value", tok), 0;
        *eq = '\0';
        if (!strcmp(tok, "rounds")) {
            long v = strtol(eq + 1, &end, 10);
            if (*end || v <= 0 || v > 1000 || rounds) return snprintf(why, wl, "rounds '%.20s' is not one count 1-1000", eq + 1), 0;
            rounds = (int)v;
            continue;
        }
        int l = gb_cpu_gemm_lib_parse(tok);
        double v = strtod(eq + 1, &end);
        if (l <= GB_CPU_GEMM_AUTO) return snprintf(why, wl, "unknown field '%.20s'", tok), 0;
        if (*end || !isfinite(v) || v <= 0) return snprintf(why, wl, "%s's rate '%.20s' is not a positive number", tok, eq + 1), 0;
        rated++;
        chosen_rated |= l == *lib;
    }
    if (!rounds) return snprintf(why, wl, "no rounds=N"), 0;
    if (!rated || !chosen_rated) return snprintf(why, wl, "the chosen %s has no rate on the line", which), 0;
    return 1;
}

int gb_cpu_gemm_parse_choice(const char *line, gb_dtype *d, int *cls, int *lib) {
    int shape[3];
    return parse_line(line, d, cls, shape, lib, NULL, 0);
}

/* reps products in a row by lib on m×k·k×n buffers; the time of one (the
 * mean), or < 0 on failure. A small product takes microseconds: one call
 * alone is mostly the clock's and the wake's noise. */
static double time_calls(int lib, gb_dtype d, const int s[3], const void *A, const void *B, void *C, gb_onednn_mm *dnnl,
                         int reps) {
    double total = 0, t = -1;
    gb_err e = {{0}};
    if (lib == GB_CPU_GEMM_ONEDNN) {
        for (int r = 0; r < reps; r++) {
            if (gb_onednn_matmul_run(dnnl, &t, &e) != GB_OK) return -1;
            total += t;
        }
        return total / reps;
    }
    double t0 = gb_now();
    for (int r = 0; r < reps; r++) {
        if (lib == GB_CPU_GEMM_OPENBLAS && d == GB_FLOAT32)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s[0], s[2], s[1], 1.0f, A, s[1], B, s[2], 0.0f, C,
                        s[2]);
        else if (lib == GB_CPU_GEMM_OPENBLAS)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s[0], s[2], s[1], 1.0, A, s[1], B, s[2], 0.0, C,
                        s[2]);
        else
            gb_cpu_dl_gemm(lib, d, s[0], s[2], s[1], A, B, C);
    }
    return (gb_now() - t0) / reps;
}

/* Student's t at 97.5% (two-sided 95%) for df = 1..30; 1.96 beyond. */
static double t975(int df) {
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    return df < 1 ? 1e9 : df <= 30 ? t[df - 1] : 1.96;
}

/* Mean and 95% half-width of x[0..n). */
static void interval(const double *x, int n, double *mean, double *half) {
    double s = 0, ss = 0;
    for (int i = 0; i < n; i++) s += x[i];
    *mean = n ? s / n : 0;
    for (int i = 0; i < n; i++) ss += (x[i] - *mean) * (x[i] - *mean);
    *half = n > 1 ? t975(n - 1) * sqrt(ss / (n - 1) / n) : 1e9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Measure the candidates of (d, cls) at shape s; the chosen one, its line
 * into line, the verdict into verdict; *keepable: whether the measurement
 * was whole enough to keep. */
static int measure(gb_dtype d, int cls, const int s[3], char *line, size_t len, char *verdict, size_t vlen,
                   int *keepable) {
    size_t es = d == GB_FLOAT32 ? 4 : 8, na = (size_t)s[0] * s[1], nb = (size_t)s[1] * s[2], nc = (size_t)s[0] * s[2];
    void *A = gb_alloc(na * es), *B = gb_alloc(nb * es), *C = gb_alloc(nc * es);
    int libs[3], nlib = 0;
    gb_onednn_mm *dnnl = NULL;
    gb_err e = {{0}};
    libs[nlib++] = GB_CPU_GEMM_OPENBLAS; /* the default: libs[0] */
    gb_case c = {.op_id = GB_OP_MATMUL, .dtype = d, .shape = {s[0], s[1], s[2]}, .rank = 3};
    if (A && B && C && d == GB_FLOAT32 && cls != CLASS_SMALL && gb_onednn_matmul_supports(&c, &e) == GB_OK &&
        gb_onednn_matmul_prepare(&c, 0, A, B, C, &dnnl, &e) == GB_OK)
        libs[nlib++] = GB_CPU_GEMM_ONEDNN;
    if (gb_cpu_dl_available(GB_CPU_GEMM_BLIS, &e) == GB_OK) libs[nlib++] = GB_CPU_GEMM_BLIS;
    static double t[3][MAX_ROUNDS];
    int rounds = 0, out[3] = {0, 0, 0}, failed[3] = {0, 0, 0};
    const char *bs = getenv("GPUBENCH_CPU_GEMM_BUDGET_S");
    double budget = bs && atof(bs) > 0 ? atof(bs) : 30, start = gb_now();
    if (cls == CLASS_SMALL && budget > GB_SMALL_BUDGET_S) budget = GB_SMALL_BUDGET_S;
    int reps = 1;
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
        /* warm-up; a candidate 20x slower than the fastest is out (BLIS's
         * generic kernels with threads fighting over shared cores took
         * seconds where OpenBLAS took milliseconds) */
        double warm[3] = {0, 0, 0}, fastest = 1e30;
        for (int i = 0; i < nlib; i++) {
            warm[i] = time_calls(libs[i], d, s, A, B, C, dnnl, 1);
            if (warm[i] > 0 && cls == CLASS_SMALL) /* the first call starts threads, packs buffers */
                warm[i] = time_calls(libs[i], d, s, A, B, C, dnnl, 1);
            if (warm[i] <= 0) out[i] = failed[i] = 1;
            else if (warm[i] < fastest) fastest = warm[i];
        }
        for (int i = 0; i < nlib; i++) out[i] |= warm[i] > 20 * fastest;
        if (fastest < GB_ROUND_MIN_S) reps = (int)fmin(10000, ceil(GB_ROUND_MIN_S / fastest));
        while (!out[0] && rounds < MAX_ROUNDS) {
            for (int j = 0; j < nlib; j++) { /* rotated order: round r starts at candidate r mod n */
                int i = (j + rounds) % nlib;
                if (out[i]) continue;
                t[i][rounds] = time_calls(libs[i], d, s, A, B, C, dnnl, reps);
                if (t[i][rounds] <= 0) out[i] = failed[i] = 1;
            }
            rounds++;
            if (rounds >= MIN_ROUNDS || gb_now() - start > budget) {
                int open = 0; /* a candidate whose interval still straddles 3% */
                for (int i = 1; i < nlib; i++) {
                    if (out[i]) continue;
                    double x[MAX_ROUNDS], m, h;
                    for (int r = 0; r < rounds; r++) x[r] = log(t[0][r] / t[i][r]);
                    interval(x, rounds, &m, &h);
                    open |= m - h <= log1p(MARGIN) && m + h >= log1p(MARGIN);
                }
                if (!open || gb_now() - start > budget) break;
            }
        }
    }
    gb_onednn_matmul_release(dnnl);
    gb_free(A), gb_free(B), gb_free(C);
    /* a choice is kept only from a whole measurement: a candidate that
     * failed, or OpenBLAS (the default) dropped, means the moment was not a
     * normal one (a run under `ulimit -v`): used for this run, measured
     * again next */
    *keepable = rounds > 0;
    for (int i = 0; i < nlib; i++)
        if (failed[i] || (i == 0 && out[0])) *keepable = 0;
    if (!rounds) return -1;
    double flop = 2.0 * s[0] * s[1] * (double)s[2];
    int win = 0;
    double best_gain = 0;
    size_t used = cls == CLASS_SMALL
                      ? (size_t)snprintf(line, len, "%s small@%dx%dx%d", gb_dtype_name(d), s[0], s[1], s[2])
                      : (size_t)snprintf(line, len, "%s %s", gb_dtype_name(d), class_names[cls]);
    char rates[200] = "", gains[200] = "";
    size_t ru = 0, gu = 0;
    for (int i = 0; i < nlib; i++) {
        if (out[i]) continue;
        double sorted[MAX_ROUNDS];
        memcpy(sorted, t[i], sizeof(double) * (size_t)rounds);
        qsort(sorted, (size_t)rounds, sizeof(double), cmp_double);
        double med = rounds % 2 ? sorted[rounds / 2] : 0.5 * (sorted[rounds / 2 - 1] + sorted[rounds / 2]);
        ru += (size_t)snprintf(rates + ru, sizeof rates - ru, " %s=%.1f", lib_names[libs[i]], flop / med * 1e-9);
        if (ru >= sizeof rates) ru = sizeof rates - 1;
        if (i == 0) continue;
        double x[MAX_ROUNDS], m, h;
        for (int r = 0; r < rounds; r++) x[r] = log(t[0][r] / t[i][r]);
        interval(x, rounds, &m, &h);
        gu += (size_t)snprintf(gains + gu, sizeof gains - gu, "%s %s %+.1f%% [%+.1f%%, %+.1f%%]", gu ? ";" : "",
                               lib_names[libs[i]], 100 * expm1(m), 100 * expm1(m - h), 100 * expm1(m + h));
        if (gu >= sizeof gains) gu = sizeof gains - 1;
        if (m - h > log1p(MARGIN) && m > best_gain) best_gain = m, win = i;
    }
    snprintf(line + used, len - used, " %s rounds=%d%s\n", lib_names[libs[win]], rounds, rates);
    snprintf(verdict, vlen, "%s over openblas (95%% intervals, %d interleaved rounds%s%s)",
             win ? "a gain cleared 3%" : "no gain cleared 3%: the default stays", rounds, *gains ? ":" : "",
             gains);
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

/* (d, cls)'s library at shape s (the class's own, or a small product's):
 * the kept line when the file's key is this machine's and the line is good,
 * else measured and the file rewritten (the key, the other lines that are
 * good, the new one). */
static void decide(decision *x, gb_dtype d, int cls, const int s[3]) {
    char path[2400];
    const char *p = choice_path(path, sizeof path);
    const char *what = cls == CLASS_SMALL ? "this small shape's" : class_names[cls];
    x->lib = GB_CPU_GEMM_OPENBLAS;
    if (!p) {
        snprintf(x->why, sizeof x->why, "default (GPUBENCH_CPU_GEMM_CHOICE is empty: not measured)");
        return;
    }
    const char *key = gb_cpu_gemm_choice_key();
    char *text = read_kept(p), *copy = text ? strdup(text) : NULL; /* copy: cut at the newlines while parsing */
    size_t cap = (text ? strlen(text) : 0) + strlen(key) + 600;
    char *keep = malloc(cap); /* what the file keeps when this class is appended */
    size_t ku = keep ? (size_t)snprintf(keep, cap, "%s\n", key) : 0;
    int lineno = 0, key_ok = 0;
    static int warned;
    for (char *line = copy; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        lineno++;
        if (lineno == 1) {
            key_ok = !strcmp(line, key);
            if (!key_ok) break; /* another machine, library or build: all measured again */
            line = nl ? nl + 1 : NULL;
            continue;
        }
        gb_dtype kd;
        int kc, kl, ks[3];
        char why[160];
        if (!parse_line(line, &kd, &kc, ks, &kl, why, sizeof why)) {
            if (warned++ < 8)
                fprintf(stderr, "warning: %s: line %d ignored (%s): its class is measured again\n", p, lineno, why);
        } else if (kd == d && kc == cls && (cls != CLASS_SMALL || !memcmp(ks, s, sizeof ks))) {
            if (!lib_has(kl, d)) { /* BLIS gone since: measured again */
                line = nl ? nl + 1 : NULL;
                continue;
            }
            x->lib = kl;
            snprintf(x->why, sizeof x->why, "kept: %s for %s products (%.160s GFLOP/s at %dx%dx%d)", lib_names[kl],
                     what, rates_of(line), s[0], s[1], s[2]);
            free(copy), free(text), free(keep);
            return;
        } else if (keep && ku + strlen(line) + 2 < cap) {
            ku += (size_t)snprintf(keep + ku, cap - ku, "%s\n", line);
        }
        line = nl ? nl + 1 : NULL;
    }
    if (text && !key_ok && warned++ < 8)
        fprintf(stderr, "warning: %s: its first line is not this machine's and build's key: measured again\n", p);
    free(copy);
    free(text);
    char line[400], verdict[320];
    int keepable = 0;
    int lib = measure(d, cls, s, line, sizeof line, verdict, sizeof verdict, &keepable);
    if (lib < 0) {
        free(keep);
        snprintf(x->why, sizeof x->why, "default (the candidates could not be measured)");
        return;
    }
    x->lib = lib;
    /* past the reader's limit the file would be refused whole: then this
     * line is used for the run and measured again by the next */
    if (keep && keepable && ku + strlen(line) + 1 < cap && ku + strlen(line) < GB_LIMIT_KEPT_CHOICE) {
        snprintf(keep + ku, cap - ku, "%s", line);
        gb_cache_write(p, "a kept CPU GEMM choice", "key cpu=", keep, strlen(keep)); /* a regular file only: never a FIFO named by the variable */
    }
    free(keep);
    line[strcspn(line, "\n")] = '\0';
    snprintf(x->why, sizeof x->why, "measured: %s for %s products (%.100s GFLOP/s at %dx%dx%d; %.150s)",
             lib_names[lib], what, rates_of(line), s[0], s[1], s[2], verdict);
}

/* The decision of case c (float32/float64 under auto): its class's, or for
 * a small product its shape's, decided on first use. */
static const decision *decision_of(const gb_case *c) {
    int f64 = c->dtype == GB_FLOAT64, cls = class_of(c);
    if (cls == CLASS_SMALL) {
        int s[3] = {(int)c->shape[0], (int)c->shape[1], (int)c->shape[2]};
        for (int i = 0; i < n_small_decided; i++)
            if (small_decided[i].f64 == f64 && !memcmp(small_decided[i].shape, s, sizeof s)) return &small_decided[i].d;
        if (n_small_decided < GB_SMALL_SHAPES) {
            small_decision *x = &small_decided[n_small_decided++];
            x->f64 = f64;
            memcpy(x->shape, s, sizeof s);
            decide(&x->d, c->dtype, cls, s);
            return &x->d;
        }
    }
    decision *x = &decided[f64][cls];
    if (x->lib == GB_CPU_GEMM_AUTO) decide(x, c->dtype, cls, class_shape[cls]);
    return x;
}

int gb_cpu_gemm_library_for(const gb_case *c) {
    int f32 = c->dtype == GB_FLOAT32, f64 = c->dtype == GB_FLOAT64;
    if (gb_cpu_blas_path() && (f32 || f64)) return GB_CPU_GEMM_CBLAS;
    if (gemm_choice != GB_CPU_GEMM_AUTO) return gemm_choice;
    if (!f32 && !f64) return GB_CPU_GEMM_ONEDNN;
    /* batched products run one single-threaded GEMM per OpenMP thread
     * (cpu_matmul.c): OpenBLAS's path, not what the classes measured */
    if (c->op_id == GB_OP_BATCHED_MATMUL) return GB_CPU_GEMM_OPENBLAS;
    return decision_of(c)->lib;
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
    return decision_of(c)->why;
}
