/* test_ops_basic.c — matmul, elementwise and reduction: work counts, input
 * generation, the CPU implementations against naive references, and that
 * verify() rejects wrong answers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "backend.h"
#include "op.h"
#include "rng.h"
#include "testlib_ops.h"
#include "testlib.h"

extern const gb_op gb_op_matmul, gb_op_elementwise, gb_op_reduction;

/* A case as the suite parser would build it. */
static gb_case make_case(const gb_op *op, const char *size_json, gb_dtype dt) {
    gb_case c;
    memset(&c, 0, sizeof c);
    c.op_id = op->id;
    c.op = op;
    c.dtype = dt;
    gb_params_default(&c.params);
    c.seed = 42;
    cJSON *j = cJSON_Parse(size_json);
    gb_err e;
    int s = op->parse_size(j, &c, &e);
    CHECK(s == GB_OK);
    cJSON_Delete(j);
    op->count(&c);
    return c;
}

/* Inputs → CPU backend (prepare, one timed run, fetch, release) → out. */
static int cpu_compute(const gb_case *c, const gb_arrays *in, gb_arrays *out) {
    gb_err e = {{0}};
    int s = gb_test_run_cpu(c, in, out, 1, &e);
    if (s != GB_OK) fprintf(stderr, "    %s\n", e.msg);
    return s;
}

static int all_zero(const gb_array *a) {
    const unsigned char *p = a->data;
    for (size_t i = 0; i < a->count * gb_elem_size(a->elem); i++)
        if (p[i]) return 0;
    return 1;
}

static double value(const gb_array *a, size_t i) {
    return a->elem == GB_E_F32 ? ((const float *)a->data)[i] : ((const double *)a->data)[i];
}
static void set_value(gb_array *a, size_t i, double v) {
    if (a->elem == GB_E_F32) ((float *)a->data)[i] = (float)v;
    else ((double *)a->data)[i] = v;
}

static gb_array *copy_into(gb_arrays *dst, const gb_array *src) {
    gb_err e;
    gb_array *a = gb_arrays_add(dst, src->name, src->elem, src->count, &e);
    if (a) memcpy(a->data, src->data, src->count * gb_elem_size(src->elem));
    return a;
}

static gb_verify_status verdict(const gb_case *c, const gb_arrays *in, const gb_arrays *out,
                                const gb_arrays *ref) {
    gb_verdict v;
    c->op->verify(c, in, out, ref, &v);
    return v.status;
}

/* ---- counts ------------------------------------------------------------ */

TEST(ops_basic_counts) {
    gb_case c = make_case(&gb_op_matmul, "[2,3,4]", GB_FLOAT32);
    CHECK(c.rank == 3 && c.shape[0] == 2 && c.shape[1] == 3 && c.shape[2] == 4);
    CHECK(strcmp(c.label, "2x3x4") == 0);
    CHECK_NEAR(c.flops, 2.0 * 2 * 3 * 4, 0);
    CHECK_NEAR(c.bytes, 4.0 * (2 * 3 + 3 * 4 + 2 * 4), 0);
    c = make_case(&gb_op_matmul, "5", GB_FLOAT64);
    CHECK(c.shape[0] == 5 && c.shape[1] == 5 && c.shape[2] == 5 && strcmp(c.label, "5x5x5") == 0);
    CHECK_NEAR(c.flops, 250, 0);
    CHECK_NEAR(c.bytes, 8.0 * 75, 0);
    CHECK(strcmp(gb_op_matmul.rate_kind, "flops") == 0);

    c = make_case(&gb_op_elementwise, "[3,7]", GB_FLOAT64);
    CHECK(c.rank == 2 && strcmp(c.label, "3x7") == 0);
    CHECK_NEAR(c.bytes, 3.0 * 21 * 8, 0);
    CHECK_NEAR(c.flops, 3.0 * 21, 0);
    CHECK(strcmp(gb_op_elementwise.rate_kind, "bytes") == 0);

    c = make_case(&gb_op_reduction, "10", GB_FLOAT32);
    CHECK(c.shape[0] == 10 && c.shape[1] == 10);
    CHECK_NEAR(c.bytes, 100.0 * 4, 0);
    CHECK_NEAR(c.flops, 300, 0);
    CHECK(strcmp(gb_op_reduction.rate_kind, "bytes") == 0);
    CHECK(gb_op_matmul.host_bytes(&c) > 0);

    /* Params tables: matmul math enum, elementwise fast_math bool, reduction none. */
    CHECK(strcmp(gb_op_matmul.params[0].key, "math") == 0 && gb_op_matmul.params[0].type == GB_PARAM_ENUM);
    CHECK(strcmp(gb_op_matmul.params[0].values[1], "tf32") == 0 && gb_op_matmul.params[0].values[2] == NULL);
    CHECK(strcmp(gb_op_elementwise.params[0].key, "fast_math") == 0);
    CHECK(gb_op_elementwise.params[0].type == GB_PARAM_BOOL && gb_op_elementwise.params[1].key == NULL);
    CHECK(gb_op_reduction.params[0].key == NULL);

    /* Wrong-rank sizes are refused with a reason. */
    gb_case bad;
    memset(&bad, 0, sizeof bad);
    gb_err e;
    cJSON *j = cJSON_Parse("[4,4]");
    CHECK(gb_op_matmul.parse_size(j, &bad, &e) == GB_FAIL);
    cJSON_Delete(j);
}

