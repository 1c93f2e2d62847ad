/* test_ops_adv.c — fft, solve, spgemm and svd: the CPU implementations
 * against independent references on small sizes, and the ops' verify()
 * rejecting corrupted outputs (transfer and batched_matmul:
 * test_ops_transfer_batched.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include <cblas.h>
#include "testlib.h"
#include "testlib_ops.h"
#include "op.h"
#include "backend.h"
#include "cpu_backend.h"
#include "rng.h"

/* ---- fft ----------------------------------------------------------------- */

TEST(fft_cpu_matches_direct_dft_both_kinds_and_dtypes) {
    int sizes[] = {16, 30, 17};
    for (int kind = 0; kind < 2; kind++)
        for (int d = 0; d < 2; d++)
            for (int s = 0; s < 3; s++) {
                gb_case c = gb_test_op_case(GB_OP_FFT, d, sizes[s], sizes[s]);
                c.params.fft_kind = kind;
                gb_arrays in = {0}, out = {0};
                gb_verdict v;
                CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
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
        gb_case c = gb_test_op_case(GB_OP_FFT, GB_FLOAT64, (int64_t)n, (int64_t)n);
        c.params.fft_kind = kind;
        c.params.fft_planner = GB_PLAN_MEASURE; /* planning must not clobber the input */
        gb_arrays in = {0}, out = {0};
        gb_array *x = gb_arrays_add(&in, "x", GB_E_F64, n * n, NULL);
        memset(x->data, 0, n * n * sizeof(double));
        ((double *)x->data)[r0 * n + c0] = 1;
        gb_err e;
        CHECK(gb_test_run_cpu(&c, &in, &out, 1, &e) == GB_OK);
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
        gb_case c = gb_test_op_case(GB_OP_FFT, d, 256, 256);
        gb_arrays in = {0}, out = {0};
        gb_verdict v;
        CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
        CHECK(strstr(v.detail, "Parseval") != NULL);
        /* A corrupted DC term (a spot-checked entry) and a NaN are caught. */
        gb_array *X = gb_arrays_find(&out, "X");
        double dc = gb_test_get_real(X, 0);
        gb_test_set_real(X, 0, dc + 1.0);
        c.op->verify(&c, &in, &out, NULL, &v);
        CHECK(v.status == GB_VERIFY_FAILED);
        gb_test_set_real(X, 0, dc);
        gb_test_set_real(X, 1000, NAN);
        c.op->verify(&c, &in, &out, NULL, &v);
        CHECK(v.status == GB_VERIFY_FAILED);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
}

TEST(fft_verify_rejects_corrupted_output) {
    gb_case c = gb_test_op_case(GB_OP_FFT, GB_FLOAT32, 32, 32);
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    gb_test_copy_arrays(&out, &ref);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_PASSED && v.against[0] == 0);
    gb_array *X = gb_arrays_find(&out, "X");
    gb_test_set_real(X, 77, gb_test_get_real(X, 77) * 1.01 + 0.01);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_test_set_real(X, 77, NAN);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&ref);
}

TEST(fft_counts_follow_the_convention) {
    gb_case c = gb_test_op_case(GB_OP_FFT, GB_FLOAT32, 1024, 1024);
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
                gb_case c = gb_test_op_case(GB_OP_SOLVE, d, sizes[s], sizes[s]);
                c.params.nrhs = nrhs;
                gb_arrays in = {0}, out = {0};
                gb_verdict v;
                CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
                CHECK(strcmp(v.metric, "scaled_residual") == 0);
                gb_arrays_free(&in);
                gb_arrays_free(&out);
            }
}

TEST(solve_inputs_are_symmetric_and_diagonally_dominant) {
    gb_case c = gb_test_op_case(GB_OP_SOLVE, GB_FLOAT64, 64, 64);
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
    gb_case c = gb_test_op_case(GB_OP_SOLVE, GB_FLOAT32, 64, 64);
    c.params.nrhs = 2;
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    gb_test_copy_arrays(&out, &ref);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_PASSED);
    gb_array *X = gb_arrays_find(&out, "X");
    double x = gb_test_get_real(X, 70);
    gb_test_set_real(X, 70, x * 1.001);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_test_set_real(X, 70, x);
    gb_test_set_real(gb_arrays_find(&ref, "X"), 70, x * 1.01); /* a reference that disagrees */
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_test_set_real(X, 3, NAN);
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
            gb_case c = gb_test_op_case(GB_OP_SPGEMM, d, cases[k].n, cases[k].n);
            c.params.density = cases[k].p;
            gb_arrays in = {0}, out = {0};
            gb_verdict v;
            CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
            CHECK(strstr(v.detail, "Gustavson") != NULL);
            gb_arrays_free(&in);
            gb_arrays_free(&out);
        }
}

