/* op_reduction.c — sum, mean and population standard deviation of one array.
 *
 * Output "stats": 3 float64 values {sum, mean, std} whatever the input dtype.
 * Verification: against another backend, or against a two-pass reference
 * (sum first, then Σ(x−mean)²) accumulated in long double, which has no
 * cancellation problem at all. The metric is the worst of three relative
 * errors: |Δsum|/Σ|x|, |Δmean|/(Σ|x|/N), |Δstd|/std. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "op.h"
#include "rng.h"
#include "precision.h"

enum { STREAM_X = 1 };

static const gb_param_spec params[] = {
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static int parse_size(const cJSON *size, gb_case *c, gb_err *e) {
    return gb_parse_shape(size, 2, c, e); /* n → n×n; [rows, cols] */
}


static void count(gb_case *c) {
    double N = gb_case_elements(c);
    c->flops = 3.0 * N;               /* Σx and Σx² (one add, one multiply-add) */
    c->bytes = N * gb_dtype_bytes(c->dtype);          /* read x once; 24 bytes out are negligible */
}

static double host_bytes(const gb_case *c) { return gb_case_elements(c) * gb_dtype_bytes(c->dtype) + 1024; }

static int make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    size_t N = (size_t)c->shape[0] * (size_t)c->shape[1];
    gb_array *x = gb_arrays_add(in, "x", gb_real_elem(c->dtype), N, e);
    if (!x) return GB_SKIP;
    /* [1, 3): mean 2, std 1/sqrt(3) ≈ 0.577, so neither is trivially zero
     * and the naive E[x²]−mean² loses a factor ~13 to cancellation. */
    if (c->dtype != GB_FLOAT32 && c->dtype != GB_FLOAT64) /* bfloat16, float16: the draws rounded */
        gb_fill_rounded(x->elem, x->data, N, c->seed, STREAM_X, 1.0, 3.0, 0);
    else if (c->dtype == GB_FLOAT32)
        gb_rng_fill_f32(x->data, N, c->seed, STREAM_X, 1.0, 3.0);
    else
        gb_rng_fill_f64(x->data, N, c->seed, STREAM_X, 1.0, 3.0);
    return GB_OK;
}

/* Tolerances (relative, see the metric above). Float32 data: a sound method
 * accumulating in float32 pairwise/tree fashion, as a GPU may, is off by
 * about log2(N)·u ≤ 32·2^-24 ≈ 2e-6 for N ≤ 2^32 (the std too, provided it
 * uses two passes, a shift or Welford/Chan); double accumulation is far
 * better. 1e-5 ≈ 170·u32 leaves 5x. Float64 data: blocked double summation
 * (blocks of B, then block sums) has typical error (sqrt(B) + sqrt(N/B))·u;
 * at N = 2^30 that is ≈ 600·u64 ≈ 7e-14; 1e-12 leaves 14x. Both catch a
 * NaN, a missing block at the sizes the tests use, the sample instead of the
 * population std at N ≤ 10^4, and the naive one-pass variance on offset data
 * (relative error ~ u·mean²/var). */
/* bfloat16 and float16 inputs are exact in float32 and in double: their
 * reductions are held to float32's bound, which a float32 accumulation (as
 * PyTorch's) meets and the double accumulation of both backends here
 * meets with room. */
static double tolerance(const gb_case *c) { return c->dtype == GB_FLOAT64 ? 1e-12 : 1e-5; }

/* Two-pass reference in long double (64-bit mantissa). */
static void reference(const gb_array *x, long double out[4]) {
    size_t N = x->count;
    int f32 = x->elem == GB_E_F32, wide = f32 || x->elem == GB_E_F64;
    long double sum = 0, abs_sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum, abs_sum)
    for (size_t i = 0; i < N; i++) {
        long double v = !wide ? gb_elem_value(x->elem, x->data, i)
                        : f32 ? ((const float *)x->data)[i] : ((const double *)x->data)[i];
        sum += v;
        abs_sum += fabsl(v);
    }
    long double mean = sum / (long double)N, m2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : m2)
    for (size_t i = 0; i < N; i++) {
        long double v = !wide ? gb_elem_value(x->elem, x->data, i)
                        : f32 ? ((const float *)x->data)[i] : ((const double *)x->data)[i];
        m2 += (v - mean) * (v - mean);
    }
    out[0] = sum;
    out[1] = mean;
    out[2] = sqrtl(m2 / (long double)N);
    out[3] = abs_sum;
}

static double rel(double got, double want, double scale) {
    double d = fabs(got - want);
    if (isnan(d)) return INFINITY;
    if (scale <= 0) return d == 0 ? 0 : INFINITY;
    return d / scale;
}

static void verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out,
                   const gb_arrays *ref, gb_verdict *v) {
    size_t N = (size_t)c->shape[0] * (size_t)c->shape[1];
    memset(v, 0, sizeof *v);
    /* Against another backend, `against` stays empty: the runner names it. */
    if (!ref) snprintf(v->against, sizeof v->against, "reference");
    snprintf(v->metric, sizeof v->metric, "max_rel_err");
    v->tolerance = tolerance(c);
    const gb_array *x = gb_arrays_find(in, "x");
    const gb_array *s = gb_arrays_find(out, "stats");
    const gb_array *r = ref ? gb_arrays_find(ref, "stats") : NULL;
    if (!x || x->count != N || x->elem != gb_real_elem(c->dtype)) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "input x missing or mis-sized");
        return;
    }
    if (!s || s->count != 3 || s->elem != GB_E_F64) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "output 'stats' (3 float64) missing or mis-sized");
        return;
    }
    if (ref && (!r || r->count != 3 || r->elem != GB_E_F64)) {
        v->status = GB_VERIFY_NOT_CHECKED;
        v->error = NAN;
        snprintf(v->detail, sizeof v->detail, "reference output 'stats' missing or mis-sized");
        return;
    }
    /* The scales come from the exact reference either way (one cheap pass);
     * the values compared against come from ref when given. */
    long double exact[4];
    reference(x, exact);
    const double *got = s->data;
    double want[3] = {(double)exact[0], (double)exact[1], (double)exact[2]};
    if (r) memcpy(want, r->data, sizeof want);
    double abs_mean = (double)(exact[3] / (long double)N);
    double std_scale = (double)exact[2] > 0 ? (double)exact[2] : abs_mean * gb_eps(c->dtype);
    double err[3] = {rel(got[0], want[0], (double)exact[3]), rel(got[1], want[1], abs_mean),
                     rel(got[2], want[2], std_scale)};
    static const char *const names[3] = {"sum", "mean", "std"};
    int worst = 0;
    for (int i = 1; i < 3; i++)
        if (err[i] > err[worst]) worst = i;
    v->error = err[worst];
    v->status = v->error <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    snprintf(v->detail, sizeof v->detail,
             "%s two-pass long-double reference: worst is %s (got %.17g, want %.17g)",
             ref ? "against the other backend; scales from the" : "against the", names[worst], got[worst],
             want[worst]);
}

const gb_op gb_op_reduction = {
    .id = GB_OP_REDUCTION,
    .name = "reduction",
    .dtypes = GB_DTYPES_CLASSIC | 1u << GB_BFLOAT16 | 1u << GB_FLOAT16,
    .summary = "sum, mean and population std of one array in one pass (size n = n×n or [rows,cols]); judged in GB/s",
    .rate_kind = "bytes",
    .params = params,
    .parse_size = parse_size,
    .count = count,
    .host_bytes = host_bytes,
    .make_inputs = make_inputs,
    .verify = verify,
};
