/* test_ops_adv.c — fft, solve, spgemm and svd: the CPU implementations
 * against independent references on small sizes, and the ops' verify()
 * rejecting corrupted outputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <cblas.h>
#include "testlib.h"
#include "op.h"
#include "backend.h"
#include "cpu_backend.h"
#include "rng.h"

static gb_case make_case(gb_op_id id, gb_dtype d, int64_t m, int64_t n) {
    gb_case c;
    memset(&c, 0, sizeof c);
    c.op_id = id;
    c.op = gb_ops[id];
    c.dtype = d;
    c.shape[0] = m;
    c.shape[1] = n;
    c.rank = 2;
    c.seed = 42;
    gb_params_default(&c.params);
    c.params.fft_planner = GB_PLAN_ESTIMATE; /* fast planning in tests */
    return c;
}

static void cpu_up(void) {
    static int up;
    if (up) return;
    gb_backend_options o = {.threads = 0};
    gb_err e;
    gb_cpu_backend()->init(&o, &e);
    up = 1;
}

/* Prepare, run `reps` repetitions, fetch into out. Returns the status. */
static int run_cpu(const gb_case *c, const gb_arrays *in, gb_arrays *out, int reps, gb_err *e) {
    cpu_up();
    const gb_backend *b = gb_cpu_backend();
    int s = b->supports(c, e);
    if (s != GB_OK) return s;
    void *st = NULL;
    s = b->prepare(c, in, &st, e);
    if (s != GB_OK) return s;
    for (int r = 0; r < reps && s == GB_OK; r++) {
        double sec = -1;
        s = b->run(st, 0, &sec, e);
        if (s == GB_OK && !(sec >= 0)) s = gb_errf(e, GB_FAIL, "run reported no time");
    }
    if (s == GB_OK) s = b->fetch(st, out, e);
    cJSON *extra = cJSON_CreateObject();
    b->annotate(st, extra);
    cJSON_Delete(extra);
    b->release(st);
    return s;
}

/* Make inputs, run on the CPU, verify; returns the verdict status. */
static gb_verify_status run_and_verify(gb_case *c, gb_arrays *in, gb_arrays *out, gb_verdict *v) {
    gb_err e = {{0}};
    c->op->count(c);
    if (!CHECK(c->op->make_inputs(c, in, &e) == GB_OK)) return GB_VERIFY_FAILED;
    int s = run_cpu(c, in, out, 2, &e);
    if (!CHECK(s == GB_OK)) {
        fprintf(stderr, "  %s %s %s: %s\n", c->op->name, gb_dtype_name(c->dtype), c->label, e.msg);
        return GB_VERIFY_FAILED;
    }
    c->op->verify(c, in, out, NULL, v);
    if (v->status != GB_VERIFY_PASSED)
        fprintf(stderr, "  %s %s %lldx%lld: %s %g > %g (%s)\n", c->op->name, gb_dtype_name(c->dtype),
                (long long)c->shape[0], (long long)c->shape[1], v->metric, v->error, v->tolerance, v->detail);
    return v->status;
}

static void set_real(gb_array *a, size_t i, double x) {
    if (a->elem == GB_E_F32 || a->elem == GB_E_C64) ((float *)a->data)[a->elem == GB_E_C64 ? 2 * i : i] = (float)x;
    else ((double *)a->data)[a->elem == GB_E_C128 ? 2 * i : i] = x;
}
static double get_real(const gb_array *a, size_t i) {
    if (a->elem == GB_E_F32 || a->elem == GB_E_C64) return ((float *)a->data)[a->elem == GB_E_C64 ? 2 * i : i];
    return ((double *)a->data)[a->elem == GB_E_C128 ? 2 * i : i];
}

/* A deep copy of a set of arrays (to corrupt one without touching the other). */
static void copy_arrays(const gb_arrays *src, gb_arrays *dst) {
    memset(dst, 0, sizeof *dst);
    for (int i = 0; i < src->count; i++) {
        const gb_array *a = &src->item[i];
        gb_array *b = gb_arrays_add(dst, a->name, a->elem, a->count, NULL);
        memcpy(b->data, a->data, a->count * gb_elem_size(a->elem));
    }
}

