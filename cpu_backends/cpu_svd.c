/* cpu_svd.c — thin SVD on the CPU: LAPACKE ?gesdd (divide and conquer, the
 * default and "auto") or ?gesvd (QR iteration), jobz/jobu/jobvt = 'S',
 * column-major, on OpenBLAS's threaded BLAS.
 *
 * prepare: work copy of A, outputs, and the workspace sized by a workspace
 * query (lwork = -1), so the timed rep allocates nothing (the _work variants
 * also skip LAPACKE's NaN scan and layout handling).
 * run: restore A (the routine destroys it) + the routine. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <omp.h>
#include "cpu_backend.h"
#include "timer.h"

typedef struct {
    gb_dtype dtype;
    int gesvd;                     /* 0: gesdd, 1: gesvd */
    size_t m, n, k, sz;
    const void *A0;
    void *A, *S, *U, *VT, *work;
    lapack_int *iwork, lwork;
    int threads;                   /* the team (cpu_team.c) */
} svd_state;

static int svd_supports(const gb_case *c, gb_err *why) {
    switch (c->params.svd_method) {
    case GB_SVD_AUTO: case GB_SVD_GESDD: case GB_SVD_GESVD: return GB_OK;
    default:
        return gb_errf(why, GB_SKIP, "svd method is a cuSOLVER routine; the CPU backend runs gesdd (auto) or gesvd");
    }
}

static void svd_release(void *state) {
    svd_state *s = state;
    if (!s) return;
    gb_free(s->A);
    gb_free(s->S);
    gb_free(s->U);
    gb_free(s->VT);
    gb_free(s->work);
    gb_free(s->iwork);
    free(s);
}

/* One call of the routine; lwork = -1 makes it a workspace query into *work. */
static lapack_int call(svd_state *s, void *work, lapack_int lwork) {
    lapack_int m = (lapack_int)s->m, n = (lapack_int)s->n, k = (lapack_int)s->k;
    if (s->dtype == GB_FLOAT32)
        return s->gesvd ? LAPACKE_sgesvd_work(LAPACK_COL_MAJOR, 'S', 'S', m, n, s->A, m, s->S, s->U, m, s->VT, k,
                                              work, lwork)
                        : LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, 'S', m, n, s->A, m, s->S, s->U, m, s->VT, k, work,
                                              lwork, s->iwork);
    return s->gesvd ? LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'S', m, n, s->A, m, s->S, s->U, m, s->VT, k, work,
                                          lwork)
                    : LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', m, n, s->A, m, s->S, s->U, m, s->VT, k, work, lwork,
                                          s->iwork);
}

static const char *routine(const svd_state *s) {
    return s->dtype == GB_FLOAT32 ? (s->gesvd ? "sgesvd" : "sgesdd") : (s->gesvd ? "dgesvd" : "dgesdd");
}

static int svd_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    const gb_array *A = gb_arrays_find(in, "A");
    if (!A) return gb_errf(e, GB_FAIL, "svd: input 'A' missing");
    if (c->shape[0] > 2147483647 / 8 || c->shape[1] > 2147483647 / 8)
        return gb_errf(e, GB_SKIP, "svd: sizes exceed LAPACK's int");
    svd_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->threads = gb_cpu_threads();
    s->gesvd = c->params.svd_method == GB_SVD_GESVD;
    s->m = (size_t)c->shape[0];
    s->n = (size_t)c->shape[1];
    s->k = s->m < s->n ? s->m : s->n;
    s->sz = gb_elem_size(gb_real_elem(c->dtype));
    s->A0 = A->data;
    s->A = gb_alloc(s->m * s->n * s->sz);
    s->S = gb_alloc(s->k * s->sz);
    s->U = gb_alloc(s->m * s->k * s->sz);
    s->VT = gb_alloc(s->k * s->n * s->sz);
    s->iwork = gb_alloc(8 * s->k * sizeof *s->iwork);
    if (!s->A || !s->S || !s->U || !s->VT || !s->iwork) goto oom;
    memcpy(s->A, s->A0, s->m * s->n * s->sz);
    float qf = 0;
    double qd = 0;
    lapack_int info = call(s, s->dtype == GB_FLOAT32 ? (void *)&qf : (void *)&qd, -1);
    if (info != 0) {
        gb_errf(e, GB_FAIL, "%s workspace query: info %d", routine(s), (int)info);
        svd_release(s);
        return GB_FAIL;
    }
    double lw = s->dtype == GB_FLOAT32 ? (double)qf : qd;
    /* The float answer can round below the true need for large sizes. */
    s->lwork = (lapack_int)(lw * (s->dtype == GB_FLOAT32 ? 1.0001 : 1.0)) + 1;
    s->work = gb_alloc((size_t)s->lwork * s->sz);
    if (!s->work) goto oom;
    *state = s;
    return GB_OK;
oom:
    svd_release(s);
    return gb_errf(e, GB_SKIP, "out of host memory for SVD buffers");
}

static int svd_run(void *state, int timing, double *seconds, gb_err *e) {
    svd_state *s = state;
    /* the team (cpu_team.c): OpenBLAS follows the caller's OpenMP thread
     * count at each call; set outside the timed region, put back after it */
    omp_set_num_threads(s->threads);
    double t0 = gb_now();
    /* A plain copy: O(mn) next to the O(mn·min(m,n)) factorization. */
    memcpy(s->A, s->A0, s->m * s->n * s->sz);
    lapack_int info = call(s, s->work, s->lwork);
    *seconds = gb_now() - t0;
    omp_set_num_threads(gb_cpu_threads());
    if (info > 0) return gb_errf(e, GB_FAIL, "%s did not converge (info %d)", routine(s), (int)info);
    if (info < 0) return gb_errf(e, GB_FAIL, "%s: argument %d is invalid", routine(s), (int)-info);
    return GB_OK;
}

static int svd_fetch(void *state, gb_arrays *out, gb_err *e) {
    svd_state *s = state;
    gb_elem re = gb_real_elem(s->dtype);
    if (!gb_arrays_add_copy(out, "S", re, s->k, s->S, e) ||
        !gb_arrays_add_copy(out, "U", re, s->m * s->k, s->U, e) ||
        !gb_arrays_add_copy(out, "VT", re, s->k * s->n, s->VT, e))
        return GB_FAIL;
    return GB_OK;
}

static void svd_annotate(void *state, cJSON *extra) {
    svd_state *s = state;
    cJSON_AddStringToObject(extra, "routine", routine(s));
    cJSON_AddNumberToObject(extra, "lwork", (double)s->lwork);
    cJSON_AddNumberToObject(extra, "threads", s->threads);
}

static void svd_set_threads(void *state, int threads) { ((svd_state *)state)->threads = threads; }

const gb_op_impl gb_cpu_svd = {
    .supports = svd_supports,
    .prepare = svd_prepare,
    .run = svd_run,
    .fetch = svd_fetch,
    .annotate = svd_annotate,
    .release = svd_release,
    .set_threads = svd_set_threads,
};
