/* op_stencil.c — Jacobi iterations of the 2-D Poisson/heat problem on a
 * rows×cols grid (the UTD HPC workshop's hands-on):
 *
 *     p_new[1:-1,1:-1] = 0.25·(p[:-2,1:-1] + p[2:,1:-1] + p[1:-1,:-2] + p[1:-1,2:]
 *                              + dx²·f[1:-1,1:-1])
 *
 * with the boundary ring of p fixed (Dirichlet: it keeps p0's values) and
 * dx = 1/(cols−1). A repetition is `iters` sweeps starting from p0 (so every
 * repetition, and every backend, computes the same thing), and after every
 * `norm_every`-th sweep k the residual norm
 *
 *     norm_k = sqrt( Σ (p_new − p)² / Σ p_new² )      (over the interior)
 *
 * the relative L2 change the workshop's convergence test prints. There is no
 * early exit (a fixed iteration count keeps the work of a repetition fixed),
 * so no backend needs a norm before the end of the repetition.
 *
 * Counts per sweep (I = (rows−2)·(cols−2) interior points, s = element size):
 *   bytes  3·I·s: read p and f, write p_new, each once. This is the traffic
 *          of one pass per sweep with perfect reuse of the neighbours in
 *          cache; it is what the ceilings count too (STREAM triad on the CPU:
 *          two arrays read, one written; the device-to-device copy on the GPU:
 *          read + write), none of them counting write-allocate traffic.
 *   flops  6·I: four adds, a multiply by 0.25 and dx²·f (an FMA counted as
 *          two flops would be 7; the count uses 6), plus 4·I for each norm
 *          sweep (difference, two multiply-adds and the add of the norm).
 *
 * Verification: the op's own check reruns the same sweeps in double from the
 * same p0 and compares p (max |p − p_ref| / max |p_ref|) and every norm.
 * A sweep is an average with weights summing to 1, so rounding errors do not
 * grow through it: each sweep adds at most a few units of roundoff of max|p|,
 * and the grid's tolerance is T = 4·u·(iters + 4) (u = unit roundoff of the
 * dtype). A norm may be off by what the grid is off by, ||Δd||/||p|| ≤
 * 2·T·max|p|/rms(p) ≤ 6·T for p0 in [0.5, 1.5), plus the summation error of
 * Σd² and Σp² over I terms, accumulated in double by every backend: at most
 * (rows + cols) sequential additions in any of them (a row's SIMD lanes,
 * then rows, then threads or blocks), so 4·(rows + cols)·u64 relative to the
 * norm (seen: 1.5e-14 between the CPU's blocked sums and the reference at
 * 8192², 5 sweeps, above a bound without it). The norm's error is reported
 * scaled to the grid's tolerance (error = |Δnorm|·T / its own bound). A wrong
 * halo (a neighbour taken from the wrong row, a boundary value lost, a stale
 * value at a thread's block edge) is off by O(max|p|/4) at the first sweep
 * and stays far above that bound at the sizes the tests use. Against another
 * backend the same metric with twice the tolerance. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"
#include "rng.h"

enum { STREAM_P0 = 1, STREAM_F = 2 };

static const gb_param_spec params[] = {
    {"iters", GB_PARAM_INT, offsetof(gb_params, iters), 1, 1e7, NULL,
     "Jacobi sweeps per repetition (every repetition starts again from p0; default 100)"},
    {"norm_every", GB_PARAM_INT, offsetof(gb_params, norm_every), 1, 1e7, NULL,
     "compute the residual norm after every k-th sweep (default 1, as the workshop does)"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static int parse_size(const cJSON *size, gb_case *c, gb_err *e) {
    int s = gb_parse_shape(size, 2, c, e); /* n → n×n; [rows, cols] */
    if (s != GB_OK) return s;
    if (c->shape[0] < 3 || c->shape[1] < 3)
        return gb_errf(e, GB_FAIL, "a stencil grid needs at least 3×3 points (an interior), got %s", c->label);
    return GB_OK;
}

