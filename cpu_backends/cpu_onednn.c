/* cpu_onednn.c — matmul and batched_matmul through oneDNN's matmul
 * primitive (C API, Debian's libdnnl 2.6.3): the CPU's GEMM in bfloat16,
 * float16, int8 (s8·s8 → s32) and float32, on whatever matrix units the CPU
 * has — AMX tiles, AVX-512 BF16/VNNI, AVX2 — chosen by oneDNN itself at
 * primitive creation (it requests the AMX state from Linux itself).
 *
 * bfloat16 and float16 write C in the input type with float32 accumulation
 * (PyTorch's torch.matmul), int8 writes int32. A batch is one 3-D primitive
 * (dims batch×m×k), threaded by oneDNN over the batch and the products.
 * What ran is recorded: the implementation oneDNN picked
 * (dnnl_query_impl_info_str: "brg:avx512_core_amx", "gemm:jit", ...) and
 * the ISA it dispatches to on this CPU (dnnl_get_effective_cpu_isa).
 *
 * oneDNN has no float8 matmul in this version, no float64 matmul at all,
 * and float16 only where the CPU has AVX512-FP16 or AMX-FP16: those cases
 * are skipped with the reason (primitive creation says unimplemented). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <oneapi/dnnl/dnnl.h>
#include <cjson/cJSON.h>

#include "cpu_onednn.h"
#include "timer.h"

static dnnl_engine_t engine;
static dnnl_stream_t stream;

static int ensure_engine(gb_err *e) {
    if (engine && stream) return GB_OK;
    if (!engine && dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success)
        return gb_errf(e, GB_SKIP, "oneDNN: no CPU engine");
    if (!stream && dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success)
        return gb_errf(e, GB_SKIP, "oneDNN: no stream on the CPU engine");
    return GB_OK;
}

const char *gb_onednn_isa_name(void) {
    switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "other";
    }
}

/* Whether oneDNN's effective ISA has the VNNI dot-product instructions
 * (int8 sums in 32 bits). */
static int onednn_isa_has_vnni(void) {
    switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_avx2_vnni:
    case dnnl_cpu_isa_avx512_core_vnni:
    case dnnl_cpu_isa_avx512_core_bf16:
    case dnnl_cpu_isa_avx512_core_amx: return 1;
    default: return 0;
    }
}

const char *gb_onednn_version(char *buf, size_t len) {
    const dnnl_version_t *v = dnnl_version();
    snprintf(buf, len, "%d.%d.%d", v->major, v->minor, v->patch);
    return buf;
}

/* oneDNN's data types of a case: inputs, output. 0: none. */
static int types_of(gb_dtype d, dnnl_data_type_t *in, dnnl_data_type_t *out) {
    switch (d) {
    case GB_FLOAT32: *in = *out = dnnl_f32; return 1;
    case GB_BFLOAT16: *in = *out = dnnl_bf16; return 1;
    case GB_FLOAT16: *in = *out = dnnl_f16; return 1;
    case GB_INT8: *in = dnnl_s8; *out = dnnl_s32; return 1;
    default: return 0;
    }
}

/* The primitive descriptor of a b×m×k by b×k×n product (b == 0: 2-D). */
static dnnl_status_t make_pd(gb_dtype d, int64_t b, int64_t m, int64_t k, int64_t n,
                             dnnl_primitive_desc_t *pd) {
    dnnl_data_type_t ti, to;
    if (!types_of(d, &ti, &to)) return dnnl_unimplemented;
    dnnl_memory_desc_t a, w, c;
    int nd = b ? 3 : 2;
    dnnl_dims_t da = {b, m, k}, dw = {b, k, n}, dc = {b, m, n};
    dnnl_format_tag_t tag = b ? dnnl_abc : dnnl_ab;
    if (!b) {
        da[0] = m; da[1] = k;
        dw[0] = k; dw[1] = n;
        dc[0] = m; dc[1] = n;
    }
    dnnl_matmul_desc_t md;
    dnnl_status_t st;
    if ((st = dnnl_memory_desc_init_by_tag(&a, nd, da, ti, tag)) != dnnl_success ||
        (st = dnnl_memory_desc_init_by_tag(&w, nd, dw, ti, tag)) != dnnl_success ||
        (st = dnnl_memory_desc_init_by_tag(&c, nd, dc, to, tag)) != dnnl_success ||
        (st = dnnl_matmul_desc_init(&md, &a, &w, NULL, &c)) != dnnl_success)
        return st;
    return dnnl_primitive_desc_create(pd, &md, NULL, engine, NULL);
}

