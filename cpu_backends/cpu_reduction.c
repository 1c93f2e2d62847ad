/* cpu_reduction.c — sum, mean and population std in one threaded pass.
 *
 * Method: each thread walks its contiguous share of the array in blocks of
 * RBLOCK elements. Per block it accumulates, in double, s1 = Σ(x−K) and
 * s2 = Σ(x−K)² with the shift K = the block's first element, giving the
 * block's (count, mean, M2 = Σ(x−mean)²) as mean = K + s1/n and
 * M2 = s2 − s1²/n. Blocks, then threads (in thread order, so the result is
 * the same bits for a given thread count), are merged with Chan, Golub &
 * LeVeque's parallel formula
 *     δ = mean_b − mean_a,  mean = mean_a + δ·n_b/n,
 *     M2 = M2_a + M2_b + δ²·n_a·n_b/n.
 * Why it is sound: M2 = s2 − s1²/n cancels only by the factor
 * 1 + (mean−K)²/var, and K is a value of the same block, so the factor is
 * O(1) for any offset (the unshifted E[x²]−mean² cancels by mean²/var, 10^12
 * for data like 10^6 ± 1: all digits lost). The merge adds non-negative
 * terms only. Accumulating in double over ≤ 4096 elements per block (split
 * across 32 lanes) and merging block results keeps rounding error near
 * (sqrt(RBLOCK) + sqrt(N/RBLOCK))·u64 even for float64 data. The sum is
 * accumulated from the block sums n·K + s1 separately. One division per
 * block: negligible against 4096 loads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "timer.h"
#include "precision.h"

#define RBLOCK 4096
#define RED_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

typedef struct {
    double n, mean, m2, sum;
    char pad[32]; /* one cache line per thread's partial: no false sharing */
} moments;

static void merge(moments *a, const moments *b) {
    if (b->n == 0) return;
    if (a->n == 0) { *a = *b; return; }
    double n = a->n + b->n, delta = b->mean - a->mean;
    a->mean += delta * (b->n / n);
    a->m2 += b->m2 + delta * delta * (a->n * b->n / n);
    a->sum += b->sum;
    a->n = n;
}

static void block_done(moments *acc, size_t len, double K, double s1, double s2) {
    double n = (double)len;
    double m2 = s2 - s1 * s1 / n;
    moments blk = {.n = n, .mean = K + s1 / n, .m2 = m2 > 0 ? m2 : 0, .sum = n * K + s1};
    merge(acc, &blk);
}

/* LANES independent partial sums per quantity: a single vector
 * accumulator would make every add wait for the previous one (4-cycle
 * latency), which halves the float64 rate; 32 lanes = 4 AVX-512 (8 AVX2)
 * registers of doubles in flight. The lanes are explicit, so every ISA clone
 * adds the same numbers in the same order: bitwise-identical results. */
#define LANES 32
/* LOAD(p, i): element i as a double (bfloat16, float16: widened exactly). */
#define DEFINE_MOMENTS(NAME, T, CLONES, LOAD)                                      \
    CLONES static void NAME(const T *x, size_t lo, size_t hi, moments *out) {     \
        moments acc = {0};                                                         \
        for (size_t b0 = lo; b0 < hi; b0 += RBLOCK) {                              \
            size_t len = hi - b0 < RBLOCK ? hi - b0 : RBLOCK, i = 0;               \
            const T *p = x + b0;                                                   \
            double K = LOAD(p, 0), a1[LANES] = {0}, a2[LANES] = {0}, s1 = 0, s2 = 0; \
            for (; i + LANES <= len; i += LANES)                                   \
                for (int j = 0; j < LANES; j++) {                                  \
                    double d = LOAD(p, i + j) - K;                                 \
                    a1[j] += d;                                                    \
                    a2[j] += d * d;                                                \
                }                                                                  \
            for (; i < len; i++) {                                                 \
                double d = LOAD(p, i) - K;                                         \
                s1 += d;                                                           \
                s2 += d * d;                                                       \
            }                                                                      \
            for (int j = 0; j < LANES; j++) {                                      \
                s1 += a1[j];                                                       \
                s2 += a2[j];                                                       \
            }                                                                      \
            block_done(&acc, len, K, s1, s2);                                      \
        }                                                                          \
        *out = acc;                                                                \
    }

#define LOAD_PLAIN(p, i) ((double)(p)[i])
#define LOAD_BF16(p, i) ((double)gb_bf16_to_f32((p)[i]))
/* bfloat16/float16 clones by ISA level: x86-64-v3 and v4 have F16C, so
 * float16 widens with vcvtph2ps instead of a library call per element */
#define RED_LOWP_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
DEFINE_MOMENTS(moments_f32, float, RED_CLONES, LOAD_PLAIN)
DEFINE_MOMENTS(moments_f64, double, RED_CLONES, LOAD_PLAIN)
DEFINE_MOMENTS(moments_bf16, uint16_t, RED_LOWP_CLONES, LOAD_BF16)

