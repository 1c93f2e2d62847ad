/* op_svd.c — thin SVD A = U·diag(S)·VT of an m×n matrix (catalogue entry).
 *
 * in:  A (m×n, column-major), uniform in [-1, 1)
 * out: S (k), U (m×k), VT (k×n), k = min(m, n), column-major, S descending
 *
 * Sizes: n (an n×n matrix) or [m, n].
 *
 * The check needs no second SVD: if U and V have orthonormal columns, S is
 * non-negative and descending and A ≈ U·diag(S)·VT, then S are A's singular
 * values up to that backward error (Weyl). So the op checks reconstruction
 * and orthogonality in double, and against another backend also compares S
 * (U and V are not compared: their signs, and the bases of clustered
 * singular values, are free). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "op.h"
#include "rng.h"

#define SVD_STREAM_A 0x5356440001ull

static const gb_param_spec svd_params[] = {
    {"method", GB_PARAM_ENUM, offsetof(gb_params, svd_method), 0, 0, gb_svd_method_names,
     "LAPACK/cuSOLVER routine: auto (default; CPU gesdd; GPU: svd_auto_method in gpu_backends/cuda_svd.c), gesdd, gesvd; "
     "GPU only: gesvdj, gesvdp, xgesvd, xgesvdp, gesvdp64 (float32 data, Xgesvdp in float64), xgesvdr (randomized, "
     "full rank)"},
    {"tol", GB_PARAM_DOUBLE, offsetof(gb_params, svd_tol), 0, 1, NULL,
     "gesvdj only: convergence tolerance (cusolverDnXgesvdjSetTolerance); 0 (default) = cuSOLVER's, machine precision"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};
/* tol came after the H100 reference runs: absent from their params. */
static const char *const svd_late_params[] = {"tol", NULL};

static int svd_parse_size(const cJSON *size, gb_case *c, gb_err *e) { return gb_parse_shape(size, 2, c, e); }

static void svd_count(gb_case *c) {
    double m = (double)c->shape[0], n = (double)c->shape[1];
    if (m < n) { /* the SVD of Aᵀ: same work */
        double t = m;
        m = n;
        n = t;
    }
    double k = n, sz = gb_dtype_size(c->dtype);
    /* Thin SVD with U1 (m×n), Σ and V, m ≥ n: Golub & Van Loan, Matrix
     * Computations (3rd ed.), Fig. 5.4.1: Golub–Reinsch 14mn² + 8n³, R-SVD
     * 6mn² + 20n³; the cheaper of the two (22n³ for a square matrix). A
     * nominal count, the same for every backend whatever it runs (gesdd and
     * Jacobi methods do different amounts of work). */
    c->flops = fmin(14 * m * n * n + 8 * n * n * n, 6 * m * n * n + 20 * n * n * n);
    c->bytes = (m * n + k + m * k + k * n) * sz;
}

static double svd_host_bytes(const gb_case *c) {
    double m = (double)c->shape[0], n = (double)c->shape[1], k = fmin(m, n);
    double sz = gb_dtype_size(c->dtype);
    double outs = (k + m * k + k * n) * sz;
    /* input; backend work copy, outputs and workspace (~ another m·n + k²);
     * outputs of two backends; the check in double (A, U·S, VT, product). */
    return m * n * sz * 2 + outs * 3 + (m * n + k * k) * sz + (2 * m * n + m * k + k * n) * 8;
}

static int svd_make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    size_t mn = (size_t)c->shape[0] * (size_t)c->shape[1];
    gb_array *A = gb_arrays_add(in, "A", gb_real_elem(c->dtype), mn, e);
    if (!A) return GB_SKIP;
    if (c->dtype == GB_FLOAT32)
        gb_rng_fill_f32(A->data, mn, c->seed, SVD_STREAM_A, -1, 1);
    else
        gb_rng_fill_f64(A->data, mn, c->seed, SVD_STREAM_A, -1, 1);
    return GB_OK;
}

/* The check's element-wise passes (conversions, finiteness, norms, the
 * Gram error, the scaling of U) run on every thread, as the BLAS calls do:
 * on one thread they left 15 cores idle, and svd's verification in a
 * default run on the H100 host went from 4.4-4.6 s to 2.9-3.2 s. */