int gb_onednn_matmul_supports(const gb_case *c, gb_err *why) {
    dnnl_data_type_t ti, to;
    if (!types_of(c->dtype, &ti, &to))
        return gb_errf(why, GB_SKIP, "oneDNN %s has no %s matmul", gb_onednn_version((char[16]){0}, 16),
                       gb_dtype_name(c->dtype));
    if (ensure_engine(why) != GB_OK) return GB_SKIP;
    /* Without VNNI, oneDNN's int8 kernels add pairs of u8·s8 products in
     * 16-bit saturating arithmetic (vpmaddubsw) after shifting s8 to u8:
     * with inputs across ±127 the int32 answers are not exact (every row
     * wrong at 32³ under ONEDNN_MAX_CPU_ISA=AVX2 or AVX512_CORE; exact with
     * AVX2_VNNI and AVX512_CORE_VNNI). A GEMM that is not exact is not
     * timed. */
    if (c->dtype == GB_INT8 && !onednn_isa_has_vnni())
        return gb_errf(why, GB_SKIP,
                       "oneDNN %s's int8 matmul without VNNI (effective ISA %s) sums u8·s8 pairs in saturating "
                       "16-bit arithmetic: its int32 answers are not exact, so it is not timed",
                       gb_onednn_version((char[16]){0}, 16), gb_onednn_isa_name());
    /* Whether a kernel exists for this dtype on this CPU, asked once per
     * dtype with a small 2-D product (the answer depends on the ISA, not the
     * shape). */
    static int known[GB_DTYPE_COUNT];  /* 0 unknown, 1 yes, -1 no */
    if (!known[c->dtype]) {
        dnnl_primitive_desc_t pd = NULL;
        known[c->dtype] = make_pd(c->dtype, 0, 64, 64, 64, &pd) == dnnl_success ? 1 : -1;
        if (pd) dnnl_primitive_desc_destroy(pd);
    }
    if (known[c->dtype] < 0)
        return gb_errf(why, GB_SKIP, "oneDNN %s has no %s matmul kernel on this CPU (effective ISA %s)",
                       gb_onednn_version((char[16]){0}, 16), gb_dtype_name(c->dtype), gb_onednn_isa_name());
    return GB_OK;
}

struct gb_onednn_mm {
    dnnl_primitive_t prim;
    dnnl_memory_t a, w, c;
    char impl[64];
};

static dnnl_status_t wrap(const_dnnl_primitive_desc_t pd, dnnl_query_t q, void *data, dnnl_memory_t *mem) {
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, q, 0);
    return md ? dnnl_memory_create(mem, md, engine, data) : dnnl_invalid_arguments;
}

int gb_onednn_matmul_prepare(const gb_case *c, int batch, const void *A, const void *B, void *C,
                             gb_onednn_mm **out, gb_err *e) {
    if (ensure_engine(e) != GB_OK) return GB_SKIP;
    gb_onednn_mm *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "oneDNN matmul: out of host memory");
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = make_pd(c->dtype, batch, c->shape[0], c->shape[1], c->shape[2], &pd);
    if (st == dnnl_success) {
        const char *impl = NULL;
        if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl)
            snprintf(s->impl, sizeof s->impl, "%s", impl);
        /* the plain layouts were asked for, so the library works on the
         * caller's arrays in place: no reorder inside the timed call */
        if ((st = wrap(pd, dnnl_query_src_md, (void *)A, &s->a)) == dnnl_success &&
            (st = wrap(pd, dnnl_query_weights_md, (void *)B, &s->w)) == dnnl_success &&
            (st = wrap(pd, dnnl_query_dst_md, C, &s->c)) == dnnl_success)
            st = dnnl_primitive_create(&s->prim, pd);
    }
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success) {
        gb_onednn_matmul_release(s);
        return gb_errf(e, st == dnnl_unimplemented ? GB_SKIP : GB_FAIL, "oneDNN matmul %s: %s (status %d)",
                       gb_dtype_name(c->dtype), st == dnnl_unimplemented ? "no kernel on this CPU" : "creation failed",
                       (int)st);
    }
    *out = s;
    return GB_OK;
}

int gb_onednn_matmul_run(gb_onednn_mm *s, double *seconds, gb_err *e) {
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, s->a}, {DNNL_ARG_WEIGHTS, s->w}, {DNNL_ARG_DST, s->c}};
    double t0 = gb_now();
    dnnl_status_t st = dnnl_primitive_execute(s->prim, stream, 3, args);
    if (st == dnnl_success) st = dnnl_stream_wait(stream);
    *seconds = gb_now() - t0;
    return st == dnnl_success ? GB_OK : gb_errf(e, GB_FAIL, "oneDNN matmul: execute failed (status %d)", (int)st);
}

void gb_onednn_matmul_annotate(const gb_onednn_mm *s, cJSON *extra) {
    char v[16];
    cJSON_AddStringToObject(extra, "library", "onednn");
    cJSON_AddStringToObject(extra, "library_version", gb_onednn_version(v, sizeof v));
    cJSON_AddStringToObject(extra, "routine", "dnnl_matmul");
    cJSON_AddStringToObject(extra, "implementation", s->impl[0] ? s->impl : "unknown");
    cJSON_AddStringToObject(extra, "isa", gb_onednn_isa_name());
}

void gb_onednn_matmul_release(gb_onednn_mm *s) {
    if (!s) return;
    if (s->prim) dnnl_primitive_destroy(s->prim);
    if (s->a) dnnl_memory_destroy(s->a);
    if (s->w) dnnl_memory_destroy(s->w);
    if (s->c) dnnl_memory_destroy(s->c);
    free(s);
}
