/* dtype.c — the dtype table (also compiled into the CUDA plugin). */
#include "dtype.h"

#include <stdio.h>
#include <string.h>

const gb_dtype_info gb_dtypes[GB_DTYPE_COUNT] = {
    [GB_FLOAT32] = {.name = "float32", .size = 4, .is_float = 1, .unit_roundoff = 0x1.0p-24,
                    .accumulate = "float32", .accumulate_roundoff = 0x1.0p-24, .gemm_out = GB_E_F32,
                    .gemm_out_name = "float32", .elem = GB_E_F32, .complex_elem = GB_E_C64,
                    .c_type = "float", .suite_default = 1, .gemm_peak = "gemm_float32_gflops"},
    [GB_FLOAT64] = {.name = "float64", .size = 8, .is_float = 1, .unit_roundoff = 0x1.0p-53,
                    .accumulate = "float64", .accumulate_roundoff = 0x1.0p-53, .gemm_out = GB_E_F64,
                    .gemm_out_name = "float64", .elem = GB_E_F64, .complex_elem = GB_E_C128,
                    .c_type = "double", .suite_default = 1, .gemm_peak = "gemm_float64_gflops"},
    /* 8 significand bits (7 stored): u = 2^-8 */
    [GB_BFLOAT16] = {.name = "bfloat16", .size = 2, .is_float = 1, .unit_roundoff = 0x1.0p-8,
                     .accumulate = "float32", .accumulate_roundoff = 0x1.0p-24, .gemm_out = GB_E_BF16,
                     .gemm_out_name = "bfloat16", .elem = GB_E_BF16, .complex_elem = GB_E_BF16,
                     .c_type = "uint16_t", .gemm_peak = "gemm_bfloat16_gflops"},
    /* 11 significand bits: u = 2^-11 */
    [GB_FLOAT16] = {.name = "float16", .size = 2, .is_float = 1, .unit_roundoff = 0x1.0p-11,
                    .accumulate = "float32", .accumulate_roundoff = 0x1.0p-24, .gemm_out = GB_E_F16,
                    .gemm_out_name = "float16", .elem = GB_E_F16, .complex_elem = GB_E_F16,
                    .c_type = "uint16_t", .gemm_peak = "gemm_float16_gflops"},
    /* E4M3: 4 significand bits: u = 2^-4; output float32 */
    [GB_FLOAT8_E4M3] = {.name = "float8_e4m3", .size = 1, .is_float = 1, .unit_roundoff = 0x1.0p-4,
                        .accumulate = "float32", .accumulate_roundoff = 0x1.0p-14, .gemm_out = GB_E_F32,
                        .gemm_out_name = "float32", .elem = GB_E_F8E4M3, .complex_elem = GB_E_F8E4M3,
                        .c_type = "uint8_t", .gemm_peak = "gemm_float8_e4m3_gflops"},
    /* exact: inputs in a range whose products' sums fit int32 (precision.h) */
    [GB_INT8] = {.name = "int8", .size = 1, .is_float = 0, .unit_roundoff = 0, .accumulate = "int32",
                 .accumulate_roundoff = 0, .gemm_out = GB_E_I32, .gemm_out_name = "int32", .elem = GB_E_I8,
                 .complex_elem = GB_E_I8, .c_type = "int8_t", .gemm_peak = "gemm_int8_gops"},
};

const gb_dtype_info *gb_dtype_get(gb_dtype d) {
    return (int)d >= 0 && (int)d < GB_DTYPE_COUNT ? &gb_dtypes[d] : NULL;
}

const char *gb_dtype_name(gb_dtype d) {
    const gb_dtype_info *t = gb_dtype_get(d);
    return t ? t->name : "?";
}

int gb_dtype_parse(const char *name) {
    for (int d = 0; d < GB_DTYPE_COUNT; d++)
        if (strcmp(gb_dtypes[d].name, name) == 0) return d;
    return -1;
}

size_t gb_dtype_size(gb_dtype d) {
    const gb_dtype_info *t = gb_dtype_get(d);
    return t ? t->size : 0;
}

double gb_dtype_bytes(gb_dtype d) { return (double)gb_dtype_size(d); }

/* Out of range reads as the widest type's: a tolerance is never 0 by accident. */
double gb_eps(gb_dtype d) {
    const gb_dtype_info *t = gb_dtype_get(d);
    return t ? t->unit_roundoff : 0x1.0p-53;
}

gb_elem gb_real_elem(gb_dtype d) {
    const gb_dtype_info *t = gb_dtype_get(d);
    return t ? t->elem : GB_E_F64;
}

gb_elem gb_complex_elem(gb_dtype d) {
    const gb_dtype_info *t = gb_dtype_get(d);
    return t ? t->complex_elem : GB_E_C128;
}

const char *gb_dtype_gemm_peak(gb_dtype d) {
    const gb_dtype_info *t = gb_dtype_get(d);
    return t ? t->gemm_peak : NULL;
}

gb_elem gb_gemm_out_elem(gb_dtype d) {
    const gb_dtype_info *t = gb_dtype_get(d);
    return t ? t->gemm_out : GB_E_F64;
}

double gb_gemm_out_roundoff(gb_dtype d) {
    const gb_dtype_info *t = gb_dtype_get(d);
    if (!t) return 0x1.0p-53;
    for (int o = 0; o < GB_DTYPE_COUNT; o++)
        if (gb_dtypes[o].elem == t->gemm_out) return gb_dtypes[o].unit_roundoff;
    return 0; /* int32 */
}

unsigned gb_dtype_default_mask(void) {
    unsigned m = 0;
    for (int d = 0; d < GB_DTYPE_COUNT; d++)
        if (gb_dtypes[d].suite_default) m |= 1u << d;
    return m;
}

char *gb_dtype_list(char *buf, size_t len) {
    size_t at = 0;
    if (len) buf[0] = '\0';
    for (int d = 0; d < GB_DTYPE_COUNT && at < len; d++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", d ? ", " : "", gb_dtypes[d].name);
    return buf;
}
