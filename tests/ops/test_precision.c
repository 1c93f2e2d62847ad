/* test_precision.c — the reduced precisions (issue #27): conversions against
 * known bit patterns, inputs identical for every backend, and the matmul
 * check — a right answer passes, a transposed operand fails — in every new
 * dtype; the CPU side through oneDNN where this CPU has a kernel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "backend.h"
#include "cpu_backend.h"
#include "matmul_lowp.h"
#include "op.h"
#include "precision.h"
#include "suite.h"
#include "testlib.h"

extern const gb_op gb_op_matmul, gb_op_batched_matmul, gb_op_fft;

TEST(precision_bfloat16_bits) {
    CHECK(gb_f32_to_bf16(1.0f) == 0x3F80 && gb_f32_to_bf16(-2.0f) == 0xC000);
    CHECK(gb_f32_to_bf16(0.0f) == 0x0000 && gb_f32_to_bf16(-0.0f) == 0x8000);
    /* 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0) */
    CHECK(gb_f32_to_bf16(1.0f + 0x1.0p-8f) == 0x3F80);
    /* 1 + 3·2^-8 is halfway between 1+2^-7 (odd) and 1+2^-6: rounds up to even */
    CHECK(gb_f32_to_bf16(1.0f + 3 * 0x1.0p-8f) == 0x3F82);
    CHECK(gb_f32_to_bf16(1.0f + 0x1.0p-8f + 0x1.0p-20f) == 0x3F81); /* above the tie */
    CHECK(gb_f32_to_bf16(3.14159265f) == 0x4049);
    CHECK(gb_f32_to_bf16(INFINITY) == 0x7F80 && gb_f32_to_bf16(0x1.fffffep127f) == 0x7F80); /* max float rounds to inf */
    uint16_t n = gb_f32_to_bf16(NAN);
    CHECK((n & 0x7F80) == 0x7F80 && (n & 0x7F) != 0);
    CHECK(gb_bf16_to_f32(0x4049) == 3.140625f && gb_bf16_to_f32(0x0001) == 0x1.0p-133f);
}

TEST(precision_float16_bits) {
    CHECK(gb_f32_to_f16(1.0f) == 0x3C00 && gb_f32_to_f16(-2.0f) == 0xC000 && gb_f32_to_f16(0.5f) == 0x3800);
    CHECK(gb_f32_to_f16(65504.0f) == 0x7BFF && gb_f32_to_f16(65519.0f) == 0x7BFF);
    CHECK(gb_f32_to_f16(65520.0f) == 0x7C00 && gb_f32_to_f16(-1e9f) == 0xFC00);
    CHECK(gb_f32_to_f16(0x1.0p-24f) == 0x0001 && gb_f32_to_f16(0x1.0p-25f) == 0x0000); /* tie to even: 0 */
    CHECK(gb_f32_to_f16(0x1.8p-24f) == 0x0002);                                          /* tie to even: 2 */
    CHECK(gb_f32_to_f16(0x1.0p-14f) == 0x0400);                                          /* smallest normal */
    CHECK(gb_f32_to_f16(1.0f + 0x1.0p-11f) == 0x3C00 && gb_f32_to_f16(1.0f + 3 * 0x1.0p-11f) == 0x3C02);
    CHECK(gb_f32_to_f16(3.14159265f) == 0x4248);
    CHECK((gb_f32_to_f16(NAN) & 0x7E00) == 0x7E00);
    CHECK(gb_f16_to_f32(0x4248) == 3.140625f && gb_f16_to_f32(0x0001) == 0x1.0p-24f);
    CHECK(gb_f16_to_f32(0x7C00) == INFINITY && isnan(gb_f16_to_f32(0x7E00)));
}

