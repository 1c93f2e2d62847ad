/* cpu_matmul.c — C = A·B on the CPU (row-major, no transposes), and
 * batched_matmul, `batch` such products: float32 and float64 through
 * OpenBLAS cblas_sgemm/dgemm, the reduced precisions (bfloat16, float16,
 * int8) through oneDNN's matmul (cpu_onednn.c), which --cpu-gemm onednn
 * also takes for float32; BLIS (--cpu-gemm blis) and a site's CBLAS
 * (--cpu-blas PATH) through cpu_gemm_dl.c. Which library:
 * gb_cpu_gemm_library_for() (cpu_gemm_choice.c; float32/float64 measured
 * once per machine, build and shape class).
 *
 * OpenBLAS matmul: one GEMM, threaded by OpenBLAS itself, on the team
 * cpu_team.c chose for the case (one thread where a small product measured
 * faster on one; OpenBLAS's own size threshold is the same for every CPU).
 * OpenBLAS batched_matmul: OpenMP threads over the batch, each product one
 * single-threaded GEMM. Why not OpenBLAS's batch API: cblas_?gemm_batch
 * appeared in OpenBLAS 0.3.27; Debian 12 packages 0.3.21, whose cblas.h has
 * none. Why one thread inside each GEMM: a small product has too little work
 * to split, and OpenBLAS threads inside OpenMP threads would oversubscribe
 * the cores; the batch is the parallelism. OpenBLAS's thread count is
 * process-wide, so it is set to 1 for the repetition and put back after it,
 * outside the timer. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "cpu_onednn.h"
#include "precision.h"
#include "timer.h"

typedef struct {
    gb_dtype dtype;
    int m, k, n;
    int batch;     /* 0: matmul, one GEMM threaded by OpenBLAS */
    int math;
    const void *A, *B;
    gb_arrays out; /* "C", owned here */
    int threads;
    gb_onednn_mm *dnnl; /* non-NULL: oneDNN computes it */
    int lib;            /* gb_cpu_gemm_lib: OpenBLAS, BLIS or the --cpu-blas CBLAS when !dnnl */
    const char *shape_class;
    const char *choice; /* how its library was chosen (extra.library_choice) */
} mm_state;

static int mm_supports(const gb_case *c, gb_err *why) {
    if (c->dtype == GB_FLOAT8_E4M3)
        return gb_errf(why, GB_SKIP, "no CPU library of this build has a float8 GEMM (OpenBLAS 0.3.21: none; "
                                     "oneDNN %s: none)", gb_onednn_version((char[16]){0}, 16));
    int lib = gb_cpu_gemm_library_for(c);
    if (lib == GB_CPU_GEMM_ONEDNN) return gb_onednn_matmul_supports(c, why);
    if (c->dtype != GB_FLOAT32 && c->dtype != GB_FLOAT64)
        return gb_errf(why, GB_SKIP, "%s (--cpu-gemm %s) has no %s GEMM",
                       lib == GB_CPU_GEMM_BLIS ? "BLIS" : "OpenBLAS", gb_cpu_gemm_lib_name(lib), gb_dtype_name(c->dtype));
    if (lib != GB_CPU_GEMM_OPENBLAS && gb_cpu_dl_available(lib, why) != GB_OK) return GB_SKIP;
    /* OpenBLAS's CBLAS takes int dimensions (this build is LP64). */
    for (int i = 0; i < 3; i++)
        if (c->shape[i] > INT_MAX)
            return gb_errf(why, GB_SKIP, "dimension %lld exceeds OpenBLAS's int range",
                           (long long)c->shape[i]);
    return GB_OK;
}

/* The thread count of the library that runs the case's GEMMs (oneDNN's
 * primitive keeps the count it was made with). */
static void set_gemm_threads(const mm_state *s, int n) {
    if (s->lib == GB_CPU_GEMM_BLIS || s->lib == GB_CPU_GEMM_CBLAS) gb_cpu_dl_set_threads(s->lib, n);
    else openblas_set_num_threads(n);
}

static int mm_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2];
    int batch = c->op_id == GB_OP_BATCHED_MATMUL ? c->params.batch : 0;
    size_t b = batch ? (size_t)batch : 1;
    gb_elem el = gb_real_elem(c->dtype);
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    if (!A || !B || A->elem != el || B->elem != el || A->count != b * m * k || B->count != b * k * n)
        return gb_errf(e, GB_FAIL, "%s: inputs A (%zu × %zux%zu) and B (%zu × %zux%zu) of %s missing or mis-sized",
                       c->op_id == GB_OP_BATCHED_MATMUL ? "batched_matmul" : "matmul", b, m, k, b, k, n,
                       gb_dtype_name(c->dtype));
    mm_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "matmul: out of host memory");
    s->dtype = c->dtype;
    s->m = (int)m;
    s->k = (int)k;
    s->n = (int)n;
    s->batch = batch;
    s->math = c->params.math;
    s->A = A->data;
    s->B = B->data;
    gb_array *C = gb_arrays_add(&s->out, "C", gb_gemm_out_elem(c->dtype), b * m * n, e);
    if (!C) {
        free(s);
        return GB_SKIP;
    }
    gb_array_poison(C); /* an element the library fails to write fails verification */
    s->lib = gb_cpu_gemm_library_for(c);
    s->choice = gb_cpu_gemm_choice_reason_for(c);
    s->shape_class = gb_cpu_gemm_shape_class(c);
    if (s->lib == GB_CPU_GEMM_ONEDNN) {
        int st = gb_onednn_matmul_prepare(c, batch, A->data, B->data, C->data, &s->dnnl, e);
        if (st != GB_OK) {
            gb_arrays_free(&s->out);
            free(s);
            return st;
        }
    }
    s->threads = gb_cpu_threads();
    set_gemm_threads(s, s->threads);
    *state = s;
    return GB_OK;
}

