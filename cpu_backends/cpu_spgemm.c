/* cpu_spgemm.c — sparse C = A·B on the CPU with SuiteSparse:GraphBLAS.
 *
 * prepare: GrB_init once per process (non-blocking mode), the thread count
 * from gb_cpu_threads(); A and B converted from 32-bit CSR to GraphBLAS's
 * 64-bit indices and imported (GxB_Matrix_import_CSR takes ownership of the
 * arrays, so they are fresh copies). All untimed.
 * run: GrB_Matrix_new(C) + GrB_mxm with the PLUS_TIMES semiring +
 * GrB_Matrix_wait(C, GrB_MATERIALIZE), so the product really is finished
 * (GraphBLAS may defer work) and C's allocation is inside the rep, as a user
 * experiences it. The previous rep's C is freed before the clock starts.
 * fetch: C exported back to 32-bit CSR with sorted columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <GraphBLAS.h>
#include "cpu_backend.h"
#include "timer.h"

typedef struct {
    gb_dtype dtype;
    size_t n;
    GrB_Matrix A, B, C;
    GrB_Index c_nnz;
    char format[16];
} spgemm_state;

static int grb_ready;

static const char *grb_name(GrB_Info info) {
    switch (info) {
    case GrB_SUCCESS: return "success";
    case GrB_OUT_OF_MEMORY: return "out of memory";
    case GrB_INVALID_VALUE: return "invalid value";
    case GrB_INVALID_INDEX: return "invalid index";
    case GrB_DIMENSION_MISMATCH: return "dimension mismatch";
    case GrB_PANIC: return "panic";
    default: return "error";
    }
}

static void spgemm_release(void *state) {
    spgemm_state *s = state;
    if (!s) return;
    GrB_Matrix_free(&s->A);
    GrB_Matrix_free(&s->B);
    GrB_Matrix_free(&s->C);
    free(s);
}

/* Import prefix_* (32-bit CSR) as a GraphBLAS matrix. */
static int import(const gb_arrays *in, const char *prefix, size_t n, gb_dtype d, GrB_Matrix *M, gb_err *e) {
    char name[24];
    snprintf(name, sizeof name, "%s_rowptr", prefix);
    const gb_array *rp = gb_arrays_find(in, name);
    snprintf(name, sizeof name, "%s_colind", prefix);
    const gb_array *ci = gb_arrays_find(in, name);
    snprintf(name, sizeof name, "%s_val", prefix);
    const gb_array *va = gb_arrays_find(in, name);
    if (!rp || !ci || !va || rp->count != n + 1)
        return gb_errf(e, GB_FAIL, "spgemm: CSR arrays of %s missing", prefix);
    size_t nnz = ci->count, vsz = gb_elem_size(va->elem);
    /* GraphBLAS frees these with its own free (the C library's by default). */
    GrB_Index *p = malloc((n + 1) * sizeof *p);
    GrB_Index *j = malloc((nnz ? nnz : 1) * sizeof *j);
    void *x = malloc((nnz ? nnz : 1) * vsz);
    if (!p || !j || !x) {
        free(p);
        free(j);
        free(x);
        return gb_errf(e, GB_SKIP, "out of host memory converting %s to 64-bit CSR", prefix);
    }
    const int32_t *rp32 = rp->data, *ci32 = ci->data;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i <= n; i++) p[i] = (GrB_Index)rp32[i];
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < nnz; k++) j[k] = (GrB_Index)ci32[k];
    memcpy(x, va->data, nnz * vsz);
    GrB_Info info = GxB_Matrix_import_CSR(M, d == GB_FLOAT32 ? GrB_FP32 : GrB_FP64, n, n, &p, &j, &x,
                                          (n + 1) * sizeof *p, (nnz ? nnz : 1) * sizeof *j,
                                          (nnz ? nnz : 1) * vsz, false, false, NULL);
    if (info != GrB_SUCCESS) {
        free(p);
        free(j);
        free(x);
        return gb_errf(e, info == GrB_OUT_OF_MEMORY ? GB_SKIP : GB_FAIL, "GxB_Matrix_import_CSR(%s): %s",
                       prefix, grb_name(info));
    }
    return GB_OK;
}

static int spgemm_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    if (!grb_ready) {
        GrB_Info info = GrB_init(GrB_NONBLOCKING);
        if (info != GrB_SUCCESS) return gb_errf(e, GB_FATAL, "GrB_init: %s", grb_name(info));
        grb_ready = 1;
    }
    GxB_Global_Option_set(GxB_NTHREADS, gb_cpu_threads());
    spgemm_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->n = (size_t)c->shape[0];
    int st = import(in, "A", s->n, c->dtype, &s->A, e);
    if (st == GB_OK) st = import(in, "B", s->n, c->dtype, &s->B, e);
    if (st != GB_OK) {
        spgemm_release(s);
        return st;
    }
    *state = s;
    return GB_OK;
}