TEST(spgemm_generator_is_deterministic_sorted_and_counts_exactly) {
    gb_case c = gb_test_op_case(GB_OP_SPGEMM, GB_FLOAT32, 400, 400);
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
        gb_case c = gb_test_op_case(GB_OP_SPGEMM, GB_FLOAT64, cases[k].n, cases[k].n);
        c.params.density = cases[k].p;
        gb_arrays in = {0};
        gb_err e = {{0}};
        c.op->count(&c);
        CHECK(c.op->make_inputs(&c, &in, &e) == GB_OK);
        gb_test_cpu_up();
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
    gb_case c = gb_test_op_case(GB_OP_SPGEMM, GB_FLOAT64, 200, 200);
    c.params.density = 0.05;
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    /* A reference with each row's columns reversed (cuSPARSE may not sort). */
    gb_test_copy_arrays(&out, &ref);
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
    double x = gb_test_get_real(val, 10);
    gb_test_set_real(val, 10, x * (1 + 1e-9));
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_test_set_real(val, 10, NAN);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_test_set_real(val, 10, x);
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
                gb_case c = gb_test_op_case(GB_OP_SVD, d, m, n);
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
                for (int i = 0; i < m * n; i++) gb_test_set_real(Aa, (size_t)i, A[i]);
                gb_err e;
                CHECK(gb_test_run_cpu(&c, &in, &out, 2, &e) == GB_OK);
                const gb_array *S = gb_arrays_find(&out, "S");
                double worst = 0;
                for (int i = 0; S && i < k; i++) worst = fmax(worst, fabs(gb_test_get_real(S, (size_t)i) - s[i]) / s[0]);
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
            gb_case c = gb_test_op_case(GB_OP_SVD, d, shapes[sh][0], shapes[sh][1]);
            gb_arrays in = {0}, out = {0};
            gb_verdict v;
            CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
            gb_arrays_free(&in);
            gb_arrays_free(&out);
        }
}

TEST(svd_gpu_only_methods_are_skipped_on_cpu) {
    gb_case c = gb_test_op_case(GB_OP_SVD, GB_FLOAT32, 8, 8);
    c.params.svd_method = GB_SVD_GESVDJ;
    gb_err e = {{0}};
    gb_test_cpu_up();
    CHECK(gb_cpu_backend()->supports(&c, &e) == GB_SKIP);
    CHECK(strstr(e.msg, "cuSOLVER") != NULL);
}

TEST(svd_verify_rejects_corrupted_output) {
    gb_case c = gb_test_op_case(GB_OP_SVD, GB_FLOAT32, 48, 32);
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    gb_test_copy_arrays(&out, &ref);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_PASSED && v.against[0] == 0);
    gb_array *U = gb_arrays_find(&out, "U"), *S = gb_arrays_find(&out, "S");
    double u = gb_test_get_real(U, 100);
    gb_test_set_real(U, 100, u + 0.01);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_test_set_real(U, 100, u);
    double s5 = gb_test_get_real(S, 5);
    gb_test_set_real(gb_arrays_find(&ref, "S"), 5, s5 * 1.01);
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strcmp(v.metric, "singular_values") == 0);
    gb_test_set_real(S, 5, NAN);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&ref);
}

TEST(svd_counts_use_golub_van_loan_thin_svd) {
    gb_case c = gb_test_op_case(GB_OP_SVD, GB_FLOAT64, 100, 100);
    gb_ops[GB_OP_SVD]->count(&c);
    CHECK_NEAR(c.flops, 22e6, 1);
    gb_case t = gb_test_op_case(GB_OP_SVD, GB_FLOAT64, 1000, 100);
    gb_case tt = gb_test_op_case(GB_OP_SVD, GB_FLOAT64, 100, 1000);
    gb_ops[GB_OP_SVD]->count(&t);
    gb_ops[GB_OP_SVD]->count(&tt);
    CHECK_NEAR(t.flops, 6e3 * 1e4 + 20e6, 1);
    CHECK_NEAR(t.flops, tt.flops, 1);
}