/* ---- fft ----------------------------------------------------------------- */

TEST(fft_cpu_matches_direct_dft_both_kinds_and_dtypes) {
    int sizes[] = {16, 30, 17};
    for (int kind = 0; kind < 2; kind++)
        for (int d = 0; d < 2; d++)
            for (int s = 0; s < 3; s++) {
                gb_case c = make_case(GB_OP_FFT, d, sizes[s], sizes[s]);
                c.params.fft_kind = kind;
                gb_arrays in = {0}, out = {0};
                gb_verdict v;
                CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
                CHECK(strcmp(v.against, "reference") == 0);
                CHECK(strstr(v.detail, "direct DFT") != NULL);
                gb_arrays_free(&in);
                gb_arrays_free(&out);
            }
}

/* An impulse at (r0, c0) transforms to exp(-2πi(r0·k1 + c0·k2)/n): a
 * reference that owes nothing to the op's own direct DFT. */
TEST(fft_cpu_impulse_gives_exact_phases) {
    size_t n = 12, r0 = 3, c0 = 5;
    for (int kind = 0; kind < 2; kind++) {
        gb_case c = make_case(GB_OP_FFT, GB_FLOAT64, (int64_t)n, (int64_t)n);
        c.params.fft_kind = kind;
        c.params.fft_planner = GB_PLAN_MEASURE; /* planning must not clobber the input */
        gb_arrays in = {0}, out = {0};
        gb_array *x = gb_arrays_add(&in, "x", GB_E_F64, n * n, NULL);
        memset(x->data, 0, n * n * sizeof(double));
        ((double *)x->data)[r0 * n + c0] = 1;
        gb_err e;
        CHECK(run_cpu(&c, &in, &out, 1, &e) == GB_OK);
        const gb_array *X = gb_arrays_find(&out, "X");
        size_t kc = kind ? n : n / 2 + 1;
        CHECK(X && X->count == n * kc);
        double worst = 0;
        for (size_t k1 = 0; X && k1 < n; k1++)
            for (size_t k2 = 0; k2 < kc; k2++) {
                double ang = -2 * M_PI * (double)((r0 * k1 + c0 * k2) % n) / (double)n;
                const double *z = (const double *)X->data + 2 * (k1 * kc + k2);
                worst = fmax(worst, hypot(z[0] - cos(ang), z[1] - sin(ang)));
            }
        CHECK(worst < 1e-13);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
}

TEST(fft_large_sizes_use_parseval_and_spot_checks) {
    for (int d = 0; d < 2; d++) {
        gb_case c = make_case(GB_OP_FFT, d, 256, 256);
        gb_arrays in = {0}, out = {0};
        gb_verdict v;
        CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
        CHECK(strstr(v.detail, "Parseval") != NULL);
        /* A corrupted DC term (a spot-checked entry) and a NaN are caught. */
        gb_array *X = gb_arrays_find(&out, "X");
        double dc = get_real(X, 0);
        set_real(X, 0, dc + 1.0);
        c.op->verify(&c, &in, &out, NULL, &v);
        CHECK(v.status == GB_VERIFY_FAILED);
        set_real(X, 0, dc);
        set_real(X, 1000, NAN);
        c.op->verify(&c, &in, &out, NULL, &v);
        CHECK(v.status == GB_VERIFY_FAILED);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
}

TEST(fft_verify_rejects_corrupted_output) {
    gb_case c = make_case(GB_OP_FFT, GB_FLOAT32, 32, 32);
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    copy_arrays(&out, &ref);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_PASSED && v.against[0] == 0);
    gb_array *X = gb_arrays_find(&out, "X");
    set_real(X, 77, get_real(X, 77) * 1.01 + 0.01);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    set_real(X, 77, NAN);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&ref);
}

TEST(fft_counts_follow_the_convention) {
    gb_case c = make_case(GB_OP_FFT, GB_FLOAT32, 1024, 1024);
    gb_ops[GB_OP_FFT]->count(&c);
    double N = 1024.0 * 1024;
    CHECK_NEAR(c.flops, 2.5 * N * 20, 1);
    CHECK_NEAR(c.bytes, N * 4 + 1024.0 * 513 * 8, 1);
    c.params.fft_kind = GB_FFT_C2C;
    gb_ops[GB_OP_FFT]->count(&c);
    CHECK_NEAR(c.flops, 5 * N * 20, 1);
}

