/* test_tables.c — the table of ops (src/ops/ops.def) and the dtype table
 * (src/core/dtype.c) are whole and agree with what reads them: every op has
 * a name and the functions the runner and the suite parser call, every
 * backend column of the table names an implementation some backend file
 * defines, and every dtype's facts are consistent with each other. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_backend.h"
#include "op.h"
#include "testlib.h"

TEST(op_table_every_op_is_whole) {
    for (int i = 0; i < GB_OP_COUNT; i++) {
        const gb_op *op = gb_ops[i];
        CHECK(op != NULL);
        if (!op) continue;
        CHECK((int)op->id == i);
        CHECK(op->name && op->name[0]);
        CHECK(op->summary && op->summary[0]);
        CHECK(op->rate_kind && (!strcmp(op->rate_kind, "flops") || !strcmp(op->rate_kind, "bytes")));
        CHECK(op->params != NULL);
        CHECK(op->parse_size && op->count && op->host_bytes && op->make_inputs && op->verify);
        CHECK(gb_op_find(op->name) == op);
        for (int j = 0; j < i; j++) CHECK(strcmp(gb_ops[j]->name, op->name) != 0);
    }
    CHECK(gb_op_find("no_such_op") == NULL);
}

TEST(op_table_every_op_has_a_cpu_implementation) {
    for (int i = 0; i < GB_OP_COUNT; i++) {
        const gb_op_impl *impl = gb_cpu_op_impl(i);
        CHECK(impl != NULL);
        if (impl) CHECK(impl->prepare && impl->run && impl->fetch && impl->release);
    }
    CHECK(gb_cpu_op_impl(GB_OP_COUNT) == NULL);
    CHECK(gb_cpu_op_impl(-1) == NULL);
}

/* The list in error messages is the catalogue's, every op in its order. */
TEST(op_table_list_names_every_op) {
    char list[512];
    gb_op_list(list, sizeof list);
    const char *at = list;
    for (int i = 0; i < GB_OP_COUNT; i++) {
        const char *hit = strstr(at, gb_ops[i]->name);
        CHECK(hit != NULL);
        if (hit) at = hit + strlen(gb_ops[i]->name);
    }
    CHECK(strncmp(list, "matmul, elementwise, ", 21) == 0);
}

/* Does some file of dir (a backend's folder) define `const gb_op_impl sym = `? */
static int defines_impl(const char *dir, const char *sym) {
    char cmd[512], out[64] = "";
    snprintf(cmd, sizeof cmd,
             "grep -lE '^(extern \"C\" )?const gb_op_impl %s = ' %s/*.c %s/*.cu 2>/dev/null | wc -l", sym, dir, dir);
    if (gb_test_sh(cmd, out, sizeof out) != 0) return -1;
    return atoi(out);
}

/* Each line of ops.def, in order: the name column is the op's own name at
 * that position, and the backend columns name implementations that exactly
 * one file of that backend defines (read from the sources, so the CUDA column
 * is checked without nvcc). */
TEST(op_table_lines_match_the_catalogue_and_the_backends) {
    char *text = gb_test_slurp("src/ops/ops.def", NULL);
    CHECK(text != NULL);
    if (!text) return;
    int lines = 0;
    for (char *p = strstr(text, "\nGB_OP("); p; p = strstr(p + 1, "\nGB_OP(")) {
        char id[64], name[64], cpu[64], cuda[64];
        CHECK(sscanf(p + 7, " %63[A-Z0-9_] , %63[a-z0-9_] , %63[a-z0-9_] , %63[a-z0-9_] )", id, name, cpu, cuda) == 4);
        CHECK(lines < GB_OP_COUNT);
        if (lines < GB_OP_COUNT) CHECK(strcmp(gb_ops[lines]->name, name) == 0);
        CHECK(strncmp(cpu, "gb_cpu_", 7) == 0 && strncmp(cuda, "gb_cuda_", 8) == 0);
        CHECK(defines_impl("cpu_backends", cpu) == 1);
        CHECK(defines_impl("gpu_backends", cuda) == 1);
        lines++;
    }
    CHECK(lines == GB_OP_COUNT);
    free(text);
}

TEST(dtype_table_entries_are_consistent) {
    for (int d = 0; d < GB_DTYPE_COUNT; d++) {
        const gb_dtype_info *t = gb_dtype_get((gb_dtype)d);
        CHECK(t == &gb_dtypes[d]);
        CHECK(t->name && t->name[0] && t->c_type && t->c_type[0]);
        CHECK(gb_dtype_parse(t->name) == d);
        CHECK(!strcmp(gb_dtype_name((gb_dtype)d), t->name));
        CHECK(t->size > 0 && gb_elem_size(t->elem) == t->size);
        CHECK(gb_dtype_size((gb_dtype)d) == t->size && gb_dtype_bytes((gb_dtype)d) == (double)t->size);
        CHECK(t->accumulate && t->accumulate[0] && t->gemm_out_name && t->gemm_out_name[0]);
        CHECK(t->accumulate_roundoff >= 0 && t->accumulate_roundoff < 1);
        CHECK(gb_elem_size(t->gemm_out) >= t->size || t->gemm_out == t->elem);
        if (t->is_float) {
            CHECK(t->unit_roundoff > 0 && t->unit_roundoff < 1);
            /* the reduced precisions have no complex twin (no FFT in them) */
            CHECK(gb_elem_size(t->complex_elem) == 2 * t->size || (!t->suite_default && t->complex_elem == t->elem));
        } else {
            CHECK(t->unit_roundoff == 0);
        }
        CHECK(gb_eps((gb_dtype)d) == t->unit_roundoff);
        CHECK(gb_real_elem((gb_dtype)d) == t->elem && gb_complex_elem((gb_dtype)d) == t->complex_elem);
    }
    CHECK(gb_dtype_get(GB_DTYPE_COUNT) == NULL && gb_dtype_parse("float128") == -1);
    CHECK(!strcmp(gb_dtype_name(GB_DTYPE_COUNT), "?"));
}

/* The values every tolerance and byte count was built on before the table:
 * the table must reproduce them exactly (results stay byte-identical). */
TEST(dtype_table_keeps_float32_and_float64_facts) {
    CHECK(gb_eps(GB_FLOAT32) == FLT_EPSILON / 2 && gb_eps(GB_FLOAT64) == DBL_EPSILON / 2);
    CHECK(gb_dtype_size(GB_FLOAT32) == sizeof(float) && gb_dtype_size(GB_FLOAT64) == sizeof(double));
    CHECK(gb_real_elem(GB_FLOAT32) == GB_E_F32 && gb_complex_elem(GB_FLOAT64) == GB_E_C128);
    CHECK(!strcmp(gb_dtype_gemm_peak(GB_FLOAT32), "gemm_float32_gflops"));
    CHECK(gb_dtype_default_mask() == (1u << GB_FLOAT32 | 1u << GB_FLOAT64));
    char list[128];
    CHECK(!strcmp(gb_dtype_list(list, sizeof list), "float32, float64, bfloat16, float16, float8_e4m3, int8"));
}
