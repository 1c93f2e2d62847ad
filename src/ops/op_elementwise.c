/* op_elementwise.c — out = a*b + sin(a) + cos(b) over rows·cols elements.
 *
 * A memory-bound op with enough arithmetic (two transcendental calls per
 * element) that a naive loop is compute-bound: it measures whether each side
 * fuses the expression into one pass and vectorizes sin/cos.
 *
 * Verification: every element is recomputed in double (OpenMP-parallel, so
 * it stays under a second at 2^28 elements) and compared with the per-element
 * scale S_i = max(|a_i·b_i| + |sin a_i| + |cos b_i|, 1):
 *     max_scaled_err = max_i |out_i − ref_i| / S_i.
 * Relative to the terms (not to the result, which can cancel to ~0), because
 * each term carries its own rounding error; floored at 1 because the GPU's
 * fast sin/cos intrinsics have absolute, not relative, error. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "op.h"
#include "rng.h"
#include "precision.h"

enum { STREAM_A = 1, STREAM_B = 2 };

static const gb_param_spec params[] = {
    {"fast_math", GB_PARAM_BOOL, offsetof(gb_params, fast_math), 0, 1, NULL,
     "GPU float32: use the fast __sinf/__cosf intrinsics (absolute error ~2^-21); "
     "the CPU always uses libmvec's accurate vector sin/cos"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static int parse_size(const cJSON *size, gb_case *c, gb_err *e) {
    return gb_parse_shape(size, 2, c, e); /* n → n×n; [rows, cols] */
}


static void count(gb_case *c) {
    double N = gb_case_elements(c);
    /* 1 mul + 2 adds per element; sin and cos are not counted as flops (no
     * agreed count), so rates are judged in GB/s (rate_kind "bytes"). */
    c->flops = 3.0 * N;
    c->bytes = 3.0 * N * gb_dtype_bytes(c->dtype); /* read a, b; write out */
}

static double host_bytes(const gb_case *c) {
    /* a, b; out inside a backend plus one fetched copy per backend. */
    return 5.0 * gb_case_elements(c) * gb_dtype_bytes(c->dtype);
}

static int make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    size_t N = (size_t)c->shape[0] * (size_t)c->shape[1];
    gb_array *a = gb_arrays_add(in, "a", gb_real_elem(c->dtype), N, e);
    if (!a) return GB_SKIP;
    gb_array *b = gb_arrays_add(in, "b", gb_real_elem(c->dtype), N, e);
    if (!b) return GB_SKIP;
    /* [-4, 4): more than a period of sin/cos, both signs, so range reduction
     * and every quadrant are exercised; a·b stays O(10). bfloat16 and
     * float16: the float64 draws rounded to the type, the same bits for
     * every backend. */
    if (c->dtype != GB_FLOAT32 && c->dtype != GB_FLOAT64) {
        gb_fill_rounded(a->elem, a->data, N, c->seed, STREAM_A, -4.0, 4.0, 0);
        gb_fill_rounded(b->elem, b->data, N, c->seed, STREAM_B, -4.0, 4.0, 0);
    } else if (c->dtype == GB_FLOAT32) {
        gb_rng_fill_f32(a->data, N, c->seed, STREAM_A, -4.0, 4.0);
        gb_rng_fill_f32(b->data, N, c->seed, STREAM_B, -4.0, 4.0);
    } else {
        gb_rng_fill_f64(a->data, N, c->seed, STREAM_A, -4.0, 4.0);
        gb_rng_fill_f64(b->data, N, c->seed, STREAM_B, -4.0, 4.0);
    }
    return GB_OK;
}

/* Own-check tolerance. A correct evaluation in the dtype is off from the
 * exact value by at most: u·|ab| (the product) + 4 ulp of sin + 4 ulp of cos
 * (glibc libmvec and CUDA's sinf/cosf/sin/cos are within 4 ulp, and one ulp
 * <= 2u·|value|) + two additions (u·S each), i.e. <= (1 + 8 + 8 + 2)·u·S <
 * 20u·S (an FMA only lowers it); 32u leaves room. That is 1.9e-6 in float32
 * and 3.6e-15 in float64: a swapped sin/cos, a missing term or a NaN is off by
 * O(1). fast_math (GPU float32 only): __sinf/__cosf have absolute error
 * 2^-21.41 on [-π, π] and grow slowly beyond; on [-4, 4) two of them stay
 * well under 2^-19, and 2^-16 ≈ 1.5e-5 leaves 8x. */
static double own_tolerance(const gb_case *c) {
    /* bfloat16 and float16 are computed in float32 from their (exactly
     * converted) inputs and the result rounded once to the type: the float32
     * bound above plus u_out·|out| <= u_out·S, doubled for margin. */
    if (c->dtype != GB_FLOAT32 && c->dtype != GB_FLOAT64) return 2.0 * gb_eps(c->dtype) + 32.0 * gb_eps(GB_FLOAT32);
    double tol = 32.0 * gb_eps(c->dtype);
    if (c->dtype == GB_FLOAT32 && c->params.fast_math) tol += 0x1.0p-16;
    return tol;
}