/* ---- inputs ------------------------------------------------------------ */

static void check_inputs(const gb_op *op, const char *size, gb_dtype dt, double lo, double hi) {
    gb_case c = make_case(op, size, dt);
    gb_arrays in1 = {0}, in2 = {0}, in3 = {0};
    gb_err e;
    CHECK(op->make_inputs(&c, &in1, &e) == GB_OK);
    CHECK(op->make_inputs(&c, &in2, &e) == GB_OK);
    c.seed = 43;
    CHECK(op->make_inputs(&c, &in3, &e) == GB_OK);
    CHECK(in1.count >= 1 && in1.count == in2.count && in1.count == in3.count);
    for (int i = 0; i < in1.count; i++) {
        const gb_array *a = &in1.item[i];
        size_t bytes = a->count * gb_elem_size(a->elem);
        CHECK(a->elem == gb_real_elem(dt));
        CHECK(memcmp(a->data, in2.item[i].data, bytes) == 0); /* same seed → same bits */
        CHECK(memcmp(a->data, in3.item[i].data, bytes) != 0); /* other seed → other data */
        CHECK(!all_zero(a));
        double mn = INFINITY, mx = -INFINITY;
        for (size_t k = 0; k < a->count; k++) {
            double v = value(a, k);
            if (v < mn) mn = v;
            if (v > mx) mx = v;
        }
        CHECK(mn >= lo && mx <= hi);
        CHECK(mx - mn > 0.5 * (hi - lo)); /* spread over the range, not a constant */
        /* Distinct stream per array: no two inputs of a case are equal. */
        for (int j = i + 1; j < in1.count; j++)
            if (in1.item[j].count == a->count)
                CHECK(memcmp(a->data, in1.item[j].data, bytes) != 0);
    }
    gb_arrays_free(&in1);
    gb_arrays_free(&in2);
    gb_arrays_free(&in3);
}

TEST(ops_basic_inputs_deterministic_and_nontrivial) {
    check_inputs(&gb_op_matmul, "[16,16,16]", GB_FLOAT32, -1, 1);
    check_inputs(&gb_op_matmul, "[8,12,16]", GB_FLOAT64, -1, 1);
    check_inputs(&gb_op_elementwise, "[30,40]", GB_FLOAT32, -4, 4);
    check_inputs(&gb_op_reduction, "64", GB_FLOAT64, 1, 3);
}

/* ---- matmul ------------------------------------------------------------ */

static void naive_gemm(const gb_array *A, const gb_array *B, double *C, size_t m, size_t k, size_t n) {
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t l = 0; l < k; l++) s += value(A, i * k + l) * value(B, l * n + j);
            C[i * n + j] = s;
        }
}

