/* test_sanity.c — the honest-numbers checks: OpenBLAS core vs CPU ISA,
 * thread counts, --openblas-core auto, CPU health and cache facts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "openblas_core.h"
#include "sanity.h"
#include "testlib.h"

/* A context as gb_sysinfo_context + the CPU backend's describe() build it. */
static cJSON *make_context(const char *isa_csv, const char *core, const char *version, int cores,
                           int logical, int threads) {
    cJSON *ctx = cJSON_CreateObject();
    cJSON *cpu = cJSON_AddObjectToObject(ctx, "cpu");
    cJSON_AddNumberToObject(cpu, "cores", cores);
    cJSON_AddNumberToObject(cpu, "logical_cpus", logical);
    cJSON *isa = cJSON_AddArrayToObject(cpu, "isa");
    char buf[256];
    snprintf(buf, sizeof buf, "%s", isa_csv);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) cJSON_AddItemToArray(isa, cJSON_CreateString(t));
    cJSON *ob = cJSON_AddObjectToObject(cJSON_AddObjectToObject(ctx, "libraries"), "openblas");
    char config[128];
    snprintf(config, sizeof config, "OpenBLAS %s NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY %s MAX_THREADS=64", version, core);
    cJSON_AddStringToObject(ob, "config", config);
    cJSON_AddStringToObject(ob, "core", core);
    cJSON_AddNumberToObject(ob, "threads", threads);
    cJSON_AddNumberToObject(ctx, "cpu_threads_used", threads);
    return ctx;
}

/* Number of warnings containing needle (all of them when needle is NULL). */
static int count_warnings(const char *isa, const char *core, const char *version, int cores, int logical,
                          int threads, const char *needle, char *first, size_t first_len) {
    cJSON *ctx = make_context(isa, core, version, cores, logical, threads);
    cJSON *w = cJSON_CreateArray();
    gb_cpu_backend()->check(ctx, w);
    gb_sanity_check_context(ctx, w);
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, w) {
        if (needle && !strstr(it->valuestring, needle)) continue;
        if (!n && first) snprintf(first, first_len, "%s", it->valuestring);
        n++;
    }
    cJSON_Delete(w);
    cJSON_Delete(ctx);
    return n;
}

#define AVX512 "sse4_2,avx,avx2,fma,avx512f,avx512dq,avx512bw,avx512vl"

TEST(sanity_prescott_on_avx512_warns_and_names_the_fix) {
    char msg[1024] = "";
    CHECK(count_warnings(AVX512, "Prescott", "0.3.21", 16, 32, 16, "Prescott", msg, sizeof msg) == 1);
    CHECK(strstr(msg, "OpenBLAS 0.3.21 runs its Prescott kernels on a CPU with AVX-512") != NULL);
    CHECK(strstr(msg, "OPENBLAS_CORETYPE=SkylakeX") != NULL);
    CHECK(strstr(msg, "--openblas-core auto") != NULL);
}

/* The warning says who chose the core, so the user knows what to change. */
TEST(sanity_core_warning_names_who_chose_it) {
    static const struct { const char *by, *says; } cases[] = {
        {"environment", "OPENBLAS_CORETYPE=Prescott is set in the environment"},
        {"flag", "--openblas-core Prescott asked for it"},
        {"openblas", "as it detects this CPU itself (--openblas-core detected)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *ctx = make_context(AVX512, "Prescott", "0.3.21", 16, 32, 16);
        cJSON *ob = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ctx, "libraries"), "openblas");
        cJSON_AddStringToObject(ob, "core_chosen_by", cases[i].by);
        cJSON *w = cJSON_CreateArray();
        CHECK(gb_openblas_check(ctx, w) == 1);
        const char *msg = cJSON_GetArraySize(w) ? cJSON_GetArrayItem(w, 0)->valuestring : "";
        CHECK(strstr(msg, cases[i].says) != NULL);
        CHECK(strstr(msg, "--openblas-core auto") != NULL);
        cJSON_Delete(w);
        cJSON_Delete(ctx);
    }
}

TEST(sanity_amx_cpu_gets_cooperlake_on_0_3_21_and_sapphirerapids_later) {
    char msg[1024] = "";
    const char *amx = AVX512 ",avx512_bf16,amx_tile,amx_bf16";
    CHECK(count_warnings(amx, "Prescott", "0.3.21", 16, 32, 16, "Prescott", msg, sizeof msg) == 1);
    CHECK(strstr(msg, "AVX-512 (and AMX)") != NULL);
    CHECK(strstr(msg, "OPENBLAS_CORETYPE=Cooperlake") != NULL);
    CHECK(count_warnings(amx, "Haswell", "0.3.26", 16, 32, 16, "OPENBLAS_CORETYPE=SapphireRapids", NULL, 0) == 1);
    /* Cooperlake is the best 0.3.21 has for AMX: nothing to fix. */
    CHECK(count_warnings(amx, "Cooperlake", "0.3.21", 16, 32, 16, NULL, NULL, 0) == 0);
}

