/* cpu_matmul.c — C = A·B on the CPU through OpenBLAS cblas_sgemm/dgemm
 * (row-major, no transposes), threaded by OpenBLAS itself. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "timer.h"

typedef struct {
    gb_dtype dtype;
    int m, k, n;
    int math;
    const void *A, *B;
    gb_arrays out; /* "C", owned here */
    int threads;
} mm_state;

static int mm_supports(const gb_case *c, gb_err *why) {
    /* OpenBLAS's CBLAS takes int dimensions (this build is LP64). */
    for (int i = 0; i < 3; i++)
        if (c->shape[i] > INT_MAX)
            return gb_errf(why, GB_SKIP, "dimension %lld exceeds OpenBLAS's int range",
                           (long long)c->shape[i]);
    return GB_OK;
}

static int mm_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2];
    gb_elem el = gb_real_elem(c->dtype);
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    if (!A || !B || A->elem != el || B->elem != el || A->count != m * k || B->count != k * n)
        return gb_errf(e, GB_FAIL, "matmul: inputs A (%zux%zu) and B (%zux%zu) of %s missing or mis-sized",
                       m, k, k, n, gb_dtype_name(c->dtype));
    mm_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "matmul: out of host memory");
    s->dtype = c->dtype;
    s->m = (int)m;
    s->k = (int)k;
    s->n = (int)n;
    s->math = c->params.math;
    s->A = A->data;
    s->B = B->data;
    gb_array *C = gb_arrays_add(&s->out, "C", el, m * n, e);
    if (!C) {
        free(s);
        return GB_SKIP;
    }
    gb_array_poison(C); /* an element the library fails to write fails verification */
    s->threads = gb_cpu_threads();
    openblas_set_num_threads(s->threads);
    *state = s;
    return GB_OK;
}

static int mm_run(void *state, int timing, double *seconds, gb_err *e) {
    mm_state *s = state;
    void *C = s->out.item[0].data;
    double t0 = gb_now();
    if (s->dtype == GB_FLOAT32)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s->m, s->n, s->k, 1.0f, s->A, s->k,
                    s->B, s->n, 0.0f, C, s->n);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s->m, s->n, s->k, 1.0, s->A, s->k,
                    s->B, s->n, 0.0, C, s->n);
    *seconds = gb_now() - t0;
    return GB_OK;
}

static int mm_fetch(void *state, gb_arrays *out, gb_err *e) {
    mm_state *s = state;
    const gb_array *C = &s->out.item[0];
    return gb_arrays_add_copy(out, "C", C->elem, C->count, C->data, e) ? GB_OK : GB_FAIL;
}

static void mm_annotate(void *state, cJSON *extra) {
    mm_state *s = state;
    cJSON_AddStringToObject(extra, "routine", s->dtype == GB_FLOAT32 ? "cblas_sgemm" : "cblas_dgemm");
    cJSON_AddNumberToObject(extra, "threads", openblas_get_num_threads());
    if (s->dtype == GB_FLOAT32 && s->math == GB_MATH_TF32)
        cJSON_AddStringToObject(extra, "math", "fp32 (tf32 is a GPU mode; the CPU computes full FP32)");
}

static void mm_release(void *state) {
    mm_state *s = state;
    if (!s) return;
    gb_arrays_free(&s->out);
    free(s);
}

const gb_op_impl gb_cpu_matmul = {
    .supports = mm_supports,
    .prepare = mm_prepare,
    .run = mm_run,
    .fetch = mm_fetch,
    .annotate = mm_annotate,
    .release = mm_release,
};