static void check_matmul(gb_dtype dt, const char *size, double tol) {
    gb_case c = make_case(&gb_op_matmul, size, dt);
    size_t m = (size_t)c.shape[0], k = (size_t)c.shape[1], n = (size_t)c.shape[2];
    gb_arrays in = {0}, out = {0};
    gb_err e;
    CHECK(gb_op_matmul.make_inputs(&c, &in, &e) == GB_OK);
    CHECK(cpu_compute(&c, &in, &out) == GB_OK);
    const gb_array *C = gb_arrays_find(&out, "C");
    CHECK(C && C->count == m * n);
    if (!C) return;
    double *ref = malloc(m * n * sizeof *ref), scale = 0, worst = 0;
    naive_gemm(gb_arrays_find(&in, "A"), gb_arrays_find(&in, "B"), ref, m, k, n);
    for (size_t i = 0; i < m * n; i++) scale = fmax(scale, fabs(ref[i]));
    for (size_t i = 0; i < m * n; i++) worst = fmax(worst, fabs(value(C, i) - ref[i]) / scale);
    CHECK(worst <= tol);
    gb_verdict v;
    gb_op_matmul.verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_PASSED && strcmp(v.against, "reference") == 0);
    CHECK(v.error < 16); /* typical ≈ 3: far under the tolerance of 64 */
    free(ref);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
}

TEST(ops_basic_matmul_cpu_matches_naive) {
    check_matmul(GB_FLOAT32, "[37,53,29]", 1e-6);
    check_matmul(GB_FLOAT64, "[37,53,29]", 1e-14);
    check_matmul(GB_FLOAT32, "[1,300,1]", 1e-5);
    check_matmul(GB_FLOAT32, "128", 1e-5);
}

/* Round a float to TF32 (10 explicit mantissa bits, round to nearest even):
 * what a tensor core sees of an FP32 input. */
static float to_tf32(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0xfffu + ((u >> 13) & 1u);
    u &= ~0x1fffu;
    memcpy(&f, &u, 4);
    return f;
}

TEST(ops_basic_matmul_verify_rejects_wrong_answers) {
    gb_case c = make_case(&gb_op_matmul, "[96,160,80]", GB_FLOAT32);
    size_t m = 96, k = 160, n = 80;
    gb_arrays in = {0}, out = {0}, bad = {0};
    gb_err e;
    CHECK(gb_op_matmul.make_inputs(&c, &in, &e) == GB_OK);
    CHECK(cpu_compute(&c, &in, &out) == GB_OK);
    const gb_array *C = gb_arrays_find(&out, "C");
    if (!C) return;
    double cmax = 0;
    for (size_t i = 0; i < m * n; i++) cmax = fmax(cmax, fabs(value(C, i)));
    CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_PASSED);
    CHECK(verdict(&c, &in, &out, &out) == GB_VERIFY_PASSED);

    /* One element off by 0.1% of max|C|: both checks see it. */
    gb_array *W = copy_into(&bad, C);
    set_value(W, 17 * n + 5, value(W, 17 * n + 5) + 1e-3 * cmax);
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
    CHECK(verdict(&c, &in, &bad, &out) == GB_VERIFY_FAILED);
    /* One NaN (an element the backend never wrote). */
    memcpy(W->data, C->data, m * n * 4);
    set_value(W, m * n - 1, NAN);
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
    CHECK(verdict(&c, &in, &bad, &out) == GB_VERIFY_FAILED);
    /* A·Bᵀ-like garbage: the rows of C permuted. */
    for (size_t i = 0; i < m; i++)
        memcpy((float *)W->data + i * n, (const float *)C->data + ((i + 1) % m) * n, n * 4);
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
    /* Mis-sized output. */
    W->count--;
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
    W->count++;

    /* A TF32 result (inputs rounded to 10 mantissa bits, FP32 accumulation)
     * fails the FP32 tolerance but passes with math = tf32. */
    const gb_array *A = gb_arrays_find(&in, "A"), *B = gb_arrays_find(&in, "B");
    float *At = malloc(m * k * 4), *Bt = malloc(k * n * 4);
    for (size_t i = 0; i < m * k; i++) At[i] = to_tf32(((const float *)A->data)[i]);
    for (size_t i = 0; i < k * n; i++) Bt[i] = to_tf32(((const float *)B->data)[i]);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float s = 0;
            for (size_t l = 0; l < k; l++) s += At[i * k + l] * Bt[l * n + j];
            ((float *)W->data)[i * n + j] = s;
        }
    CHECK(verdict(&c, &in, &bad, &out) == GB_VERIFY_FAILED);
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
    c.params.math = GB_MATH_TF32;
    CHECK(verdict(&c, &in, &bad, &out) == GB_VERIFY_PASSED);
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_PASSED);
    free(At);
    free(Bt);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&bad);
}