TEST(sanity_matching_or_unknown_core_is_quiet) {
    CHECK(count_warnings(AVX512, "SkylakeX", "0.3.21", 16, 32, 16, NULL, NULL, 0) == 0);
    CHECK(count_warnings("sse4_2,avx,avx2,fma", "Haswell", "0.3.21", 8, 8, 8, NULL, NULL, 0) == 0);
    CHECK(count_warnings("sse4_2,avx,avx2,fma", "Zen", "0.3.21", 8, 8, 8, NULL, NULL, 0) == 0);
    /* Not an x86 core name (or a newer one we do not know): no opinion. */
    CHECK(count_warnings(AVX512, "NEOVERSEV1", "0.3.21", 16, 16, 16, NULL, NULL, 0) == 0);
    /* No ISA list (another architecture): no opinion. */
    CHECK(count_warnings("", "Prescott", "0.3.21", 16, 16, 16, NULL, NULL, 0) == 0);
}

TEST(sanity_zen_on_avx512_bf16_recommends_cooperlake) {
    cJSON *isa = cJSON_CreateArray();
    const char *flags[] = {"avx", "avx2", "avx512f", "avx512_bf16"};
    for (int i = 0; i < 4; i++) cJSON_AddItemToArray(isa, cJSON_CreateString(flags[i]));
    const char *best = gb_openblas_recommended_core(isa, "OpenBLAS 0.3.21 DYNAMIC_ARCH", "Zen");
    CHECK(best && strcmp(best, "Cooperlake") == 0);
    CHECK(gb_openblas_recommended_core(isa, "OpenBLAS 0.3.21 DYNAMIC_ARCH", "Cooperlake") == NULL);
    CHECK(gb_openblas_recommended_core(isa, "OpenBLAS 0.3.21 DYNAMIC_ARCH", "Sandybridge") != NULL);
    cJSON_Delete(isa);
}

TEST(sanity_thread_counts) {
    char msg[1024] = "";
    CHECK(count_warnings(AVX512, "SkylakeX", "0.3.21", 16, 32, 1, "thread", msg, sizeof msg) >= 1);
    CHECK(strstr(msg, "1 thread on a CPU with 16 physical cores") != NULL);
    /* One thread per physical core, hyperthreads unused: fine. */
    CHECK(count_warnings(AVX512, "SkylakeX", "0.3.21", 16, 32, 16, NULL, NULL, 0) == 0);
    CHECK(count_warnings(AVX512, "SkylakeX", "0.3.21", 16, 32, 32, NULL, NULL, 0) == 0);
    /* More threads than logical CPUs: oversubscribed. */
    CHECK(count_warnings(AVX512, "SkylakeX", "0.3.21", 4, 8, 12, "oversubscribed", NULL, 0) == 1);
}

TEST(sanity_openblas_threads_below_cpu_threads) {
    cJSON *ctx = make_context(AVX512, "SkylakeX", "0.3.21", 16, 32, 16);
    cJSON *ob = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ctx, "libraries"), "openblas");
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(ob, "threads"), 1);
    cJSON *w = cJSON_CreateArray();
    CHECK(gb_cpu_backend()->check(ctx, w) == 1);
    CHECK(cJSON_GetArraySize(w) == 1 && strstr(cJSON_GetArrayItem(w, 0)->valuestring, "OpenBLAS runs 1 thread"));
    cJSON_Delete(w);
    cJSON_Delete(ctx);
}

TEST(sanity_machine_checks_append_strings_only) {
    /* Whether this shared machine is busy is not ours to assert; that every
     * returned warning is a non-empty string, counted right, is. */
    cJSON *w = cJSON_CreateArray();
    int n = gb_sanity_check_machine(w);
    CHECK(n == cJSON_GetArraySize(w));
    const cJSON *it;
    cJSON_ArrayForEach(it, w) CHECK(cJSON_IsString(it) && strlen(it->valuestring) > 20);
    cJSON_Delete(w);
}

TEST(cpu_health_reports_load_and_clocks) {
    cJSON *h = cJSON_CreateObject();
    gb_cpu_health(h);
    const cJSON *la = cJSON_GetObjectItemCaseSensitive(h, "loadavg");
    CHECK(cJSON_IsArray(la) && cJSON_GetArraySize(la) == 3);
    CHECK(cJSON_GetObjectItemCaseSensitive(h, "governors") != NULL);
    const cJSON *mhz = cJSON_GetObjectItemCaseSensitive(h, "cpu_mhz");
    CHECK(cJSON_IsArray(mhz));
    const cJSON *it;
    cJSON_ArrayForEach(it, mhz) CHECK(cJSON_IsNumber(it) && it->valuedouble > 0);
    cJSON_Delete(h);
}

