/* op_batched_matmul.c — `batch` independent products C_i = A_i·B_i, each
 * m×k times k×n, row-major, stored one after another (A is batch×m×k).
 *
 * Many small problems: where does the GPU stop paying? Sizes sweep the
 * matrix dimension at a fixed batch; the crossover table is the answer.
 *
 * Verification is matmul's, per product (op_matmul.c explains both
 * tolerances): against another backend max|C−Cref|/max|Cref| over the whole
 * batch, held to matmul's bound for inner length k; on its own the Freivalds
 * check on every product, the worst one reported. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "op.h"
#include "rng.h"

enum { STREAM_A = 1, STREAM_B = 2 };

static const gb_param_spec params[] = {
    {"batch", GB_PARAM_INT, offsetof(gb_params, batch), 1, 1e7, NULL,
     "independent products in the batch (default 1000)"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static int parse_size(const cJSON *size, gb_case *c, gb_err *e) {
    return gb_parse_shape(size, 3, c, e); /* n → n×n×n; [m, k, n] */
}

static void count(gb_case *c) {
    double m = (double)c->shape[0], k = (double)c->shape[1], n = (double)c->shape[2], b = c->params.batch;
    c->flops = 2.0 * m * n * k * b;
    c->bytes = gb_dtype_bytes(c->dtype) * b * (m * k + k * n + m * n);
}

static double host_bytes(const gb_case *c) {
    double m = (double)c->shape[0], k = (double)c->shape[1], n = (double)c->shape[2], b = c->params.batch;
    /* A, B; C inside a backend plus one fetched copy per backend (cpu, cuda). */
    return gb_dtype_bytes(c->dtype) * b * (m * k + k * n + 3.0 * m * n);
}

static int make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2], b = (size_t)c->params.batch;
    gb_array *A = gb_arrays_add(in, "A", gb_real_elem(c->dtype), b * m * k, e);
    if (!A) return GB_SKIP;
    gb_array *B = gb_arrays_add(in, "B", gb_real_elem(c->dtype), b * k * n, e);
    if (!B) return GB_SKIP;
    /* Uniform [-1, 1), as matmul: no dominant constant part to hide errors. */
    if (c->dtype == GB_FLOAT32) {
        gb_rng_fill_f32(A->data, b * m * k, c->seed, STREAM_A, -1.0, 1.0);
        gb_rng_fill_f32(B->data, b * k * n, c->seed, STREAM_B, -1.0, 1.0);
    } else {
        gb_rng_fill_f64(A->data, b * m * k, c->seed, STREAM_A, -1.0, 1.0);
        gb_rng_fill_f64(B->data, b * k * n, c->seed, STREAM_B, -1.0, 1.0);
    }
    return GB_OK;
}

/* Freivalds on every product; the worst. */
static void verify_own(const gb_case *c, const gb_arrays *in, const gb_array *C, gb_verdict *v) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2], b = (size_t)c->params.batch;
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    snprintf(v->against, sizeof v->against, "reference");
    snprintf(v->metric, sizeof v->metric, "scaled_residual");
    v->tolerance = GB_FREIVALDS_TOL;
    if (!A || !B || A->count != b * m * k || B->count != b * k * n) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "inputs A (batch×m×k) and B (batch×k×n) missing or mis-sized");
        return;
    }
    size_t esz = gb_elem_size(C->elem), worst_item = 0, worst_row = 0;
    int worst_vec = 0;
    double worst = 0;
    for (size_t i = 0; i < b; i++) {
        size_t row = 0;
        int vec = 0;
        double r = gb_gemm_scaled_residual(c->dtype, gb_eps(c->dtype), (const char *)A->data + i * m * k * esz,
                                           (const char *)B->data + i * k * n * esz,
                                           (const char *)C->data + i * m * n * esz, m, k, n, c->seed, &row, &vec);
        if (isnan(r)) {
            v->status = GB_VERIFY_NOT_CHECKED;
            v->error = NAN;
            snprintf(v->detail, sizeof v->detail, "out of host memory for the Freivalds vectors");
            return;
        }
        if (r > worst || (isinf(r) && !isinf(worst))) {
            worst = r;
            worst_item = i;
            worst_row = row;
            worst_vec = vec;
        }
    }
    v->error = worst;
    v->status = worst <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    snprintf(v->detail, sizeof v->detail,
             "Freivalds on each of %zu products: |C·x − A·(B·x)| / (|A|·|B|·|x|) · sqrt(n)/u; worst at "
             "product %zu, row %zu (vector %d)%s",
             b, worst_item, worst_row, worst_vec, isinf(worst) ? ": NaN/Inf in C" : "");
}

static void verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out, const gb_arrays *ref,
                   gb_verdict *v) {
    size_t m = (size_t)c->shape[0], n = (size_t)c->shape[2], b = (size_t)c->params.batch;
    memset(v, 0, sizeof *v);
    const gb_array *C = gb_arrays_find(out, "C");
    snprintf(v->metric, sizeof v->metric, "max_rel_err");
    if (!C || C->count != b * m * n || C->elem != gb_real_elem(c->dtype)) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        if (!ref) snprintf(v->against, sizeof v->against, "reference");
        snprintf(v->detail, sizeof v->detail, "output C (%zu×%zu×%zu %s) missing or mis-sized", b, m, n,
                 gb_dtype_name(c->dtype));
        return;
    }
    if (!ref) {
        verify_own(c, in, C, v);
        return;
    }
    const gb_array *R = gb_arrays_find(ref, "C");
    v->tolerance = gb_gemm_ref_tolerance(c->dtype, (double)c->shape[1], 0);
    if (!R) {
        v->status = GB_VERIFY_NOT_CHECKED;
        v->error = NAN;
        snprintf(v->detail, sizeof v->detail, "reference output has no C");
        return;
    }
    size_t where = 0;
    v->error = gb_max_rel_err(C, R, &where);
    v->status = v->error <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    snprintf(v->detail, sizeof v->detail, "max|C−Cref|/max|Cref| over the batch, worst at product %zu, C[%zu][%zu]",
             where / (m * n), where % (m * n) / n, where % n);
}

const gb_op gb_op_batched_matmul = {
    .id = GB_OP_BATCHED_MATMUL,
    .name = "batched_matmul",
    .summary = "batch independent products C_i = A_i·B_i, m×k times k×n (size n or [m,k,n], param batch); "
               "2mnk·batch flops",
    .rate_kind = "flops",
    .params = params,
    .parse_size = parse_size,
    .count = count,
    .host_bytes = host_bytes,
    .make_inputs = make_inputs,
    .verify = verify,
};