/* An array as a fresh double copy (NULL if out of memory). */
static double *to_double(const gb_array *a) {
    double *d = malloc((a->count ? a->count : 1) * sizeof *d);
    if (!d) return NULL;
    const float *f = a->data;
    if (a->elem == GB_E_F32) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < a->count; i++) d[i] = f[i];
    } else {
        gb_copy(d, a->data, a->count * sizeof *d);
    }
    return d;
}

/* The first non-finite entry of x[0..n), or n. */
static size_t first_nonfinite(const double *x, size_t n) {
    size_t first = n;
#pragma omp parallel for schedule(static) reduction(min : first)
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) && i < first) first = i;
    return first;
}

/* ‖x‖₂ of x[0..n) (entries of order one here: no scaling needed). */
static double norm2(const double *x, size_t n) {
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (size_t i = 0; i < n; i++) s += x[i] * x[i];
    return sqrt(s);
}

/* ‖QᵀQ − I‖_F for a column-major rows×cols Q (cols ≤ rows) in double. */
static double orth_err(const double *Q, size_t rows, size_t cols, int transpose, double *G) {
    /* transpose: Q is the k×n VT; its rows should be orthonormal: VT·VTᵀ. */
    if (!transpose)
        cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, (int)cols, (int)rows, 1.0, Q, (int)rows, 0.0, G,
                    (int)cols);
    else
        cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, (int)rows, (int)cols, 1.0, Q, (int)rows, 0.0, G,
                    (int)rows);
    size_t k = transpose ? rows : cols;
    double s = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : s)
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i <= j; i++) {
            double d = G[i + j * k] - (i == j ? 1.0 : 0.0);
            s += (i == j ? 1 : 2) * d * d;
        }
    return sqrt(s);
}

/* Bound for the norm-wise checks: backward-stable SVD algorithms give
 * ‖A − UΣVᵀ‖ ≤ p(m,n)·eps·‖A‖ and ‖UᵀU − I‖ ≤ p(m,n)·eps with p modest
 * (Demmel, Applied Numerical Linear Algebra, §5.4); LAPACK's own tests accept
 * ratios up to 30 of these over max(m,n)·eps in the 1-norm. We hold
 * Frobenius measures to 10·max(m,n)·eps (twice that for S compared with
 * another backend, which carries its own error). */
static double svd_tol(const gb_case *c) {
    double mx = (double)(c->shape[0] > c->shape[1] ? c->shape[0] : c->shape[1]);
    return 10 * fmax(mx, 4) * gb_eps(c->dtype);
}

