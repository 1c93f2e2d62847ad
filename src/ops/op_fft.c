/* op_fft.c — 2-D FFT of a real n×n array (catalogue entry).
 *
 * in:  x (n×n real, row-major), uniform in [-1, 1)
 * out: X — r2c: n×(n/2+1) complex (the non-redundant half spectrum, FFTW's
 *      layout); c2c: n×n complex (the real data promoted to complex by the
 *      backend in prepare). Unnormalised forward transform, sign -1.
 *
 * Reported against memory bandwidth (rate_kind "bytes"): a large 2-D FFT
 * makes O(log N) passes over an array that does not fit in cache, so GB/s is
 * the telling rate; GFLOP/s is kept with the usual convention. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"
#include "rng.h"

#define FFT_STREAM_X 0x4646540001ull

static const char *const kind_values[] = {"r2c", "c2c", NULL};
static const char *const planner_values[] = {"estimate", "measure", "patient", NULL};

static const gb_param_spec fft_params[] = {
    {"kind", GB_PARAM_ENUM, offsetof(gb_params, fft_kind), 0, 0, kind_values,
     "r2c: real-to-complex half spectrum (default); c2c: the real data promoted to complex, full spectrum"},
    {"planner", GB_PARAM_ENUM, offsetof(gb_params, fft_planner), 0, 0, planner_values,
     "FFTW planning rigour (default measure; cuFFT ignores it); planning time is setup time"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static size_t out_count(const gb_case *c) {
    size_t n = (size_t)c->shape[0];
    return c->params.fft_kind == GB_FFT_C2C ? n * n : n * (n / 2 + 1);
}

static void fft_count(gb_case *c) {
    double n = (double)c->shape[0], N = n * n;
    double lg = N > 1 ? log2(N) : 0;
    size_t real = gb_dtype_size(c->dtype);
    if (c->params.fft_kind == GB_FFT_C2C) {
        c->flops = 5.0 * N * lg;
        /* the transform reads the promoted complex array */
        c->bytes = N * 2 * real + (double)out_count(c) * 2 * real;
    } else {
        c->flops = 2.5 * N * lg;
        c->bytes = N * real + (double)out_count(c) * 2 * real;
    }
}

static double fft_host_bytes(const gb_case *c) {
    double n = (double)c->shape[0];
    size_t real = gb_dtype_size(c->dtype);
    /* input, two outputs (this backend's and a reference backend's), the
     * backend's own input/output buffers (c2c: promoted copy). */
    double out = (double)out_count(c) * 2 * real;
    return n * n * real * 2 + out * 3 + (c->params.fft_kind == GB_FFT_C2C ? n * n * 2 * real : 0);
}

static int fft_make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    size_t N = (size_t)c->shape[0] * (size_t)c->shape[0];
    gb_array *x = gb_arrays_add(in, "x", gb_real_elem(c->dtype), N, e);
    if (!x) return GB_SKIP;
    if (c->dtype == GB_FLOAT32)
        gb_rng_fill_f32(x->data, N, c->seed, FFT_STREAM_X, -1, 1);
    else
        gb_rng_fill_f64(x->data, N, c->seed, FFT_STREAM_X, -1, 1);
    return GB_OK;
}

static double x_at(const gb_array *x, size_t i) {
    return x->elem == GB_E_F32 ? ((const float *)x->data)[i] : ((const double *)x->data)[i];
}

static void X_at(const gb_array *X, size_t i, double *re, double *im) {
    if (X->elem == GB_E_C64) {
        *re = ((const float *)X->data)[2 * i];
        *im = ((const float *)X->data)[2 * i + 1];
    } else {
        *re = ((const double *)X->data)[2 * i];
        *im = ((const double *)X->data)[2 * i + 1];
    }
}

/* Twiddles w^j = exp(-2πi j/n), j < n, in long double: the index is reduced
 * mod n before use, so every product (r·k mod n) is exact. */