static void count(gb_case *c) {
    double I = (double)(c->shape[0] - 2) * (double)(c->shape[1] - 2);
    double iters = c->params.iters, norms = (double)gb_stencil_norm_count(&c->params);
    c->flops = 6.0 * I * iters + 4.0 * I * norms;
    c->bytes = 3.0 * I * gb_dtype_bytes(c->dtype) * iters;
}

static double host_bytes(const gb_case *c) {
    /* p0, f; two grids inside a backend, one fetched copy per backend, and
     * two double grids for the reference. */
    return (6.0 * gb_dtype_bytes(c->dtype) + 16.0) * gb_case_elements(c);
}

static int make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    size_t N = (size_t)c->shape[0] * (size_t)c->shape[1];
    gb_array *p0 = gb_arrays_add(in, "p0", gb_real_elem(c->dtype), N, e);
    if (!p0) return GB_SKIP;
    gb_array *f = gb_arrays_add(in, "f", gb_real_elem(c->dtype), N, e);
    if (!f) return GB_SKIP;
    /* p0 in [0.5, 1.5) everywhere, boundary included (never zero, so the norm
     * never divides by zero); f in [-1, 1): a source of both signs. */
    if (c->dtype == GB_FLOAT32) {
        gb_rng_fill_f32(p0->data, N, c->seed, STREAM_P0, 0.5, 1.5);
        gb_rng_fill_f32(f->data, N, c->seed, STREAM_F, -1.0, 1.0);
    } else {
        gb_rng_fill_f64(p0->data, N, c->seed, STREAM_P0, 0.5, 1.5);
        gb_rng_fill_f64(f->data, N, c->seed, STREAM_F, -1.0, 1.0);
    }
    return GB_OK;
}

static double at(const gb_array *a, size_t i) {
    return a->elem == GB_E_F32 ? ((const float *)a->data)[i] : ((const double *)a->data)[i];
}

/* The same sweeps in double: p (rows·cols) and norms (gb_stencil_norm_count). */
static int reference(const gb_case *c, const gb_array *p0, const gb_array *f, double **p_out, double *norms) {
    size_t R = (size_t)c->shape[0], C = (size_t)c->shape[1], N = R * C;
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *fd = malloc(N * sizeof *fd);
    if (!a || !b || !fd) {
        free(a), free(b), free(fd);
        return -1;
    }
    double h2 = gb_stencil_h2(c);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < N; i++) {
        a[i] = b[i] = at(p0, i);
        fd[i] = at(f, i);
    }
    size_t k = 0;
    for (int it = 1; it <= c->params.iters; it++) {
        int want = it % c->params.norm_every == 0;
        /* long double: the reference's own summation error stays far below
         * the backends' (its threads each add up to N/threads terms) */
        long double d2 = 0, p2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : d2, p2)
        for (size_t i = 1; i < R - 1; i++)
            for (size_t j = 1; j < C - 1; j++) {
                size_t x = i * C + j;
                double v = 0.25 * (a[x - C] + a[x + C] + a[x - 1] + a[x + 1] + h2 * fd[x]);
                d2 += (v - a[x]) * (v - a[x]);
                p2 += v * v;
                b[x] = v;
            }
        if (want) norms[k++] = (double)sqrtl(d2 / p2);
        double *t = a;
        a = b;
        b = t;
    }
    free(b);
    free(fd);
    *p_out = a;
    return 0;
}

static double tolerance(const gb_case *c) { return 4.0 * gb_eps(c->dtype) * (c->params.iters + 4.0); }

