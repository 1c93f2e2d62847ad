/* precision.h — the reduced-precision formats as bits: conversions from and
 * to float, and inputs rounded to them, so that every backend is handed the
 * same bits (issue #27).
 *
 * Done in software on purpose: the driver and the CUDA plugin's host code
 * are C11 (no _Float16 or __bf16 guaranteed), and the bit patterns are what
 * the tests pin. Rounding is to nearest, ties to even, as every library we
 * compare (oneDNN, cuBLAS, PyTorch) rounds. Also compiled into the plugin. */
#ifndef GB_PRECISION_H
#define GB_PRECISION_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gb.h"

/* bfloat16: float's top 16 bits, rounded to nearest even; NaN stays a
 * (quiet) NaN, overflow rounds to infinity. Inline: the CPU's bfloat16
 * loops call them per element and must vectorize. */
static inline uint16_t gb_f32_to_bf16(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x40); /* NaN: quiet, sign kept */
    /* round to nearest even: add 0x7FFF plus the lowest kept bit; a carry
     * into the exponent is correct (it rounds up to the next binade or inf) */
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}
static inline float gb_bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
}
/* IEEE binary16: subnormals kept, overflow to infinity. */
uint16_t gb_f32_to_f16(float x);
float gb_f16_to_f32(uint16_t h);
/* float8 E4M3 (OCP FP8, NVIDIA's __nv_fp8_e4m3): no infinities, largest
 * finite 448; out-of-range values saturate to ±448 (cuBLASLt's and
 * PyTorch's saturating conversion), NaN is 0x7F/0xFF. */
uint8_t gb_f32_to_e4m3(float x);
float gb_e4m3_to_f32(uint8_t b);

/* The largest |value| of int8 GEMM inputs at inner dimension k: 127, or less
 * where k·r² would overflow an int32 accumulator. */
int gb_int8_range(int64_t k);

/* Element i of an array of any real element type, as a double (complex:
 * the real part). */
double gb_elem_value(gb_elem e, const void *data, size_t i);
/* Store v as element i, rounded to e (int types: v is already integral). */
void gb_elem_store(gb_elem e, void *data, size_t i, double v);
/* Fill an array of a dtype's element type with uniform [lo, hi) from
 * stream of seed (the same draws as gb_rng_fill_f64), each rounded to the
 * type; int8: integers in [-range, range] (lo, hi ignored). */
void gb_fill_rounded(gb_elem e, void *data, size_t n, uint64_t seed, uint64_t stream, double lo, double hi,
                     int range);

/* Into a result's extra: "types": {"input", "output", "compute",
 * "accumulate"} of a GEMM in d, as this build computes it. */
struct cJSON;
void gb_gemm_types_annotate(struct cJSON *extra, gb_dtype d);

#endif