static int spgemm_run(void *state, int timing, double *seconds, gb_err *e) {
    spgemm_state *s = state;
    GrB_Matrix_free(&s->C);
    GrB_Semiring sr = s->dtype == GB_FLOAT32 ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64;
    double t0 = gb_now();
    GrB_Info info = GrB_Matrix_new(&s->C, s->dtype == GB_FLOAT32 ? GrB_FP32 : GrB_FP64, s->n, s->n);
    if (info == GrB_SUCCESS) info = GrB_mxm(s->C, NULL, NULL, sr, s->A, s->B, NULL);
    if (info == GrB_SUCCESS) info = GrB_Matrix_wait(s->C, GrB_MATERIALIZE);
    *seconds = gb_now() - t0;
    if (info != GrB_SUCCESS)
        return gb_errf(e, info == GrB_OUT_OF_MEMORY ? GB_SKIP : GB_FAIL, "GrB_mxm: %s", grb_name(info));
    GrB_Matrix_nvals(&s->c_nnz, s->C);
    int fmt = 0;
    GxB_Matrix_Option_get(s->C, GxB_SPARSITY_STATUS, &fmt);
    snprintf(s->format, sizeof s->format, "%s",
             fmt == GxB_HYPERSPARSE ? "hypersparse" : fmt == GxB_SPARSE ? "sparse"
             : fmt == GxB_BITMAP ? "bitmap" : fmt == GxB_FULL ? "full" : "?");
    return GB_OK;
}

static int spgemm_fetch(void *state, gb_arrays *out, gb_err *e) {
    spgemm_state *s = state;
    if (!s->C) return gb_errf(e, GB_FAIL, "spgemm: no product to fetch (no repetition ran)");
    if (s->c_nnz > INT32_MAX)
        return gb_errf(e, GB_SKIP, "C has %llu non-zeros, more than 32-bit CSR indices hold",
                       (unsigned long long)s->c_nnz);
    GrB_Type type;
    GrB_Index nr, nc, psz, jsz, xsz, *p = NULL, *j = NULL;
    void *x = NULL;
    bool iso = false;
    /* Export (sorted: jumbled = NULL) consumes C; it was the last rep's. */
    GrB_Info info = GxB_Matrix_export_CSR(&s->C, &type, &nr, &nc, &p, &j, &x, &psz, &jsz, &xsz, &iso, NULL, NULL);
    if (info != GrB_SUCCESS) return gb_errf(e, GB_FAIL, "GxB_Matrix_export_CSR: %s", grb_name(info));
    size_t nnz = (size_t)p[s->n];
    int st = GB_FAIL;
    gb_elem ve = gb_real_elem(s->dtype);
    size_t vsz = gb_elem_size(ve);
    gb_array *rp = gb_arrays_add(out, "C_rowptr", GB_E_I32, s->n + 1, e);
    gb_array *ci = rp ? gb_arrays_add(out, "C_colind", GB_E_I32, nnz, e) : NULL;
    gb_array *va = ci ? gb_arrays_add(out, "C_val", ve, nnz, e) : NULL;
    if (va) {
        int32_t *r32 = rp->data, *c32 = ci->data;
        for (size_t i = 0; i <= s->n; i++) r32[i] = (int32_t)p[i];
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < nnz; k++) c32[k] = (int32_t)j[k];
        if (iso) /* one value stands for all */
            for (size_t k = 0; k < nnz; k++) memcpy((char *)va->data + k * vsz, x, vsz);
        else
            memcpy(va->data, x, nnz * vsz);
        st = GB_OK;
    }
    free(p);
    free(j);
    free(x);
    return st;
}

static void spgemm_annotate(void *state, cJSON *extra) {
    spgemm_state *s = state;
    cJSON_AddStringToObject(extra, "routine", s->dtype == GB_FLOAT32 ? "GrB_mxm(PLUS_TIMES_FP32)"
                                                                     : "GrB_mxm(PLUS_TIMES_FP64)");
    cJSON_AddNumberToObject(extra, "output_nnz", (double)s->c_nnz);
    cJSON_AddStringToObject(extra, "output_format", s->format);
    cJSON_AddNumberToObject(extra, "threads", gb_cpu_threads());
}

const gb_op_impl gb_cpu_spgemm = {
    .prepare = spgemm_prepare,
    .run = spgemm_run,
    .fetch = spgemm_fetch,
    .annotate = spgemm_annotate,
    .release = spgemm_release,
};
