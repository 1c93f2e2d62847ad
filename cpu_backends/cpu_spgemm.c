/* cpu_spgemm.c — sparse C = A·B on the CPU with SuiteSparse:GraphBLAS.
 *
 * prepare: GrB_init once per process (non-blocking mode); A and B converted
 * from 32-bit CSR to GraphBLAS's 64-bit indices (GraphBLAS 7 has no 32-bit
 * ones) and imported (GxB_Matrix_import_CSR takes ownership of the arrays, so
 * they are fresh copies); the descriptor that steers the product (below). All
 * untimed.
 * run: GrB_Matrix_new(C) held sparse + GrB_mxm with the PLUS_TIMES semiring
 * + GrB_Matrix_nvals + GrB_Matrix_wait(C, GrB_COMPLETE): C's allocation is
 * inside the rep, as a user experiences it; the previous rep's C is freed
 * before the clock starts.
 * fetch: C exported back to 32-bit CSR, columns within a row in whatever
 * order GraphBLAS left them (untimed; the check needs no order, so sorting
 * every row on export would be work for nothing).
 * annotate: one more product, untimed, with GraphBLAS's burble captured, so
 * the results say which method and how many threads GraphBLAS chose.
 *
 * The settings below were each measured with gpubench on a 2-core AVX-512
 * Xeon (GraphBLAS 7.4.0, inputs of suites/default.json, medians of runs
 * that no other process disturbed); docs/cpu-peers.md has the whole table,
 * with SciPy's times on the same matrices.
 *
 * 1. Threads. saxpy3, GraphBLAS's C = A·B, runs floor(work / (8·GxB_CHUNK))
 *    threads (work ≈ multiply-adds), and the default chunk is 64K: below
 *    ~1M multiply-adds it runs on ONE thread whatever GxB_NTHREADS says.
 *    2048² at density 0.01 is 0.87M, so it ran single-threaded while 4096²
 *    (6.9M) got every thread — why 2048² took longer than 4096² on the
 *    16-core H100 host (26 vs 20 ms). A chunk of 4096 gives a thread per 32K
 *    multiply-adds (~0.5 ms of single-thread work each): 2048² 14.6 → 8.1 ms
 *    (float32). Below 2·8·4096 multiply-adds saxpy3 stays on one thread
 *    either way and a small chunk would only fan GraphBLAS's small helper
 *    loops out (512²: 0.149 → 0.193 ms with chunk 1024), so there the
 *    default chunk is kept.
 *
 * 2. Output held sparse. At 8192² (56% of C non-zero) GraphBLAS computed C
 *    sparse and then converted it to bitmap (burble: "sparse to bitmap"):
 *    728 ms; C restricted to GxB_SPARSE: 540 ms — and a sparse C is the CSR
 *    that this op asks for (cuSPARSE and SciPy return CSR too).
 *
 * 3. No timed sort. In non-blocking mode GrB_mxm may leave C's rows
 *    "jumbled" (columns unsorted); GrB_Matrix_wait(GrB_MATERIALIZE) then
 *    sorted every row, on one thread. The op leaves column order within a
 *    row free, and SciPy's A @ B does not sort either, so a rep ends with
 *    GrB_Matrix_nvals (assembles pending tuples, if any: mxm into a fresh C
 *    leaves none) and GrB_Matrix_wait(GrB_COMPLETE) (the spec's
 *    happens-before; it does not sort). The sort was most of the time at
 *    density 0.001: 8192², 17.4 ms with it, 3.7 ms without; 32768², 1248 →
 *    359 ms (both already on 2 threads).
 *
 * 4. Method. GraphBLAS picks Gustavson or hash per task. Where the rows of C
 *    are more than 1/16 full, its Gustavson tasks gather each row by
 *    scanning the whole n-wide workspace (sorted output for free, but n
 *    branchy steps per row: 70% of the single-thread time at 2048²); hash
 *    tasks do not, where their table fits in less than n. So GxB_AxB_HASH
 *    is asked for exactly there (expected row fill 1 − (1 − pa·pb)^n >
 *    1/16): 1024² 1.44 → 1.20 ms; at 2048² and up GraphBLAS still uses
 *    Gustavson (the hash table would not be smaller than n: no change). Not
 *    forced elsewhere: at 16384² and 32768² (density 0.001, rows 1.6% and
 *    3% full) hash was 35-45% slower than GraphBLAS's Gustavson. Dot
 *    (GxB_AxB_DOT) is about 45× slower at 2048².
 *
 * What no setting removes: the scanning gather above at 2048² (no hash
 * table smaller than n there), and 64-bit indices that write twice SciPy's
 * index bytes — on 2 cores gpubench is still 1.3× slower than SciPy at
 * 1024², about even at 2048² (docs/cpu-peers.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <GraphBLAS.h>
#include "cpu_backend.h"
#include "timer.h"

/* saxpy3 runs floor(work / (8·chunk)) threads (work ≈ multiply-adds), so
 * this chunk gives a thread per 32K multiply-adds; used from SPG_MIN_MADDS
 * up, where it yields two threads or more (see the header). */