/* ---- solve --------------------------------------------------------------- */

TEST(solve_cpu_residual_is_small) {
    int sizes[] = {1, 2, 50, 200};
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 4; s++)
            for (int nrhs = 1; nrhs <= 3; nrhs += 2) {
                gb_case c = make_case(GB_OP_SOLVE, d, sizes[s], sizes[s]);
                c.params.nrhs = nrhs;
                gb_arrays in = {0}, out = {0};
                gb_verdict v;
                CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
                CHECK(strcmp(v.metric, "scaled_residual") == 0);
                gb_arrays_free(&in);
                gb_arrays_free(&out);
            }
}

TEST(solve_inputs_are_symmetric_and_diagonally_dominant) {
    gb_case c = make_case(GB_OP_SOLVE, GB_FLOAT64, 64, 64);
    gb_arrays in = {0};
    gb_err e;
    CHECK(c.op->make_inputs(&c, &in, &e) == GB_OK);
    const double *A = gb_arrays_find(&in, "A")->data;
    int sym = 1, dom = 1;
    for (size_t j = 0; j < 64; j++) {
        double off = 0;
        for (size_t i = 0; i < 64; i++) {
            if (A[i + j * 64] != A[j + i * 64]) sym = 0;
            if (i != j) off += fabs(A[i + j * 64]);
        }
        if (!(A[j + j * 64] > off)) dom = 0;
    }
    CHECK(sym);
    CHECK(dom);
    gb_arrays_free(&in);
}

TEST(solve_verify_rejects_corrupted_output) {
    gb_case c = make_case(GB_OP_SOLVE, GB_FLOAT32, 64, 64);
    c.params.nrhs = 2;
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    copy_arrays(&out, &ref);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_PASSED);
    gb_array *X = gb_arrays_find(&out, "X");
    double x = get_real(X, 70);
    set_real(X, 70, x * 1.001);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    set_real(X, 70, x);
    set_real(gb_arrays_find(&ref, "X"), 70, x * 1.01); /* a reference that disagrees */
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    set_real(X, 3, NAN);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&ref);
}

/* ---- spgemm -------------------------------------------------------------- */

TEST(spgemm_cpu_matches_gustavson) {
    struct { int n; double p; } cases[] = {{300, 0.02}, {64, 1.0}, {120, 0.002}, {500, 0.005}};
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 4; k++) {
            gb_case c = make_case(GB_OP_SPGEMM, d, cases[k].n, cases[k].n);
            c.params.density = cases[k].p;
            gb_arrays in = {0}, out = {0};
            gb_verdict v;
            CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
            CHECK(strstr(v.detail, "Gustavson") != NULL);
            gb_arrays_free(&in);
            gb_arrays_free(&out);
        }
}

