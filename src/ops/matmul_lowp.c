/* matmul_lowp.c — reduced-precision matmul: inputs and checks (matmul_lowp.h).
 *
 * The check. The inputs are exact in float64 (at most 11 significand bits
 * each, so every product is exact and a sum of k of them is off by about
 * sqrt(k)·2^-53 — nothing against the formats' rounding), so the reference
 * is the exact product of the very bits both backends were handed. A
 * correct kernel differs from it by
 *   - the rounding of its output to the output format: at most u_out·|C_ij|
 *     (bfloat16 2^-8, float16 2^-11, float32 2^-24; int32: none);
 *   - its accumulation: about sqrt(k)·u_acc·(typical partial sum) by the
 *     statistical model op_matmul.c uses (Higham & Mary 2019), bounded by
 *     the same (8·sqrt(k) + 16)·u_acc·max|C| op_matmul.c holds float32 to.
 *     u_acc is float32's 2^-24, except float8's 2^-14 (dtype.c says why).
 * The tolerance is 4·u_out + (8·sqrt(k)+16)·u_acc relative to max|C|: twice
 * the worst output rounding (a split-K or a conversion through float32 may
 * round twice) plus the accumulation term. A transposed or shifted operand
 * is off by O(1) relative (about 1.4 on these inputs), 90× the largest
 * tolerance here (bfloat16: 0.0157 at k = 4096; float8: 0.045 at k = 8192).
 * int8: exact, tolerance 0 — any wrong element fails.
 *
 * Not Freivalds: its error scale, (|A|·|B|·|x|)_i, is sqrt(k) times larger
 * than |C|, so at u = 2^-8 and k = 4096 it could no longer tell a transposed
 * operand from rounding. The reference rows cost k·n each; every row is
 * checked up to ROW_BUDGET multiply-adds, beyond that evenly spread rows
 * (at least MIN_ROWS), every column of each; a scan of all of C catches a
 * NaN (the poison of an element never written) anywhere. */
#include "matmul_lowp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "precision.h"

enum { STREAM_A = 1, STREAM_B = 2 }; /* op_matmul.c's streams */
#define ROW_BUDGET (1ull << 31)
#define MIN_ROWS 16

int gb_matmul_is_lowp(gb_dtype d) {
    return d == GB_BFLOAT16 || d == GB_FLOAT16 || d == GB_FLOAT8_E4M3 || d == GB_INT8;
}

int gb_matmul_lowp_inputs(const gb_case *c, size_t b, gb_arrays *in, gb_err *e) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2];
    gb_elem el = gb_real_elem(c->dtype);
    gb_array *A = gb_arrays_add(in, "A", el, b * m * k, e);
    if (!A) return GB_SKIP;
    gb_array *B = gb_arrays_add(in, "B", el, b * k * n, e);
    if (!B) return GB_SKIP;
    int range = gb_int8_range((int64_t)k);
    gb_fill_rounded(el, A->data, A->count, c->seed, STREAM_A, -1.0, 1.0, range);
    gb_fill_rounded(el, B->data, B->count, c->seed, STREAM_B, -1.0, 1.0, range);
    return GB_OK;
}

double gb_matmul_lowp_tolerance(const gb_case *c, int against_backend) {
    const gb_dtype_info *t = gb_dtype_get(c->dtype);
    if (!t || !t->is_float) return 0;
    double tol = 4.0 * gb_gemm_out_roundoff(c->dtype) +
                 (8.0 * sqrt((double)c->shape[1]) + 16.0) * t->accumulate_roundoff;
    return against_backend ? 2.0 * tol : tol;
}

/* Every value of the 8- and 16-bit float formats, decoded once (float16:
 * 256 KiB): the reference rows read k·n elements each, and a call per
 * element (gb_elem_value) made a 1024³ check 4 s on two cores. */
static float f16_values[65536], e4m3_values[256];

static void build_tables(gb_elem el) {
    if (el == GB_E_F16 && f16_values[0x3C00] != 1.0f)
        for (unsigned h = 0; h < 65536; h++) f16_values[h] = gb_f16_to_f32((uint16_t)h);
    if (el == GB_E_F8E4M3 && e4m3_values[0x38] != 1.0f)
        for (unsigned b = 0; b < 256; b++) e4m3_values[b] = gb_e4m3_to_f32((uint8_t)b);
}

/* ref[j] += a · B[l][j] over a row of B, in the row's own type. */
static void axpy_row(gb_elem el, double a, const void *B, size_t row, size_t n, double *ref) {
    switch (el) {
    case GB_E_BF16: {
        const uint16_t *b = (const uint16_t *)B + row;
        for (size_t j = 0; j < n; j++) ref[j] += a * gb_bf16_to_f32(b[j]);
        break;
    }
    case GB_E_F16: {
        const uint16_t *b = (const uint16_t *)B + row;
        for (size_t j = 0; j < n; j++) ref[j] += a * f16_values[b[j]];
        break;
    }
    case GB_E_F8E4M3: {
        const uint8_t *b = (const uint8_t *)B + row;
        for (size_t j = 0; j < n; j++) ref[j] += a * e4m3_values[b[j]];
        break;
    }
    default: {
        const int8_t *b = (const int8_t *)B + row;
        for (size_t j = 0; j < n; j++) ref[j] += a * b[j];
        break;
    }
    }
}