#define SPG_CHUNK 4096.0
#define SPG_MIN_MADDS (2 * 8 * SPG_CHUNK)
/* Above this expected fill of C's rows, saxpy3's Gustavson tasks gather each
 * row by scanning the whole n-wide workspace; hash tasks do not (header). */
#define SPG_HASH_FILL (1.0 / 16)

typedef struct {
    gb_dtype dtype;
    size_t n;
    GrB_Matrix A, B, C;
    GrB_Descriptor desc;
    double madds;       /* Σ over a_ik of nnz(B row k): the product's work */
    double chunk;       /* GxB_CHUNK given to GrB_mxm; 0: GraphBLAS's default */
    double fill;        /* expected fraction of a row of C that is non-zero */
    int hash;           /* GxB_AxB_HASH asked for (else GraphBLAS chooses) */
    GrB_Index c_nnz;
    char format[16];
} spgemm_state;

static int grb_ready;

static const char *grb_name(GrB_Info info) {
    switch (info) {
    case GrB_SUCCESS: return "success";
    case GrB_OUT_OF_MEMORY: return "out of memory";
    case GrB_INVALID_VALUE: return "invalid value";
    case GrB_INVALID_INDEX: return "invalid index";
    case GrB_DIMENSION_MISMATCH: return "dimension mismatch";
    case GrB_PANIC: return "panic";
    default: return "error";
    }
}

static void spgemm_release(void *state) {
    spgemm_state *s = state;
    if (!s) return;
    GrB_Matrix_free(&s->A);
    GrB_Matrix_free(&s->B);
    GrB_Matrix_free(&s->C);
    GrB_Descriptor_free(&s->desc);
    free(s);
}

/* Import prefix_* (32-bit CSR) as a GraphBLAS matrix. */
static int import(const gb_arrays *in, const char *prefix, size_t n, gb_dtype d, GrB_Matrix *M, gb_err *e) {
    const gb_array *rp, *ci, *va;
    if (!gb_arrays_find_csr(in, prefix, &rp, &ci, &va) || rp->count != n + 1)
        return gb_errf(e, GB_FAIL, "spgemm: CSR arrays of %s missing", prefix);
    size_t nnz = ci->count, vsz = gb_elem_size(va->elem);
    /* GraphBLAS frees these with its own free (the C library's by default). */
    GrB_Index *p = malloc((n + 1) * sizeof *p);
    GrB_Index *j = malloc((nnz ? nnz : 1) * sizeof *j);
    void *x = malloc((nnz ? nnz : 1) * vsz);
    if (!p || !j || !x) {
        free(p);
        free(j);
        free(x);
        return gb_errf(e, GB_SKIP, "out of host memory converting %s to 64-bit CSR", prefix);
    }
    const int32_t *rp32 = rp->data, *ci32 = ci->data;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i <= n; i++) p[i] = (GrB_Index)rp32[i];
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < nnz; k++) j[k] = (GrB_Index)ci32[k];
    memcpy(x, va->data, nnz * vsz);
    GrB_Info info = GxB_Matrix_import_CSR(M, d == GB_FLOAT32 ? GrB_FP32 : GrB_FP64, n, n, &p, &j, &x,
                                          (n + 1) * sizeof *p, (nnz ? nnz : 1) * sizeof *j,
                                          (nnz ? nnz : 1) * vsz, false, false, NULL);
    if (info != GrB_SUCCESS) {
        free(p);
        free(j);
        free(x);
        return gb_errf(e, info == GrB_OUT_OF_MEMORY ? GB_SKIP : GB_FAIL, "GxB_Matrix_import_CSR(%s): %s",
                       prefix, grb_name(info));
    }
    return GB_OK;
}