TEST(spgemm_generator_is_deterministic_sorted_and_counts_exactly) {
    gb_case c = make_case(GB_OP_SPGEMM, GB_FLOAT32, 400, 400);
    c.params.density = 0.03;
    gb_arrays a = {0}, b = {0}, o = {0};
    gb_err e;
    CHECK(c.op->make_inputs(&c, &a, &e) == GB_OK);
    CHECK(c.op->make_inputs(&c, &b, &e) == GB_OK);
    int same = a.count == b.count;
    for (int i = 0; same && i < a.count; i++)
        same = a.item[i].count == b.item[i].count &&
               memcmp(a.item[i].data, b.item[i].data, a.item[i].count * gb_elem_size(a.item[i].elem)) == 0;
    CHECK(same);
    gb_case c2 = c;
    c2.seed = 43;
    CHECK(c.op->make_inputs(&c2, &o, &e) == GB_OK);
    const gb_array *ca = gb_arrays_find(&a, "A_colind"), *co = gb_arrays_find(&o, "A_colind");
    CHECK(ca->count != co->count || memcmp(ca->data, co->data, ca->count * 4) != 0);
    /* Sorted, distinct columns; density near p (within 5 sigma). */
    const int32_t *rp = gb_arrays_find(&a, "A_rowptr")->data, *col = ca->data;
    int sorted = 1;
    for (int i = 0; i < 400; i++)
        for (int k = rp[i] + 1; k < rp[i + 1]; k++)
            if (col[k] <= col[k - 1]) sorted = 0;
    CHECK(sorted);
    double N = 400.0 * 400, mean = N * 0.03, sd = sqrt(N * 0.03 * 0.97);
    CHECK(fabs((double)ca->count - mean) < 5 * sd);
    /* count(): 2 × Σ over a_ik of nnz(B row k), computed here from the arrays. */
    const int32_t *brp = gb_arrays_find(&a, "B_rowptr")->data;
    double madds = 0;
    for (size_t k = 0; k < ca->count; k++) madds += brp[col[k] + 1] - brp[col[k]];
    c.op->count(&c);
    CHECK_NEAR(c.flops, 2 * madds, 0.5);
    gb_arrays_free(&a);
    gb_arrays_free(&b);
    gb_arrays_free(&o);
}

/* annotate says what GraphBLAS did, in its own words (the burble), and what
 * was asked of it: hash where C's rows are expected more than 1/16 full,
 * GraphBLAS's own choice elsewhere; C always sparse. */
TEST(spgemm_cpu_annotates_what_graphblas_chose) {
    struct { int n; double p; int hash; } cases[] = {{400, 0.05, 1}, {2000, 0.001, 0}};
    for (int k = 0; k < 2; k++) {
        gb_case c = make_case(GB_OP_SPGEMM, GB_FLOAT64, cases[k].n, cases[k].n);
        c.params.density = cases[k].p;
        gb_arrays in = {0};
        gb_err e = {{0}};
        c.op->count(&c);
        CHECK(c.op->make_inputs(&c, &in, &e) == GB_OK);
        cpu_up();
        const gb_backend *b = gb_cpu_backend();
        void *st = NULL;
        double sec;
        if (!CHECK(b->prepare(&c, &in, &st, &e) == GB_OK)) continue;
        CHECK(b->run(st, 0, &sec, &e) == GB_OK);
        cJSON *x = cJSON_CreateObject();
        b->annotate(st, x);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(x, "method"), *req = cJSON_GetObjectItemCaseSensitive(x, "method_requested"),
                    *th = cJSON_GetObjectItemCaseSensitive(x, "graphblas_threads"), *bu = cJSON_GetObjectItemCaseSensitive(x, "graphblas_burble");
        CHECK(cJSON_IsString(m) && !strncmp(m->valuestring, "saxpy3", 6));
        CHECK(cJSON_IsString(req) && (strstr(req->valuestring, "HASH") != NULL) == cases[k].hash);
        CHECK(cJSON_IsNumber(th) && th->valuedouble >= 1);
        CHECK(cJSON_IsString(bu) && strstr(bu->valuestring, "GrB_mxm") && !strstr(bu->valuestring, " sec"));
        CHECK(!strcmp(cJSON_GetObjectItemCaseSensitive(x, "output_format")->valuestring, "sparse"));
        cJSON_Delete(x);
        b->release(st);
        gb_arrays_free(&in);
    }
}

/* Remove the last entry of row `row` of C in place (a wrong nnz). */
static void drop_entry(gb_arrays *out, int row) {
    gb_array *rp = gb_arrays_find(out, "C_rowptr"), *ci = gb_arrays_find(out, "C_colind"),
             *va = gb_arrays_find(out, "C_val");
    int32_t *r = rp->data, *cl = ci->data;
    size_t at = (size_t)r[row + 1] - 1, nnz = ci->count, vs = gb_elem_size(va->elem);
    memmove(cl + at, cl + at + 1, (nnz - at - 1) * 4);
    memmove((char *)va->data + at * vs, (char *)va->data + (at + 1) * vs, (nnz - at - 1) * vs);
    for (size_t i = (size_t)row + 1; i < rp->count; i++) r[i]--;
    ci->count--;
    va->count--;
}