/* Row i of product p in float64 from the rounded inputs, into ref[0..n). */
static void reference_row(gb_elem el, const void *A, const void *B, size_t p, size_t i, size_t m, size_t k,
                          size_t n, double *ref) {
    for (size_t j = 0; j < n; j++) ref[j] = 0;
    for (size_t l = 0; l < k; l++) {
        double a = gb_elem_value(el, A, (p * m + i) * k + l);
        if (a != 0) axpy_row(el, a, B, (p * k + l) * n, n, ref);
    }
}

void gb_matmul_lowp_verify(const gb_case *c, size_t b, const gb_arrays *in, const gb_array *C, gb_verdict *v) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2];
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    gb_elem el = gb_real_elem(c->dtype);
    snprintf(v->against, sizeof v->against, "reference");
    snprintf(v->metric, sizeof v->metric, "max_rel_err");
    v->tolerance = gb_matmul_lowp_tolerance(c, 0);
    if (!A || !B || A->elem != el || B->elem != el || A->count != b * m * k || B->count != b * k * n) {
        gb_verdict_unmeasured(v, GB_VERIFY_FAILED, "inputs A (m×k) and B (k×n) missing or mis-sized");
        return;
    }
    /* a NaN or Inf anywhere in C */
    size_t total = b * m * n, bad = total;
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (size_t i = 0; i < total; i++)
        if (!isfinite(gb_elem_value(C->elem, C->data, i)) && i < bad) bad = i;
    if (bad < total) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "NaN/Inf in C at product %zu, C[%zu][%zu]", bad / (m * n),
                 bad % (m * n) / n, bad % n);
        return;
    }
    build_tables(el); /* before the threads read them */
    /* rows to check: all, or an even spread over the batch's rows */
    size_t rows = b * m, want = rows;
    double per_row = (double)k * (double)n;
    if ((double)rows * per_row > (double)ROW_BUDGET) {
        want = (size_t)((double)ROW_BUDGET / per_row);
        if (want < MIN_ROWS) want = MIN_ROWS;
        if (want > rows) want = rows;
    }
    double scale = 0, worst = 0;
    size_t where = 0;
    int oom = 0;
#pragma omp parallel
    {
        double *ref = gb_alloc(n * sizeof *ref), my_scale = 0, my_worst = 0;
        size_t my_where = 0;
        if (!ref) {
#pragma omp atomic write
            oom = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (size_t s = 0; s < want; s++) {
            if (!ref) continue;
            size_t r = want == rows ? s : (size_t)((double)s * (double)rows / (double)want), p = r / m, i = r % m;
            reference_row(el, A->data, B->data, p, i, m, k, n, ref);
            for (size_t j = 0; j < n; j++) {
                double d = fabs(gb_elem_value(C->elem, C->data, r * n + j) - ref[j]);
                if (fabs(ref[j]) > my_scale) my_scale = fabs(ref[j]);
                if (d > my_worst) { my_worst = d; my_where = r * n + j; }
            }
        }
#pragma omp critical(gb_lowp_worst)
        {
            if (my_scale > scale) scale = my_scale;
            if (my_worst > worst || (my_worst == worst && my_worst > 0 && my_where < where)) {
                worst = my_worst;
                where = my_where;
            }
        }
        gb_free(ref);
    }
    if (oom) {
        gb_verdict_unmeasured(v, GB_VERIFY_NOT_CHECKED, "out of host memory for the reference rows");
        return;
    }
    v->error = worst / (scale > 0 ? scale : 1);
    v->status = v->error <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    const gb_dtype_info *t = gb_dtype_get(c->dtype);
    char bound[96];
    if (t->is_float)
        snprintf(bound, sizeof bound, "4·u_out + (8·sqrt(k)+16)·u_acc, u_out = %g (%s), u_acc = %g", gb_gemm_out_roundoff(c->dtype),
                 t->gemm_out_name, t->accumulate_roundoff);
    else
        snprintf(bound, sizeof bound, "exact (%s inputs in ±%d, int32 output)", t->name, gb_int8_range((int64_t)k));
    char product[48] = "";
    if (b > 1) snprintf(product, sizeof product, " of product %zu", where / (m * n));
    /* written whole, then cut to the detail's size if need be (the bound's
     * numbers are in v->tolerance too) */
    char full[512];
    snprintf(full, sizeof full,
             "max|C−Cref|/max|Cref| against float64 from the same rounded inputs over %zu of %zu rows; "
             "bound %s; worst at C[%zu][%zu]%s",
             want, rows, bound, where % (m * n) / n, where % n, product);
    snprintf(v->detail, sizeof v->detail, "%.*s", (int)sizeof v->detail - 1, full);
}