TEST(precision_float8_e4m3_bits) {
    CHECK(gb_f32_to_e4m3(1.0f) == 0x38 && gb_f32_to_e4m3(-1.0f) == 0xB8 && gb_f32_to_e4m3(0.0f) == 0x00);
    CHECK(gb_f32_to_e4m3(448.0f) == 0x7E && gb_f32_to_e4m3(1e6f) == 0x7E && gb_f32_to_e4m3(-1e6f) == 0xFE);
    CHECK(gb_f32_to_e4m3(INFINITY) == 0x7E);                    /* saturates: E4M3 has no infinity */
    CHECK(gb_f32_to_e4m3(0x1.0p-9f) == 0x01 && gb_f32_to_e4m3(0x1.0p-6f) == 0x08);
    CHECK(gb_f32_to_e4m3(0x1.0p-10f) == 0x00);                  /* tie to even: 0 */
    CHECK(gb_f32_to_e4m3(1.0625f) == 0x38 && gb_f32_to_e4m3(1.1875f) == 0x3A); /* ties to even */
    CHECK(gb_f32_to_e4m3(3.14159265f) == 0x45);                 /* 3.25 */
    CHECK((gb_f32_to_e4m3(NAN) & 0x7F) == 0x7F);
    CHECK(gb_e4m3_to_f32(0x45) == 3.25f && gb_e4m3_to_f32(0x7E) == 448.0f && isnan(gb_e4m3_to_f32(0x7F)));
    CHECK(gb_e4m3_to_f32(0x01) == 0x1.0p-9f);
    /* every finite pattern converts back to itself */
    int same = 1;
    for (int b = 0; b < 256; b++)
        if ((b & 0x7F) != 0x7F && gb_f32_to_e4m3(gb_e4m3_to_f32((uint8_t)b)) != b) same = 0;
    CHECK(same);
}

TEST(precision_int8_range_cannot_overflow_int32) {
    CHECK(gb_int8_range(1) == 127 && gb_int8_range(4096) == 127 && gb_int8_range(133144) == 127);
    int64_t ks[] = {133145, 1 << 20, 1 << 24, 1ll << 30};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        int r = gb_int8_range(ks[i]);
        CHECK(r >= 1 && r < 127 && (double)ks[i] * r * r <= 2147483647.0);
    }
}

/* A case as the suite parser would build it. */
static gb_case make_case(const gb_op *op, const char *size_json, gb_dtype dt, int batch) {
    gb_case c;
    memset(&c, 0, sizeof c);
    c.op_id = op->id;
    c.op = op;
    c.dtype = dt;
    gb_params_default(&c.params);
    c.params.batch = batch;
    c.seed = 7;
    cJSON *j = cJSON_Parse(size_json);
    gb_err e;
    CHECK(op->parse_size(j, &c, &e) == GB_OK);
    cJSON_Delete(j);
    op->count(&c);
    return c;
}

/* C = A·B in float64 from the rounded inputs, stored in the dtype's output
 * type; transpose_b: with B's k×k square read as its transpose (the wrong
 * kernel every check must catch). */
static void naive(const gb_case *c, size_t b, const gb_arrays *in, gb_array *C, int transpose_b) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2];
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    for (size_t p = 0; p < b; p++)
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                double s = 0;
                for (size_t l = 0; l < k; l++) {
                    size_t bi = transpose_b ? j * k + l : l * n + j;
                    s += gb_elem_value(A->elem, A->data, (p * m + i) * k + l) *
                         gb_elem_value(B->elem, B->data, p * k * n + bi);
                }
                gb_elem_store(C->elem, C->data, (p * m + i) * n + j, s);
            }
}

static const gb_dtype lowp[] = {GB_BFLOAT16, GB_FLOAT16, GB_FLOAT8_E4M3, GB_INT8};

TEST(precision_matmul_check_passes_right_and_fails_transposed_in_every_dtype) {
    for (size_t t = 0; t < sizeof lowp / sizeof *lowp; t++)
        for (int batched = 0; batched < 2; batched++) {
            const gb_op *op = batched ? &gb_op_batched_matmul : &gb_op_matmul;
            gb_case c = make_case(op, "[24,48,48]", lowp[t], 3);
            size_t b = batched ? 3 : 1;
            gb_arrays in = {0}, right = {0}, wrong = {0};
            gb_err e;
            CHECK(op->make_inputs(&c, &in, &e) == GB_OK);
            gb_array *R = gb_arrays_add(&right, "C", gb_gemm_out_elem(c.dtype), b * 24 * 48, &e);
            gb_array *W = gb_arrays_add(&wrong, "C", gb_gemm_out_elem(c.dtype), b * 24 * 48, &e);
            naive(&c, b, &in, R, 0);
            naive(&c, b, &in, W, 1);
            gb_verdict v;
            op->verify(&c, &in, &right, NULL, &v);
            CHECK(v.status == GB_VERIFY_PASSED);
            CHECK(v.tolerance == gb_matmul_lowp_tolerance(&c, 0));
            op->verify(&c, &in, &wrong, NULL, &v);
            CHECK(v.status == GB_VERIFY_FAILED && v.error > 10 * v.tolerance);
            op->verify(&c, &in, &wrong, &right, &v); /* against another backend's right answer */
            CHECK(v.status == GB_VERIFY_FAILED);
            op->verify(&c, &in, &right, &right, &v);
            CHECK(v.status == GB_VERIFY_PASSED);
            /* one element never written (its NaN poison) fails */
            gb_array_poison(W);
            naive(&c, b, &in, W, 0);
            if (c.dtype != GB_INT8) {
                gb_elem_store(W->elem, W->data, 5, NAN);
                op->verify(&c, &in, &wrong, NULL, &v);
                CHECK(v.status == GB_VERIFY_FAILED && isinf(v.error));
            } else {
                ((int32_t *)W->data)[5] += 1; /* int8 is exact: off by one fails */
                op->verify(&c, &in, &wrong, NULL, &v);
                CHECK(v.status == GB_VERIFY_FAILED);
            }
            gb_arrays_free(&in);
            gb_arrays_free(&right);
            gb_arrays_free(&wrong);
        }
}