TEST(spgemm_verify_rejects_corruption_and_accepts_unsorted_reference) {
    gb_case c = make_case(GB_OP_SPGEMM, GB_FLOAT64, 200, 200);
    c.params.density = 0.05;
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    /* A reference with each row's columns reversed (cuSPARSE may not sort). */
    copy_arrays(&out, &ref);
    int32_t *rp = gb_arrays_find(&ref, "C_rowptr")->data, *cl = gb_arrays_find(&ref, "C_colind")->data;
    double *rv = gb_arrays_find(&ref, "C_val")->data;
    for (int i = 0; i < 200; i++)
        for (int lo = rp[i], hi = rp[i + 1] - 1; lo < hi; lo++, hi--) {
            int32_t t = cl[lo]; cl[lo] = cl[hi]; cl[hi] = t;
            double u = rv[lo]; rv[lo] = rv[hi]; rv[hi] = u;
        }
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_PASSED && v.against[0] == 0);
    gb_array *val = gb_arrays_find(&out, "C_val");
    double x = get_real(val, 10);
    set_real(val, 10, x * (1 + 1e-9));
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    set_real(val, 10, NAN);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    set_real(val, 10, x);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_PASSED);
    /* A moved column. */
    int32_t *ocl = gb_arrays_find(&out, "C_colind")->data;
    int32_t saved = ocl[5];
    ocl[5] = (ocl[5] + 1) % 200;
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    ocl[5] = saved;
    /* A column written twice in a row, another one missing: same count, wrong structure. */
    const int32_t *orp = gb_arrays_find(&out, "C_rowptr")->data;
    int row = 0;
    while (orp[row + 1] - orp[row] < 2) row++;
    int32_t second = ocl[orp[row] + 1];
    ocl[orp[row] + 1] = ocl[orp[row]];
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strcmp(v.metric, "structure") == 0 && strstr(v.detail, "twice"));
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strstr(v.detail, "twice"));
    ocl[orp[row] + 1] = second;
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_PASSED);
    drop_entry(&out, 7);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strcmp(v.metric, "structure") == 0);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&ref);
}

/* ---- svd ----------------------------------------------------------------- */

/* Q (rows×cols, orthonormal columns) from the QR of a random matrix. */
static void random_q(double *Q, int rows, int cols, uint64_t stream) {
    gb_rng_fill_f64(Q, (size_t)rows * (size_t)cols, 7, stream, -1, 1);
    double *tau = malloc((size_t)cols * sizeof *tau);
    LAPACKE_dgeqrf(LAPACK_COL_MAJOR, rows, cols, Q, rows, tau);
    LAPACKE_dorgqr(LAPACK_COL_MAJOR, rows, cols, cols, Q, rows, tau);
    free(tau);
}

/* A = Q1·diag(s)·Q2ᵀ with known s: the CPU SVD must return s. */
TEST(svd_cpu_recovers_known_singular_values) {
    int shapes[][2] = {{40, 40}, {60, 25}, {25, 60}};
    for (int d = 0; d < 2; d++)
        for (int sh = 0; sh < 3; sh++)
            for (int method = GB_SVD_AUTO; method <= GB_SVD_GESVD; method++) {
                int m = shapes[sh][0], n = shapes[sh][1], k = m < n ? m : n;
                gb_case c = make_case(GB_OP_SVD, d, m, n);
                c.params.svd_method = method;
                double *Q1 = malloc(sizeof(double) * (size_t)(m * k)), *Q2 = malloc(sizeof(double) * (size_t)(n * k));
                double *A = malloc(sizeof(double) * (size_t)(m * n)), *s = malloc(sizeof(double) * (size_t)k);
                random_q(Q1, m, k, 1);
                random_q(Q2, n, k, 2);
                for (int i = 0; i < k; i++) s[i] = 10.0 / (1 + i); /* descending, distinct */
                for (int j = 0; j < k; j++) cblas_dscal(m, s[j], Q1 + (size_t)j * (size_t)m, 1);
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, 1, Q1, m, Q2, n, 0, A, m);
                gb_arrays in = {0}, out = {0};
                gb_array *Aa = gb_arrays_add(&in, "A", gb_real_elem(c.dtype), (size_t)(m * n), NULL);
                for (int i = 0; i < m * n; i++) set_real(Aa, (size_t)i, A[i]);
                gb_err e;
                CHECK(run_cpu(&c, &in, &out, 2, &e) == GB_OK);
                const gb_array *S = gb_arrays_find(&out, "S");
                double worst = 0;
                for (int i = 0; S && i < k; i++) worst = fmax(worst, fabs(get_real(S, (size_t)i) - s[i]) / s[0]);
                CHECK(worst < 50 * gb_eps(c.dtype) * 60);
                gb_verdict v;
                c.op->verify(&c, &in, &out, NULL, &v);
                CHECK(v.status == GB_VERIFY_PASSED);
                gb_arrays_free(&in);
                gb_arrays_free(&out);
                free(Q1);
                free(Q2);
                free(A);
                free(s);
            }
}

