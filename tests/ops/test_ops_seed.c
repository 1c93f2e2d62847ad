/* test_ops_seed.c — stencil and slicing: work counts, params, the CPU
 * implementations against naive references, and verify() rejecting wrong
 * answers (a wrong halo, a stale halo at a block seam, a misplaced element). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "backend.h"
#include "op.h"
#include "suite.h"
#include "testlib_ops.h"
#include "testlib.h"

extern const gb_op gb_op_stencil, gb_op_slicing;

static gb_case make_case(const gb_op *op, const char *size_json, gb_dtype dt, const gb_params *p) {
    gb_case c;
    memset(&c, 0, sizeof c);
    c.op_id = op->id;
    c.op = op;
    c.dtype = dt;
    if (p) c.params = *p;
    else gb_params_default(&c.params);
    c.seed = 7;
    cJSON *j = cJSON_Parse(size_json);
    gb_err e;
    CHECK(op->parse_size(j, &c, &e) == GB_OK);
    cJSON_Delete(j);
    op->count(&c);
    return c;
}

/* Inputs → CPU backend (prepare, one run, fetch, release) → out. */
static int cpu_compute(const gb_case *c, const gb_arrays *in, gb_arrays *out) {
    gb_err e = {{0}};
    /* twice: a second repetition must start from p0 again, not continue */
    return gb_test_run_cpu(c, in, out, 2, &e);
}

static double value(const gb_array *a, size_t i) {
    return a->elem == GB_E_F32 ? ((const float *)a->data)[i] : ((const double *)a->data)[i];
}
static void set_value(gb_array *a, size_t i, double v) {
    if (a->elem == GB_E_F32) ((float *)a->data)[i] = (float)v;
    else ((double *)a->data)[i] = v;
}

static gb_verify_status verdict(const gb_case *c, const gb_arrays *in, const gb_arrays *out, const gb_arrays *ref) {
    gb_verdict v;
    c->op->verify(c, in, out, ref, &v);
    return v.status;
}

static gb_params stencil_params(int iters, int norm_every) {
    gb_params p;
    gb_params_default(&p);
    p.iters = iters;
    p.norm_every = norm_every;
    return p;
}

/* ---- counts and params ------------------------------------------------- */

TEST(ops_seed_counts) {
    gb_params p = stencil_params(10, 5);
    gb_case c = make_case(&gb_op_stencil, "[12,22]", GB_FLOAT64, &p);
    double I = 10.0 * 20.0;
    CHECK(c.shape[0] == 12 && c.shape[1] == 22 && strcmp(c.label, "12x22") == 0);
    CHECK_NEAR(c.bytes, 3.0 * I * 8 * 10, 0);
    CHECK_NEAR(c.flops, 6.0 * I * 10 + 4.0 * I * 2, 0);
    CHECK(gb_stencil_norm_count(&c.params) == 2);
    CHECK(strcmp(gb_op_stencil.rate_kind, "bytes") == 0);
    c = make_case(&gb_op_stencil, "256", GB_FLOAT32, NULL); /* defaults: 100 sweeps, a norm each */
    CHECK(c.params.iters == 100 && c.params.norm_every == 1 && gb_stencil_norm_count(&c.params) == 100);
    CHECK_NEAR(c.bytes, 3.0 * 254 * 254 * 4 * 100, 0);

    /* A grid without an interior is refused with the reason. */
    gb_case bad;
    memset(&bad, 0, sizeof bad);
    gb_err e;
    cJSON *j = cJSON_Parse("[2,50]");
    CHECK(gb_op_stencil.parse_size(j, &bad, &e) == GB_FAIL && strstr(e.msg, "3×3"));
    cJSON_Delete(j);

    gb_params q;
    gb_params_default(&q);
    CHECK(q.slice_kind == GB_SLICE_STRIDE2);
    c = make_case(&gb_op_slicing, "[5,7]", GB_FLOAT32, &q);
    /* even rows 0, 2, 4 read whole (3·7), the 3×4 output written */
    CHECK_NEAR(c.bytes, (3.0 * 7 + 12) * 4, 0);
    CHECK_NEAR(c.flops, 0, 0);
    q.slice_kind = GB_SLICE_TRANSPOSE;
    c = make_case(&gb_op_slicing, "[5,7]", GB_FLOAT64, &q);
    CHECK_NEAR(c.bytes, 2.0 * 35 * 8, 0);
    int64_t r, k;
    gb_slicing_out_shape(&c, &r, &k);
    CHECK(r == 7 && k == 5);

    /* The params tables as a suite sees them. */
    CHECK(strcmp(gb_op_stencil.params[0].key, "iters") == 0 && strcmp(gb_op_stencil.params[1].key, "norm_every") == 0);
    CHECK(gb_op_stencil.params[0].min == 1 && gb_op_stencil.params[1].min == 1);
    CHECK(strcmp(gb_op_slicing.params[0].key, "kind") == 0 && gb_op_slicing.params[0].type == GB_PARAM_ENUM);
    CHECK(strcmp(gb_op_slicing.params[0].values[1], "transpose") == 0 && !gb_op_slicing.params[0].values[2]);
}

