/* precision.c — reduced-precision conversions (precision.h). */
#include "precision.h"

#include <math.h>
#include <string.h>
#include "rng.h"
#include <cjson/cJSON.h>

static uint32_t bits_of(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static float float_of(uint32_t u) {
    float x;
    memcpy(&x, &u, 4);
    return x;
}

uint16_t gb_f32_to_f16(float x) {
    uint32_t u = bits_of(x);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    float a = fabsf(x);
    if (isnan(x)) return sign | 0x7E00u;
    if (a >= 65520.0f) return sign | 0x7C00u; /* 65520 and above round to inf */
    if (a < 0x1.0p-14f) {
        /* subnormal: a multiple of 2^-24; nearbyintf rounds ties to even in
         * the default rounding mode */
        return sign | (uint16_t)nearbyintf(a * 0x1.0p24f);
    }
    uint32_t au = bits_of(a);
    /* rebias 127 -> 15 and round 23 -> 10 mantissa bits to nearest even */
    uint32_t r = au - ((uint32_t)(127 - 15) << 23);
    r += 0xFFFu + ((r >> 13) & 1u);
    return sign | (uint16_t)(r >> 13);
}

float gb_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0) return (h & 0x8000u ? -1.0f : 1.0f) * (float)m * 0x1.0p-24f;
    if (e == 31) return float_of(sign | 0x7F800000u | (m << 13));
    return float_of(sign | ((e + 127 - 15) << 23) | (m << 13));
}

uint8_t gb_f32_to_e4m3(float x) {
    uint8_t sign = (uint8_t)(bits_of(x) >> 24 & 0x80u);
    if (isnan(x)) return sign | 0x7Fu;
    float a = fabsf(x);
    if (a >= 448.0f) return sign | 0x7Eu; /* saturate: 1.75·2^8 */
    if (a < 0x1.0p-6f) {
        /* subnormal: multiples of 2^-9, 0..7 (8 rounds up to the smallest normal, 0x08) */
        return sign | (uint8_t)nearbyintf(a * 0x1.0p9f);
    }
    uint32_t r = bits_of(a) - ((uint32_t)(127 - 7) << 23);
    r += 0x7FFFFu + ((r >> 20) & 1u);
    uint32_t v = r >> 20; /* exponent (4 bits) and mantissa (3 bits) */
    return sign | (uint8_t)(v > 0x7Eu ? 0x7Eu : v); /* rounding up past 448 saturates too */
}

float gb_e4m3_to_f32(uint8_t b) {
    float s = b & 0x80u ? -1.0f : 1.0f;
    unsigned e = (b >> 3) & 0xFu, m = b & 7u;
    if (e == 15 && m == 7) return NAN;
    if (e == 0) return s * (float)m * 0x1.0p-9f;
    return s * ldexpf(1.0f + (float)m / 8.0f, (int)e - 7);
}

int gb_int8_range(int64_t k) {
    if (k < 1) k = 1;
    /* k·r² ≤ 2^31 − 1: every partial sum of k products fits */
    int r = (int)floor(sqrt(2147483647.0 / (double)k));
    while (r > 0 && (double)k * r * r > 2147483647.0) r--;
    return r > 127 ? 127 : r < 1 ? 1 : r;
}

double gb_elem_value(gb_elem e, const void *data, size_t i) {
    switch (e) {
    case GB_E_F32: return ((const float *)data)[i];
    case GB_E_F64: return ((const double *)data)[i];
    case GB_E_C64: return ((const float *)data)[2 * i];
    case GB_E_C128: return ((const double *)data)[2 * i];
    case GB_E_I32: return ((const int32_t *)data)[i];
    case GB_E_I64: return (double)((const int64_t *)data)[i];
    case GB_E_BF16: return gb_bf16_to_f32(((const uint16_t *)data)[i]);
    case GB_E_F16: return gb_f16_to_f32(((const uint16_t *)data)[i]);
    case GB_E_F8E4M3: return gb_e4m3_to_f32(((const uint8_t *)data)[i]);
    case GB_E_I8: return ((const int8_t *)data)[i];
    }
    return NAN;
}

void gb_elem_store(gb_elem e, void *data, size_t i, double v) {
    switch (e) {
    case GB_E_F32: ((float *)data)[i] = (float)v; break;
    case GB_E_F64: ((double *)data)[i] = v; break;
    case GB_E_C64: ((float *)data)[2 * i] = (float)v; ((float *)data)[2 * i + 1] = 0; break;
    case GB_E_C128: ((double *)data)[2 * i] = v; ((double *)data)[2 * i + 1] = 0; break;
    case GB_E_I32: ((int32_t *)data)[i] = (int32_t)v; break;
    case GB_E_I64: ((int64_t *)data)[i] = (int64_t)v; break;
    /* via float: the double -> float step rounds first, which can only
     * double-round on a tie of the narrow type that lies within 2^-24
     * relative of it; the inputs are uniform draws, for which that is
     * immaterial, and both sides get the same bits whatever the rounding */
    case GB_E_BF16: ((uint16_t *)data)[i] = gb_f32_to_bf16((float)v); break;
    case GB_E_F16: ((uint16_t *)data)[i] = gb_f32_to_f16((float)v); break;
    case GB_E_F8E4M3: ((uint8_t *)data)[i] = gb_f32_to_e4m3((float)v); break;
    case GB_E_I8: ((int8_t *)data)[i] = (int8_t)v; break;
    }
}

void gb_fill_rounded(gb_elem e, void *data, size_t n, uint64_t seed, uint64_t stream, double lo, double hi,
                     int range) {
#pragma omp parallel for schedule(static) if (n >= (1u << 20))
    for (size_t i = 0; i < n; i++) {
        if (e == GB_E_I8) {
            /* uniform over the 2·range + 1 integers */
            uint64_t b = gb_rng_bits(seed, stream, i);
            ((int8_t *)data)[i] = (int8_t)((int)(b % (uint64_t)(2 * range + 1)) - range);
        } else {
            gb_elem_store(e, data, i, gb_rng_uniform(seed, stream, i, lo, hi));
        }
    }
}

void gb_gemm_types_annotate(cJSON *extra, gb_dtype d) {
    const gb_dtype_info *t = gb_dtype_get(d);
    if (!t) return;
    cJSON *o = cJSON_AddObjectToObject(extra, "types");
    cJSON_AddStringToObject(o, "input", t->name);
    cJSON_AddStringToObject(o, "output", t->gemm_out_name);
    /* products are formed in the accumulation type by every library here
     * (tensor cores and AMX multiply exactly, then add in it) */
    cJSON_AddStringToObject(o, "compute", t->accumulate);
    cJSON_AddStringToObject(o, "accumulate", t->accumulate);
}