TEST(precision_inputs_are_rounded_draws_of_the_float64_stream) {
    gb_case c64 = make_case(&gb_op_matmul, "[8,16,8]", GB_FLOAT64, 1);
    gb_arrays in64 = {0};
    gb_err e;
    CHECK(gb_op_matmul.make_inputs(&c64, &in64, &e) == GB_OK);
    const gb_array *A64 = gb_arrays_find(&in64, "A");
    for (size_t t = 0; t < 3; t++) { /* the float types */
        gb_case c = make_case(&gb_op_matmul, "[8,16,8]", lowp[t], 1);
        c.seed = c64.seed;
        gb_arrays in = {0};
        CHECK(gb_op_matmul.make_inputs(&c, &in, &e) == GB_OK);
        const gb_array *A = gb_arrays_find(&in, "A");
        CHECK(A->elem == gb_real_elem(lowp[t]) && A->count == A64->count);
        int same = 1;
        for (size_t i = 0; i < A->count; i++) {
            /* the float64 case's draw, rounded here, is the very element handed over */
            uint8_t got[2] = {0};
            gb_elem_store(A->elem, got, 0, ((const double *)A64->data)[i]);
            if (memcmp(got, (const char *)A->data + i * gb_elem_size(A->elem), gb_elem_size(A->elem))) same = 0;
        }
        CHECK(same);
        gb_arrays_free(&in);
    }
    gb_case c8 = make_case(&gb_op_matmul, "[8,16,8]", GB_INT8, 1);
    gb_arrays in8 = {0};
    CHECK(gb_op_matmul.make_inputs(&c8, &in8, &e) == GB_OK);
    const gb_array *A8 = gb_arrays_find(&in8, "A");
    int nonzero = 0, inrange = 1;
    for (size_t i = 0; i < A8->count; i++) {
        int v = ((const int8_t *)A8->data)[i];
        nonzero += v != 0;
        if (v < -127 || v > 127) inrange = 0;
    }
    CHECK(inrange && nonzero > (int)A8->count / 2);
    gb_arrays_free(&in64);
    gb_arrays_free(&in8);
}

TEST(precision_ops_without_a_path_skip_with_the_reason) {
    gb_err why = {{0}};
    CHECK(gb_op_computes(&gb_op_fft, GB_BFLOAT16, &why) == GB_SKIP);
    CHECK(strstr(why.msg, "fft has no bfloat16 path") != NULL);
    CHECK(gb_op_computes(&gb_op_fft, GB_FLOAT32, &why) == GB_OK);
    for (int d = 0; d < GB_DTYPE_COUNT; d++) CHECK(gb_op_computes(&gb_op_matmul, (gb_dtype)d, &why) == GB_OK);
    /* a suite naming no dtypes runs float32 and float64 only */
    CHECK(gb_dtype_default_mask() == GB_DTYPES_CLASSIC);
}

/* The CPU backend computes each new dtype it has a library for, and the
 * answer passes the op's check; float8 (no CPU library) is skipped. */
