/* cpu_solve.c — SPD solve on the CPU: LAPACKE ?posv (Cholesky ?potrf +
 * ?potrs) on OpenBLAS, lower triangle, column-major.
 *
 * The factorization overwrites A and the solve overwrites B, so each timed
 * repetition first restores them from the untouched inputs with ?lacpy: B
 * whole, and of A only the lower triangle, the only part ?potrf/?potrs read
 * or write. A small solve is many small BLAS calls, each a parallel region
 * of its own, so its team is measured (cpu_team.c): one thread where that is
 * faster. The _work variant skips
 * LAPACKE's O(n²) NaN scan of the inputs, which is not part of the solve.
 * The inputs are read in place (the runner keeps them alive until release). */
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <omp.h>
#include "cpu_backend.h"
#include "timer.h"

typedef struct {
    gb_dtype dtype;
    size_t n, nrhs, sz;
    const void *A0, *B0; /* the inputs */
    void *A, *B;         /* work copies; B holds X after a rep */
    int info;
    int threads;         /* the team (cpu_team.c) */
} solve_state;

static void solve_release(void *state) {
    solve_state *s = state;
    if (!s) return;
    gb_free(s->A);
    gb_free(s->B);
    free(s);
}

static int solve_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    if (!A || !B) return gb_errf(e, GB_FAIL, "solve: inputs 'A' and 'B' missing");
    if (c->shape[0] > 2147483647 || B->count / (size_t)c->shape[0] > 2147483647)
        return gb_errf(e, GB_SKIP, "solve: sizes exceed LAPACK's int");
    solve_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->threads = gb_cpu_threads();
    s->n = (size_t)c->shape[0];
    s->nrhs = B->count / s->n;
    s->sz = gb_elem_size(gb_real_elem(c->dtype));
    s->A0 = A->data;
    s->B0 = B->data;
    s->A = gb_alloc(s->n * s->n * s->sz);
    s->B = gb_alloc(s->n * s->nrhs * s->sz);
    if (!s->A || !s->B) {
        solve_release(s);
        return gb_errf(e, GB_SKIP, "out of host memory for the work copies of A and B");
    }
    /* Make the work copies defined (the upper triangle of the work A is
     * never read or written by ?posv). */
    memcpy(s->A, s->A0, s->n * s->n * s->sz);
    memcpy(s->B, s->B0, s->n * s->nrhs * s->sz);
    *state = s;
    return GB_OK;
}

static int solve_run(void *state, int timing, double *seconds, gb_err *e) {
    solve_state *s = state;
    lapack_int n = (lapack_int)s->n, r = (lapack_int)s->nrhs;
    /* OpenBLAS follows the caller's OpenMP thread count at each call: the
     * team set outside the timed region, put back after it */
    omp_set_num_threads(s->threads);
    double t0 = gb_now();
    lapack_int info;
    if (s->dtype == GB_FLOAT32) {
        LAPACKE_slacpy_work(LAPACK_COL_MAJOR, 'L', n, n, s->A0, n, s->A, n);
        LAPACKE_slacpy_work(LAPACK_COL_MAJOR, 'A', n, r, s->B0, n, s->B, n);
    } else {
        LAPACKE_dlacpy_work(LAPACK_COL_MAJOR, 'L', n, n, s->A0, n, s->A, n);
        LAPACKE_dlacpy_work(LAPACK_COL_MAJOR, 'A', n, r, s->B0, n, s->B, n);
    }
    if (s->dtype == GB_FLOAT32)
        info = LAPACKE_sposv_work(LAPACK_COL_MAJOR, 'L', n, r, s->A, n, s->B, n);
    else
        info = LAPACKE_dposv_work(LAPACK_COL_MAJOR, 'L', n, r, s->A, n, s->B, n);
    *seconds = gb_now() - t0;
    omp_set_num_threads(gb_cpu_threads());
    s->info = (int)info;
    if (info > 0)
        return gb_errf(e, GB_FAIL, "%cposv: leading minor %d is not positive definite",
                       s->dtype == GB_FLOAT32 ? 's' : 'd', (int)info);
    if (info < 0)
        return gb_errf(e, GB_FAIL, "%cposv: argument %d is invalid", s->dtype == GB_FLOAT32 ? 's' : 'd',
                       (int)-info);
    return GB_OK;
}

static int solve_fetch(void *state, gb_arrays *out, gb_err *e) {
    solve_state *s = state;
    return gb_arrays_add_copy(out, "X", gb_real_elem(s->dtype), s->n * s->nrhs, s->B, e) ? GB_OK
                                                                                         : GB_FAIL;
}

static void solve_annotate(void *state, cJSON *extra) {
    solve_state *s = state;
    cJSON_AddStringToObject(extra, "routine", s->dtype == GB_FLOAT32 ? "sposv" : "dposv");
    cJSON_AddStringToObject(extra, "uplo", "L");
    cJSON_AddNumberToObject(extra, "threads", s->threads);
}

static void solve_set_threads(void *state, int threads) { ((solve_state *)state)->threads = threads; }

const gb_op_impl gb_cpu_solve = {
    .prepare = solve_prepare,
    .run = solve_run,
    .fetch = solve_fetch,
    .annotate = solve_annotate,
    .release = solve_release,
    .set_threads = solve_set_threads,
};
