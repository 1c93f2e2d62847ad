/* standalone/fft.c — the plain FFTW program a user would write, to check that
 * gpubench's CPU fft is not slower than the library called directly.
 *
 *   fft N [float32|float64] [r2c|c2c] [reps]
 *
 * Plans with FFTW_MEASURE on all cores, then times fftw_execute alone and
 * prints the median of reps (after one warm-up). Self-contained on purpose:
 * nothing from gpubench but the clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fftw3.h>
#include "timer.h"

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s N [float32|float64] [r2c|c2c] [reps]\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    int f32 = argc > 2 && strcmp(argv[2], "float32") == 0;
    int c2c = argc > 3 && strcmp(argv[3], "c2c") == 0;
    int reps = argc > 4 ? atoi(argv[4]) : 10;
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1 || reps < 1) return 2;
    size_t N = (size_t)n * (size_t)n, outc = c2c ? N : (size_t)n * (size_t)(n / 2 + 1);
    size_t real = f32 ? sizeof(float) : sizeof(double);
    void *in = fftw_malloc(N * real * (c2c ? 2 : 1)), *out = fftw_malloc(outc * 2 * real);
    if (!in || !out) return 1;
    double tp = gb_now();
    fftw_plan p = NULL;
    fftwf_plan pf = NULL;
    if (f32) {
        fftwf_init_threads();
        fftwf_plan_with_nthreads(threads);
        pf = c2c ? fftwf_plan_dft_2d(n, n, in, out, FFTW_FORWARD, FFTW_MEASURE)
                 : fftwf_plan_dft_r2c_2d(n, n, in, out, FFTW_MEASURE);
    } else {
        fftw_init_threads();
        fftw_plan_with_nthreads(threads);
        p = c2c ? fftw_plan_dft_2d(n, n, in, out, FFTW_FORWARD, FFTW_MEASURE)
                : fftw_plan_dft_r2c_2d(n, n, in, out, FFTW_MEASURE);
    }
    tp = gb_now() - tp;
    unsigned long long s = 88172645463325252ull;
    for (size_t i = 0; i < N * (c2c ? 2 : 1); i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double v = (double)(s >> 11) * 0x1.0p-53 * 2 - 1;
        if (c2c && i % 2) v = 0;
        if (f32) ((float *)in)[i] = (float)v;
        else ((double *)in)[i] = v;
    }
    double *t = malloc((size_t)reps * sizeof *t);
    for (int r = -1; r < reps; r++) {
        double t0 = gb_now();
        if (f32) fftwf_execute(pf);
        else fftw_execute(p);
        double dt = gb_now() - t0;
        if (r >= 0) t[r] = dt;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("op=fft n=%d dtype=%s kind=%s threads=%d plan_s=%.3f reps=%d median_s=%.6g\n", n,
           f32 ? "float32" : "float64", c2c ? "c2c" : "r2c", threads, tp, reps, t[reps / 2]);
    return 0;
}
