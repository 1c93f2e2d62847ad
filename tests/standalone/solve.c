/* standalone/solve.c — the plain LAPACKE Cholesky solve a user would write.
 *
 *   solve N [float32|float64] [nrhs] [reps]
 *
 * A: random symmetric with entries in [-1,1), n on the diagonal (SPD). Each
 * rep copies A and B back from pristine copies outside the timer and times
 * LAPACKE_?posv alone; prints the median (after one warm-up). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "timer.h"

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s N [float32|float64] [nrhs] [reps]\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    int f32 = argc > 2 && strcmp(argv[2], "float32") == 0;
    int nrhs = argc > 3 ? atoi(argv[3]) : 1;
    int reps = argc > 4 ? atoi(argv[4]) : 5;
    if (n < 1 || nrhs < 1 || reps < 1) return 2;
    size_t sz = f32 ? sizeof(float) : sizeof(double), nn = (size_t)n * (size_t)n, nb = (size_t)n * (size_t)nrhs;
    char *A0 = malloc(nn * sz), *A = malloc(nn * sz), *B0 = malloc(nb * sz), *B = malloc(nb * sz);
    if (!A0 || !A || !B0 || !B) return 1;
    unsigned long long s = 88172645463325252ull;
#define RND() (s ^= s << 13, s ^= s >> 7, s ^= s << 17, (double)(s >> 11) * 0x1.0p-53 * 2 - 1)
    for (size_t j = 0; j < (size_t)n; j++)
        for (size_t i = 0; i <= j; i++) {
            double v = i == j ? n + (RND() + 1) / 2 : RND();
            if (f32) ((float *)A0)[i + j * n] = ((float *)A0)[j + i * n] = (float)v;
            else ((double *)A0)[i + j * n] = ((double *)A0)[j + i * n] = v;
        }
    for (size_t i = 0; i < nb; i++) {
        double v = RND();
        if (f32) ((float *)B0)[i] = (float)v;
        else ((double *)B0)[i] = v;
    }
    double *t = malloc((size_t)reps * sizeof *t);
    for (int r = -1; r < reps; r++) {
        memcpy(A, A0, nn * sz);
        memcpy(B, B0, nb * sz);
        double t0 = gb_now();
        int info = f32 ? LAPACKE_sposv(LAPACK_COL_MAJOR, 'L', n, nrhs, (float *)A, n, (float *)B, n)
                       : LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, nrhs, (double *)A, n, (double *)B, n);
        double dt = gb_now() - t0;
        if (info != 0) {
            fprintf(stderr, "posv: info %d\n", info);
            return 1;
        }
        if (r >= 0) t[r] = dt;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("op=solve n=%d dtype=%s nrhs=%d reps=%d median_s=%.6g\n", n, f32 ? "float32" : "float64", nrhs, reps,
           t[reps / 2]);
    return 0;
}