TEST(precision_cpu_matmul_every_dtype_it_has) {
    const gb_backend *bk = gb_cpu_backend();
    gb_backend_options o = {.threads = 2};
    gb_err e;
    CHECK(bk->init(&o, &e) == GB_OK);
    int skipped = 0;
    for (size_t t = 0; t < sizeof lowp / sizeof *lowp; t++)
        for (int batched = 0; batched < 2; batched++) {
            const gb_op *op = batched ? &gb_op_batched_matmul : &gb_op_matmul;
            gb_case c = make_case(op, "[33,70,45]", lowp[t], 4);
            int s = bk->supports(&c, &e);
            if (lowp[t] == GB_FLOAT8_E4M3) {
                CHECK(s == GB_SKIP && strstr(e.msg, "float8") != NULL);
                continue;
            }
            if (s == GB_SKIP) {
                /* where oneDNN has no kernel for the dtype on this CPU (an AVX2
                 * machine has none for bfloat16 or float16), or only an inexact
                 * one (int8 without VNNI): said so, naming the ISA */
                char want[96];
                snprintf(want, sizeof want, "no %s matmul kernel on this CPU (effective ISA", gb_dtype_name(lowp[t]));
                int said = strstr(e.msg, want) != NULL ||
                           (lowp[t] == GB_INT8 && strstr(e.msg, "int8 matmul without VNNI (effective ISA") != NULL);
                if (!CHECK(said)) fprintf(stderr, "    %s: %s\n", gb_dtype_name(lowp[t]), e.msg);
                skipped++;
                continue;
            }
            CHECK(s == GB_OK);
            gb_arrays in = {0}, out = {0};
            void *st = NULL;
            double sec = 0;
            CHECK(op->make_inputs(&c, &in, &e) == GB_OK);
            CHECK(bk->prepare(&c, &in, &st, &e) == GB_OK);
            CHECK(bk->run(st, 0, &sec, &e) == GB_OK);
            CHECK(bk->fetch(st, &out, &e) == GB_OK);
            cJSON *extra = cJSON_CreateObject();
            bk->annotate(st, extra);
            CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(extra, "library")), "onednn"));
            CHECK(cJSON_GetStringValue(cJSON_GetObjectItem(extra, "implementation")) != NULL);
            const cJSON *types = cJSON_GetObjectItem(extra, "types");
            CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(types, "output")),
                          lowp[t] == GB_INT8 ? "int32" : gb_dtype_name(lowp[t])));
            cJSON_Delete(extra);
            bk->release(st);
            gb_verdict v;
            op->verify(&c, &in, &out, NULL, &v);
            CHECK(v.status == GB_VERIFY_PASSED);
            gb_arrays_free(&in);
            gb_arrays_free(&out);
        }
    if (skipped == 6) SKIP("oneDNN has no exact bfloat16, float16 or int8 matmul on this CPU: only the reasons were checked");
}

/* One case through the CPU backend: prepare, one run, fetch. */
static int cpu_run_case(const gb_case *c, const gb_arrays *in, gb_arrays *out) {
    const gb_backend *bk = gb_cpu_backend();
    gb_backend_options o = {.threads = 2};
    gb_err e;
    void *st = NULL;
    double sec = 0;
    if (bk->init(&o, &e) != GB_OK || bk->supports(c, &e) != GB_OK || bk->prepare(c, in, &st, &e) != GB_OK)
        return GB_FAIL;
    int s = bk->run(st, 0, &sec, &e);
    if (s == GB_OK) s = bk->fetch(st, out, &e);
    bk->release(st);
    return s;
}

extern const gb_op gb_op_elementwise, gb_op_reduction;

/* elementwise in bfloat16/float16: the CPU's answer passes; the same
 * expression with sin and cos swapped, rounded the same way, fails. */
TEST(precision_elementwise_right_passes_swapped_fails) {
    gb_dtype ds[] = {GB_BFLOAT16, GB_FLOAT16};
    for (int t = 0; t < 2; t++) {
        gb_case c = make_case(&gb_op_elementwise, "[50,101]", ds[t], 1);
        gb_arrays in = {0}, out = {0}, wrong = {0};
        gb_err e;
        CHECK(gb_op_elementwise.make_inputs(&c, &in, &e) == GB_OK);
        CHECK(cpu_run_case(&c, &in, &out) == GB_OK);
        gb_verdict v;
        gb_op_elementwise.verify(&c, &in, &out, NULL, &v);
        CHECK(v.status == GB_VERIFY_PASSED && v.error > 0);
        const gb_array *a = gb_arrays_find(&in, "a"), *b = gb_arrays_find(&in, "b");
        gb_array *w = gb_arrays_add(&wrong, "out", a->elem, a->count, &e);
        for (size_t i = 0; i < a->count; i++) {
            float x = (float)gb_elem_value(a->elem, a->data, i), y = (float)gb_elem_value(b->elem, b->data, i);
            gb_elem_store(w->elem, w->data, i, x * y + cosf(x) + sinf(y));
        }
        gb_op_elementwise.verify(&c, &in, &wrong, NULL, &v);
        CHECK(v.status == GB_VERIFY_FAILED);
        gb_op_elementwise.verify(&c, &in, &wrong, &out, &v);
        CHECK(v.status == GB_VERIFY_FAILED);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
        gb_arrays_free(&wrong);
    }
}

/* reduction in bfloat16/float16: the CPU's answer passes; the sample std
 * (n − 1) in place of the population std fails. */