/* ---- elementwise ------------------------------------------------------- */

TEST(ops_basic_elementwise_cpu_matches_scalar_double) {
    for (int d = 0; d < 2; d++) {
        gb_dtype dt = d ? GB_FLOAT64 : GB_FLOAT32;
        gb_case c = make_case(&gb_op_elementwise, "[100,333]", dt);
        gb_arrays in = {0}, out = {0};
        gb_err e;
        CHECK(gb_op_elementwise.make_inputs(&c, &in, &e) == GB_OK);
        CHECK(cpu_compute(&c, &in, &out) == GB_OK);
        const gb_array *a = gb_arrays_find(&in, "a"), *b = gb_arrays_find(&in, "b");
        const gb_array *o = gb_arrays_find(&out, "out");
        CHECK(o && o->count == 33300);
        if (!o) continue;
        /* Error in units of the dtype's roundoff, relative to the terms:
         * a few units for libmvec's ≤ 4-ulp sin/cos. */
        double worst = 0;
        for (size_t i = 0; i < o->count; i++) {
            double x = value(a, i), y = value(b, i);
            double want = x * y + sin(x) + cos(y);
            double s = fabs(x * y) + fabs(sin(x)) + fabs(cos(y));
            worst = fmax(worst, fabs(value(o, i) - want) / (gb_eps(dt) * fmax(s, 1)));
        }
        CHECK(worst <= 8);
        CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_PASSED);
        CHECK(verdict(&c, &in, &out, &out) == GB_VERIFY_PASSED);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
}

TEST(ops_basic_elementwise_verify_rejects_wrong_answers) {
    gb_case c = make_case(&gb_op_elementwise, "[64,100]", GB_FLOAT32);
    gb_arrays in = {0}, out = {0}, bad = {0};
    gb_err e;
    CHECK(gb_op_elementwise.make_inputs(&c, &in, &e) == GB_OK);
    CHECK(cpu_compute(&c, &in, &out) == GB_OK);
    const gb_array *o = gb_arrays_find(&out, "out");
    const gb_array *a = gb_arrays_find(&in, "a"), *b = gb_arrays_find(&in, "b");
    if (!o) return;
    size_t N = o->count;
    gb_array *W = copy_into(&bad, o);
    /* One element off by 1e-4. */
    set_value(W, 1234, value(W, 1234) + 1e-4 * fmax(1, fabs(value(W, 1234))));
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
    CHECK(verdict(&c, &in, &bad, &out) == GB_VERIFY_FAILED);
    /* A NaN. */
    memcpy(W->data, o->data, N * 4);
    set_value(W, 0, NAN);
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
    CHECK(verdict(&c, &in, &bad, &out) == GB_VERIFY_FAILED);
    /* sin and cos swapped. */
    for (size_t i = 0; i < N; i++)
        set_value(W, i, value(a, i) * value(b, i) + cos(value(a, i)) + sin(value(b, i)));
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
    /* Fast-math-like absolute error of 2^-18 everywhere: rejected at full
     * accuracy, accepted with fast_math. */
    for (size_t i = 0; i < N; i++) {
        double x = value(a, i), y = value(b, i);
        ((float *)W->data)[i] = (float)(x * y + sin(x) + cos(y) + ((i & 1) ? 0x1.0p-18 : -0x1.0p-18));
    }
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
    c.params.fast_math = 1;
    CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_PASSED);
    CHECK(verdict(&c, &in, &bad, &out) == GB_VERIFY_PASSED);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&bad);
}

/* ---- reduction --------------------------------------------------------- */

/* Two-pass reference in long double. */
static void two_pass(const gb_array *x, long double r[3]) {
    long double s = 0, m2 = 0;
    for (size_t i = 0; i < x->count; i++) s += value(x, i);
    long double mean = s / x->count;
    for (size_t i = 0; i < x->count; i++) m2 += (value(x, i) - mean) * (value(x, i) - mean);
    r[0] = s;
    r[1] = mean;
    r[2] = sqrtl(m2 / x->count);
}

