/* dtype.c — the dtype table (also compiled into the CUDA plugin). */
#include "dtype.h"

#include <stdio.h>
#include <string.h>

const gb_dtype_info gb_dtypes[GB_DTYPE_COUNT] = {
    [GB_FLOAT32] = {.name = "float32", .size = 4, .is_float = 1, .unit_roundoff = 0x1.0p-24,
                    .accumulate = GB_FLOAT32, .elem = GB_E_F32, .complex_elem = GB_E_C64,
                    .c_type = "float", .suite_default = 1, .gemm_peak = "gemm_float32_gflops"},
    [GB_FLOAT64] = {.name = "float64", .size = 8, .is_float = 1, .unit_roundoff = 0x1.0p-53,
                    .accumulate = GB_FLOAT64, .elem = GB_E_F64, .complex_elem = GB_E_C128,
                    .c_type = "double", .suite_default = 1, .gemm_peak = "gemm_float64_gflops"},
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
