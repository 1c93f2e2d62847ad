/* standalone/svd.c — the plain LAPACKE thin SVD a user would write.
 *
 *   svd M [N] [float32|float64] [gesdd|gesvd] [reps]
 *
 * Each rep copies A back outside the timer and times LAPACKE_?gesdd (or
 * ?gesvd) with jobz 'S' alone, workspace allocation included as the
 * high-level LAPACKE call does it; prints the median (after one warm-up). */
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
        fprintf(stderr, "usage: %s M [N] [float32|float64] [gesdd|gesvd] [reps]\n", argv[0]);
        return 2;
    }
    int m = atoi(argv[1]);
    int n = argc > 2 ? atoi(argv[2]) : m;
    int f32 = argc > 3 && strcmp(argv[3], "float32") == 0;
    int gesvd = argc > 4 && strcmp(argv[4], "gesvd") == 0;
    int reps = argc > 5 ? atoi(argv[5]) : 3;
    if (m < 1 || n < 1 || reps < 1) return 2;
    int k = m < n ? m : n;
    size_t sz = f32 ? sizeof(float) : sizeof(double), mn = (size_t)m * (size_t)n;
    char *A0 = malloc(mn * sz), *A = malloc(mn * sz), *S = malloc((size_t)k * sz);
    char *U = malloc((size_t)m * (size_t)k * sz), *VT = malloc((size_t)k * (size_t)n * sz);
    char *sup = malloc((size_t)k * sz);
    if (!A0 || !A || !S || !U || !VT || !sup) return 1;
    unsigned long long s = 88172645463325252ull;
    for (size_t i = 0; i < mn; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double v = (double)(s >> 11) * 0x1.0p-53 * 2 - 1;
        if (f32) ((float *)A0)[i] = (float)v;
        else ((double *)A0)[i] = v;
    }
    double *t = malloc((size_t)reps * sizeof *t);
    for (int r = -1; r < reps; r++) {
        memcpy(A, A0, mn * sz);
        double t0 = gb_now();
        int info;
        if (f32)
            info = gesvd ? LAPACKE_sgesvd(LAPACK_COL_MAJOR, 'S', 'S', m, n, (float *)A, m, (float *)S, (float *)U, m,
                                          (float *)VT, k, (float *)sup)
                         : LAPACKE_sgesdd(LAPACK_COL_MAJOR, 'S', m, n, (float *)A, m, (float *)S, (float *)U, m,
                                          (float *)VT, k);
        else
            info = gesvd ? LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', m, n, (double *)A, m, (double *)S, (double *)U,
                                          m, (double *)VT, k, (double *)sup)
                         : LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', m, n, (double *)A, m, (double *)S, (double *)U, m,
                                          (double *)VT, k);
        double dt = gb_now() - t0;
        if (info != 0) {
            fprintf(stderr, "gesdd/gesvd: info %d\n", info);
            return 1;
        }
        if (r >= 0) t[r] = dt;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("op=svd m=%d n=%d dtype=%s routine=%s reps=%d median_s=%.6g\n", m, n, f32 ? "float32" : "float64",
           gesvd ? "gesvd" : "gesdd", reps, t[reps / 2]);
    return 0;
}