TEST(precision_reduction_right_passes_sample_std_fails) {
    gb_dtype ds[] = {GB_BFLOAT16, GB_FLOAT16};
    for (int t = 0; t < 2; t++) {
        gb_case c = make_case(&gb_op_reduction, "[20,50]", ds[t], 1);
        gb_arrays in = {0}, out = {0};
        gb_err e;
        CHECK(gb_op_reduction.make_inputs(&c, &in, &e) == GB_OK);
        CHECK(cpu_run_case(&c, &in, &out) == GB_OK);
        gb_verdict v;
        gb_op_reduction.verify(&c, &in, &out, NULL, &v);
        CHECK(v.status == GB_VERIFY_PASSED);
        gb_array *st = gb_arrays_find(&out, "stats");
        double *stats = st->data, n = 1000;
        stats[2] *= sqrt(n / (n - 1));
        gb_op_reduction.verify(&c, &in, &out, NULL, &v);
        CHECK(v.status == GB_VERIFY_FAILED);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
}

TEST(precision_suite_sweeps_every_new_dtype) {
    gb_suite s;
    gb_err e = {{0}};
    CHECK(gb_suite_load("suites/precision.json", NULL, &s, &e) == GB_OK);
    unsigned seen = 0;
    int skinny = 0;
    for (size_t i = 0; i < s.count; i++) {
        seen |= 1u << s.items[i].c.dtype;
        if (s.items[i].c.op_id == GB_OP_MATMUL && s.items[i].c.shape[0] <= 64 && s.items[i].c.shape[1] == 4096)
            skinny++;
    }
    for (int d = GB_BFLOAT16; d < GB_DTYPE_COUNT; d++) CHECK(seen & (1u << d));
    CHECK(skinny == 5 * 5); /* m = 1, 8, 16, 32, 64 in five dtypes */
    gb_suite_free(&s);
}

/* --dtype picks the dtypes of a suite that names none (the reduced
 * precisions included); a suite naming its dtypes is only narrowed. */
TEST(precision_dtype_flag_reaches_new_dtypes_only_where_the_suite_names_none) {
    gb_suite_filter f = {.dtypes = "bfloat16,int8"};
    gb_suite s;
    gb_err e = {{0}};
    CHECK(gb_suite_parse("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}", "t.json", &f, &s,
                         &e) == GB_OK);
    CHECK(s.count == 2 && s.items[0].c.dtype == GB_BFLOAT16 && s.items[1].c.dtype == GB_INT8);
    gb_suite_free(&s);
    CHECK(gb_suite_parse("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}", "t.json", NULL, &s,
                         &e) == GB_OK);
    CHECK(s.count == 2 && s.items[0].c.dtype == GB_FLOAT32 && s.items[1].c.dtype == GB_FLOAT64);
    gb_suite_free(&s);
    int r = gb_suite_parse("{\"name\":\"t\",\"defaults\":{\"dtypes\":[\"float32\"]},"
                           "\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                           "t.json", &f, &s, &e);
    CHECK(r != GB_OK || s.count == 0);
    if (r == GB_OK) gb_suite_free(&s);
}

/* float32/float64's library under auto: per dtype and shape class, read
 * from the kept file when it has the line (no measuring), OpenBLAS
 * unmeasured when keeping is off; --cpu-gemm wins; lowp dtypes on oneDNN. */
TEST(precision_cpu_gemm_choice_kept_per_class_off_and_forced) {
    int lib = 0, cls = 0;
    gb_dtype d = GB_FLOAT64;
    CHECK(gb_cpu_gemm_parse_choice("float32 large onednn rounds=5 openblas=134.1 onednn=147.5\n", &d, &cls, &lib) &&
          lib == GB_CPU_GEMM_ONEDNN && d == GB_FLOAT32 && cls == 0);
    CHECK(gb_cpu_gemm_parse_choice("float64 skinny blis rounds=7 openblas=2 blis=3", &d, &cls, &lib) &&
          lib == GB_CPU_GEMM_BLIS && d == GB_FLOAT64 && cls == 1);
    CHECK(!gb_cpu_gemm_parse_choice("float32 onednn 134.1 147.5", &d, &cls, &lib)); /* the old one-line format */
    CHECK(!gb_cpu_gemm_parse_choice("float32 large mkl", &d, &cls, &lib));
    CHECK(!gb_cpu_gemm_parse_choice("", &d, &cls, &lib) && !gb_cpu_gemm_parse_choice(NULL, &d, &cls, &lib));
    const char *path = gb_test_tmp("cpu-gemm-choice-test"); /* not under build/: a sanitized run has none there */
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL)) return;
    fprintf(f, "%s\n", gb_cpu_gemm_choice_key());
    fputs("float32 large onednn rounds=5 openblas=10 onednn=20\nfloat32 skinny blis rounds=5 openblas=1 blis=2\n"
          "float32 small@64x128x64 openblas rounds=5 openblas=5 blis=4\nfloat64 large openblas rounds=5 openblas=9 blis=8\n"
          "float32 small@200x300x100 blis rounds=5 openblas=1 blis=4\n"
          "float32 huge openblas rounds=5 openblas=30 onednn=20\nfloat32 giant onednn rounds=5 openblas=30 onednn=40\n", f);
    fclose(f);
    const char *old = getenv("GPUBENCH_CPU_GEMM_CHOICE");
    char *saved = old ? strdup(old) : NULL;
    setenv("GPUBENCH_CPU_GEMM_CHOICE", path, 1);
    gb_cpu_set_gemm(GB_CPU_GEMM_AUTO);
    gb_case large = make_case(&gb_op_matmul, "[1024,1024,1024]", GB_FLOAT32, 1);
    gb_case skinny = make_case(&gb_op_matmul, "[16,4096,4096]", GB_FLOAT32, 1);
    gb_case small = make_case(&gb_op_matmul, "[64,128,64]", GB_FLOAT32, 1);
    gb_case huge = make_case(&gb_op_matmul, "[4096,4096,4096]", GB_FLOAT32, 1);
    gb_case giant = make_case(&gb_op_matmul, "[8192,8192,8192]", GB_FLOAT32, 1);
    gb_case tall = make_case(&gb_op_matmul, "[8192,1024,8192]", GB_FLOAT32, 1);
    CHECK(!strcmp(gb_cpu_gemm_shape_class(&large), "large") && !strcmp(gb_cpu_gemm_shape_class(&skinny), "skinny") &&
          !strcmp(gb_cpu_gemm_shape_class(&small), "small") && !strcmp(gb_cpu_gemm_shape_class(&huge), "huge") &&
          !strcmp(gb_cpu_gemm_shape_class(&tall), "large"));
    /* giant and huge have their own kept lines: large's does not decide them */
    CHECK(!strcmp(gb_cpu_gemm_shape_class(&giant), "giant") && gb_cpu_gemm_library_for(&giant) == GB_CPU_GEMM_ONEDNN);
    CHECK(gb_cpu_gemm_library_for(&huge) == GB_CPU_GEMM_OPENBLAS);
    CHECK(strstr(gb_cpu_gemm_choice_reason_for(&huge), "kept: openblas for huge") != NULL);
    CHECK(gb_cpu_gemm_library_for(&large) == GB_CPU_GEMM_ONEDNN);
    CHECK(strstr(gb_cpu_gemm_choice_reason_for(&large), "kept: onednn for large") != NULL);
    /* a kept BLIS line is used where BLIS can be opened, and measured again
     * where it cannot (GPUBENCH_BLIS empty: the sanitized test runs, a host
     * without it) */
    gb_err blis_why = {{0}};
    int blis = gb_cpu_dl_available(GB_CPU_GEMM_BLIS, &blis_why) == GB_OK;
    CHECK(blis ? gb_cpu_gemm_library_for(&skinny) == GB_CPU_GEMM_BLIS
               : gb_cpu_gemm_library_for(&skinny) != GB_CPU_GEMM_BLIS);
    CHECK(gb_cpu_gemm_library_for(&small) == GB_CPU_GEMM_OPENBLAS);
    CHECK(strstr(gb_cpu_gemm_choice_reason_for(&small), "kept: openblas") != NULL);
    /* the small class is kept per shape: another small shape has its own
     * line (on the GPU host BLIS ran 200x300x100 3.5x faster and 64³ 2x
     * slower than OpenBLAS) */
    gb_case oblong = make_case(&gb_op_matmul, "[200,300,100]", GB_FLOAT32, 1);
    CHECK(!strcmp(gb_cpu_gemm_shape_class(&oblong), "small"));
    CHECK(blis ? gb_cpu_gemm_library_for(&oblong) == GB_CPU_GEMM_BLIS
               : gb_cpu_gemm_library_for(&oblong) != GB_CPU_GEMM_BLIS);
    CHECK(!blis || strstr(gb_cpu_gemm_choice_reason_for(&oblong), "kept: blis") != NULL);
    CHECK(gb_cpu_gemm_parse_choice("float64 small@8x16x32 blis rounds=5 openblas=1 blis=2", &d, &cls, &lib) &&
          cls == 2 && lib == GB_CPU_GEMM_BLIS);
    CHECK(!gb_cpu_gemm_parse_choice("float32 small openblas rounds=5 openblas=5", &d, &cls, &lib)); /* no shape */
    CHECK(!gb_cpu_gemm_parse_choice("float32 small@8x16 openblas rounds=5 openblas=5", &d, &cls, &lib));
    CHECK(!gb_cpu_gemm_parse_choice("float32 small@8x0x16 openblas rounds=5 openblas=5", &d, &cls, &lib));
    CHECK(!gb_cpu_gemm_parse_choice("float32 small@8x16x32x4 openblas rounds=5 openblas=5", &d, &cls, &lib));
    CHECK(!gb_cpu_gemm_parse_choice("float32 large@8x16x32 openblas rounds=5 openblas=5", &d, &cls, &lib));
    large.dtype = GB_FLOAT64;
    CHECK(gb_cpu_gemm_library_for(&large) == GB_CPU_GEMM_OPENBLAS);
    small.dtype = GB_BFLOAT16;
    CHECK(gb_cpu_gemm_library_for(&small) == GB_CPU_GEMM_ONEDNN);
    setenv("GPUBENCH_CPU_GEMM_CHOICE", "", 1);
    gb_cpu_set_gemm(GB_CPU_GEMM_AUTO);
    large.dtype = GB_FLOAT32;
    CHECK(gb_cpu_gemm_library_for(&large) == GB_CPU_GEMM_OPENBLAS);
    CHECK(strstr(gb_cpu_gemm_choice_reason_for(&large), "not measured") != NULL);
    gb_cpu_set_gemm(GB_CPU_GEMM_OPENBLAS);
    CHECK(gb_cpu_gemm_library_for(&small) == GB_CPU_GEMM_OPENBLAS && gb_cpu_gemm_library_for(&large) == GB_CPU_GEMM_OPENBLAS);
    CHECK(strstr(gb_cpu_gemm_choice_reason_for(&large), "--cpu-gemm openblas") != NULL);
    gb_cpu_set_gemm(GB_CPU_GEMM_AUTO);
    if (saved) setenv("GPUBENCH_CPU_GEMM_CHOICE", saved, 1);
    else unsetenv("GPUBENCH_CPU_GEMM_CHOICE");
    free(saved);
    remove(path);
}

