/* membound.c — how close are the fused elementwise pass and the one-pass
 * reduction to plain memory-bound loops at the same N? A benchmark, not a
 * test (`make tools`, then build/standalone/membound [N] [threads] [f32|f64]).
 *
 * Baselines (OpenMP, static schedule, same first-touch as the benchmark):
 *   triad   out = a + s·b     3 arrays: the traffic of elementwise
 *   read    Σ a               1 array:  the traffic of reduction
 *   copy    out = a           2 arrays (for reference)
 * GB/s counts the bytes the loop must move (no write-allocate traffic), as
 * gpubench does. Ratios near 1 mean the op runs at memory speed; well below
 * 1 means it is compute-bound (sin/cos) on this many cores.
 *
 * The tool is built from this one file (see the Makefile's tools rule), so
 * it compiles the benchmark's own CPU kernels in with it: the numbers are
 * for exactly the code gpubench times. */
#include "../../src/core/gb.c"
#include "../../src/core/dtype.c"
#include "../../src/core/rng.c"
#include "../../cpu_backends/cpu_elementwise.c"
#include "../../cpu_backends/cpu_reduction.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

static int nthreads = 1;
int gb_cpu_threads(void) { return nthreads; }
/* the tool measures at the thread count it is given, whatever the size */
int gb_cpu_team_for_bytes(double bytes) {
    (void)bytes;
    return nthreads;
}

#define REPS 15

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static volatile double sink;

/* Baselines for one element type. */
#define DEFINE_BASELINES(SUF, T)                                                   \
    static double copy_##SUF(const T *restrict a, T *restrict o, size_t n) {       \
        double t0 = gb_now();                                                      \
        _Pragma("omp parallel for simd schedule(simd : static) num_threads(nthreads)") \
        for (size_t i = 0; i < n; i++) o[i] = a[i];                                \
        return gb_now() - t0;                                                      \
    }                                                                              \
    static double triad_##SUF(const T *restrict a, const T *restrict b, T *restrict o, size_t n) { \
        double t0 = gb_now();                                                      \
        _Pragma("omp parallel for simd schedule(simd : static) num_threads(nthreads)") \
        for (size_t i = 0; i < n; i++) o[i] = a[i] + (T)3 * b[i];                  \
        return gb_now() - t0;                                                      \
    }                                                                              \
    static double read_##SUF(const T *restrict a, size_t n) {                      \
        double t0 = gb_now();                                                      \
        T s = 0;                                                                   \
        _Pragma("omp parallel for simd schedule(simd : static) num_threads(nthreads) reduction(+ : s)") \
        for (size_t i = 0; i < n; i++) s += a[i];                                  \
        double t = gb_now() - t0;                                                  \
        sink = s;                                                                  \
        return t;                                                                  \
    }

DEFINE_BASELINES(f32, float)
DEFINE_BASELINES(f64, double)

/* Median seconds of REPS runs of an op implementation (after one warm-up). */
static double time_impl(const gb_op_impl *impl, const gb_case *c, const gb_arrays *in) {
    void *st = NULL;
    gb_err e;
    double t[REPS], s = 0;
    if (impl->prepare(c, in, &st, &e) != GB_OK) {
        fprintf(stderr, "prepare: %s\n", e.msg);
        return NAN;
    }
    impl->run(st, 0, &s, &e);
    for (int r = 0; r < REPS; r++) impl->run(st, 0, &t[r], &e);
    impl->release(st);
    return median(t, REPS);
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)1 << 26;
    nthreads = argc > 2 ? atoi(argv[2]) : omp_get_max_threads();
    int f64 = argc > 3 && strcmp(argv[3], "f64") == 0;
    if (n < 1 || nthreads < 1) {
        fprintf(stderr, "usage: membound [N elements] [threads] [f32|f64]\n");
        return 2;
    }
    size_t es = f64 ? 8 : 4;
    gb_case c;
    memset(&c, 0, sizeof c);
    c.dtype = f64 ? GB_FLOAT64 : GB_FLOAT32;
    c.shape[0] = 1;
    c.shape[1] = (int64_t)n;
    c.rank = 2;
    c.seed = 1;

    gb_arrays in = {0}, in_r = {0}, tmp = {0};
    gb_err e;
    gb_array *a = gb_arrays_add(&in, "a", gb_real_elem(c.dtype), n, &e);
    gb_array *b = gb_arrays_add(&in, "b", gb_real_elem(c.dtype), n, &e);
    gb_array *o = gb_arrays_add(&tmp, "o", gb_real_elem(c.dtype), n, &e);
    if (!a || !b || !o) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    omp_set_num_threads(nthreads);
    if (f64) {
        gb_rng_fill_f64(a->data, n, 1, 1, -4, 4);
        gb_rng_fill_f64(b->data, n, 1, 2, -4, 4);
        gb_rng_fill_f64(o->data, n, 1, 3, -4, 4);
    } else {
        gb_rng_fill_f32(a->data, n, 1, 1, -4, 4);
        gb_rng_fill_f32(b->data, n, 1, 2, -4, 4);
        gb_rng_fill_f32(o->data, n, 1, 3, -4, 4);
    }
    gb_arrays_adopt(&in_r, "x", a->elem, n, a->data, &e); /* reduction reads a as x */

    double tc[REPS], tt[REPS], tr[REPS];
    for (int r = -1; r < REPS; r++) { /* r = -1: warm-up */
        double x = f64 ? copy_f64(a->data, o->data, n) : copy_f32(a->data, o->data, n);
        double y = f64 ? triad_f64(a->data, b->data, o->data, n) : triad_f32(a->data, b->data, o->data, n);
        double z = f64 ? read_f64(a->data, n) : read_f32(a->data, n);
        if (r >= 0) { tc[r] = x; tt[r] = y; tr[r] = z; }
    }
    double copy = median(tc, REPS), triad = median(tt, REPS), rd = median(tr, REPS);
    double ew = time_impl(&gb_cpu_elementwise, &c, &in);
    double red = time_impl(&gb_cpu_reduction, &c, &in_r);

    double N = (double)n, B = (double)es;
    printf("membound: N = %zu %s, %d threads, isa %s, median of %d\n", n, f64 ? "float64" : "float32",
           nthreads, ew_isa(), REPS);
    printf("  %-28s %10.3f ms %8.2f GB/s\n", "copy        (2N·size)", copy * 1e3, 2 * N * B / copy / 1e9);
    printf("  %-28s %10.3f ms %8.2f GB/s\n", "triad       (3N·size)", triad * 1e3, 3 * N * B / triad / 1e9);
    printf("  %-28s %10.3f ms %8.2f GB/s\n", "read/sum    (N·size)", rd * 1e3, N * B / rd / 1e9);
    printf("  %-28s %10.3f ms %8.2f GB/s   %.2f × triad's rate\n", "elementwise (3N·size)", ew * 1e3,
           3 * N * B / ew / 1e9, triad / ew);
    printf("  %-28s %10.3f ms %8.2f GB/s   %.2f × read's rate\n", "reduction   (N·size)", red * 1e3,
           N * B / red / 1e9, rd / red);
    in_r.count = 0; /* a is owned by in */
    gb_arrays_free(&in);
    gb_arrays_free(&tmp);
    return 0;
}