TEST(ops_basic_reduction_sound_on_offset_data) {
    /* 10^6 values 10^6 + U[-1,1): the textbook one-pass E[x²]−mean² loses
     * ~12 of double's 16 digits here; ours must keep the std to 1e-10. */
    gb_case c = make_case(&gb_op_reduction, "1000", GB_FLOAT64);
    gb_arrays in = {0}, out = {0};
    gb_err e;
    gb_array *x = gb_arrays_add(&in, "x", GB_E_F64, 1000000, &e);
    CHECK(x != NULL);
    if (!x) return;
    gb_rng_fill_f64(x->data, x->count, 7, 1, 1e6 - 1, 1e6 + 1);
    CHECK(cpu_compute(&c, &in, &out) == GB_OK);
    const gb_array *st = gb_arrays_find(&out, "stats");
    CHECK(st && st->count == 3 && st->elem == GB_E_F64);
    if (!st) return;
    const double *got = st->data;
    long double r[3];
    two_pass(x, r);
    CHECK(fabs(got[0] - (double)r[0]) / (double)r[0] < 1e-14);
    CHECK(fabs(got[1] - (double)r[1]) / (double)r[1] < 1e-14);
    CHECK(fabs(got[2] - (double)r[2]) / (double)r[2] < 1e-10);
    CHECK(fabs((double)r[2] - 1 / sqrt(3.0)) < 1e-2); /* the data is what we think */
    /* The naive formula on the same data fails the same bound: the check
     * above can tell sound from unsound. */
    double s = 0, s2 = 0;
    for (size_t i = 0; i < x->count; i++) {
        double v = ((double *)x->data)[i];
        s += v;
        s2 += v * v;
    }
    double n = (double)x->count, var = s2 / n - (s / n) * (s / n);
    double naive = sqrt(fabs(var));
    CHECK(!(fabs(naive - (double)r[2]) / (double)r[2] < 1e-10));
    CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_PASSED);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
}

TEST(ops_basic_reduction_cpu_matches_two_pass) {
    for (int d = 0; d < 2; d++) {
        gb_dtype dt = d ? GB_FLOAT64 : GB_FLOAT32;
        /* 1001×999: not a multiple of the block size or the vector width. */
        gb_case c = make_case(&gb_op_reduction, "[1001,999]", dt);
        gb_arrays in = {0}, out = {0};
        gb_err e;
        CHECK(gb_op_reduction.make_inputs(&c, &in, &e) == GB_OK);
        CHECK(cpu_compute(&c, &in, &out) == GB_OK);
        const gb_array *st = gb_arrays_find(&out, "stats");
        if (!st) { CHECK(st != NULL); continue; }
        const double *got = st->data;
        long double r[3];
        two_pass(gb_arrays_find(&in, "x"), r);
        for (int i = 0; i < 3; i++) CHECK(fabs(got[i] - (double)r[i]) / (double)r[i] < 1e-13);
        CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_PASSED);
        CHECK(verdict(&c, &in, &out, &out) == GB_VERIFY_PASSED);

        /* Wrong answers: sum off by 1e-4, a NaN std, the sample std
         * (N−1) instead of the population std on a 100×100 case. */
        gb_arrays bad = {0};
        gb_array *W = copy_into(&bad, st);
        double *w = W->data;
        w[0] *= 1 + 1e-4;
        CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
        CHECK(verdict(&c, &in, &bad, &out) == GB_VERIFY_FAILED);
        memcpy(w, got, 24);
        w[2] = NAN;
        CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
        CHECK(verdict(&c, &in, &bad, &out) == GB_VERIFY_FAILED);
        gb_arrays_free(&bad);
        gb_arrays_free(&in);
        gb_arrays_free(&out);

        c = make_case(&gb_op_reduction, "100", dt);
        CHECK(gb_op_reduction.make_inputs(&c, &in, &e) == GB_OK);
        CHECK(cpu_compute(&c, &in, &out) == GB_OK);
        st = gb_arrays_find(&out, "stats");
        if (!st) continue;
        W = copy_into(&bad, st);
        w = W->data;
        w[2] *= sqrt(10000.0 / 9999.0);
        CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_PASSED);
        CHECK(verdict(&c, &in, &bad, NULL) == GB_VERIFY_FAILED);
        gb_arrays_free(&bad);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
}
