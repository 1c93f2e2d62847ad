/* cpu_isa_peak.c — the CPU's theoretical GEMM ceiling per dtype, from the
 * ISA (gb_cpu_isa_peaks, cpu_backend.h): cores × clock × FLOP per cycle per
 * core, beside the measured ceilings of cpu_peak.c, so a result's rate can
 * be read against what the silicon could do as well as against what the
 * best library here reached.
 *
 * Inputs, each stated in the peaks' isa_peak_inputs string:
 *   cores  physical cores among the threads used: min(threads, distinct
 *          (physical id, core id) pairs in /proc/cpuinfo) — SMT siblings
 *          share one core's FMA pipes;
 *   clock  cpufreq's cpuinfo_max_freq when the kernel exposes it, else
 *          /proc/cpuinfo's "cpu MHz" (a VM often shows the base clock there
 *          and hides the turbo one: the ceiling is then low);
 *   FLOP per cycle per core, by the best instruction the flags offer, with
 *          two vector FMA pipes assumed (Xeon Gold/Platinum, Zen 5; Zen 4
 *          and some Xeon Silver issue one 512-bit FMA per cycle: half):
 *     float64  AVX-512 FMA 2×8×2 = 32, AVX2 FMA 2×4×2 = 16
 *     float32  AVX-512 FMA 2×16×2 = 64, AVX2 FMA 32
 *     bfloat16 AMX-BF16 (TDPBF16PS, 16×16×32 MACs in 16 cycles) 1024;
 *              AVX512_BF16 (VDPBF16PS, 32 MACs per instruction) 2×64 = 128
 *     float16  AMX-FP16 1024; AVX512_FP16 (VFMADDPH, 32 lanes) 2×64 = 128
 *     int8     AMX-INT8 (TDPBSSD, 16×16×64 MACs in 16 cycles) 2048;
 *              AVX512_VNNI (VPDPBUSD, 64 MACs) 2×128 = 256; AVX-VNNI 128
 * A dtype the flags give no instruction for has no ISA ceiling (float8:
 * no x86 instruction computes it). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "timer.h"

#include "cpu_backend.h"

/* The flags line of /proc/cpuinfo has this flag (a whole word). */
static int has_flag(const char *flags, const char *name) {
    size_t n = strlen(name);
    for (const char *p = flags; (p = strstr(p, name)) != NULL; p += n)
        if ((p == flags || p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0')) return 1;
    return 0;
}

typedef struct {
    int cores;
    double ghz;
    const char *clock_source;
    char flags[4096];
} cpu_facts;

static void read_facts(cpu_facts *f, int threads) {
    memset(f, 0, sizeof *f);
    FILE *in = fopen("/proc/cpuinfo", "r");
    char line[4096];
    int phys = -1, pairs = 0;
    static int seen[4096];
    double mhz = 0;
    while (in && fgets(line, sizeof line, in)) {
        int v;
        double d;
        if (sscanf(line, "physical id : %d", &v) == 1) phys = v;
        else if (sscanf(line, "core id : %d", &v) == 1) {
            int key = (phys < 0 ? 0 : phys) * 1024 + v, dup = 0;
            for (int i = 0; i < pairs && !dup; i++) dup = seen[i] == key;
            if (!dup && pairs < 4096) seen[pairs++] = key;
        } else if (sscanf(line, "cpu MHz : %lf", &d) == 1 && d > mhz) mhz = d;
        else if (!f->flags[0] && !strncmp(line, "flags", 5)) snprintf(f->flags, sizeof f->flags, "%s", line);
    }
    if (in) fclose(in);
    f->cores = pairs > 0 && pairs < threads ? pairs : threads;
    FILE *mx = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    long khz = 0;
    if (mx && fscanf(mx, "%ld", &khz) == 1 && khz > 0) {
        f->ghz = (double)khz * 1e-6;
        f->clock_source = "cpufreq cpuinfo_max_freq";
    } else {
        f->ghz = mhz * 1e-3;
        f->clock_source = "/proc/cpuinfo cpu MHz (a VM may show the base clock, not the turbo one)";
    }
    if (mx) fclose(mx);
}

int gb_cpu_isa_per_cycle(const char *fl, gb_dtype d, const char **how) {
    int a512 = has_flag(fl, "avx512f"), fma = has_flag(fl, "fma");
    switch (d) {
    case GB_FLOAT64:
    case GB_FLOAT32: {
        int w = d == GB_FLOAT64 ? 1 : 2;
        if (a512) return *how = "AVX-512 FMA", 32 * w;
        if (fma) return *how = "AVX2 FMA", 16 * w;
        return *how = NULL, 0;
    }
    case GB_BFLOAT16:
        if (has_flag(fl, "amx_bf16")) return *how = "AMX-BF16", 1024;
        if (has_flag(fl, "avx512_bf16")) return *how = "AVX512_BF16", 128;
        return *how = NULL, 0;
    case GB_FLOAT16:
        if (has_flag(fl, "amx_fp16")) return *how = "AMX-FP16", 1024;
        if (has_flag(fl, "avx512_fp16")) return *how = "AVX512_FP16", 128;
        return *how = NULL, 0;
    case GB_INT8:
        if (has_flag(fl, "amx_int8")) return *how = "AMX-INT8", 2048;
        if (has_flag(fl, "avx512_vnni")) return *how = "AVX512_VNNI", 256;
        if (has_flag(fl, "avx_vnni")) return *how = "AVX-VNNI", 128;
        return *how = NULL, 0;
    default: return *how = NULL, 0;
    }
}


/* ---- the measured FMA peak ---------------------------------------------
 * A register-only loop (as likwid-bench's peakflops kernels): 16 independent
 * vector accumulators, each iteration one FMA on each (enough in flight to
 * cover two pipes of 4-cycle latency), no loads or stores, on every thread
 * of the run at once; the best of 3 passes of ~0.1 s each. Its rate is the
 * attainable FMA rate of these cores at the clock they hold under that load
 * (a turbo is not assumed: the clock is what the rate implies, given the
 * FLOP per cycle the ISA ceiling assumes, and is stated). */
#define FMA_ACC 16
__attribute__((target("avx512f"))) static double fma_loop_512(long iters, int f64) {
    double sink = 0;
    if (f64) {
        __m512d a[FMA_ACC], m = _mm512_set1_pd(0.999999), c = _mm512_set1_pd(1e-9);
        for (int i = 0; i < FMA_ACC; i++) a[i] = _mm512_set1_pd(1.0 + i);
        for (long it = 0; it < iters; it++)
            for (int i = 0; i < FMA_ACC; i++) a[i] = _mm512_fmadd_pd(a[i], m, c);
        for (int i = 0; i < FMA_ACC; i++) sink += _mm512_reduce_add_pd(a[i]);
    } else {
        __m512 a[FMA_ACC], m = _mm512_set1_ps(0.9999f), c = _mm512_set1_ps(1e-6f);
        for (int i = 0; i < FMA_ACC; i++) a[i] = _mm512_set1_ps(1.0f + i);
        for (long it = 0; it < iters; it++)
            for (int i = 0; i < FMA_ACC; i++) a[i] = _mm512_fmadd_ps(a[i], m, c);
        for (int i = 0; i < FMA_ACC; i++) sink += _mm512_reduce_add_ps(a[i]);
    }
    return sink;
}

__attribute__((target("avx2,fma"))) static double fma_loop_256(long iters, int f64) {
    double sink = 0, lanes[8];
    if (f64) {
        __m256d a[FMA_ACC], m = _mm256_set1_pd(0.999999), c = _mm256_set1_pd(1e-9);
        for (int i = 0; i < FMA_ACC; i++) a[i] = _mm256_set1_pd(1.0 + i);
        for (long it = 0; it < iters; it++)
            for (int i = 0; i < FMA_ACC; i++) a[i] = _mm256_fmadd_pd(a[i], m, c);
        for (int i = 0; i < FMA_ACC; i++) _mm256_storeu_pd(lanes, a[i]), sink += lanes[0] + lanes[3];
    } else {
        __m256 a[FMA_ACC], m = _mm256_set1_ps(0.9999f), c = _mm256_set1_ps(1e-6f);
        float fl[8];
        for (int i = 0; i < FMA_ACC; i++) a[i] = _mm256_set1_ps(1.0f + i);
        for (long it = 0; it < iters; it++)
            for (int i = 0; i < FMA_ACC; i++) a[i] = _mm256_fmadd_ps(a[i], m, c);
        for (int i = 0; i < FMA_ACC; i++) _mm256_storeu_ps(fl, a[i]), sink += fl[0] + fl[7];
    }
    return sink;
}

static volatile double fma_sink;

/* GFLOP/s of the loop on `threads` threads at once (width 512 or 256 bits);
 * 0 when the ISA has neither. */
double gb_cpu_fma_peak(int threads, int width, int f64) {
    if (width != 512 && width != 256) return 0;
    long iters = 1 << 16;
    double best = 0;
    for (int pass = 0; pass < 6; pass++) {
        double t0 = gb_now(), acc = 0;
#pragma omp parallel num_threads(threads) reduction(+ : acc)
        acc += width == 512 ? fma_loop_512(iters, f64) : fma_loop_256(iters, f64);
        double t = gb_now() - t0;
        fma_sink = acc;
        double flop = (double)threads * iters * FMA_ACC * (width / (f64 ? 64 : 32)) * 2.0;
        if (t < 0.05 && pass < 5) { /* too short to time: longer, not counted */
            iters *= 4;
            continue;
        }
        if (flop / t * 1e-9 > best) best = flop / t * 1e-9;
    }
    return best;
}

void gb_cpu_isa_peaks(cJSON *peaks, int threads) {
    cpu_facts f;
    read_facts(&f, threads);
    if (f.ghz <= 0 || f.cores <= 0) return;
    char inputs[768];
    size_t used = (size_t)snprintf(inputs, sizeof inputs, "%d cores x %.2f GHz (%s) x per cycle per core:", f.cores,
                                   f.ghz, f.clock_source);
    static const gb_dtype order[] = {GB_FLOAT64, GB_FLOAT32, GB_BFLOAT16, GB_FLOAT16, GB_INT8};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *how = NULL;
        int fpc = gb_cpu_isa_per_cycle(f.flags, order[i], &how);
        if (!fpc) continue;
        char key[48];
        snprintf(key, sizeof key, "isa_%s", gb_dtype_gemm_peak(order[i])); /* isa_gemm_bfloat16_gflops, ... */
        cJSON_AddNumberToObject(peaks, key, f.cores * f.ghz * fpc);
        if (used < sizeof inputs)
            used += (size_t)snprintf(inputs + used, sizeof inputs - used, " %s %d (%s)", gb_dtype_name(order[i]), fpc, how);
    }
    if (used < sizeof inputs)
        snprintf(inputs + used, sizeof inputs - used, "; two FMA pipes assumed (one on Zen 4: half)");
    cJSON_AddStringToObject(peaks, "isa_peak_inputs", inputs);
    /* the measured FMA peak of float32 and float64, with the clock it implies */
    int width = has_flag(f.flags, "avx512f") ? 512 : has_flag(f.flags, "fma") ? 256 : 0;
    if (!width) return;
    double g32 = gb_cpu_fma_peak(threads, width, 0), g64 = gb_cpu_fma_peak(threads, width, 1);
    if (g32 <= 0 || g64 <= 0) return;
    cJSON_AddNumberToObject(peaks, "fma_gemm_float32_gflops", g32);
    cJSON_AddNumberToObject(peaks, "fma_gemm_float64_gflops", g64);
    const char *how = NULL;
    int fpc = gb_cpu_isa_per_cycle(f.flags, GB_FLOAT64, &how);
    char fm[400];
    snprintf(fm, sizeof fm,
             "register-only %d-bit FMA loop, %d accumulators, on %d threads at once: float32 %.0f, float64 %.0f "
             "GFLOP/s; on %d cores that is %.2f GHz held under load with two FMA pipes per core (%d float64 FLOP per "
             "cycle), %.2f GHz with one",
             width, FMA_ACC, threads, g32, g64, f.cores, fpc && f.cores ? g64 / fpc / f.cores : 0, fpc,
             fpc && f.cores ? 2 * g64 / fpc / f.cores : 0);
    cJSON_AddStringToObject(peaks, "fma_peak_inputs", fm);
}
