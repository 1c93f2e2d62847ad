/* rng.c — counter-based generator (see rng.h). */
#include "rng.h"

uint64_t gb_rng_bits(uint64_t seed, uint64_t stream, uint64_t index) {
    /* Mix seed and stream into a key, then finalise key + index·golden with
     * SplitMix64's output function: a bijection of the counter, so distinct
     * indices never collide within a stream. */
    uint64_t z = seed * 0x9E3779B97F4A7C15ull ^ (stream + 0xD1B54A32D192ED03ull) * 0xBF58476D1CE4E5B9ull;
    z += (index + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double gb_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index, double lo, double hi) {
    /* 53 random bits → [0, 1) exactly representable in a double. */
    double u = (double)(gb_rng_bits(seed, stream, index) >> 11) * 0x1.0p-53;
    return lo + (hi - lo) * u;
}

void gb_rng_fill_f32(float *x, size_t n, uint64_t seed, uint64_t stream, double lo, double hi) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) x[i] = (float)gb_rng_uniform(seed, stream, i, lo, hi);
}

void gb_rng_fill_f64(double *x, size_t n, uint64_t seed, uint64_t stream, double lo, double hi) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) x[i] = gb_rng_uniform(seed, stream, i, lo, hi);
}