/* float16: each block widened to float first (vcvtph2ps), then the float32
 * kernel on it — the same blocks, so the same sums as converting in place.
 * GCC 12 left the one-loop form (_Float16 loads inside the lanes) scalar,
 * 100x slower. */
RED_LOWP_CLONES static void moments_f16(const _Float16 *x, size_t lo, size_t hi, moments *out) {
    moments acc = {0};
    float buf[RBLOCK];
    for (size_t b0 = lo; b0 < hi; b0 += RBLOCK) {
        size_t len = hi - b0 < RBLOCK ? hi - b0 : RBLOCK;
#pragma omp simd
        for (size_t i = 0; i < len; i++) buf[i] = (float)x[b0 + i];
        moments blk;
        moments_f32(buf, 0, len, &blk);
        merge(&acc, &blk);
    }
    *out = acc;
}

static const char *red_isa(void) {
    __builtin_cpu_init(); /* same priority order as GCC's clone resolver */
    if (__builtin_cpu_supports("avx512f")) return "avx512f";
    if (__builtin_cpu_supports("avx2")) return "avx2";
    return "sse2";
}

typedef struct {
    gb_dtype dtype;
    size_t n;
    const void *x;
    int threads;
    moments *part;  /* one per thread */
    gb_arrays out;  /* "stats", owned here */
} red_state;

static int red_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    size_t n = (size_t)c->shape[0] * (size_t)c->shape[1];
    const gb_array *x = gb_arrays_find(in, "x");
    if (!x || x->elem != gb_real_elem(c->dtype) || x->count != n)
        return gb_errf(e, GB_FAIL, "reduction: input x (%zu %s) missing or mis-sized", n,
                       gb_dtype_name(c->dtype));
    red_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "reduction: out of host memory");
    s->dtype = c->dtype;
    s->n = n;
    s->x = x->data;
    s->threads = gb_cpu_threads(); /* until cpu_team.c chooses */
    s->part = gb_alloc(sizeof(moments) * (size_t)s->threads);
    gb_array *st = gb_arrays_add(&s->out, "stats", GB_E_F64, 3, e);
    if (!s->part || !st) {
        gb_free(s->part);
        gb_arrays_free(&s->out);
        free(s);
        return gb_errf(e, GB_SKIP, "reduction: out of host memory");
    }
    gb_array_poison(st);
    *state = s;
    return GB_OK;
}

static int red_run(void *state, int timing, double *seconds, gb_err *e) {
    red_state *s = state;
    double *stats = s->out.item[0].data;
    size_t nblocks = (s->n + RBLOCK - 1) / RBLOCK;
    int used = 1;
    double t0 = gb_now();
#pragma omp parallel num_threads(s->threads)
    {
        /* Contiguous shares of whole blocks: the same split as the static
         * schedule that filled x, so each thread reads memory it touched. */
        size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
        size_t lo = t * nblocks / nt * RBLOCK, hi = (t + 1) * nblocks / nt * RBLOCK;
        if (hi > s->n) hi = s->n;
        if (lo > hi) lo = hi;
        if (s->dtype == GB_FLOAT32)
            moments_f32(s->x, lo, hi, &s->part[t]);
        else if (s->dtype == GB_BFLOAT16)
            moments_bf16(s->x, lo, hi, &s->part[t]);
        else if (s->dtype == GB_FLOAT16)
            moments_f16(s->x, lo, hi, &s->part[t]);
        else
            moments_f64(s->x, lo, hi, &s->part[t]);
        if (t == 0) used = (int)nt;
    }
    moments all = {0};
    for (int t = 0; t < used; t++) merge(&all, &s->part[t]);
    stats[0] = all.sum;
    stats[1] = all.mean;
    stats[2] = sqrt(all.m2 / all.n);
    *seconds = gb_now() - t0;
    return GB_OK;
}

static int red_fetch(void *state, gb_arrays *out, gb_err *e) {
    red_state *s = state;
    return gb_arrays_add_copy(out, "stats", GB_E_F64, 3, s->out.item[0].data, e) ? GB_OK : GB_FAIL;
}

static void red_annotate(void *state, cJSON *extra) {
    red_state *s = state;
    cJSON_AddNumberToObject(extra, "threads", s->threads);
    cJSON_AddStringToObject(extra, "isa", red_isa());
    cJSON_AddStringToObject(extra, "method", "one pass: shifted double sums per 4096-block, Chan merge");
    if (s->dtype == GB_BFLOAT16 || s->dtype == GB_FLOAT16) /* more than PyTorch's float32: the same tolerance holds */
        cJSON_AddStringToObject(extra, "accumulate", "float64 (inputs widened exactly)");
}

static void red_set_threads(void *state, int threads) { ((red_state *)state)->threads = threads; }

static void red_release(void *state) {
    red_state *s = state;
    if (!s) return;
    gb_free(s->part);
    gb_arrays_free(&s->out);
    free(s);
}

const gb_op_impl gb_cpu_reduction = {
    .prepare = red_prepare,
    .run = red_run,
    .fetch = red_fetch,
    .annotate = red_annotate,
    .release = red_release,
    .set_threads = red_set_threads,
};