static int twiddles(size_t n, long double **cs, long double **sn) {
    *cs = malloc(n * sizeof **cs);
    *sn = malloc(n * sizeof **sn);
    if (!*cs || !*sn) {
        free(*cs);
        free(*sn);
        return -1;
    }
    const long double tau = 6.283185307179586476925286766559L;
    for (size_t j = 0; j < n; j++) {
        (*cs)[j] = cosl(tau * (long double)j / (long double)n);
        (*sn)[j] = -sinl(tau * (long double)j / (long double)n);
    }
    return 0;
}

/* Direct separable DFT in long double (O(n^3)): first along rows, then along
 * columns, for the kc output columns that the layout keeps. Independent of
 * FFTW (no fast algorithm, higher precision). Returns 0, or -1 out of memory. */
static int direct_dft(const gb_array *x, size_t n, size_t kc, long double *ref /* n×kc×2 */) {
    long double *cs, *sn;
    if (twiddles(n, &cs, &sn) != 0) return -1;
    long double *rows = malloc(n * kc * 2 * sizeof *rows);
    if (!rows) {
        free(cs);
        free(sn);
        return -1;
    }
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < n; r++)
        for (size_t k = 0; k < kc; k++) {
            long double re = 0, im = 0;
            for (size_t c = 0; c < n; c++) {
                size_t t = (c * k) % n;
                long double v = x_at(x, r * n + c);
                re += v * cs[t];
                im += v * sn[t];
            }
            rows[2 * (r * kc + k)] = re;
            rows[2 * (r * kc + k) + 1] = im;
        }
#pragma omp parallel for schedule(static)
    for (size_t k1 = 0; k1 < n; k1++)
        for (size_t k = 0; k < kc; k++) {
            long double re = 0, im = 0;
            for (size_t r = 0; r < n; r++) {
                size_t t = (r * k1) % n;
                long double a = rows[2 * (r * kc + k)], b = rows[2 * (r * kc + k) + 1];
                re += a * cs[t] - b * sn[t];
                im += a * sn[t] + b * cs[t];
            }
            ref[2 * (k1 * kc + k)] = re;
            ref[2 * (k1 * kc + k) + 1] = im;
        }
    free(rows);
    free(cs);
    free(sn);
    return 0;
}

/* One output entry X[k1][k2] by direct summation in long double (O(n^2)). */
static void direct_entry(const gb_array *x, size_t n, const long double *cs, const long double *sn,
                         size_t k1, size_t k2, double *ore, double *oim) {
    long double re = 0, im = 0;
#pragma omp parallel for schedule(static) reduction(+ : re, im)
    for (size_t r = 0; r < n; r++) {
        long double rr = 0, ri = 0;
        for (size_t c = 0; c < n; c++) {
            size_t t = (c * k2) % n;
            long double v = x_at(x, r * n + c);
            rr += v * cs[t];
            ri += v * sn[t];
        }
        size_t t = (r * k1) % n;
        re += rr * cs[t] - ri * sn[t];
        im += rr * sn[t] + ri * cs[t];
    }
    *ore = (double)re;
    *oim = (double)im;
}

/* Largest size checked against the full direct DFT; above it, Parseval plus
 * spot-checked entries (the direct DFT is O(n^3)). */
#define FFT_DIRECT_MAX 128
#define FFT_SPOTS 6

/* Tolerances. FFT round-off grows like eps·log2 N in the relative (norm-wise)
 * error (Higham, Accuracy and Stability of Numerical Algorithms, §24.1); we
 * compare elements relative to the largest |X|, which is at least the rms
 * element, so the same form holds with a small constant. 4·eps·log2 N for one
 * output against an exact reference; twice that for two outputs that both
 * carry round-off. */
static double fft_tol(const gb_case *c, double factor) {
    double N = (double)c->shape[0] * (double)c->shape[0];
    double lg = N > 2 ? log2(N) : 1;
    return factor * gb_eps(c->dtype) * (lg + 2);
}