static int spgemm_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    if (!grb_ready) {
        GrB_Info info = GrB_init(GrB_NONBLOCKING);
        if (info != GrB_SUCCESS) return gb_errf(e, GB_FATAL, "GrB_init: %s", grb_name(info));
        grb_ready = 1;
    }
    GxB_Global_Option_set(GxB_NTHREADS, gb_cpu_threads());
    spgemm_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->n = (size_t)c->shape[0];
    int st = import(in, "A", s->n, c->dtype, &s->A, e);
    if (st == GB_OK) st = import(in, "B", s->n, c->dtype, &s->B, e);
    if (st != GB_OK) {
        spgemm_release(s);
        return st;
    }
    /* The work, from the inputs themselves (c->flops need not be filled in
     * by every caller): O(nnz(A)). */
    const int32_t *arow = gb_arrays_find(in, "A_colind")->data, *brp = gb_arrays_find(in, "B_rowptr")->data;
    size_t annz = gb_arrays_find(in, "A_colind")->count;
    double madds = 0;
#pragma omp parallel for schedule(static) reduction(+ : madds)
    for (size_t k = 0; k < annz; k++) madds += brp[arow[k] + 1] - brp[arow[k]];
    s->madds = madds;
    s->chunk = madds >= SPG_MIN_MADDS ? SPG_CHUNK : 0;
    /* Expected fill of a row of C for independent patterns of densities
     * pa, pb: 1 - (1 - pa·pb)^n. */
    double nn = (double)s->n, pa = (double)annz / (nn * nn),
           pb = (double)gb_arrays_find(in, "B_colind")->count / (nn * nn);
    s->fill = s->n ? -expm1(nn * log1p(-pa * pb)) : 0;
    s->hash = s->fill > SPG_HASH_FILL;
    GrB_Info info = GrB_Descriptor_new(&s->desc);
    if (info == GrB_SUCCESS) info = GxB_Desc_set(s->desc, GxB_NTHREADS, gb_cpu_threads());
    if (info == GrB_SUCCESS && s->chunk > 0) info = GxB_Desc_set(s->desc, GxB_CHUNK, s->chunk);
    if (info == GrB_SUCCESS && s->hash) info = GxB_Desc_set(s->desc, GxB_AxB_METHOD, GxB_AxB_HASH);
    if (info != GrB_SUCCESS) {
        spgemm_release(s);
        return gb_errf(e, info == GrB_OUT_OF_MEMORY ? GB_SKIP : GB_FAIL, "GrB_Descriptor: %s", grb_name(info));
    }
    *state = s;
    return GB_OK;
}

/* One product into a fresh s->C, held sparse, finished except for the row
 * sort that GraphBLAS may leave pending (the op allows any column order;
 * see the header). */
static GrB_Info product(spgemm_state *s) {
    GrB_Semiring sr = s->dtype == GB_FLOAT32 ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64;
    GrB_Info info = GrB_Matrix_new(&s->C, s->dtype == GB_FLOAT32 ? GrB_FP32 : GrB_FP64, s->n, s->n);
    if (info == GrB_SUCCESS) info = GxB_Matrix_Option_set(s->C, GxB_SPARSITY_CONTROL, GxB_SPARSE);
    if (info == GrB_SUCCESS) info = GrB_mxm(s->C, NULL, NULL, sr, s->A, s->B, s->desc);
    if (info == GrB_SUCCESS) info = GrB_Matrix_nvals(&s->c_nnz, s->C);
    if (info == GrB_SUCCESS) info = GrB_Matrix_wait(s->C, GrB_COMPLETE);
    return info;
}

