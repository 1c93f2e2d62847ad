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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

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
}