static void fft_verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out,
                       const gb_arrays *ref, gb_verdict *v) {
    size_t n = (size_t)c->shape[0];
    int c2c = c->params.fft_kind == GB_FFT_C2C;
    size_t kc = c2c ? n : n / 2 + 1;
    const gb_array *x = gb_arrays_find(in, "x");
    const gb_array *X = gb_arrays_find(out, "X");
    memset(v, 0, sizeof *v);
    v->status = GB_VERIFY_FAILED;
    snprintf(v->metric, sizeof v->metric, "max_rel_err");
    if (!x || !X || X->count != n * kc || X->elem != gb_complex_elem(c->dtype)) {
        snprintf(v->against, sizeof v->against, "reference");
        v->error = INFINITY;
        /* "complex64": numpy's name, the bits of one (re, im) pair */
        snprintf(v->detail, sizeof v->detail, "output X missing or not %zu×%zu complex%zu", n, kc,
                 8 * gb_elem_size(gb_complex_elem(c->dtype)));
        return;
    }
    const gb_array *R = ref ? gb_arrays_find(ref, "X") : NULL;
    if (R) {
        size_t where = 0;
        /* against left empty: the runner names the reference backend */
        v->error = gb_max_rel_err(X, R, &where);
        v->tolerance = fft_tol(c, 8);
        v->status = v->error <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
        if (v->status == GB_VERIFY_FAILED)
            snprintf(v->detail, sizeof v->detail, "worst element X[%zu][%zu]", where / kc, where % kc);
        return;
    }
    snprintf(v->against, sizeof v->against, "reference");
    v->tolerance = fft_tol(c, 4);
    if (n <= FFT_DIRECT_MAX) {
        long double *d = malloc(n * kc * 2 * sizeof *d);
        if (!d || direct_dft(x, n, kc, d) != 0) {
            free(d);
            v->status = GB_VERIFY_NOT_CHECKED;
            snprintf(v->detail, sizeof v->detail, "out of memory for the direct DFT");
            return;
        }
        double scale = 0, worst = 0;
        size_t where = 0;
        for (size_t i = 0; i < n * kc; i++) scale = fmax(scale, (double)hypotl(d[2 * i], d[2 * i + 1]));
        if (scale == 0) scale = 1;
        for (size_t i = 0; i < n * kc; i++) {
            double re, im;
            X_at(X, i, &re, &im);
            double err = hypot(re - (double)d[2 * i], im - (double)d[2 * i + 1]);
            if (isnan(err)) err = INFINITY;
            if (err > worst) {
                worst = err;
                where = i;
            }
        }
        free(d);
        v->error = worst / scale;
        v->status = v->error <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
        snprintf(v->detail, sizeof v->detail, "direct DFT (long double), all %zu entries%s", n * kc,
                 v->status == GB_VERIFY_FAILED ? "; worst at" : "");
        if (v->status == GB_VERIFY_FAILED) {
            size_t len = strlen(v->detail);
            snprintf(v->detail + len, sizeof v->detail - len, " X[%zu][%zu]", where / kc, where % kc);
        }
        return;
    }

    /* Parseval: N·Σ|x|² = Σ over the full spectrum |X|². In the r2c half
     * spectrum every column 0 < k2 < n - k2 stands for itself and its
     * conjugate mirror, so it counts twice; k2 = 0 and (n even) k2 = n/2 are
     * their own mirrors and count once. */
    /* Sums in long double: a double sum of N terms would itself carry an
     * error of order sqrt(N)·eps, the size of the float64 tolerance. */
    long double ex = 0, eX = 0;
    double maxX = 0;
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : ex)
    for (size_t i = 0; i < n * n; i++) ex += (long double)x_at(x, i) * x_at(x, i);
