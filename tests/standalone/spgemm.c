/* standalone/spgemm.c — the plain GraphBLAS sparse product a user would write.
 *
 *   spgemm N [float32|float64] [density] [reps]
 *
 * A and B: n×n, each entry present with probability density (geometric
 * skips), values in [0.5, 1.5), built with GrB_Matrix_build. Times
 * GrB_Matrix_new + GrB_mxm (PLUS_TIMES) + GrB_Matrix_nvals +
 * GrB_Matrix_wait(GrB_COMPLETE) with the settings gpubench uses, each
 * measured in cpu_backends/cpu_spgemm.c's header: C held sparse, a GxB_CHUNK
 * of 4096 from 64K multiply-adds up (else saxpy3 runs one thread below ~1M),
 * GxB_AxB_HASH where C's rows are expected more than 1/16 full, and the row
 * sort GraphBLAS leaves pending not forced. Prints the median (after one
 * warm-up). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <GraphBLAS.h>
#include "timer.h"

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned long long s = 88172645463325252ull;
static double rnd(void) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return (double)(s >> 11) * 0x1.0p-53;
}

static GrB_Matrix random_matrix(GrB_Index n, double p, int f32) {
    size_t cap = (size_t)(p * (double)n * (double)n * 1.1) + 1024, nnz = 0;
    GrB_Index *I = malloc(cap * sizeof *I), *J = malloc(cap * sizeof *J);
    double *X = malloc(cap * sizeof *X);
    double l = p >= 1 ? -INFINITY : log1p(-p);
    for (GrB_Index i = 0; i < n; i++) {
        double j = -1;
        for (;;) {
            j += 1 + (p >= 1 ? 0 : floor(log(1 - rnd()) / l));
            if (j >= (double)n) break;
            if (nnz == cap) {
                cap *= 2;
                I = realloc(I, cap * sizeof *I);
                J = realloc(J, cap * sizeof *J);
                X = realloc(X, cap * sizeof *X);
            }
            I[nnz] = i;
            J[nnz] = (GrB_Index)j;
            X[nnz++] = 0.5 + rnd();
        }
    }
    GrB_Matrix M;
    GrB_Matrix_new(&M, f32 ? GrB_FP32 : GrB_FP64, n, n);
    if (f32) {
        float *Xf = malloc(nnz * sizeof *Xf);
        for (size_t k = 0; k < nnz; k++) Xf[k] = (float)X[k];
        GrB_Matrix_build_FP32(M, I, J, Xf, nnz, GrB_PLUS_FP32);
        free(Xf);
    } else {
        GrB_Matrix_build_FP64(M, I, J, X, nnz, GrB_PLUS_FP64);
    }
    GrB_Matrix_wait(M, GrB_MATERIALIZE);
    free(I);
    free(J);
    free(X);
    return M;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s N [float32|float64] [density] [reps]\n", argv[0]);
        return 2;
    }
    GrB_Index n = (GrB_Index)atol(argv[1]);
    int f32 = argc > 2 && strcmp(argv[2], "float32") == 0;
    double p = argc > 3 ? atof(argv[3]) : 0.01;
    int reps = argc > 4 ? atoi(argv[4]) : 10;
    if (n < 1 || !(p > 0 && p <= 1) || reps < 1) return 2;
    GrB_init(GrB_NONBLOCKING);
    GrB_Matrix A = random_matrix(n, p, f32), B = random_matrix(n, p, f32), C = NULL;
    GrB_Index anz = 0, bnz = 0;
    GrB_Matrix_nvals(&anz, A);
    GrB_Matrix_nvals(&bnz, B);
    double nn = (double)n, madds = (double)anz * ((double)bnz / nn); /* expected: nnz(A) × mean row of B */
    double fill = -expm1(nn * log1p(-((double)anz / (nn * nn)) * ((double)bnz / (nn * nn))));
    GrB_Descriptor d;
    GrB_Descriptor_new(&d);
    if (madds >= 2 * 8 * 4096.0) GxB_Desc_set(d, GxB_CHUNK, 4096.0);
    if (fill > 1.0 / 16) GxB_Desc_set(d, GxB_AxB_METHOD, GxB_AxB_HASH);
    double *t = malloc((size_t)reps * sizeof *t);
    GrB_Index cnnz = 0;
    for (int r = -1; r < reps; r++) {
        GrB_Matrix_free(&C);
        double t0 = gb_now();
        GrB_Matrix_new(&C, f32 ? GrB_FP32 : GrB_FP64, n, n);
        GxB_Matrix_Option_set(C, GxB_SPARSITY_CONTROL, GxB_SPARSE);
        GrB_Info info = GrB_mxm(C, NULL, NULL, f32 ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64,
                                A, B, d);
        GrB_Matrix_nvals(&cnnz, C);
        GrB_Matrix_wait(C, GrB_COMPLETE);
        double dt = gb_now() - t0;
        if (info != GrB_SUCCESS) {
            fprintf(stderr, "GrB_mxm: %d\n", (int)info);
            return 1;
        }
        if (r >= 0) t[r] = dt;
    }
    GrB_Matrix_nvals(&cnnz, C);
    int threads = 0;
    GxB_Global_Option_get(GxB_NTHREADS, &threads);
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("op=spgemm n=%llu dtype=%s density=%g threads=%d output_nnz=%llu reps=%d median_s=%.6g\n",
           (unsigned long long)n, f32 ? "float32" : "float64", p, threads, (unsigned long long)cnnz, reps,
           t[reps / 2]);
    GrB_Matrix_free(&A);
    GrB_Matrix_free(&B);
    GrB_Matrix_free(&C);
    GrB_Descriptor_free(&d);
    GrB_finalize();
    return 0;
}
