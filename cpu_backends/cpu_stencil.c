/* cpu_stencil.c — Jacobi sweeps of the 5-point Poisson/heat stencil: one
 * threaded, vectorized pass over the grid per sweep, with the residual norm
 * fused into the pass (no second pass over the grid for it).
 *
 * Threads: the whole repetition runs inside ONE OpenMP parallel region, the
 * rows of each sweep split statically (the same rows per thread every sweep,
 * so a thread's rows stay in its caches on small grids), with the loop's
 * barrier between sweeps. One region per sweep would cost a fork and a join
 * per sweep, and where the user has OMP_WAIT_POLICY=PASSIVE a worker's
 * wake-up of tens of microseconds — more than a whole sweep of the
 * workshop's 256² grid.
 *
 * Vectorization: the inner loop over a row is `omp simd` with the two norm
 * sums as SIMD reductions in double (per-lane partial sums, then per row and
 * per thread; float32 values are widened, which costs nothing visible in a
 * loop bound by memory, and keeps the sums within what verify() allows),
 * compiled for AVX-512F, AVX2 and the x86-64 baseline by function
 * multiversioning as in cpu_elementwise.c.
 *
 * Buffers: p0 (the input) is only read; sweeps alternate between the output
 * grid p and a scratch grid, starting so that the last sweep writes p, and
 * the first sweep reads p0 itself: no copy restores p0 before a repetition.
 * Both grids carry p0's boundary ring from prepare on, which no sweep
 * writes; p's interior is NaN until a sweep writes it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "timer.h"

#define ST_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

/* Per-thread norm partials, one cache line each (no false sharing). */
typedef struct {
    double d2, p2;
    char pad[48];
} st_partial;

/* One repetition: iters sweeps from p0, ending in bufs[0]; norms[k] after
 * sweep (k+1)·norm_every. T is float or double. */
#define ST_SWEEPS(T, NAME)                                                                            \
    ST_CLONES static void NAME(const T *restrict p0, const T *restrict f, T *bufs[2], size_t R, size_t C, \
                               T h2, int iters, int norm_every, double *norms, st_partial *part,          \
                               int threads) {                                                             \
    _Pragma("omp parallel num_threads(threads)") {                                                        \
        int tid = omp_get_thread_num();                                                                   \
        for (int it = 1; it <= iters; it++) {                                                             \
            /* the last sweep (it == iters) writes bufs[0] */                                             \
            const T *restrict src = it == 1 ? p0 : bufs[(iters - it + 1) & 1];                            \
            T *restrict dst = bufs[(iters - it) & 1];                                                     \
            int norm = it % norm_every == 0;                                                              \
            double d2 = 0, p2 = 0;                                                                        \
            _Pragma("omp for schedule(static) nowait") for (size_t i = 1; i < R - 1; i++) {               \
                const T *restrict up = src + (i - 1) * C, *restrict mid = src + i * C;                    \
                const T *restrict dn = src + (i + 1) * C, *restrict fr = f + i * C;                       \
                T *restrict o = dst + i * C;                                                              \
                if (norm) {                                                                               \
                    double rd = 0, rp = 0;                                                                \
                    _Pragma("omp simd reduction(+ : rd, rp)") for (size_t j = 1; j < C - 1; j++) {        \
                        T v = (T)0.25 * (up[j] + dn[j] + mid[j - 1] + mid[j + 1] + h2 * fr[j]);           \
                        double d = (double)v - (double)mid[j];                                            \
                        rd += d * d;                                                                      \
                        rp += (double)v * (double)v;                                                      \
                        o[j] = v;                                                                         \
                    }                                                                                     \
                    d2 += rd;                                                                             \
                    p2 += rp;                                                                             \
                } else {                                                                                  \
                    _Pragma("omp simd") for (size_t j = 1; j < C - 1; j++) o[j] =                         \
                        (T)0.25 * (up[j] + dn[j] + mid[j - 1] + mid[j + 1] + h2 * fr[j]);                 \
                }                                                                                         \
            }                                                                                             \
            if (norm) {                                                                                   \
                part[tid].d2 = d2;                                                                        \
                part[tid].p2 = p2;                                                                        \
            }                                                                                             \
            /* the next sweep reads what this one wrote */                                                \
            _Pragma("omp barrier") if (norm) {                                                            \
                _Pragma("omp single") {                                                                   \
                    double sd = 0, sp = 0;                                                                \
                    for (int t = 0; t < omp_get_num_threads(); t++) {                                     \
                        sd += part[t].d2;                                                                 \
                        sp += part[t].p2;                                                                 \
                    }                                                                                     \
                    norms[it / norm_every - 1] = sqrt(sd / sp);                                           \
                }                                                                                         \
            }                                                                                             \
        }                                                                                                 \
    }                                                                                                     \
    }

ST_SWEEPS(float, sweeps_f32)
ST_SWEEPS(double, sweeps_f64)