/* ---- stencil ----------------------------------------------------------- */

/* The workshop's loop, literally: a copy of p, then the interior update,
 * in double; norms as the op defines them. */
static void naive_jacobi(const gb_case *c, const gb_array *p0, const gb_array *f, double *p, double *norms) {
    size_t R = (size_t)c->shape[0], C = (size_t)c->shape[1], N = R * C;
    double *pn = malloc(N * sizeof *pn), h2 = 1.0 / ((C - 1.0) * (C - 1.0));
    for (size_t i = 0; i < N; i++) p[i] = value(p0, i);
    size_t k = 0;
    for (int it = 1; it <= c->params.iters; it++) {
        memcpy(pn, p, N * sizeof *pn);
        for (size_t i = 1; i + 1 < R; i++)
            for (size_t j = 1; j + 1 < C; j++)
                p[i * C + j] = 0.25 * (pn[(i - 1) * C + j] + pn[(i + 1) * C + j] + pn[i * C + j - 1] +
                                       pn[i * C + j + 1] + h2 * value(f, i * C + j));
        if (it % c->params.norm_every == 0) {
            double d = 0, s = 0;
            for (size_t i = 0; i < N; i++) {
                d += (p[i] - pn[i]) * (p[i] - pn[i]);
                s += (i / C == 0 || i / C == R - 1 || i % C == 0 || i % C == C - 1) ? 0 : p[i] * p[i];
            }
            norms[k++] = sqrt(d / s);
        }
    }
    free(pn);
}

TEST(ops_seed_stencil_cpu_matches_naive_jacobi) {
    static const char *const sizes[] = {"[3,3]", "[5,9]", "[37,101]", "64"};
    for (int d = 0; d < 2; d++)
        for (int z = 0; z < 4; z++) {
            gb_dtype dt = d ? GB_FLOAT64 : GB_FLOAT32;
            gb_params p = stencil_params(z == 2 ? 7 : 12, z == 2 ? 3 : 1);
            gb_case c = make_case(&gb_op_stencil, sizes[z], dt, &p);
            gb_arrays in = {0}, out = {0};
            gb_err e;
            CHECK(gb_op_stencil.make_inputs(&c, &in, &e) == GB_OK);
            CHECK(cpu_compute(&c, &in, &out) == GB_OK);
            const gb_array *o = gb_arrays_find(&out, "p"), *nr = gb_arrays_find(&out, "norms");
            size_t N = (size_t)c.shape[0] * (size_t)c.shape[1], nn = gb_stencil_norm_count(&c.params);
            CHECK(o && o->count == N && nr && nr->count == nn);
            if (!o || !nr) continue;
            double *want = malloc(N * sizeof *want), wn[16];
            naive_jacobi(&c, gb_arrays_find(&in, "p0"), gb_arrays_find(&in, "f"), want, wn);
            double worst = 0, worst_n = 0;
            for (size_t i = 0; i < N; i++) worst = fmax(worst, fabs(value(o, i) - want[i]));
            for (size_t k = 0; k < nn; k++) worst_n = fmax(worst_n, fabs(((double *)nr->data)[k] - wn[k]));
            /* values are O(1): a few units of roundoff per sweep at most */
            CHECK(worst <= 4 * gb_eps(dt) * (c.params.iters + 4));
            CHECK(worst_n <= 4 * gb_eps(dt) * (c.params.iters + 4));
            CHECK(nn == 0 || ((double *)nr->data)[0] > 1e-3); /* random p0: the first sweep moves it */
            CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_PASSED);
            CHECK(verdict(&c, &in, &out, &out) == GB_VERIFY_PASSED);
            free(want);
            gb_arrays_free(&in);
            gb_arrays_free(&out);
        }
}

/* Run the CPU backend on rows [r0, r1] of the full case's inputs (a
 * sub-grid whose first and last rows are its fixed boundary) into p. */
