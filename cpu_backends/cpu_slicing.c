/* cpu_slicing.c — x[::2, ::2] and x.T into new arrays, threaded.
 *
 * stride2: threads split the output rows; each output row is one even row
 * of x read with stride 2, an `omp simd` loop (gathers/permutes on AVX2 and
 * AVX-512 through the function clones, as in cpu_elementwise.c).
 *
 * transpose: blocked. A naive transpose walks one of the two arrays with a
 * stride of a whole row, touching a new cache line (and on large arrays a
 * new TLB page) for every element. Each GB_TILE×GB_TILE tile of x is copied
 * row by row (contiguous reads) into a thread-local buffer in L1, then
 * written out row by row of y (contiguous writes). The buffer, not x, takes
 * the strided accesses: reading a tile of x column-wise in place was 27% of
 * the triad ceiling at 4096², because the rows of a power-of-two-wide array
 * all map to the same L1 sets and evict each other before the tile's other
 * columns are read; the buffer's rows are padded by one element for the
 * same reason. Threads split the tiles statically. The next tile's rows of x
 * are prefetched by hand and y is written with streaming stores (why at
 * col_out_f32): 1.7 → 4.2 GB/s at 8192² float32 on the 2-core KVM host, where
 * a plain copy moved 4.3 GB/s at the same moment. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <emmintrin.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "timer.h"

#define SL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define GB_TILE 64

/* Column j of a tile (n elements) out to a row of y. Non-temporal (16-byte
 * streaming) stores where dst is 16-byte aligned and n fills whole vectors:
 * y is written once and not read again, so bringing its lines into the cache
 * first (the read-for-ownership of a normal store) is a third of the traffic
 * for nothing, and on the 2-core KVM host it doubled the time. */
static inline void col_out_f32(float *restrict dst, float (*tile)[GB_TILE + 1], size_t j, size_t n) {
    if (((uintptr_t)dst & 15) == 0 && n % 4 == 0)
        for (size_t i = 0; i < n; i += 4)
            _mm_stream_ps(dst + i, _mm_set_ps(tile[i + 3][j], tile[i + 2][j], tile[i + 1][j], tile[i][j]));
    else
        for (size_t i = 0; i < n; i++) dst[i] = tile[i][j];
}
static inline void col_out_f64(double *restrict dst, double (*tile)[GB_TILE + 1], size_t j, size_t n) {
    if (((uintptr_t)dst & 15) == 0 && n % 2 == 0)
        for (size_t i = 0; i < n; i += 2) _mm_stream_pd(dst + i, _mm_set_pd(tile[i + 1][j], tile[i][j]));
    else
        for (size_t i = 0; i < n; i++) dst[i] = tile[i][j];
}

#define SL_KERNELS(T, STRIDE2, TRANSPOSE, COL_OUT)                                                       \
    SL_CLONES static void STRIDE2(const T *restrict x, T *restrict y, size_t R, size_t C, int threads) { \
        size_t orr = (R + 1) / 2, oc = (C + 1) / 2;                                                      \
        _Pragma("omp parallel for schedule(static) num_threads(threads)") for (size_t r = 0; r < orr; r++) { \
            const T *restrict src = x + 2 * r * C;                                                       \
            T *restrict dst = y + r * oc;                                                                \
            _Pragma("omp simd") for (size_t k = 0; k < oc; k++) dst[k] = src[2 * k];                     \
        }                                                                                                \
    }                                                                                                    \
    SL_CLONES static void TRANSPOSE(const T *restrict x, T *restrict y, size_t R, size_t C, int threads) { \
        size_t tr = (R + GB_TILE - 1) / GB_TILE, tc = (C + GB_TILE - 1) / GB_TILE;                       \
        _Pragma("omp parallel num_threads(threads)") {                                                   \
            T tile[GB_TILE][GB_TILE + 1];                                                                \
            _Pragma("omp for schedule(static) collapse(2)") for (size_t bi = 0; bi < tr; bi++)           \
                for (size_t bj = 0; bj < tc; bj++) {                                                     \
                    size_t i0 = bi * GB_TILE, j0 = bj * GB_TILE;                                         \
                    size_t ni = R - i0 < GB_TILE ? R - i0 : GB_TILE, nj = C - j0 < GB_TILE ? C - j0 : GB_TILE; \
                    /* the next tile's rows of x (this thread's next, with a static split) are 64 */   \
                    /* short runs that no hardware prefetcher follows: ask for them now */             \
                    if (bj + 1 < tc)                                                                     \
                        for (size_t i = 0; i < ni; i++)                                                  \
                            for (size_t l = 0; l < GB_TILE * sizeof(T); l += 64)                         \
                                __builtin_prefetch((const char *)(x + (i0 + i) * C + j0 + GB_TILE) + l); \
                    for (size_t i = 0; i < ni; i++) {                                                    \
                        const T *restrict src = x + (i0 + i) * C + j0;                                   \
                        _Pragma("omp simd") for (size_t j = 0; j < nj; j++) tile[i][j] = src[j];         \
                    }                                                                                    \
                    for (size_t j = 0; j < nj; j++) COL_OUT(y + (j0 + j) * R + i0, tile, j, ni);         \
                }                                                                                        \
            _mm_sfence(); /* the streaming stores are visible before the region ends */                 \
        }                                                                                                \
    }