typedef struct {
    double worst;
    size_t where;
} worst_at;

/* max_i |out_i − x_i| / S_i where x_i is the double-precision value (own
 * check, ref == NULL) or ref's element (comparison). */
static worst_at scaled_err(const gb_case *c, const gb_array *a, const gb_array *b,
                           const gb_array *out, const gb_array *ref) {
    size_t N = out->count;
    int f32 = c->dtype == GB_FLOAT32, wide = f32 || c->dtype == GB_FLOAT64;
    worst_at w = {0, 0};
#pragma omp parallel
    {
        worst_at mine = {0, 0};
#pragma omp for schedule(static)
        for (size_t i = 0; i < N; i++) {
            double ai, bi, oi, x = 0;
            if (wide) { /* the float32/float64 loads as they were, for speed */
                ai = f32 ? ((const float *)a->data)[i] : ((const double *)a->data)[i];
                bi = f32 ? ((const float *)b->data)[i] : ((const double *)b->data)[i];
                oi = f32 ? ((const float *)out->data)[i] : ((const double *)out->data)[i];
                if (ref) x = f32 ? ((const float *)ref->data)[i] : ((const double *)ref->data)[i];
            } else {
                ai = gb_elem_value(a->elem, a->data, i);
                bi = gb_elem_value(b->elem, b->data, i);
                oi = gb_elem_value(out->elem, out->data, i);
                if (ref) x = gb_elem_value(ref->elem, ref->data, i);
            }
            double sa = sin(ai), cb = cos(bi);
            if (!ref)
                x = ai * bi + sa + cb;
            double s = fabs(ai * bi) + fabs(sa) + fabs(cb);
            double r = fabs(oi - x) / (s > 1 ? s : 1);
            if (!(r <= INFINITY)) r = INFINITY; /* NaN: an unwritten (poisoned) element */
            if (r > mine.worst) { mine.worst = r; mine.where = i; }
        }
#pragma omp critical
        if (mine.worst > w.worst) w = mine;
    }
    return w;
}

static void verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out,
                   const gb_arrays *ref, gb_verdict *v) {
    size_t N = (size_t)c->shape[0] * (size_t)c->shape[1];
    memset(v, 0, sizeof *v);
    /* Against another backend, `against` stays empty: the runner names it. */
    if (!ref) snprintf(v->against, sizeof v->against, "reference");
    snprintf(v->metric, sizeof v->metric, "max_scaled_err");
    /* Against another backend both sides may be off by the own tolerance. */
    v->tolerance = own_tolerance(c) * (ref ? 2.0 : 1.0);
    gb_elem el = gb_real_elem(c->dtype);
    const gb_array *a = gb_arrays_find(in, "a"), *b = gb_arrays_find(in, "b");
    const gb_array *o = gb_arrays_find(out, "out");
    const gb_array *r = ref ? gb_arrays_find(ref, "out") : NULL;
    if (!a || !b || a->count != N || b->count != N || a->elem != el || b->elem != el) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "inputs a and b missing or mis-sized");
        return;
    }
    if (!o || o->count != N || o->elem != el) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "output 'out' (%zu %s) missing or mis-sized", N,
                 gb_dtype_name(c->dtype));
        return;
    }
    if (ref && (!r || r->count != N || r->elem != el)) {
        v->status = GB_VERIFY_NOT_CHECKED;
        v->error = NAN;
        snprintf(v->detail, sizeof v->detail, "reference output 'out' missing or mis-sized");
        return;
    }
    worst_at w = scaled_err(c, a, b, o, r);
    v->error = w.worst;
    v->status = v->error <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    snprintf(v->detail, sizeof v->detail,
             "|out−%s|/max(|ab|+|sin a|+|cos b|, 1) over all %zu elements, worst at [%zu]",
             ref ? "ref" : "double-precision value", N, w.where);
}

const gb_op gb_op_elementwise = {
    .id = GB_OP_ELEMENTWISE,
    .name = "elementwise",
    .dtypes = GB_DTYPES_CLASSIC | 1u << GB_BFLOAT16 | 1u << GB_FLOAT16,
    .summary = "out = a*b + sin(a) + cos(b), one fused pass (size n = n×n elements or [rows,cols]); judged in GB/s",
    .rate_kind = "bytes",
    .params = params,
    .accelerator_params = (const char *const[]){"fast_math", NULL},
    .parse_size = parse_size,
    .count = count,
    .host_bytes = host_bytes,
    .make_inputs = make_inputs,
    .verify = verify,
};