TEST(cpu_llc_size_and_flush) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index0/size", "r");
    if (!f) {
        SKIP("no cache information in /sys");
        return;
    }
    fclose(f);
    size_t llc = gb_cpu_llc_bytes();
    CHECK(llc >= ((size_t)64 << 10));       /* any LLC of this century */
    CHECK(llc <= ((size_t)16 << 30));       /* and no unit mix-up */
    gb_cpu_flush_caches();                  /* allocates once ... */
    gb_cpu_flush_caches();                  /* ... and reuses */
}

/* Does this machine's CPU have AVX (so Prescott's SSE kernels are old)? */
static int cpu_has_avx(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    static char line[16384];
    int avx = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            avx = strstr(line, " avx ") != NULL;
            break;
        }
    if (f) fclose(f);
    return avx;
}

/* `gpubench info --format json` under an environment and flags: the
 * OpenBLAS object of its context, or NULL. */
static cJSON *info_openblas(const char *env, const char *flags, char *out, size_t cap, cJSON **doc) {
    char cmd[768];
    snprintf(cmd, sizeof cmd, "env -u OPENBLAS_CORETYPE %s %s info --format json %s 2>/dev/null", env,
             gb_test_binary(), flags);
    *doc = NULL;
    if (gb_test_sh(cmd, out, cap) != 0) return NULL;
    *doc = cJSON_Parse(out);
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(*doc, "libraries");
    return libs ? cJSON_GetObjectItemCaseSensitive(libs, "openblas") : NULL;
}

static const char *str_of(const cJSON *o, const char *key) {
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int has_warning(const cJSON *doc, const char *needle) {
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(doc, "warnings"))
        if (cJSON_IsString(w) && strstr(w->valuestring, needle)) return 1;
    return 0;
}

/* The honest core by default, for every command that measures or describes
 * the CPU: with nothing set, the best core this CPU supports, chosen by
 * gpubench when OpenBLAS detected an older one; a core from the environment
 * or a flag is respected and the warning says where it came from. */
TEST(openblas_core_is_the_best_by_default_and_explicit_choices_win) {
    if (!cpu_has_avx()) {
        SKIP("CPU without AVX: no OpenBLAS core is too old here");
        return;
    }
    const char *best = gb_openblas_best_core_here();
    if (!best) {
        SKIP("no known OpenBLAS core for this CPU");
        return;
    }
    static char out[1 << 17];
    cJSON *doc;

    /* Nothing set: the best core; gpubench says it chose it when OpenBLAS detected another. */
    const cJSON *ob = info_openblas("", "", out, sizeof out, &doc);
    CHECK(ob != NULL);
    CHECK(strcasecmp(str_of(ob, "core"), best) == 0);
    char detected[64];
    snprintf(detected, sizeof detected, "%s", str_of(ob, "core_detected"));
    CHECK(*detected);
    CHECK(strcmp(str_of(ob, "core_chosen_by"), strcasecmp(detected, best) ? "gpubench" : "openblas") == 0);
    CHECK(!has_warning(doc, "kernels on a CPU with"));
    cJSON_Delete(doc);

    /* The environment's core is respected, and the warning names it and the flag. */
    ob = info_openblas("OPENBLAS_CORETYPE=Prescott", "", out, sizeof out, &doc);
    CHECK(strcmp(str_of(ob, "core"), "Prescott") == 0);
    CHECK(strcmp(str_of(ob, "core_chosen_by"), "environment") == 0);
    CHECK(has_warning(doc, "OPENBLAS_CORETYPE=Prescott is set in the environment"));
    CHECK(has_warning(doc, "Pass --openblas-core auto"));
    cJSON_Delete(doc);

    /* --openblas-core auto overrides the environment. */
    ob = info_openblas("OPENBLAS_CORETYPE=Prescott", "--openblas-core auto", out, sizeof out, &doc);
    CHECK(strcasecmp(str_of(ob, "core"), best) == 0);
    CHECK(strcmp(str_of(ob, "core_chosen_by"), "gpubench") == 0);
    CHECK(!has_warning(doc, "kernels on a CPU with"));
    cJSON_Delete(doc);

    /* A core named on the command line is the user's choice. */
    ob = info_openblas("", "--openblas-core Prescott", out, sizeof out, &doc);
    CHECK(strcmp(str_of(ob, "core"), "Prescott") == 0);
    CHECK(strcmp(str_of(ob, "core_chosen_by"), "flag") == 0);
    CHECK(has_warning(doc, "--openblas-core Prescott asked for it"));
    cJSON_Delete(doc);

    /* detected: what OpenBLAS picks itself, even when the environment names
     * another — the core it detected without the variable (on a VM whose
     * OpenBLAS detects Prescott by itself, that is Prescott too). */
    ob = info_openblas("OPENBLAS_CORETYPE=Sandybridge", "--openblas-core detected", out, sizeof out, &doc);
    CHECK(strcmp(str_of(ob, "core_chosen_by"), "openblas") == 0);
    CHECK(strcasecmp(str_of(ob, "core"), detected) == 0);
    cJSON_Delete(doc);
}

