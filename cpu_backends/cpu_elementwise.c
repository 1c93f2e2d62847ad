/* cpu_elementwise.c — out = a*b + sin(a) + cos(b) in one fused, threaded,
 * vectorized pass.
 *
 * Vector sin/cos come from glibc's libmvec (_ZGV*_sinf etc., within 4 ulp).
 * glibc's <math.h> declares them SIMD-callable only under -ffast-math, which
 * we do not want (it would also let the compiler assume no NaNs, and the
 * poisoned-output checks depend on NaNs). So this file declares the SIMD
 * variants itself with `omp declare simd`, which is exactly what glibc's
 * header does under -ffast-math; libm.so's linker script pulls in libmvec.
 *
 * ISA: the binary is built without -march=native and runs on other x86-64
 * hosts, so the kernels are compiled three times by GCC function
 * multiversioning (target_clones): AVX-512F (16 floats per call to
 * _ZGVeN16v_sinf), AVX2 (_ZGVdN8v_sinf) and the x86-64 baseline (SSE2,
 * _ZGVbN4v_sinf); an ifunc resolver picks the best at load time. GCC clones
 * the OpenMP-outlined loop body too (checked with objdump -dr: the .avx512f
 * clone of the body calls _ZGVeN16v_sinf/_ZGVeN16v_cosf). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "timer.h"
#include "precision.h"

#pragma omp declare simd notinbranch
extern float sinf(float);
#pragma omp declare simd notinbranch
extern float cosf(float);
#pragma omp declare simd notinbranch
extern double sin(double);
#pragma omp declare simd notinbranch
extern double cos(double);

#define EW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

/* schedule(simd:static): static chunks rounded to the vector width, so every
 * thread runs whole vectors and only the last one has a scalar tail. */
EW_CLONES static void ew_f32(const float *restrict a, const float *restrict b, float *restrict o,
                             size_t n, int threads) {
#pragma omp parallel for simd schedule(simd : static) num_threads(threads)
    for (size_t i = 0; i < n; i++) o[i] = a[i] * b[i] + sinf(a[i]) + cosf(b[i]);
}

EW_CLONES static void ew_f64(const double *restrict a, const double *restrict b,
                             double *restrict o, size_t n, int threads) {
#pragma omp parallel for simd schedule(simd : static) num_threads(threads)
    for (size_t i = 0; i < n; i++) o[i] = a[i] * b[i] + sin(a[i]) + cos(b[i]);
}

/* bfloat16 and float16: each element widened to float, the expression in
 * float32 (libmvec's sinf/cosf), rounded once to the type (PyTorch's CPU
 * kernels do the same). bfloat16's conversions are bit operations
 * (precision.h, inlined and vectorized); float16's are GCC's _Float16
 * casts, one vcvtph2ps/vcvtps2ph per vector where the clone has F16C
 * (x86-64-v3 and v4), a library call in the baseline clone. */
#define EW_LOWP_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

EW_LOWP_CLONES static void ew_bf16(const uint16_t *restrict a, const uint16_t *restrict b, uint16_t *restrict o,
                                   size_t n, int threads) {
#pragma omp parallel for simd schedule(simd : static) num_threads(threads)
    for (size_t i = 0; i < n; i++) {
        float x = gb_bf16_to_f32(a[i]), y = gb_bf16_to_f32(b[i]);
        o[i] = gb_f32_to_bf16(x * y + sinf(x) + cosf(y));
    }
}

/* float16 in blocks: widen a block (vcvtph2ps), the float32 expression,
 * narrow it (vcvtps2ph). One loop doing all three was left scalar by GCC 12
 * (the _Float16 casts beside the SIMD sinf/cosf calls): 100x slower. */
#define EW_F16_BLOCK 1024
EW_LOWP_CLONES static void ew_f16(const _Float16 *restrict a, const _Float16 *restrict b, _Float16 *restrict o,
                                  size_t n, int threads) {
    size_t blocks = (n + EW_F16_BLOCK - 1) / EW_F16_BLOCK;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t k = 0; k < blocks; k++) {
        float x[EW_F16_BLOCK], y[EW_F16_BLOCK];
        size_t lo = k * EW_F16_BLOCK, len = n - lo < EW_F16_BLOCK ? n - lo : EW_F16_BLOCK;
#pragma omp simd
        for (size_t i = 0; i < len; i++) {
            x[i] = (float)a[lo + i];
            y[i] = (float)b[lo + i];
        }
#pragma omp simd
        for (size_t i = 0; i < len; i++) x[i] = x[i] * y[i] + sinf(x[i]) + cosf(y[i]);
#pragma omp simd
        for (size_t i = 0; i < len; i++) o[lo + i] = (_Float16)x[i];
    }
}

