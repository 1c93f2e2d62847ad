/* op_solve.c — A·X = B with A symmetric positive definite (catalogue entry).
 *
 * in:  A (n×n SPD, column-major, both triangles stored), B (n×nrhs, column-major)
 * out: X (n×nrhs, column-major)
 *
 * The matrix: off-diagonal entries a_ij = a_ji uniform in [-1, 1), diagonal
 * a_ii = n + u_i with u_i uniform in [0, 1). Every row's off-diagonal |a_ij|
 * sum is below n - 1 < a_ii, so A is strictly diagonally dominant with a
 * positive diagonal, hence SPD (Gershgorin), and it takes O(n²) to make. Its
 * eigenvalues lie in n ± O(√n) (semicircle law), so it is very well
 * conditioned: the residual check is sharp and the answer comparable across
 * backends. Cholesky does the same work whatever the conditioning, so the
 * timing is representative. (XᵀX/n + I would cost an O(n³) product.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"
#include "rng.h"

#define SOLVE_STREAM_A 0x534f4c0001ull
#define SOLVE_STREAM_D 0x534f4c0002ull
#define SOLVE_STREAM_B 0x534f4c0003ull

/* solve's and solve_mg's */
#define SOLVE_PARAM_NRHS                                                     \
    {"nrhs", GB_PARAM_INT, offsetof(gb_params, nrhs), 1, 1e6, NULL,          \
     "number of right-hand sides (columns of B), default 1"}

static const gb_param_spec solve_params[] = {
    SOLVE_PARAM_NRHS,
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static size_t nrhs_of(const gb_case *c) { return c->params.nrhs > 0 ? (size_t)c->params.nrhs : 1; }

static void solve_count(gb_case *c) {
    double n = (double)c->shape[0], r = (double)nrhs_of(c);
    double sz = gb_dtype_size(c->dtype);
    /* potrf n³/3 (LAWN 41, leading term) + potrs 2n²·nrhs */
    c->flops = n * n * n / 3 + 2 * n * n * r;
    c->bytes = (n * n + 2 * n * r) * sz;
}

static double solve_host_bytes(const gb_case *c) {
    double n = (double)c->shape[0], r = (double)nrhs_of(c);
    double sz = gb_dtype_size(c->dtype);
    /* inputs; the backend's work copies of A and B; X of two backends */
    return (2 * n * n + 4 * n * r) * sz + n * r * sz;
}

static int solve_make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    size_t n = (size_t)c->shape[0], r = nrhs_of(c);
    gb_array *A = gb_arrays_add(in, "A", gb_real_elem(c->dtype), n * n, e);
    if (!A) return GB_SKIP;
    gb_array *B = gb_arrays_add(in, "B", gb_real_elem(c->dtype), n * r, e);
    if (!B) return GB_SKIP;
    int f32 = c->dtype == GB_FLOAT32;
    /* Entry (i, j), i < j, is drawn at index i·n + j so the matrix does not
     * depend on the thread count; the mirror copies it. */
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i <= j; i++) {
            double a = i == j ? (double)n + gb_rng_uniform(c->seed, SOLVE_STREAM_D, i, 0, 1)
                              : gb_rng_uniform(c->seed, SOLVE_STREAM_A, i * n + j, -1, 1);
            if (f32) {
                ((float *)A->data)[i + j * n] = (float)a;
                ((float *)A->data)[j + i * n] = (float)a;
            } else {
                ((double *)A->data)[i + j * n] = a;
                ((double *)A->data)[j + i * n] = a;
            }
        }
    if (f32)
        gb_rng_fill_f32(B->data, n * r, c->seed, SOLVE_STREAM_B, -1, 1);
    else
        gb_rng_fill_f64(B->data, n * r, c->seed, SOLVE_STREAM_B, -1, 1);
    return GB_OK;
}

static double val(const gb_array *a, size_t i) {
    return a->elem == GB_E_F32 ? ((const float *)a->data)[i] : ((const double *)a->data)[i];
}

/* Backward-error bound for Cholesky: |ΔA| ≤ c·n·eps·|Rᵀ||R| (Higham, Thm
 * 10.4), giving a norm-wise scaled residual of order n·eps; 3n·eps with a
 * floor for tiny n (the rounding of X itself). */
static double resid_tol(const gb_case *c) {
    double n = (double)c->shape[0];
    return fmax(3 * n, 16) * gb_eps(c->dtype);
}