typedef struct {
    gb_dtype dtype;
    size_t R, C;
    const void *p0, *f;
    gb_arrays out;      /* "p", "norms", owned here */
    void *scratch;      /* the other grid */
    st_partial *part;
    double h2;
    int iters, norm_every, threads;
} st_state;

static int st_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    size_t R = (size_t)c->shape[0], C = (size_t)c->shape[1], N = R * C;
    gb_elem el = gb_real_elem(c->dtype);
    size_t es = gb_elem_size(el);
    const gb_array *p0 = gb_arrays_find(in, "p0"), *f = gb_arrays_find(in, "f");
    if (!p0 || !f || p0->elem != el || f->elem != el || p0->count != N || f->count != N)
        return gb_errf(e, GB_FAIL, "stencil: inputs p0, f (%zu %s) missing or mis-sized", N, gb_dtype_name(c->dtype));
    st_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "stencil: out of host memory");
    s->dtype = c->dtype;
    s->R = R;
    s->C = C;
    s->p0 = p0->data;
    s->f = f->data;
    s->h2 = gb_stencil_h2(c);
    s->iters = c->params.iters;
    s->norm_every = c->params.norm_every;
    s->threads = gb_cpu_threads(); /* until cpu_team.c chooses */
    gb_array *p = gb_arrays_add(&s->out, "p", el, N, e);
    gb_array *nr = p ? gb_arrays_add(&s->out, "norms", GB_E_F64, gb_stencil_norm_count(&c->params), e) : NULL;
    s->scratch = gb_alloc(N * es);
    s->part = gb_alloc((size_t)s->threads * sizeof *s->part);
    if (!p || !nr || !s->scratch || !s->part) {
        gb_arrays_free(&s->out);
        gb_free(s->scratch);
        gb_free(s->part);
        free(s);
        return gb_errf(e, GB_SKIP, "stencil: out of host memory for the grids");
    }
    gb_array_poison(nr);
    /* First touch with the sweeps' row split: the scratch grid holds p0, p
     * its boundary ring (columns 0 and C−1 and rows 0 and R−1) and NaN inside. */
    char *pd = p->data, *sd = s->scratch;
    const char *src = p0->data;
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (size_t i = 0; i < R; i++) {
        memcpy(sd + i * C * es, src + i * C * es, C * es);
        if (i == 0 || i == R - 1) {
            memcpy(pd + i * C * es, src + i * C * es, C * es);
        } else {
            if (el == GB_E_F32)
                for (size_t j = 1; j < C - 1; j++) ((float *)pd)[i * C + j] = NAN;
            else
                for (size_t j = 1; j < C - 1; j++) ((double *)pd)[i * C + j] = NAN;
            memcpy(pd + i * C * es, src + i * C * es, es);
            memcpy(pd + (i * C + C - 1) * es, src + (i * C + C - 1) * es, es);
        }
    }
    *state = s;
    return GB_OK;
}

static int st_run(void *state, int timing, double *seconds, gb_err *e) {
    st_state *s = state;
    void *bufs[2] = {s->out.item[0].data, s->scratch};
    double *norms = s->out.item[1].data;
    double t0 = gb_now();
    if (s->dtype == GB_FLOAT32)
        sweeps_f32(s->p0, s->f, (float **)bufs, s->R, s->C, (float)s->h2, s->iters, s->norm_every, norms, s->part,
                   s->threads);
    else
        sweeps_f64(s->p0, s->f, (double **)bufs, s->R, s->C, s->h2, s->iters, s->norm_every, norms, s->part,
                   s->threads);
    *seconds = gb_now() - t0;
    return GB_OK;
}

static int st_fetch(void *state, gb_arrays *out, gb_err *e) {
    st_state *s = state;
    for (int i = 0; i < s->out.count; i++) {
        const gb_array *a = &s->out.item[i];
        if (!gb_arrays_add_copy(out, a->name, a->elem, a->count, a->data, e)) return GB_FAIL;
    }
    return GB_OK;
}

static void st_annotate(void *state, cJSON *extra) {
    st_state *s = state;
    cJSON_AddNumberToObject(extra, "threads", s->threads);
    cJSON_AddStringToObject(extra, "sweep", "one OpenMP region per repetition, static row split, omp simd rows, "
                                            "norm fused");
}

static void st_set_threads(void *state, int threads) { ((st_state *)state)->threads = threads; }

static void st_release(void *state) {
    st_state *s = state;
    if (!s) return;
    gb_arrays_free(&s->out);
    gb_free(s->scratch);
    gb_free(s->part);
    free(s);
}

const gb_op_impl gb_cpu_stencil = {
    .prepare = st_prepare,
    .run = st_run,
    .fetch = st_fetch,
    .annotate = st_annotate,
    .release = st_release,
    .set_threads = st_set_threads,
};