static void verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out, const gb_arrays *ref,
                   gb_verdict *v) {
    size_t R = (size_t)c->shape[0], C = (size_t)c->shape[1], N = R * C;
    size_t nn = gb_stencil_norm_count(&c->params);
    gb_elem el = gb_real_elem(c->dtype);
    memset(v, 0, sizeof *v);
    if (!ref) snprintf(v->against, sizeof v->against, "reference");
    snprintf(v->metric, sizeof v->metric, "max_rel_err");
    v->tolerance = tolerance(c) * (ref ? 2.0 : 1.0);
    const gb_array *p0 = gb_arrays_find(in, "p0"), *f = gb_arrays_find(in, "f");
    const gb_array *p = gb_arrays_find(out, "p"), *norms = gb_arrays_find(out, "norms");
    if (!p0 || !f || p0->count != N || f->count != N || p0->elem != el || f->elem != el)
        return gb_verdict_unmeasured(v, GB_VERIFY_FAILED, "inputs p0 and f missing or mis-sized");
    if (!p || p->count != N || p->elem != el || !norms || norms->count != nn || norms->elem != GB_E_F64)
        return gb_verdict_unmeasured(v, GB_VERIFY_FAILED, "outputs 'p' (rows·cols of the dtype) and 'norms' (float64) missing or mis-sized");
    double *want_p = NULL, *want_n = NULL;
    const gb_array *rp = NULL, *rn = NULL;
    if (ref) {
        rp = gb_arrays_find(ref, "p");
        rn = gb_arrays_find(ref, "norms");
        if (!rp || rp->count != N || rp->elem != el || !rn || rn->count != nn || rn->elem != GB_E_F64)
            return gb_verdict_unmeasured(v, GB_VERIFY_NOT_CHECKED, "reference outputs 'p' and 'norms' missing or mis-sized");
        want_n = rn->data;
    } else {
        want_n = malloc((nn ? nn : 1) * sizeof *want_n);
        if (!want_n || reference(c, p0, f, &want_p, want_n) != 0) {
            free(want_n);
            return gb_verdict_unmeasured(v, GB_VERIFY_NOT_CHECKED, "out of memory for the double-precision reference sweeps");
        }
    }
    /* The grid: max |p − ref| / max |ref|, NaN-aware (a point never written
     * keeps the NaN the backend poisoned it with). */
    double scale = 0, worst = 0;
    size_t where = 0;
#pragma omp parallel
    {
        double my_scale = 0, my_worst = 0;
        size_t my_where = 0;
#pragma omp for schedule(static) nowait
        for (size_t i = 0; i < N; i++) {
            double w = want_p ? want_p[i] : at(rp, i), d = fabs(at(p, i) - w);
            if (!(d <= INFINITY)) d = INFINITY;
            if (fabs(w) > my_scale) my_scale = fabs(w);
            if (d > my_worst) { my_worst = d; my_where = i; }
        }
#pragma omp critical(gb_stencil_verify)
        {
            if (my_scale > scale) scale = my_scale;
            if (my_worst > worst || (my_worst == worst && my_where < where)) { worst = my_worst; where = my_where; }
        }
    }
    double grid_err = worst / (scale > 0 ? scale : 1);
    double norm_err = 0, norm_scaled = 0;
    size_t norm_where = 0;
    for (size_t k = 0; k < nn; k++) {
        double d = fabs(((const double *)norms->data)[k] - want_n[k]);
        if (!(d <= INFINITY)) d = INFINITY;
        double bound = 6.0 * v->tolerance + 4.0 * (double)(R + C) * gb_eps(GB_FLOAT64) * fabs(want_n[k]);
        double scaled = d * v->tolerance / bound;
        if (scaled > norm_scaled) { norm_scaled = scaled; norm_err = d; norm_where = k; }
    }
    v->error = grid_err > norm_scaled ? grid_err : norm_scaled;
    v->status = v->error <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    snprintf(v->detail, sizeof v->detail,
             "after %d sweeps against %s: grid max|p−ref|/max|ref| = %.3g, worst at row %zu col %zu; "
             "%zu norms, worst |Δ| = %.3g (norm %zu; bound 6·tolerance + 4·(rows+cols)·u64·norm)",
             c->params.iters, ref ? "the other backend" : "double-precision sweeps", grid_err, where / C, where % C,
             nn, norm_err, norm_where + 1);
    if (!ref) {
        free(want_p);
        free(want_n);
    }
}

const gb_op gb_op_stencil = {
    .id = GB_OP_STENCIL,
    .name = "stencil",
    .summary = "Jacobi sweeps of the 2-D Poisson/heat problem, 5-point stencil, residual norm fused "
               "(size n = n×n grid or [rows,cols]); judged in GB/s",
    .rate_kind = "bytes",
    .params = params,
    .parse_size = parse_size,
    .count = count,
    .host_bytes = host_bytes,
    .make_inputs = make_inputs,
    .verify = verify,
};