#pragma omp parallel for schedule(static) reduction(+ : eX, bad) reduction(max : maxX)
    for (size_t i = 0; i < n * kc; i++) {
        double re, im;
        X_at(X, i, &re, &im);
        size_t k2 = i % kc;
        double w = (c2c || k2 == 0 || 2 * k2 == n) ? 1 : 2;
        long double m2 = (long double)re * re + (long double)im * im;
        if (!isfinite(re) || !isfinite(im)) bad++;
        eX += w * m2;
        double m = hypot(re, im);
        if (m > maxX) maxX = m;
    }
    if (bad) {
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "%d non-finite output entries", bad);
        return;
    }
    long double N = (long double)n * (long double)n;
    double parseval = (double)(fabsl(eX - N * ex) / (N * ex));
    /* Spot checks: fixed positions that exercise the DC term, the Nyquist
     * column and row, plus seeded random ones. */
    long double *cs, *sn;
    if (twiddles(n, &cs, &sn) != 0) {
        v->status = GB_VERIFY_NOT_CHECKED;
        snprintf(v->detail, sizeof v->detail, "out of memory for twiddles");
        return;
    }
    size_t spots[FFT_SPOTS][2] = {{0, 0}, {0, n / 2}, {n / 2, 1}, {1, kc - 1}, {0, 0}, {0, 0}};
    for (int s = 4; s < FFT_SPOTS; s++) {
        spots[s][0] = gb_rng_bits(c->seed, 0x5350u, (uint64_t)s) % n;
        spots[s][1] = gb_rng_bits(c->seed, 0x5351u, (uint64_t)s) % kc;
    }
    double spot = 0;
    size_t spot_at = 0;
    for (int s = 0; s < FFT_SPOTS; s++) {
        double dre, dim, re, im;
        direct_entry(x, n, cs, sn, spots[s][0], spots[s][1], &dre, &dim);
        X_at(X, spots[s][0] * kc + spots[s][1], &re, &im);
        double err = hypot(re - dre, im - dim) / (maxX > 0 ? maxX : 1);
        if (isnan(err)) err = INFINITY;
        if (err > spot) {
            spot = err;
            spot_at = (size_t)s;
        }
    }
    free(cs);
    free(sn);
    /* Parseval compares squared norms: its relative error is about twice the
     * norm-wise error, hence the doubled bound. */
    double ratio_p = parseval / (2 * v->tolerance), ratio_s = spot / v->tolerance;
    if (ratio_p > ratio_s) {
        snprintf(v->metric, sizeof v->metric, "parseval_rel_err");
        v->error = parseval;
        v->tolerance *= 2;
    } else {
        v->error = spot;
    }
    v->status = (ratio_p <= 1 && ratio_s <= 1) ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    snprintf(v->detail, sizeof v->detail,
             "Parseval rel err %.3g; %d direct-DFT spot checks, worst %.3g at X[%zu][%zu]", parseval,
             FFT_SPOTS, spot, spots[spot_at][0], spots[spot_at][1]);
}

const gb_op gb_op_fft = {
    .id = GB_OP_FFT,
    .name = "fft",
    .summary = "2-D FFT of a real n×n array (r2c half spectrum, or c2c)",
    .rate_kind = "bytes",
    .params = fft_params,
    .parse_size = gb_parse_square_size,
    .count = fft_count,
    .host_bytes = fft_host_bytes,
    .make_inputs = fft_make_inputs,
    .verify = fft_verify,
};

/* The 2-D FFT by cuFFT's multi-GPU plans (cufftXtSetGPUs) over `gpus`
 * devices. cuFFT spreads a transform over 2 or more GPUs only; multi-GPU
 * 2-D plans are complex-to-complex here (a multi-GPU real transform needs a
 * padded in-place layout of its own), so the case is the fft op's c2c case:
 * made and checked exactly as fft with kind c2c. */
static const gb_param_spec xt_params[] = {
    GB_PARAM_GPUS,
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

/* Params are read before the size (suite.c): fix the kind here, where the
 * case is still being built. */
static int xt_parse_size(const cJSON *size, gb_case *c, gb_err *e) {
    c->params.fft_kind = GB_FFT_C2C;
    return gb_parse_square_size(size, c, e);
}

const gb_op gb_op_fft_xt = {
    .id = GB_OP_FFT_XT,
    .name = "fft_xt",
    .summary = "2-D c2c FFT by cuFFT multi-GPU plans over `gpus` devices (needs gpus >= 2)",
    .rate_kind = "bytes",
    .params = xt_params,
    .parse_size = xt_parse_size,
    .count = fft_count,
    .host_bytes = fft_host_bytes,
    .make_inputs = fft_make_inputs,
    .verify = fft_verify,
    .multi_device = 1,
};