static void cpu_subgrid(const gb_case *full, const gb_arrays *in, size_t r0, size_t r1, gb_arrays *out) {
    size_t C = (size_t)full->shape[1], rows = r1 - r0 + 1, es = gb_elem_size(gb_real_elem(full->dtype));
    char size[64];
    snprintf(size, sizeof size, "[%zu,%zu]", rows, C);
    gb_case c = make_case(&gb_op_stencil, size, full->dtype, &full->params);
    gb_arrays sub = {0};
    gb_err e;
    const char *names[2] = {"p0", "f"};
    for (int a = 0; a < 2; a++) {
        const gb_array *src = gb_arrays_find(in, names[a]);
        gb_array *dst = gb_arrays_add(&sub, names[a], src->elem, rows * C, &e);
        memcpy(dst->data, (const char *)src->data + r0 * C * es, rows * C * es);
    }
    CHECK(cpu_compute(&c, &sub, out) == GB_OK);
    gb_arrays_free(&sub);
}

TEST(ops_seed_stencil_wrong_halo_fails_verification) {
    for (int d = 0; d < 2; d++) {
        gb_dtype dt = d ? GB_FLOAT64 : GB_FLOAT32;
        gb_params p = stencil_params(10, 1);
        gb_case c = make_case(&gb_op_stencil, "[40,48]", dt, &p);
        size_t R = 40, C = 48, N = R * C, es = gb_elem_size(gb_real_elem(dt));
        gb_arrays in = {0}, out = {0}, wrong_in = {0}, wrong = {0};
        gb_err e;
        CHECK(gb_op_stencil.make_inputs(&c, &in, &e) == GB_OK);
        CHECK(cpu_compute(&c, &in, &out) == GB_OK);
        CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_PASSED);

        /* 1. The halo taken from the wrong row: the sweeps see row 1 as the
         *    top boundary instead of row 0. */
        gb_array *p0 = gb_arrays_find(&in, "p0");
        gb_array *wp = gb_arrays_add(&wrong_in, "p0", p0->elem, N, &e);
        gb_array *wf = gb_arrays_add(&wrong_in, "f", p0->elem, N, &e);
        memcpy(wp->data, p0->data, N * es);
        memcpy(wf->data, gb_arrays_find(&in, "f")->data, N * es);
        memcpy(wp->data, (char *)p0->data + C * es, C * es);
        CHECK(cpu_compute(&c, &wrong_in, &wrong) == GB_OK);
        memcpy(gb_arrays_find(&wrong, "p")->data, p0->data, C * es); /* even with the right boundary row reported */
        CHECK(verdict(&c, &in, &wrong, NULL) == GB_VERIFY_FAILED);
        CHECK(verdict(&c, &in, &wrong, &out) == GB_VERIFY_FAILED);
        gb_arrays_free(&wrong);

        /* 2. A stale halo: two halves swept separately, each holding the
         *    other's edge row at its initial value (no halo exchange). */
        gb_arrays top = {0}, bottom = {0};
        size_t h = R / 2;
        cpu_subgrid(&c, &in, 0, h, &top);         /* rows 0..h, row h fixed */
        cpu_subgrid(&c, &in, h - 1, R - 1, &bottom); /* rows h-1..R-1, row h-1 fixed */
        gb_array *sp = gb_arrays_add(&wrong, "p", p0->elem, N, &e);
        gb_arrays_add_copy(&wrong, "norms", GB_E_F64, 10, gb_arrays_find(&out, "norms")->data, &e);
        memcpy(sp->data, gb_arrays_find(&top, "p")->data, h * C * es);
        memcpy((char *)sp->data + h * C * es, (char *)gb_arrays_find(&bottom, "p")->data + C * es, (R - h) * C * es);
        CHECK(verdict(&c, &in, &wrong, NULL) == GB_VERIFY_FAILED);
        CHECK(verdict(&c, &in, &wrong, &out) == GB_VERIFY_FAILED);
        gb_arrays_free(&top);
        gb_arrays_free(&bottom);

        /* 3. A boundary point overwritten by a sweep, a NaN left inside, one
         *    norm wrong, a sweep too few. */
        gb_array *W = gb_arrays_find(&wrong, "p");
        gb_array *o = gb_arrays_find(&out, "p");
        memcpy(W->data, o->data, N * es);
        CHECK(verdict(&c, &in, &wrong, NULL) == GB_VERIFY_PASSED); /* the copy itself passes */
        set_value(W, 5, 0.25 * (value(o, 5 + C) + value(o, 4) + value(o, 6)));
        CHECK(verdict(&c, &in, &wrong, NULL) == GB_VERIFY_FAILED);
        memcpy(W->data, o->data, N * es);
        set_value(W, 3 * C + 7, NAN);
        CHECK(verdict(&c, &in, &wrong, NULL) == GB_VERIFY_FAILED);
        memcpy(W->data, o->data, N * es);
        ((double *)gb_arrays_find(&wrong, "norms")->data)[9] *= 1.1;
        CHECK(verdict(&c, &in, &wrong, NULL) == GB_VERIFY_FAILED);
        gb_case fewer = c;
        fewer.params.iters = 9;
        gb_arrays nine = {0};
        CHECK(cpu_compute(&fewer, &in, &nine) == GB_OK);
        memcpy(W->data, gb_arrays_find(&nine, "p")->data, N * es);
        memcpy(gb_arrays_find(&wrong, "norms")->data, gb_arrays_find(&out, "norms")->data, 10 * sizeof(double));
        CHECK(verdict(&c, &in, &wrong, NULL) == GB_VERIFY_FAILED);
        gb_arrays_free(&nine);
        gb_arrays_free(&wrong);
        gb_arrays_free(&wrong_in);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
}