TEST(svd_cpu_random_inputs_pass_verify) {
    int shapes[][2] = {{64, 64}, {100, 30}, {30, 100}};
    for (int d = 0; d < 2; d++)
        for (int sh = 0; sh < 3; sh++) {
            gb_case c = make_case(GB_OP_SVD, d, shapes[sh][0], shapes[sh][1]);
            gb_arrays in = {0}, out = {0};
            gb_verdict v;
            CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
            gb_arrays_free(&in);
            gb_arrays_free(&out);
        }
}

TEST(svd_gpu_only_methods_are_skipped_on_cpu) {
    gb_case c = make_case(GB_OP_SVD, GB_FLOAT32, 8, 8);
    c.params.svd_method = GB_SVD_GESVDJ;
    gb_err e = {{0}};
    cpu_up();
    CHECK(gb_cpu_backend()->supports(&c, &e) == GB_SKIP);
    CHECK(strstr(e.msg, "cuSOLVER") != NULL);
}

TEST(svd_verify_rejects_corrupted_output) {
    gb_case c = make_case(GB_OP_SVD, GB_FLOAT32, 48, 32);
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    copy_arrays(&out, &ref);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_PASSED && v.against[0] == 0);
    gb_array *U = gb_arrays_find(&out, "U"), *S = gb_arrays_find(&out, "S");
    double u = get_real(U, 100);
    set_real(U, 100, u + 0.01);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    set_real(U, 100, u);
    double s5 = get_real(S, 5);
    set_real(gb_arrays_find(&ref, "S"), 5, s5 * 1.01);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strcmp(v.metric, "singular_values") == 0);
    set_real(S, 5, NAN);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&ref);
}

TEST(svd_counts_use_golub_van_loan_thin_svd) {
    gb_case c = make_case(GB_OP_SVD, GB_FLOAT64, 100, 100);
    gb_ops[GB_OP_SVD]->count(&c);
    CHECK_NEAR(c.flops, 22e6, 1);
    gb_case t = make_case(GB_OP_SVD, GB_FLOAT64, 1000, 100);
    gb_case tt = make_case(GB_OP_SVD, GB_FLOAT64, 100, 1000);
    gb_ops[GB_OP_SVD]->count(&t);
    gb_ops[GB_OP_SVD]->count(&tt);
    CHECK_NEAR(t.flops, 6e3 * 1e4 + 20e6, 1);
    CHECK_NEAR(t.flops, tt.flops, 1);
}

/* ---- transfer -------------------------------------------------------------- */

/* A case whose size goes through the op's own parser (bytes for transfer). */
static gb_case sized_case(gb_op_id id, gb_dtype d, const char *size_json, gb_err *e, int *status) {
    gb_case c = make_case(id, d, 0, 0);
    cJSON *j = cJSON_Parse(size_json);
    *status = c.op->parse_size(j, &c, e);
    cJSON_Delete(j);
    if (*status == GB_OK) c.op->count(&c);
    return c;
}