static void solve_verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out,
                         const gb_arrays *ref, gb_verdict *v) {
    size_t n = (size_t)c->shape[0], r = nrhs_of(c);
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    const gb_array *X = gb_arrays_find(out, "X");
    const gb_array *XR = ref ? gb_arrays_find(ref, "X") : NULL;
    memset(v, 0, sizeof *v);
    v->status = GB_VERIFY_FAILED;
    if (!XR) snprintf(v->against, sizeof v->against, "reference"); /* else the runner names the backend */
    snprintf(v->metric, sizeof v->metric, "scaled_residual");
    v->tolerance = resid_tol(c);
    if (!A || !B || !X || X->count != n * r || X->elem != gb_real_elem(c->dtype)) {
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "output X missing or not %zu×%zu", n, r);
        return;
    }
    /* ‖A‖∞ and Gershgorin bounds on A's spectrum (for the comparison with a
     * reference: forward error ≤ cond(A)·backward error). Column j of the
     * symmetric A is row j, so everything walks contiguous columns. */
    double anorm = 0, lmin = INFINITY, lmax = 0;
#pragma omp parallel for schedule(static) reduction(max : anorm, lmax) reduction(min : lmin)
    for (size_t j = 0; j < n; j++) {
        double s = 0, d = val(A, j + j * n);
        for (size_t i = 0; i < n; i++) s += fabs(val(A, i + j * n));
        anorm = fmax(anorm, s);
        lmin = fmin(lmin, d - (s - fabs(d)));
        lmax = fmax(lmax, d + (s - fabs(d)));
    }
    double worst = 0;
    size_t worst_col = 0;
    for (size_t k = 0; k < r; k++) {
        double rmax = 0, xmax = 0, bmax = 0;
        int bad = 0;
#pragma omp parallel for schedule(static) reduction(max : rmax, xmax, bmax) reduction(+ : bad)
        for (size_t j = 0; j < n; j++) {
            /* (A·x)_j = Σ_i A[i][j]·x_i by symmetry: a contiguous column. */
            double s = 0;
            for (size_t i = 0; i < n; i++) s += val(A, i + j * n) * val(X, i + k * n);
            double res = fabs(s - val(B, j + k * n));
            if (isnan(res) || isnan(val(X, j + k * n))) bad++;
            rmax = fmax(rmax, res);
            xmax = fmax(xmax, fabs(val(X, j + k * n)));
            bmax = fmax(bmax, fabs(val(B, j + k * n)));
        }
        double e = bad ? INFINITY : rmax / (anorm * xmax + bmax);
        if (e > worst || isinf(e)) {
            worst = e;
            worst_col = k;
        }
        if (isinf(e)) break;
    }
    v->error = worst;
    int ok = worst <= v->tolerance;
    int len = snprintf(v->detail, sizeof v->detail, "‖AX−B‖∞/(‖A‖∞‖X‖∞+‖B‖∞), worst column %zu", worst_col);
    if (ok && XR) {
        double cond = lmin > 0 ? lmax / lmin : INFINITY;
        size_t where = 0;
        double fe = gb_max_rel_err(X, XR, &where);
        double ftol = 4 * cond * v->tolerance;
        if (!(fe <= ftol)) ok = 0;
        snprintf(v->detail + len, sizeof v->detail - (size_t)len,
                 "; vs reference X: max rel err %.3g (bound %.3g = 4·cond·tol, Gershgorin cond ≤ %.3g)%s",
                 fe, ftol, cond, fe <= ftol ? "" : " FAILED");
        if (!ok) {
            snprintf(v->metric, sizeof v->metric, "max_rel_err");
            v->error = fe;
            v->tolerance = ftol;
        }
    }
    v->status = ok ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
}

const gb_op gb_op_solve = {
    .id = GB_OP_SOLVE,
    .name = "solve",
    .summary = "A·X = B, A n×n symmetric positive definite (Cholesky)",
    .rate_kind = "flops",
    .params = solve_params,
    .parse_size = gb_parse_square_size,
    .count = solve_count,
    .host_bytes = solve_host_bytes,
    .make_inputs = solve_make_inputs,
    .verify = solve_verify,
};

/* The same solve by cuSOLVERMg (potrf + potrs) over `gpus` devices, A in
 * 1-D block-cyclic column tiles. Read, counted, made and checked as solve. */
static const gb_param_spec mg_params[] = {
    GB_PARAM_GPUS,
    SOLVE_PARAM_NRHS,
    {"block", GB_PARAM_INT, offsetof(gb_params, block), 0, 65536, NULL,
     "columns per tile of the block-cyclic layout; 0 = 256"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

const gb_op gb_op_solve_mg = {
    .id = GB_OP_SOLVE_MG,
    .name = "solve_mg",
    .summary = "solve by cuSOLVERMg Cholesky (potrf + potrs) over `gpus` devices",
    .rate_kind = "flops",
    .params = mg_params,
    .parse_size = gb_parse_square_size,
    .count = solve_count,
    .host_bytes = solve_host_bytes,
    .make_inputs = solve_make_inputs,
    .verify = solve_verify,
    .multi_device = 1,
};
