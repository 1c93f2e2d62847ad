/* cpu_batched_matmul.c — batch independent GEMMs on the CPU: OpenMP
 * threads over the batch, each product one single-threaded OpenBLAS
 * cblas_?gemm (row-major, as matmul).
 *
 * Why not OpenBLAS's batch API: cblas_?gemm_batch appeared in OpenBLAS
 * 0.3.27; Debian 12 packages 0.3.21, whose cblas.h has none. Why one thread
 * inside each GEMM: a small product (n ≤ 128) has too little work to split,
 * and OpenBLAS threads inside OpenMP threads would oversubscribe the cores;
 * the batch is the parallelism. OpenBLAS's own thread count is set to 1 for
 * the repetition and put back after it (outside the timer), since it is
 * process-wide and the other ops use all threads. */
#include <limits.h>
#include <stdlib.h>
#include <cblas.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "timer.h"

typedef struct {
    gb_dtype dtype;
    int m, k, n, batch, threads;
    const void *A, *B;
    gb_arrays out; /* "C", owned here */
} bmm_state;

static int bmm_supports(const gb_case *c, gb_err *why) {
    for (int i = 0; i < 3; i++)
        if (c->shape[i] > INT_MAX)
            return gb_errf(why, GB_SKIP, "dimension %lld exceeds OpenBLAS's int range", (long long)c->shape[i]);
    return GB_OK;
}

static int bmm_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2], b = (size_t)c->params.batch;
    gb_elem el = gb_real_elem(c->dtype);
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    if (!A || !B || A->elem != el || B->elem != el || A->count != b * m * k || B->count != b * k * n)
        return gb_errf(e, GB_FAIL, "batched_matmul: inputs A (%zu×%zu×%zu) and B (%zu×%zu×%zu) of %s missing or mis-sized",
                       b, m, k, b, k, n, gb_dtype_name(c->dtype));
    bmm_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "batched_matmul: out of host memory");
    s->dtype = c->dtype;
    s->m = (int)m;
    s->k = (int)k;
    s->n = (int)n;
    s->batch = (int)b;
    s->A = A->data;
    s->B = B->data;
    gb_array *C = gb_arrays_add(&s->out, "C", el, b * m * n, e);
    if (!C) {
        free(s);
        return GB_SKIP;
    }
    gb_array_poison(C);
    s->threads = gb_cpu_threads();
    *state = s;
    return GB_OK;
}

static int bmm_run(void *state, int timing, double *seconds, gb_err *e) {
    bmm_state *s = state;
    int m = s->m, k = s->k, n = s->n, batch = s->batch, nt = s->threads;
    size_t sa = (size_t)m * k, sb = (size_t)k * n, sc = (size_t)m * n;
    openblas_set_num_threads(1);
    double t0 = gb_now();
    if (s->dtype == GB_FLOAT32) {
        const float *A = s->A, *B = s->B;
        float *C = s->out.item[0].data;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int i = 0; i < batch; i++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A + i * sa, k, B + i * sb, n,
                        0.0f, C + i * sc, n);
    } else {
        const double *A = s->A, *B = s->B;
        double *C = s->out.item[0].data;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int i = 0; i < batch; i++)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, A + i * sa, k, B + i * sb, n,
                        0.0, C + i * sc, n);
    }
    *seconds = gb_now() - t0;
    openblas_set_num_threads(gb_cpu_threads());
    return GB_OK;
}

static int bmm_fetch(void *state, gb_arrays *out, gb_err *e) {
    bmm_state *s = state;
    const gb_array *C = &s->out.item[0];
    return gb_arrays_add_copy(out, "C", C->elem, C->count, C->data, e) ? GB_OK : GB_FAIL;
}

static void bmm_annotate(void *state, cJSON *extra) {
    bmm_state *s = state;
    cJSON_AddStringToObject(extra, "routine", s->dtype == GB_FLOAT32 ? "cblas_sgemm per product, OpenMP over the batch"
                                                                     : "cblas_dgemm per product, OpenMP over the batch");
    cJSON_AddNumberToObject(extra, "threads", s->threads);
    cJSON_AddNumberToObject(extra, "openblas_threads_per_gemm", 1);
}

static void bmm_release(void *state) {
    bmm_state *s = state;
    if (!s) return;
    gb_arrays_free(&s->out);
    free(s);
}

const gb_op_impl gb_cpu_batched_matmul = {
    .supports = bmm_supports,
    .prepare = bmm_prepare,
    .run = bmm_run,
    .fetch = bmm_fetch,
    .annotate = bmm_annotate,
    .release = bmm_release,
};