TEST(transfer_sizes_are_bytes_and_counts_are_bytes_moved) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_TRANSFER, GB_FLOAT32, "\"4KiB\"", &e, &s);
    CHECK(s == GB_OK && c.rank == 1 && c.shape[0] == 4096 && strcmp(c.label, "4KiB") == 0);
    CHECK_NEAR(c.bytes, 4096, 0);
    CHECK_NEAR(c.flops, 0, 0);
    c = sized_case(GB_OP_TRANSFER, GB_FLOAT64, "1073741824", &e, &s);
    CHECK(s == GB_OK && strcmp(c.label, "1GiB") == 0);
    c = sized_case(GB_OP_TRANSFER, GB_FLOAT64, "\"1.5MiB\"", &e, &s);
    CHECK(s == GB_OK && c.shape[0] == 1572864 && strcmp(c.label, "1536KiB") == 0);
    c = sized_case(GB_OP_TRANSFER, GB_FLOAT64, "1000", &e, &s);
    CHECK(s == GB_OK && strcmp(c.label, "1000B") == 0);
    /* Not a whole number of elements, an unknown unit, too big: errors that say so. */
    sized_case(GB_OP_TRANSFER, GB_FLOAT32, "12", &e, &s);
    CHECK(s == GB_FAIL && strstr(e.msg, "multiple of 8"));
    sized_case(GB_OP_TRANSFER, GB_FLOAT32, "\"4KB\"", &e, &s);
    CHECK(s == GB_FAIL && strstr(e.msg, "KiB"));
    sized_case(GB_OP_TRANSFER, GB_FLOAT32, "\"4096GiB\"", &e, &s);
    CHECK(s == GB_FAIL && strstr(e.msg, "2^40"));
    /* both: the bytes cross twice. */
    c = sized_case(GB_OP_TRANSFER, GB_FLOAT32, "65536", &e, &s);
    c.params.direction = GB_DIR_BOTH;
    c.op->count(&c);
    CHECK_NEAR(c.bytes, 2 * 65536.0, 0);
    CHECK(strcmp(c.op->rate_kind, "bytes") == 0);
    /* The table's note says what the speedup means for this op. */
    CHECK(c.op->note && strstr(c.op->note, "slower than a local copy"));
    CHECK(gb_ops[GB_OP_MATMUL]->note == NULL);
}

TEST(transfer_cpu_copy_arrives_intact_in_every_direction) {
    static const char *const sizes[] = {"8", "4104", "\"3MiB\""}; /* one element, a tail, several threads' chunks */
    for (int dir = GB_DIR_H2D; dir <= GB_DIR_BOTH; dir++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            gb_err e = {{0}};
            int s;
            gb_case c = sized_case(GB_OP_TRANSFER, i % 2 ? GB_FLOAT32 : GB_FLOAT64, sizes[i], &e, &s);
            c.params.direction = dir;
            gb_arrays in = {0}, out = {0};
            gb_verdict v;
            CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
            CHECK(strcmp(v.metric, "differing_bytes") == 0 && v.error == 0 && v.tolerance == 0);
            CHECK((gb_arrays_find(&out, "y_back") != NULL) == (dir == GB_DIR_BOTH));
            gb_arrays_free(&in);
            gb_arrays_free(&out);
        }
}

TEST(transfer_verify_fails_a_missed_chunk_a_corrupted_byte_a_missing_leg) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_TRANSFER, GB_FLOAT32, "\"64KiB\"", &e, &s);
    c.params.direction = GB_DIR_BOTH;
    c.op->count(&c);
    gb_arrays in = {0}, out = {0};
    gb_verdict v;
    CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    unsigned char *y = gb_arrays_find(&out, "y")->data, *yb = gb_arrays_find(&out, "y_back")->data;
    /* A chunk the copy skipped keeps the poison (all-ones bytes). */
    unsigned char saved[4096];
    memcpy(saved, y + 8192, sizeof saved);
    memset(y + 8192, 0xff, sizeof saved);
    c.op->verify(&c, &in, &out, NULL, &v);
    /* (a random source byte may itself be 0xff: not quite all 4096 differ) */
    CHECK(v.status == GB_VERIFY_FAILED && v.error > 4000 && v.error <= 4096 && strstr(v.detail, "at byte 819"));
    memcpy(y + 8192, saved, sizeof saved);
    /* One flipped bit in the other leg. */
    yb[65535] ^= 0x10;
    c.op->verify(&c, &in, &out, &out, &v);
    CHECK(v.status == GB_VERIFY_FAILED && v.error == 1 && strstr(v.detail, "y_back"));
    yb[65535] ^= 0x10;
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_PASSED);
    /* Direction both with one leg's output missing. */
    gb_arrays one = {0};
    gb_array *src = gb_arrays_find(&out, "y");
    gb_arrays_add_copy(&one, "y", src->elem, src->count, src->data, &e);
    c.op->verify(&c, &in, &one, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strstr(v.detail, "y_back"));
    gb_arrays_free(&one);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
}