/* ---- slicing ----------------------------------------------------------- */

TEST(ops_seed_slicing_cpu_exact_and_verify_rejects_wrong_answers) {
    static const char *const sizes[] = {"[1,1]", "[1,7]", "[7,1]", "[37,101]", "[130,67]", "128"};
    for (int kind = 0; kind < 2; kind++)
        for (int d = 0; d < 2; d++)
            for (int z = 0; z < 6; z++) {
                gb_params p;
                gb_params_default(&p);
                p.slice_kind = kind;
                gb_dtype dt = d ? GB_FLOAT64 : GB_FLOAT32;
                gb_case c = make_case(&gb_op_slicing, sizes[z], dt, &p);
                gb_arrays in = {0}, out = {0};
                gb_err e;
                CHECK(gb_op_slicing.make_inputs(&c, &in, &e) == GB_OK);
                CHECK(cpu_compute(&c, &in, &out) == GB_OK);
                const gb_array *x = gb_arrays_find(&in, "x");
                gb_array *y = gb_arrays_find(&out, "y");
                int64_t orr, oc;
                gb_slicing_out_shape(&c, &orr, &oc);
                size_t R = (size_t)c.shape[0], C = (size_t)c.shape[1];
                CHECK(y && y->count == (size_t)(orr * oc));
                if (!y) continue;
                int exact = 1;
                for (size_t r = 0; r < (size_t)orr; r++)
                    for (size_t k = 0; k < (size_t)oc; k++)
                        exact &= value(y, r * oc + k) == value(x, kind ? k * C + r : 2 * r * C + 2 * k);
                CHECK(exact);
                CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_PASSED);
                CHECK(verdict(&c, &in, &out, &out) == GB_VERIFY_PASSED);
                size_t M = y->count, last = M - 1;
                double keep = value(y, last);
                set_value(y, last, NAN); /* the last element never written */
                CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_FAILED);
                set_value(y, last, keep);
                if (M > 1) { /* two elements swapped */
                    double a = value(y, 0);
                    set_value(y, 0, value(y, 1));
                    set_value(y, 1, a);
                    CHECK(verdict(&c, &in, &out, NULL) == GB_VERIFY_FAILED);
                    set_value(y, 1, value(y, 0));
                    set_value(y, 0, a);
                }
                if (R > 1 && C > 1) { /* the other kind's answer is not this one's */
                    gb_case other = c;
                    other.params.slice_kind = !kind;
                    gb_arrays o2 = {0};
                    other.op->count(&other);
                    CHECK(cpu_compute(&other, &in, &o2) == GB_OK);
                    CHECK(verdict(&c, &in, &o2, NULL) == GB_VERIFY_FAILED);
                    gb_arrays_free(&o2);
                }
                gb_arrays_free(&in);
                gb_arrays_free(&out);
            }
}

TEST(ops_seed_suites_parse) {
    /* The suites that carry the new ops load and plan them. */
    static const char *const files[] = {"suites/workshop.json", "suites/pybench.json"};
    for (int i = 0; i < 2; i++) {
        gb_suite s;
        gb_err e;
        memset(&s, 0, sizeof s);
        int st = gb_suite_load(files[i], NULL, &s, &e);
        CHECK(st == GB_OK);
        if (st != GB_OK) {
            fprintf(stderr, "    %s: %s\n", files[i], e.msg);
            continue;
        }
        int stencil = 0, slicing = 0;
        for (size_t k = 0; k < s.count; k++) {
            stencil += s.items[k].c.op_id == GB_OP_STENCIL;
            slicing += s.items[k].c.op_id == GB_OP_SLICING;
        }
        CHECK(stencil > 0);
        CHECK(i == 0 || slicing > 0);
        gb_suite_free(&s);
    }
}