static int spgemm_run(void *state, int timing, double *seconds, gb_err *e) {
    spgemm_state *s = state;
    GrB_Matrix_free(&s->C);
    double t0 = gb_now();
    GrB_Info info = product(s);
    *seconds = gb_now() - t0;
    if (info != GrB_SUCCESS)
        return gb_errf(e, info == GrB_OUT_OF_MEMORY ? GB_SKIP : GB_FAIL, "GrB_mxm: %s", grb_name(info));
    int fmt = 0;
    GxB_Matrix_Option_get(s->C, GxB_SPARSITY_STATUS, &fmt);
    snprintf(s->format, sizeof s->format, "%s",
             fmt == GxB_HYPERSPARSE ? "hypersparse" : fmt == GxB_SPARSE ? "sparse"
             : fmt == GxB_BITMAP ? "bitmap" : fmt == GxB_FULL ? "full" : "?");
    return GB_OK;
}

static int spgemm_fetch(void *state, gb_arrays *out, gb_err *e) {
    spgemm_state *s = state;
    if (!s->C) return gb_errf(e, GB_FAIL, "spgemm: no product to fetch (no repetition ran)");
    if (s->c_nnz > INT32_MAX)
        return gb_errf(e, GB_SKIP, "C has %llu non-zeros, more than 32-bit CSR indices hold",
                       (unsigned long long)s->c_nnz);
    GrB_Type type;
    GrB_Index nr, nc, psz, jsz, xsz, *p = NULL, *j = NULL;
    void *x = NULL;
    bool iso = false, jumbled = true;
    /* Export (jumbled allowed: no sort) consumes C; it was the last rep's. */
    GrB_Info info = GxB_Matrix_export_CSR(&s->C, &type, &nr, &nc, &p, &j, &x, &psz, &jsz, &xsz, &iso, &jumbled, NULL);
    if (info != GrB_SUCCESS) return gb_errf(e, GB_FAIL, "GxB_Matrix_export_CSR: %s", grb_name(info));
    size_t nnz = (size_t)p[s->n];
    int st = GB_FAIL;
    gb_elem ve = gb_real_elem(s->dtype);
    size_t vsz = gb_elem_size(ve);
    gb_array *rp = gb_arrays_add(out, "C_rowptr", GB_E_I32, s->n + 1, e);
    gb_array *ci = rp ? gb_arrays_add(out, "C_colind", GB_E_I32, nnz, e) : NULL;
    gb_array *va = ci ? gb_arrays_add(out, "C_val", ve, nnz, e) : NULL;
    if (va) {
        int32_t *r32 = rp->data, *c32 = ci->data;
        for (size_t i = 0; i <= s->n; i++) r32[i] = (int32_t)p[i];
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < nnz; k++) c32[k] = (int32_t)j[k];
        if (iso) /* one value stands for all */
            for (size_t k = 0; k < nnz; k++) memcpy((char *)va->data + k * vsz, x, vsz);
        else
            memcpy(va->data, x, nnz * vsz);
        st = GB_OK;
    }
    free(p);
    free(j);
    free(x);
    return st;
}

/* GraphBLAS's burble (its account of what it chose) goes through a printf
 * hook; annotate points the hook here for one product. Single-threaded use:
 * GraphBLAS prints from the calling thread. */
static char burble[2048];
static size_t burble_len;

static int burble_printf(const char *fmt, ...) {
    if (burble_len + 1 >= sizeof burble) return 0;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(burble + burble_len, sizeof burble - burble_len, fmt, ap);
    va_end(ap);
    if (k > 0) burble_len += (size_t)k < sizeof burble - burble_len ? (size_t)k : sizeof burble - burble_len - 1;
    return k;
}

static int burble_flush(void) { return 0; }