TEST(transfer_cpu_ceiling_is_the_copy_in_bytes_delivered) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_TRANSFER, GB_FLOAT32, "4096", &e, &s);
    c.memory_bound = 1;
    cpu_up();
    CHECK(gb_cpu_backend()->supports(&c, &e) == GB_OK);
    /* GB/s of a copy count the bytes delivered; STREAM's copy_gbs counts them twice. */
    CHECK(strcmp(gb_cpu_backend()->ceiling(&c, 0), "copy_delivered_gbs") == 0);
}

/* ---- batched_matmul ---------------------------------------------------------- */

TEST(batched_matmul_counts_2mnk_per_product) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_BATCHED_MATMUL, GB_FLOAT32, "[2,3,4]", &e, &s);
    CHECK(s == GB_OK && c.params.batch == 1000 && strcmp(c.label, "2x3x4") == 0);
    c.params.batch = 10;
    c.op->count(&c);
    CHECK_NEAR(c.flops, 2.0 * 2 * 3 * 4 * 10, 0);
    CHECK_NEAR(c.bytes, 4.0 * 10 * (2 * 3 + 3 * 4 + 2 * 4), 0);
    CHECK(strcmp(c.op->rate_kind, "flops") == 0 && strcmp(c.op->params[0].key, "batch") == 0);
}

TEST(batched_matmul_cpu_matches_each_naive_product) {
    for (int d = GB_FLOAT32; d <= GB_FLOAT64; d++) {
        gb_err e = {{0}};
        int s;
        gb_case c = sized_case(GB_OP_BATCHED_MATMUL, (gb_dtype)d, "[5,7,3]", &e, &s);
        c.params.batch = 37;
        gb_arrays in = {0}, out = {0};
        gb_verdict v;
        CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
        const gb_array *A = gb_arrays_find(&in, "A"), *B = gb_arrays_find(&in, "B"), *C = gb_arrays_find(&out, "C");
        double worst = 0;
        for (int b = 0; b < 37; b++)
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 3; j++) {
                    double sum = 0;
                    for (int l = 0; l < 7; l++)
                        sum += get_real(A, (size_t)(b * 35 + i * 7 + l)) * get_real(B, (size_t)(b * 21 + l * 3 + j));
                    double diff = fabs(sum - get_real(C, (size_t)(b * 15 + i * 3 + j)));
                    if (diff > worst) worst = diff;
                }
        CHECK(worst < (d == GB_FLOAT32 ? 1e-5 : 1e-13));
        c.op->verify(&c, &in, &out, &out, &v);
        CHECK(v.status == GB_VERIFY_PASSED && v.error == 0);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
}

TEST(batched_matmul_verify_names_the_wrong_product) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_BATCHED_MATMUL, GB_FLOAT32, "16", &e, &s);
    c.params.batch = 20;
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    copy_arrays(&out, &ref);
    gb_array *C = gb_arrays_find(&out, "C");
    /* One element of product 13 off by 1e-3 of the output's scale. */
    size_t at = 13 * 256 + 5 * 16 + 9;
    set_real(C, at, get_real(C, at) + 4e-3);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strstr(v.detail, "product 13"));
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strstr(v.detail, "product 13"));
    /* A product left unwritten (poison) in the last slot. */
    memcpy(C->data, ref.item[0].data, C->count * sizeof(float));
    for (size_t i = 19 * 256; i < 20 * 256; i++) set_real(C, i, NAN);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strstr(v.detail, "product 19"));
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&ref);
}