static void svd_verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out,
                       const gb_arrays *ref, gb_verdict *v) {
    size_t m = (size_t)c->shape[0], n = (size_t)c->shape[1], k = m < n ? m : n;
    gb_elem re = gb_real_elem(c->dtype);
    const gb_array *A = gb_arrays_find(in, "A");
    const gb_array *S = gb_arrays_find(out, "S"), *U = gb_arrays_find(out, "U"), *VT = gb_arrays_find(out, "VT");
    const gb_array *SR = ref ? gb_arrays_find(ref, "S") : NULL;
    memset(v, 0, sizeof *v);
    v->status = GB_VERIFY_FAILED;
    v->error = INFINITY;
    v->tolerance = svd_tol(c);
    if (!SR) snprintf(v->against, sizeof v->against, "reference"); /* else the runner names the backend */
    snprintf(v->metric, sizeof v->metric, "reconstruction");
    if (!A || !S || !U || !VT || S->count != k || U->count != m * k || VT->count != k * n || S->elem != re ||
        U->elem != re || VT->elem != re) {
        snprintf(v->detail, sizeof v->detail, "outputs S (%zu), U (%zu×%zu), VT (%zu×%zu) missing or mis-sized",
                 k, m, k, k, n);
        return;
    }
    double *Ad = to_double(A), *Ud = to_double(U), *Vd = to_double(VT), *Sd = to_double(S);
    double *W = malloc((m * n > k * k ? m * n : k * k) * sizeof *W);
    if (!Ad || !Ud || !Vd || !Sd || !W) {
        v->status = GB_VERIFY_NOT_CHECKED;
        snprintf(v->detail, sizeof v->detail, "out of memory for the check");
        goto done;
    }
    /* S: finite, non-negative, descending. */
    for (size_t i = 0; i < k; i++)
        if (!(Sd[i] >= 0) || !isfinite(Sd[i]) || (i && Sd[i] > Sd[i - 1] * (1 + 4 * gb_eps(c->dtype)))) {
            snprintf(v->metric, sizeof v->metric, "singular_values");
            snprintf(v->detail, sizeof v->detail, "S[%zu] = %g is not finite, non-negative and descending", i, Sd[i]);
            goto done;
        }
    size_t bad;
    if ((bad = first_nonfinite(Ud, m * k)) < m * k) {
        snprintf(v->detail, sizeof v->detail, "U has a non-finite entry at %zu", bad);
        goto done;
    }
    if ((bad = first_nonfinite(Vd, k * n)) < k * n) {
        snprintf(v->detail, sizeof v->detail, "VT has a non-finite entry at %zu", bad);
        goto done;
    }
    double anorm = norm2(Ad, m * n);
    /* Orthogonality first (W as a k×k Gram matrix), then reconstruction. */
    double ou = orth_err(Ud, m, k, 0, W), ov = orth_err(Vd, k, n, 1, W);
    /* W = A − (U·diag(S))·VT; U is scaled in place. */
#pragma omp parallel for schedule(static)
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < m; i++) Ud[i + j * m] *= Sd[j];
    gb_copy(W, Ad, m * n * sizeof *W);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, -1.0, Ud, (int)m, Vd, (int)k,
                1.0, W, (int)m);
    double rec = norm2(W, m * n) / (anorm > 0 ? anorm : 1);
    double sv = 0;
    size_t sv_at = 0;
    if (SR) {
        if (SR->count != k) {
            sv = INFINITY;
        } else {
            double s0 = SR->elem == GB_E_F32 ? ((const float *)SR->data)[0] : ((const double *)SR->data)[0];
            for (size_t i = 0; i < k; i++) {
                double r = SR->elem == GB_E_F32 ? ((const float *)SR->data)[i] : ((const double *)SR->data)[i];
                double d = fabs(Sd[i] - r) / (s0 > 0 ? s0 : 1);
                if (isnan(d)) d = INFINITY;
                if (d > sv) {
                    sv = d;
                    sv_at = i;
                }
            }
        }
    }
    /* Report the measure nearest its bound. */
    double tol = v->tolerance, sv_tol = 2 * tol;
    const char *names[4] = {"reconstruction", "orthogonality_U", "orthogonality_V", "singular_values"};
    double errs[4] = {rec, ou, ov, sv}, tols[4] = {tol, tol, tol, sv_tol};
    int worst = 0;
    for (int i = 1; i < (SR ? 4 : 3); i++)
        if (!(errs[i] / tols[i] <= errs[worst] / tols[worst])) worst = i;
    snprintf(v->metric, sizeof v->metric, "%s", names[worst]);
    v->error = errs[worst];
    v->tolerance = tols[worst];
    v->status = errs[worst] <= tols[worst] ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    int len = snprintf(v->detail, sizeof v->detail, "‖A−USVᵀ‖/‖A‖ %.3g, ‖UᵀU−I‖ %.3g, ‖VᵀV−I‖ %.3g (Frobenius)",
                       rec, ou, ov);
    if (SR)
        snprintf(v->detail + len, sizeof v->detail - (size_t)len, ", max|S−S_ref|/S_ref[0] %.3g at %zu", sv,
                 sv_at);
done:
    free(Ad);
    free(Ud);
    free(Vd);
    free(Sd);
    free(W);
}

const gb_op gb_op_svd = {
    .id = GB_OP_SVD,
    .name = "svd",
    .summary = "thin SVD of an m×n matrix (S, U m×k, VT k×n)",
    .rate_kind = "flops",
    .params = svd_params,
    .late_params = svd_late_params,
    .parse_size = svd_parse_size,
    .count = svd_count,
    .host_bytes = svd_host_bytes,
    .make_inputs = svd_make_inputs,
    .verify = svd_verify,
};