/* The kept GEMM choice is read strictly: a line with a bad field, or naming
 * a library without the dtype (oneDNN has no float64 GEMM), is ignored and
 * its class measured again; a file whose key line is another machine's or
 * build's is measured again whole; the rewritten file starts with this
 * machine's key and keeps the other classes' good lines. */
/* What a class whose kept line is not used reads: measured again, or, on a
 * machine so busy that a candidate could not be timed, the default — never
 * the file's line ("kept:"; under two busy loops "measured:" alone failed). */
static int measured_again(const char *why) {
    return why && strncmp(why, "kept:", 5) != 0 &&
           (!strncmp(why, "measured:", 9) || !strcmp(why, "default (the candidates could not be measured)"));
}

TEST(precision_cpu_gemm_choice_bad_lines_and_other_key_measured_again) {
    const char *path = gb_test_tmp("cpu-gemm-choice-strict");
    const char *old = getenv("GPUBENCH_CPU_GEMM_CHOICE");
    char *saved = old ? strdup(old) : NULL;
    setenv("GPUBENCH_CPU_GEMM_CHOICE", path, 1);
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL)) return;
    fprintf(f, "%s\nfloat64 small@64x128x64 onednn rounds=5 openblas=1 onednn=2\n"
               "float32 small@64x128x64 blis rounds=x openblas=1 blis=2\n"
               "float64 large openblas rounds=5 openblas=9 blis=8\n", gb_cpu_gemm_choice_key());
    fclose(f);
    gb_cpu_set_gemm(GB_CPU_GEMM_AUTO);
    gb_case small = make_case(&gb_op_matmul, "[64,128,64]", GB_FLOAT64, 1);
    CHECK(gb_cpu_gemm_library_for(&small) != GB_CPU_GEMM_ONEDNN); /* it has no float64 GEMM */
    const char *why = gb_cpu_gemm_choice_reason_for(&small);
    CHECK(measured_again(why));
    int f64_measured = !strncmp(why, "measured:", 9);
    CHECK(!f64_measured || strstr(why, "interleaved rounds") != NULL);
    small.dtype = GB_FLOAT32;
    CHECK(measured_again(gb_cpu_gemm_choice_reason_for(&small)));
    char *text = gb_test_slurp(path, NULL);
    CHECK(text && !strncmp(text, gb_cpu_gemm_choice_key(), strlen(gb_cpu_gemm_choice_key())));
    /* the bad lines are gone (matched whole: float32 small, measured again,
     * may well be "float32 small onednn ..." now — oneDNN can win it, and
     * under load a match on "small onednn" failed this test) */
    CHECK(text && !strstr(text, "rounds=x") && !strstr(text, "float64 small@64x128x64 onednn"));
    /* what was measured again is kept under its shape, never as the old
     * class-wide "small" line */
    CHECK(text && !strstr(text, " small ") && !strstr(text, "float64 small@64x128x64 onednn"));
    /* the other class's good line stays, whether or not a measurement was
     * kept (one a busy machine cut short is not) */
    CHECK(text && strstr(text, "float64 large openblas rounds=5 openblas=9 blis=8"));
    free(text);
    /* another machine's key: its good line is not used */
    f = fopen(path, "w");
    if (!CHECK(f != NULL)) return;
    fputs("key cpu=another; cpus=1\nfloat32 small@64x128x64 blis rounds=5 openblas=1 blis=2\n", f);
    fclose(f);
    gb_cpu_set_gemm(GB_CPU_GEMM_AUTO);
    CHECK(measured_again(gb_cpu_gemm_choice_reason_for(&small)));
    gb_dtype d;
    int cls, lib;
    CHECK(!gb_cpu_gemm_parse_choice("float64 huge onednn rounds=5 onednn=3", &d, &cls, &lib));
    CHECK(!gb_cpu_gemm_parse_choice("float32 huge onednn rounds=5 openblas=3", &d, &cls, &lib)); /* chosen unrated */
    CHECK(!gb_cpu_gemm_parse_choice("float32 huge openblas rounds=5 openblas=nan", &d, &cls, &lib));
    CHECK(!gb_cpu_gemm_parse_choice("float32 huge openblas rounds=5 openblas=3 speed=4", &d, &cls, &lib));
    gb_cpu_set_gemm(GB_CPU_GEMM_AUTO);
    if (saved) setenv("GPUBENCH_CPU_GEMM_CHOICE", saved, 1);
    else unsetenv("GPUBENCH_CPU_GEMM_CHOICE");
    free(saved);
    remove(path);
}