/* Product i of the batch (or the one product), on the calling thread's
 * OpenBLAS (or BLIS, or the --cpu-blas library). */
static void gemm_one(const mm_state *s, size_t i) {
    size_t sa = (size_t)s->m * s->k, sb = (size_t)s->k * s->n, sc = (size_t)s->m * s->n, es = gb_dtype_size(s->dtype);
    if (s->lib != GB_CPU_GEMM_OPENBLAS)
        gb_cpu_dl_gemm(s->lib, s->dtype, s->m, s->n, s->k, (const char *)s->A + i * sa * es,
                       (const char *)s->B + i * sb * es, (char *)s->out.item[0].data + i * sc * es);
    else if (s->dtype == GB_FLOAT32)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s->m, s->n, s->k, 1.0f, (const float *)s->A + i * sa,
                    s->k, (const float *)s->B + i * sb, s->n, 0.0f, (float *)s->out.item[0].data + i * sc, s->n);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s->m, s->n, s->k, 1.0, (const double *)s->A + i * sa,
                    s->k, (const double *)s->B + i * sb, s->n, 0.0, (double *)s->out.item[0].data + i * sc, s->n);
}

static int mm_run(void *state, int timing, double *seconds, gb_err *e) {
    mm_state *s = state;
    if (s->dnnl) return gb_onednn_matmul_run(s->dnnl, seconds, e);
    if (!s->batch) {
        /* the team chosen for this case (cpu_team.c: one thread where a small
         * product is faster on one), set outside the timer and put back */
        int all = gb_cpu_threads();
        if (s->threads != all) set_gemm_threads(s, s->threads);
        double t0 = gb_now();
        gemm_one(s, 0);
        *seconds = gb_now() - t0;
        if (s->threads != all) set_gemm_threads(s, all);
        return GB_OK;
    }
    int batch = s->batch, nt = s->threads;
    set_gemm_threads(s, 1);
    double t0 = gb_now();
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int i = 0; i < batch; i++) gemm_one(s, (size_t)i);
    *seconds = gb_now() - t0;
    set_gemm_threads(s, gb_cpu_threads());
    return GB_OK;
}

static int mm_fetch(void *state, gb_arrays *out, gb_err *e) {
    mm_state *s = state;
    const gb_array *C = &s->out.item[0];
    return gb_arrays_add_copy(out, "C", C->elem, C->count, C->data, e) ? GB_OK : GB_FAIL;
}

static void mm_annotate(void *state, cJSON *extra) {
    mm_state *s = state;
    gb_gemm_types_annotate(extra, s->dtype);
    cJSON_AddStringToObject(extra, "shape_class", s->shape_class);
    if (s->dnnl) {
        gb_onednn_matmul_annotate(s->dnnl, extra);
        cJSON_AddStringToObject(extra, "library_choice", s->choice);
        cJSON_AddNumberToObject(extra, "threads", s->threads);
        return;
    }
    cJSON_AddStringToObject(extra, "library", gb_cpu_gemm_lib_name(s->lib));
    if (s->lib != GB_CPU_GEMM_OPENBLAS) cJSON_AddStringToObject(extra, "library_version", gb_cpu_dl_name(s->lib));
    cJSON_AddStringToObject(extra, "library_choice", s->choice);
    const char *routine = s->dtype == GB_FLOAT32 ? "cblas_sgemm" : "cblas_dgemm";
    if (s->lib == GB_CPU_GEMM_BLIS) routine = s->dtype == GB_FLOAT32 ? "bli_sgemm" : "bli_dgemm";
    if (s->batch) {
        char what[96];
        snprintf(what, sizeof what, "%s per product, OpenMP over the batch", routine);
        cJSON_AddStringToObject(extra, "routine", what);
        cJSON_AddNumberToObject(extra, "threads", s->threads);
        cJSON_AddNumberToObject(extra, "openblas_threads_per_gemm", 1);
        return;
    }
    cJSON_AddStringToObject(extra, "routine", routine);
    cJSON_AddNumberToObject(extra, "threads", s->threads);
    if (s->dtype == GB_FLOAT32 && s->math == GB_MATH_TF32)
        cJSON_AddStringToObject(extra, "math", "fp32 (tf32 is a GPU mode; the CPU computes full FP32)");
}

/* The team of an OpenBLAS/BLIS/CBLAS product or batch (oneDNN sizes its
 * own threads when the primitive is made: no team of ours applies). */
static void mm_set_threads(void *state, int threads) { ((mm_state *)state)->threads = threads; }
static int mm_takes_team(void *state) { return ((mm_state *)state)->dnnl == NULL; }

static void mm_release(void *state) {
    mm_state *s = state;
    if (!s) return;
    gb_onednn_matmul_release(s->dnnl);
    gb_arrays_free(&s->out);
    free(s);
}

/* One implementation for both ops: prepare tells them apart by op_id. */
const gb_op_impl gb_cpu_matmul = {
    .supports = mm_supports,
    .prepare = mm_prepare,
    .run = mm_run,
    .fetch = mm_fetch,
    .annotate = mm_annotate,
    .release = mm_release,
    .set_threads = mm_set_threads,
    .takes_team = mm_takes_team,
};