SL_KERNELS(float, stride2_f32, transpose_f32, col_out_f32)
SL_KERNELS(double, stride2_f64, transpose_f64, col_out_f64)

typedef struct {
    gb_dtype dtype;
    int kind;
    size_t R, C;
    const void *x;
    gb_arrays out; /* "y", owned here */
    int threads;
} sl_state;

static int sl_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    size_t R = (size_t)c->shape[0], C = (size_t)c->shape[1];
    gb_elem el = gb_real_elem(c->dtype);
    const gb_array *x = gb_arrays_find(in, "x");
    if (!x || x->elem != el || x->count != R * C)
        return gb_errf(e, GB_FAIL, "slicing: input x (%zu %s) missing or mis-sized", R * C, gb_dtype_name(c->dtype));
    sl_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "slicing: out of host memory");
    int64_t orr, oc;
    gb_slicing_out_shape(c, &orr, &oc);
    s->dtype = c->dtype;
    s->kind = c->params.slice_kind;
    s->R = R;
    s->C = C;
    s->x = x->data;
    s->threads = gb_cpu_threads(); /* until cpu_team.c chooses */
    gb_array *y = gb_arrays_add(&s->out, "y", el, (size_t)orr * (size_t)oc, e);
    if (!y) {
        free(s);
        return GB_SKIP;
    }
    gb_array_poison(y);
    *state = s;
    return GB_OK;
}

static int sl_run(void *state, int timing, double *seconds, gb_err *e) {
    sl_state *s = state;
    void *y = s->out.item[0].data;
    int t = s->kind == GB_SLICE_TRANSPOSE;
    double t0 = gb_now();
    if (s->dtype == GB_FLOAT32)
        (t ? transpose_f32 : stride2_f32)(s->x, y, s->R, s->C, s->threads);
    else
        (t ? transpose_f64 : stride2_f64)(s->x, y, s->R, s->C, s->threads);
    *seconds = gb_now() - t0;
    return GB_OK;
}

static int sl_fetch(void *state, gb_arrays *out, gb_err *e) {
    sl_state *s = state;
    const gb_array *y = &s->out.item[0];
    return gb_arrays_add_copy(out, "y", y->elem, y->count, y->data, e) ? GB_OK : GB_FAIL;
}

static void sl_annotate(void *state, cJSON *extra) {
    sl_state *s = state;
    cJSON_AddNumberToObject(extra, "threads", s->threads);
    if (s->kind == GB_SLICE_TRANSPOSE) cJSON_AddNumberToObject(extra, "tile", GB_TILE);
}

static void sl_set_threads(void *state, int threads) { ((sl_state *)state)->threads = threads; }

static void sl_release(void *state) {
    sl_state *s = state;
    if (!s) return;
    gb_arrays_free(&s->out);
    free(s);
}

const gb_op_impl gb_cpu_slicing = {
    .prepare = sl_prepare,
    .run = sl_run,
    .fetch = sl_fetch,
    .annotate = sl_annotate,
    .release = sl_release,
    .set_threads = sl_set_threads,
};