/* The GrB_mxm part of the captured burble, whitespace squeezed, into out. */
static void mxm_burble(char *out, size_t len) {
    const char *p = strstr(burble, "GrB_mxm");
    size_t o = 0;
    int space = 0;
    out[0] = 0;
    if (!p) return;
    for (; *p && *p != ']' && o + 1 < len; p++) {
        if (*p == ' ' || *p == '\n' || *p == '\t') {
            space = 1;
            continue;
        }
        if (space && o > 0 && o + 2 < len) out[o++] = ' ';
        space = 0;
        out[o++] = *p;
    }
    out[o] = 0;
    /* drop the burble's own timing (" 0.00167 sec"): it timed this extra,
     * untimed product, not a repetition */
    char *last = strrchr(out, ')');
    if (last) last[1] = 0;
}

static void spgemm_annotate(void *state, cJSON *extra) {
    spgemm_state *s = state;
    cJSON_AddStringToObject(extra, "routine", s->dtype == GB_FLOAT32 ? "GrB_mxm(PLUS_TIMES_FP32)"
                                                                     : "GrB_mxm(PLUS_TIMES_FP64)");
    cJSON_AddNumberToObject(extra, "output_nnz", (double)s->c_nnz);
    cJSON_AddStringToObject(extra, "output_format", s->format);
    cJSON_AddStringToObject(extra, "output_columns", "unsorted allowed: GraphBLAS's pending row sort is not timed");
    cJSON_AddNumberToObject(extra, "index_bits", 64);
    cJSON_AddNumberToObject(extra, "threads", gb_cpu_threads());
    if (s->chunk > 0)
        cJSON_AddNumberToObject(extra, "chunk", s->chunk);
    else
        cJSON_AddStringToObject(extra, "chunk", "default");
    cJSON_AddStringToObject(extra, "method_requested",
                            s->hash ? "GxB_AxB_HASH (rows of C expected more than 1/16 full)"
                                    : "default (GraphBLAS chooses)");
    cJSON_AddNumberToObject(extra, "expected_row_fill", s->fill);

    /* One more product, untimed, to hear from GraphBLAS what it did. */
    void *old_printf = NULL, *old_flush = NULL;
    GxB_Global_Option_get(GxB_PRINTF, &old_printf);
    GxB_Global_Option_get(GxB_FLUSH, &old_flush);
    burble_len = 0;
    burble[0] = 0;
    GxB_Global_Option_set(GxB_PRINTF, (void *)burble_printf);
    GxB_Global_Option_set(GxB_FLUSH, (void *)burble_flush);
    GrB_Matrix_free(&s->C);
    GxB_Global_Option_set(GxB_BURBLE, true);
    GrB_Info info = product(s);
    GxB_Global_Option_set(GxB_BURBLE, false);
    GxB_Global_Option_set(GxB_PRINTF, old_printf);
    GxB_Global_Option_set(GxB_FLUSH, old_flush);
    char said[512];
    mxm_burble(said, sizeof said);
    if (info != GrB_SUCCESS || !said[0]) return;
    cJSON_AddStringToObject(extra, "graphblas_burble", said);
    /* saxpy3 names its tasks "coarse: N", "fine: N" (Gustavson) and
     * "coarse hash: N", "fine hash: N". */
    int gus = strstr(said, "coarse:") || strstr(said, "fine:"), hash = strstr(said, "hash:") != NULL;
    const char *method = strstr(said, "dot") ? "dot"
                         : !strstr(said, "saxpy") ? "other (see graphblas_burble)"
                         : gus && hash ? "saxpy3, Gustavson and hash tasks"
                         : hash ? "saxpy3, hash" : "saxpy3, Gustavson";
    cJSON_AddStringToObject(extra, "method", method);
    const char *nt = strstr(said, "(nthreads ");
    if (nt) cJSON_AddNumberToObject(extra, "graphblas_threads", atoi(nt + 10));
}

const gb_op_impl gb_cpu_spgemm = {
    .prepare = spgemm_prepare,
    .run = spgemm_run,
    .fetch = spgemm_fetch,
    .annotate = spgemm_annotate,
    .release = spgemm_release,
};
