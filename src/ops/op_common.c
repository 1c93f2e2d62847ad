/* op_common.c — helpers the op files share: size parsing, error metrics. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "op.h"
#include "precision.h"

/* A JSON number that is a positive integer that fits comfortably in memory
 * sizes; otherwise the reason. */
static int positive_int(const cJSON *v, int64_t *out, gb_err *e) {
    if (!cJSON_IsNumber(v))
        return gb_errf(e, GB_FAIL, "expected a positive integer, got %s",
                       cJSON_IsString(v) ? "a string" : cJSON_IsArray(v) ? "an array"
                       : cJSON_IsObject(v) ? "an object" : cJSON_IsBool(v) ? "a boolean" : "null");
    double d = v->valuedouble;
    if (d != floor(d) || d < 1 || d > 1e9)
        return gb_errf(e, GB_FAIL, "expected a positive integer, got %g", d);
    *out = (int64_t)d;
    return GB_OK;
}

int gb_parse_square_size(const cJSON *size, gb_case *c, gb_err *e) {
    return gb_parse_shape(size, 0, c, e);
}

int gb_parse_shape(const cJSON *size, int rank, gb_case *c, gb_err *e) {
    if (cJSON_IsArray(size)) {
        int n = cJSON_GetArraySize(size);
        if (rank == 0)
            return gb_errf(e, GB_FAIL, "expected a positive integer n (meaning n×n), got an array");
        if (n != rank)
            return gb_errf(e, GB_FAIL, "expected a positive integer or an array of %d positive integers, got an array of %d",
                           rank, n);
        for (int i = 0; i < n; i++) {
            gb_err inner;
            if (positive_int(cJSON_GetArrayItem(size, i), &c->shape[i], &inner) != GB_OK)
                return gb_errf(e, GB_FAIL, "[%d]: %s", i, inner.msg);
        }
        c->rank = n;
    } else {
        int64_t n;
        int s = positive_int(size, &n, e);
        if (s != GB_OK) return s;
        int r = rank == 0 ? 2 : rank;
        for (int i = 0; i < r; i++) c->shape[i] = n;
        c->rank = r;
    }
    int len = 0;
    c->label[0] = '\0';
    for (int i = 0; i < c->rank; i++)
        len += snprintf(c->label + len, sizeof c->label - (size_t)len, "%s%lld", i ? "x" : "",
                        (long long)c->shape[i]);
    return GB_OK;
}

/* Read element i of a real or complex array as (re, im). */
static void element(const gb_array *a, size_t i, double *re, double *im) {
    *re = *im = 0;
    switch (a->elem) {
    case GB_E_F32: *re = ((const float *)a->data)[i]; *im = 0; break;
    case GB_E_F64: *re = ((const double *)a->data)[i]; *im = 0; break;
    case GB_E_C64: *re = ((const float *)a->data)[2 * i]; *im = ((const float *)a->data)[2 * i + 1]; break;
    case GB_E_C128: *re = ((const double *)a->data)[2 * i]; *im = ((const double *)a->data)[2 * i + 1]; break;
    case GB_E_I32: *re = ((const int32_t *)a->data)[i]; *im = 0; break;
    case GB_E_I64: *re = (double)((const int64_t *)a->data)[i]; *im = 0; break;
    case GB_E_BF16: case GB_E_F16: case GB_E_F8E4M3: case GB_E_I8: *re = gb_elem_value(a->elem, a->data, i); break;
    }
}

double gb_max_rel_err(const gb_array *out, const gb_array *ref, size_t *worst_index) {
    size_t n = out->count < ref->count ? out->count : ref->count;
    double scale = 0, worst = 0;
    size_t where = 0;
    if (out->count != ref->count) {
        if (worst_index) *worst_index = n;
        return INFINITY;
    }
    /* Threaded: at 8192² a single-threaded pass of hypot over both arrays
     * was seconds per result. The worst element is the largest difference,
     * the first one in index order among equals, as a serial pass finds it. */
#pragma omp parallel for schedule(static) reduction(max : scale)
    for (size_t i = 0; i < n; i++) {
        double re, im;
        element(ref, i, &re, &im);
        double m = hypot(re, im);
        if (m > scale) scale = m;
    }
    if (scale == 0) scale = 1;
#pragma omp parallel
    {
        double my_worst = 0;
        size_t my_where = 0;
#pragma omp for schedule(static) nowait
        for (size_t i = 0; i < n; i++) {
            double ore, oim, rre, rim;
            element(out, i, &ore, &oim);
            element(ref, i, &rre, &rim);
            double d = hypot(ore - rre, oim - rim);
            if (isnan(d)) d = INFINITY; /* an unwritten (poisoned) element */
            if (d > my_worst) { my_worst = d; my_where = i; }
        }
#pragma omp critical(gb_max_rel_err)
        if (my_worst > worst || (my_worst == worst && my_worst > 0 && my_where < where)) {
            worst = my_worst;
            where = my_where;
        }
    }
    if (worst_index) *worst_index = where;
    return worst / scale;
}


int gb_op_computes(const gb_op *op, gb_dtype d, gb_err *why) {
    unsigned mask = op->dtypes ? op->dtypes : GB_DTYPES_CLASSIC;
    if (mask & (1u << d)) return GB_OK;
    char have[128] = "";
    size_t at = 0;
    for (int t = 0; t < GB_DTYPE_COUNT && at < sizeof have; t++)
        if (mask & (1u << t)) at += (size_t)snprintf(have + at, sizeof have - at, "%s%s", at ? ", " : "", gb_dtype_name((gb_dtype)t));
    return gb_errf(why, GB_SKIP, "%s has no %s path (its libraries compute %s)", op->name, gb_dtype_name(d), have);
}

void gb_params_default(gb_params *p) {
    p->math = GB_MATH_DEFAULT;
    p->fast_math = 0;
    p->fft_kind = GB_FFT_R2C;
    p->fft_planner = GB_PLAN_MEASURE;
    p->nrhs = 1;
    p->density = 0.01;
    p->svd_method = GB_SVD_AUTO;
    p->svd_tol = 0;
    p->direction = GB_DIR_H2D;
    p->memory = GB_MEM_PINNED;
    p->batch = 1000;
    p->gpus = 1;
    p->block = 0;
    p->iters = 100;
    p->norm_every = 1;
    p->slice_kind = GB_SLICE_STRIDE2;
}

double gb_case_elements(const gb_case *c) { return (double)c->shape[0] * (double)c->shape[1]; }

void gb_verdict_unmeasured(gb_verdict *v, gb_verify_status status, const char *fmt, ...) {
    v->status = status;
    v->error = status == GB_VERIFY_FAILED ? INFINITY : NAN;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->detail, sizeof v->detail, fmt, ap);
    va_end(ap);
}