/* The ISA ceiling's FLOP per cycle per core follows the best instruction
 * the cpuid flags offer (AMX over AVX512_BF16/VNNI over AVX2), flags matched
 * as whole words (avx512f is not avx512fp16's prefix match). */
TEST(precision_isa_flop_per_cycle_follows_the_cpuid_flags) {
    const char *how = NULL;
    const char *spr = "flags\t\t: fpu avx2 fma avx512f avx512_bf16 avx512_vnni avx512_fp16 amx_bf16 amx_tile amx_int8\n";
    const char *zen5 = "flags\t\t: fpu avx2 fma avx512f avx512_bf16 avx512_vnni\n";
    const char *hsw = "flags\t\t: fpu avx2 fma\n";
    CHECK(gb_cpu_isa_per_cycle(spr, GB_BFLOAT16, &how) == 1024 && !strcmp(how, "AMX-BF16"));
    CHECK(gb_cpu_isa_per_cycle(spr, GB_INT8, &how) == 2048 && !strcmp(how, "AMX-INT8"));
    CHECK(gb_cpu_isa_per_cycle(spr, GB_FLOAT16, &how) == 128 && !strcmp(how, "AVX512_FP16"));
    CHECK(gb_cpu_isa_per_cycle(spr, GB_FLOAT32, &how) == 64 && gb_cpu_isa_per_cycle(spr, GB_FLOAT64, &how) == 32);
    CHECK(gb_cpu_isa_per_cycle(zen5, GB_BFLOAT16, &how) == 128 && gb_cpu_isa_per_cycle(zen5, GB_INT8, &how) == 256);
    CHECK(gb_cpu_isa_per_cycle(zen5, GB_FLOAT16, &how) == 0 && how == NULL);
    CHECK(gb_cpu_isa_per_cycle(hsw, GB_FLOAT32, &how) == 32 && gb_cpu_isa_per_cycle(hsw, GB_BFLOAT16, &how) == 0);
    /* "avx512fp16" holds no whole-word avx512f: the AVX2 FMA rate, not AVX-512's */
    CHECK(gb_cpu_isa_per_cycle("flags : avx512fp16 fma\n", GB_FLOAT32, &how) == 32 && !strcmp(how, "AVX2 FMA"));
    CHECK(gb_cpu_isa_per_cycle(spr, GB_FLOAT8_E4M3, &how) == 0);
}