/* Which clone the resolver picked: GCC's resolver tests the same CPU
 * features in this priority order. */
static const char *ew_isa(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return "avx512f";
    if (__builtin_cpu_supports("avx2")) return "avx2";
    return "sse2";
}

typedef struct {
    gb_dtype dtype;
    size_t n;
    const void *a, *b;
    gb_arrays out; /* "out", owned here */
    int threads;
    int fast_math;
} ew_state;

static int ew_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    size_t n = (size_t)c->shape[0] * (size_t)c->shape[1];
    gb_elem el = gb_real_elem(c->dtype);
    const gb_array *a = gb_arrays_find(in, "a"), *b = gb_arrays_find(in, "b");
    if (!a || !b || a->elem != el || b->elem != el || a->count != n || b->count != n)
        return gb_errf(e, GB_FAIL, "elementwise: inputs a, b (%zu %s) missing or mis-sized", n,
                       gb_dtype_name(c->dtype));
    ew_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "elementwise: out of host memory");
    s->dtype = c->dtype;
    s->n = n;
    s->a = a->data;
    s->b = b->data;
    s->threads = gb_cpu_threads(); /* until cpu_team.c chooses */
    s->fast_math = c->params.fast_math;
    gb_array *o = gb_arrays_add(&s->out, "out", el, n, e);
    if (!o) {
        free(s);
        return GB_SKIP;
    }
    /* Poison with NaN using the kernel's own static schedule: this is also
     * the first touch, so on a NUMA host each thread's pages of out live on
     * its own node, as the inputs do (filled with the same schedule). */
    if (c->dtype == GB_FLOAT32) {
        float *p = o->data;
#pragma omp parallel for simd schedule(simd : static) num_threads(s->threads)
        for (size_t i = 0; i < n; i++) p[i] = NAN;
    } else if (c->dtype != GB_FLOAT64) {
        gb_array_poison(o); /* bfloat16/float16 NaN patterns */
    } else {
        double *p = o->data;
#pragma omp parallel for simd schedule(simd : static) num_threads(s->threads)
        for (size_t i = 0; i < n; i++) p[i] = NAN;
    }
    *state = s;
    return GB_OK;
}

static int ew_run(void *state, int timing, double *seconds, gb_err *e) {
    ew_state *s = state;
    void *o = s->out.item[0].data;
    double t0 = gb_now();
    if (s->dtype == GB_FLOAT32)
        ew_f32(s->a, s->b, o, s->n, s->threads);
    else if (s->dtype == GB_BFLOAT16)
        ew_bf16(s->a, s->b, o, s->n, s->threads);
    else if (s->dtype == GB_FLOAT16)
        ew_f16(s->a, s->b, o, s->n, s->threads);
    else
        ew_f64(s->a, s->b, o, s->n, s->threads);
    *seconds = gb_now() - t0;
    return GB_OK;
}

static int ew_fetch(void *state, gb_arrays *out, gb_err *e) {
    ew_state *s = state;
    const gb_array *src = &s->out.item[0];
    return gb_arrays_add_copy(out, "out", src->elem, src->count, src->data, e) ? GB_OK : GB_FAIL;
}

static void ew_annotate(void *state, cJSON *extra) {
    ew_state *s = state;
    cJSON_AddNumberToObject(extra, "threads", s->threads);
    cJSON_AddStringToObject(extra, "isa", ew_isa());
    cJSON_AddStringToObject(extra, "vector_math", "glibc libmvec");
    if (s->dtype == GB_BFLOAT16 || s->dtype == GB_FLOAT16)
        cJSON_AddStringToObject(extra, "compute", "float32, rounded once to the dtype");
    if (s->fast_math) /* a GPU option: the CPU has no less accurate sin/cos to switch to */
        cJSON_AddStringToObject(extra, "fast_math", "not applicable on the CPU (libmvec, <= 4 ulp)");
}

static void ew_set_threads(void *state, int threads) { ((ew_state *)state)->threads = threads; }

static void ew_release(void *state) {
    ew_state *s = state;
    if (!s) return;
    gb_arrays_free(&s->out);
    free(s);
}

const gb_op_impl gb_cpu_elementwise = {
    .prepare = ew_prepare,
    .run = ew_run,
    .fetch = ew_fetch,
    .annotate = ew_annotate,
    .release = ew_release,
    .set_threads = ew_set_threads,
};
