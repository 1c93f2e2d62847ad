/* op_slicing.c — the strided copies the Python array benchmark times as
 * "Array Slicing": a rows×cols array x (row-major) copied into a new array
 *   kind "stride2":   y = x[::2, ::2]   (ceil(rows/2) × ceil(cols/2))
 *   kind "transpose": y = x.T copied    (cols × rows, row-major)
 *
 * Both are pure data movement, judged in GB/s against the memory ceiling.
 * Bytes count what memory must move at cache-line granularity, which is
 * what the ceilings (STREAM triad, device copy) measure:
 *   stride2:   the even rows of x are read whole (every other element of a
 *              row still brings in every cache line of it) and y is written:
 *              ceil(rows/2)·cols·s + |y|·s
 *   transpose: x read, y written: 2·rows·cols·s.
 * flops: none (0: no GFLOP/s is shown).
 *
 * Verification: exact. A copy has no rounding, so every element of y must
 * equal its element of x bit for bit (a NaN left by the poisoned output, an
 * element from the wrong row or column, or a missed tile all count). The
 * metric is the number of mismatching elements; the tolerance is 0. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "op.h"
#include "rng.h"

enum { STREAM_X = 1 };

static const char *const kind_values[] = {"stride2", "transpose", NULL};

static const gb_param_spec params[] = {
    {"kind", GB_PARAM_ENUM, offsetof(gb_params, slice_kind), 0, 0, kind_values,
     "stride2: y = x[::2, ::2] into a new array; transpose: y = x.T as a new row-major array"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static int parse_size(const cJSON *size, gb_case *c, gb_err *e) {
    return gb_parse_shape(size, 2, c, e); /* n → n×n; [rows, cols] */
}

static double out_elements(const gb_case *c) {
    int64_t r, k;
    gb_slicing_out_shape(c, &r, &k);
    return (double)r * (double)k;
}

static void count(gb_case *c) {
    double s = gb_dtype_bytes(c->dtype);
    c->flops = 0;
    if (c->params.slice_kind == GB_SLICE_TRANSPOSE)
        c->bytes = 2.0 * gb_case_elements(c) * s;
    else
        c->bytes = ((double)((c->shape[0] + 1) / 2) * (double)c->shape[1] + out_elements(c)) * s;
}

static double host_bytes(const gb_case *c) {
    /* x; y inside a backend plus one fetched copy per backend. */
    return (gb_case_elements(c) + 3.0 * out_elements(c)) * gb_dtype_bytes(c->dtype);
}

static int make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    size_t N = (size_t)c->shape[0] * (size_t)c->shape[1];
    gb_array *x = gb_arrays_add(in, "x", gb_real_elem(c->dtype), N, e);
    if (!x) return GB_SKIP;
    /* distinct values almost everywhere, so a misplaced element is seen */
    if (c->dtype == GB_FLOAT32)
        gb_rng_fill_f32(x->data, N, c->seed, STREAM_X, -1.0, 1.0);
    else
        gb_rng_fill_f64(x->data, N, c->seed, STREAM_X, -1.0, 1.0);
    return GB_OK;
}

/* Bitwise equality of element i of y and element j of x. */
static int same(const gb_array *y, size_t i, const gb_array *x, size_t j) {
    size_t s = gb_elem_size(x->elem);
    return memcmp((const char *)y->data + i * s, (const char *)x->data + j * s, s) == 0;
}

static void verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out, const gb_arrays *ref,
                   gb_verdict *v) {
    size_t R = (size_t)c->shape[0], C = (size_t)c->shape[1];
    int64_t orr, oc;
    gb_slicing_out_shape(c, &orr, &oc);
    size_t M = (size_t)orr * (size_t)oc;
    gb_elem el = gb_real_elem(c->dtype);
    memset(v, 0, sizeof *v);
    /* Exact: checking against x itself is as strong as against another
     * backend, so both visits use x (the other backend's output is not needed). */
    (void)ref;
    snprintf(v->against, sizeof v->against, "reference");
    snprintf(v->metric, sizeof v->metric, "mismatched_elements");
    v->tolerance = 0;
    const gb_array *x = gb_arrays_find(in, "x"), *y = gb_arrays_find(out, "y");
    if (!x || x->count != R * C || x->elem != el)
        return gb_verdict_unmeasured(v, GB_VERIFY_FAILED, "input x missing or mis-sized");
    if (!y || y->count != M || y->elem != el)
        return gb_verdict_unmeasured(v, GB_VERIFY_FAILED, "output 'y' (%lldx%lld %s) missing or mis-sized",
                                     (long long)orr, (long long)oc, gb_dtype_name(c->dtype));
    int transpose = c->params.slice_kind == GB_SLICE_TRANSPOSE;
    size_t bad = 0, first = M;
#pragma omp parallel for schedule(static) reduction(+ : bad) reduction(min : first)
    for (size_t i = 0; i < M; i++) {
        size_t r = i / (size_t)oc, k = i % (size_t)oc;
        size_t j = transpose ? k * C + r : 2 * r * C + 2 * k;
        if (!same(y, i, x, j)) {
            bad++;
            if (i < first) first = i;
        }
    }
    v->error = (double)bad;
    v->status = bad == 0 ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    if (bad)
        snprintf(v->detail, sizeof v->detail, "%zu of %zu elements of y differ from %s; first at y[%zu, %zu]", bad, M,
                 transpose ? "x.T" : "x[::2, ::2]", first / (size_t)oc, first % (size_t)oc);
    else
        snprintf(v->detail, sizeof v->detail, "all %zu elements of y equal %s bit for bit", M,
                 transpose ? "x.T" : "x[::2, ::2]");
}

const gb_op gb_op_slicing = {
    .id = GB_OP_SLICING,
    .name = "slicing",
    .summary = "strided copy into a new array: x[::2, ::2] (kind stride2) or x.T (kind transpose) "
               "(size n = n×n or [rows,cols]); judged in GB/s",
    .rate_kind = "bytes",
    .params = params,
    .parse_size = parse_size,
    .count = count,
    .host_bytes = host_bytes,
    .make_inputs = make_inputs,
    .verify = verify,
};
