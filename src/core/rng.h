/* rng.h — counter-based random numbers: the value at index i depends only on
 * (seed, stream, i), so inputs are the same bits on any machine, any thread
 * count, and can be generated in parallel. */
#ifndef GB_RNG_H
#define GB_RNG_H
#include <stddef.h>
#include <stdint.h>

/* 64 random bits for (seed, stream, index): SplitMix64-style finaliser over a
 * Weyl-sequence counter; passes the usual statistical batteries and is far
 * more than good enough for benchmark inputs. */
uint64_t gb_rng_bits(uint64_t seed, uint64_t stream, uint64_t index);
/* Uniform double in [lo, hi). */
double gb_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index, double lo, double hi);
/* Fill arrays (OpenMP-parallel). Streams keep different inputs of one case
 * independent: use a distinct stream per input array. */
void gb_rng_fill_f32(float *x, size_t n, uint64_t seed, uint64_t stream, double lo, double hi);
void gb_rng_fill_f64(double *x, size_t n, uint64_t seed, uint64_t stream, double lo, double hi);
#endif