/* Measuring the ceilings takes ~5-10 s: run with GPUBENCH_TEST_PEAK=1. */
TEST(peak_cpu_json_has_the_ceilings) {
    if (!getenv("GPUBENCH_TEST_PEAK")) {
        SKIP("slow (~5-10 s): set GPUBENCH_TEST_PEAK=1");
        return;
    }
    static char out[1 << 16];
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s peak --backend cpu --format json 2>/dev/null", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    cJSON *doc = cJSON_Parse(out);
    CHECK(doc != NULL);
    const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(doc, "cpu");
    const char *keys[] = {"copy_gbs", "triad_gbs", "gemm_float32_gflops", "gemm_float64_gflops", "gemm_n"};
    for (int i = 0; i < 5; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cpu, keys[i]);
        CHECK(cJSON_IsNumber(v) && v->valuedouble > 0);
    }
    cJSON_Delete(doc);
}

/* a case with one ok result of the given % of peak against peak */
static void add_case(cJSON *cases, const char *label, double pct, const char *peak) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "op", "matmul");
    cJSON_AddStringToObject(c, "dtype", "float64");
    cJSON *shape = cJSON_AddArrayToObject(c, "shape");
    cJSON_AddItemToArray(shape, cJSON_CreateNumber(atoi(label)));
    cJSON_AddStringToObject(c, "label", label);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "backend", "cpu");
    cJSON_AddStringToObject(r, "timing", "host");
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddNumberToObject(r, "pct_of_peak", pct);
    cJSON_AddStringToObject(r, "peak", peak);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(c, "results"), r);
    cJSON_AddItemToArray(cases, c);
}

TEST(sanity_results_above_their_ceiling_get_one_warning_per_ceiling) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", GB_RESULTS_SCHEMA);
    cJSON_AddNumberToObject(doc, "schema_version", GB_RESULTS_SCHEMA_VERSION);
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
    add_case(cases, "1024x1024x1024", 100, "cpu.gemm_float64_gflops");
    add_case(cases, "4096x4096x4096", 128, "cpu.gemm_float64_gflops");
    add_case(cases, "8192x8192x8192", 120, "cpu.gemm_float64_gflops");
    add_case(cases, "8192x8192x8192", 104, "cuda.gemm_float64_gflops"); /* within the slack */
    add_case(cases, "256x256", 300, "cpu.triad_gbs"); /* from cache: DRAM's ceiling does not bind */
    cJSON *w = cJSON_CreateArray();
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_from_json(doc, "synthetic", &r, &e) == GB_OK);
    CHECK(gb_sanity_check_ceilings(&r, w) == 1);
    const char *msg = cJSON_GetArraySize(w) ? cJSON_GetArrayItem(w, 0)->valuestring : "";
    CHECK(strstr(msg, "matmul 4096x4096x4096 float64 reached 128% of the ceiling cpu.gemm_float64_gflops") != NULL);
    CHECK(strstr(msg, "overstated") != NULL);
    gb_results_free(&r);
    cJSON_Delete(w);
    cJSON_Delete(doc);
}

/* A thread count in the environment is not what the CPU side uses (--threads
 * is): the warning says so and names the flag. */
TEST(sanity_environment_thread_counts_are_named) {
    cJSON *ctx = make_context(AVX512, "SkylakeX", "0.3.21", 16, 32, 16);
    const char *old = getenv("OMP_NUM_THREADS");
    char saved[64] = "";
    if (old) snprintf(saved, sizeof saved, "%s", old);
    setenv("OMP_NUM_THREADS", "1", 1);
    cJSON *w = cJSON_CreateArray();
    gb_cpu_backend()->check(ctx, w);
    int named = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, w) if (strstr(it->valuestring, "OMP_NUM_THREADS=1 is set in the environment") &&
                                  strstr(it->valuestring, "--threads 1")) named++;
    CHECK(named == 1);
    cJSON_Delete(w);
    /* the same count as the CPU side uses: nothing to say */
    setenv("OMP_NUM_THREADS", "16", 1);
    w = cJSON_CreateArray();
    gb_cpu_backend()->check(ctx, w);
    named = 0;
    cJSON_ArrayForEach(it, w) if (strstr(it->valuestring, "OMP_NUM_THREADS")) named++;
    CHECK(named == 0);
    cJSON_Delete(w);
    if (old) setenv("OMP_NUM_THREADS", saved, 1);
    else unsetenv("OMP_NUM_THREADS");
    cJSON_Delete(ctx);
}
