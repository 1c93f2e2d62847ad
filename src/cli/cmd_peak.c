/* cmd_peak.c — `gpubench peak`: measure and print this machine's ceilings,
 * the same figures `gpubench run` records under "peaks" and judges results
 * against (pct_of_peak). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "commands.h"
#include "sanity.h"
#include "sysinfo.h"

/* The ceilings a table shows, in order, with what each measures. Keys not
 * listed (sizes, timings) stay in the JSON only. */
static const struct {
    const char *key, *label, *unit;
} rows[] = {
    {"copy_gbs", "memory bandwidth: STREAM copy", "GB/s"},
    {"copy_delivered_gbs", "STREAM copy, bytes delivered (transfer's CPU)", "GB/s"},
    {"triad_gbs", "memory bandwidth: STREAM triad", "GB/s"},
    {"d2d_copy_gbs", "memory bandwidth: device-to-device copy", "GB/s"},
    {"gemm_float32_gflops", "GEMM float32", "GFLOP/s"},
    {"gemm_tf32_gflops", "GEMM float32, TF32 tensor cores", "GFLOP/s"},
    {"gemm_float64_gflops", "GEMM float64", "GFLOP/s"},
    {"gemm_bfloat16_gflops", "GEMM bfloat16", "GFLOP/s"},
    {"gemm_float16_gflops", "GEMM float16", "GFLOP/s"},
    {"gemm_float8_e4m3_gflops", "GEMM float8_e4m3", "GFLOP/s"},
    {"gemm_int8_gops", "GEMM int8", "GOP/s"},
    {"isa_gemm_float64_gflops", "ISA ceiling float64 (see isa_peak_inputs)", "GFLOP/s"},
    {"isa_gemm_float32_gflops", "ISA ceiling float32", "GFLOP/s"},
    {"isa_gemm_bfloat16_gflops", "ISA ceiling bfloat16", "GFLOP/s"},
    {"isa_gemm_float16_gflops", "ISA ceiling float16", "GFLOP/s"},
    {"isa_gemm_int8_gops", "ISA ceiling int8", "GOP/s"},
    {"fma_gemm_float32_gflops", "measured FMA peak float32 (fma_peak_inputs)", "GFLOP/s"},
    {"fma_gemm_float64_gflops", "measured FMA peak float64", "GFLOP/s"},
    {"h2d_pinned_gbs", "host to device, pinned", "GB/s"},
    {"d2h_pinned_gbs", "device to host, pinned", "GB/s"},
    {"h2d_pageable_gbs", "host to device, pageable", "GB/s"},
    {"d2h_pageable_gbs", "device to host, pageable", "GB/s"},
    {"bidir_pinned_gbs", "both ways at once, pinned (sum)", "GB/s"},
};

static void usage(FILE *f) {
    fprintf(f, "usage: gpubench peak [--backend cpu,cuda] [--threads N] [--device N]\n"
               "                     [--format table|json]");
    gb_backend_options_synopsis(f); /* the backends' own options */
    fprintf(f, "\n\n"
               "Measures the ceilings results are judged against (pct_of_peak):\n"
               "  cpu:  STREAM copy and triad bandwidth (arrays >> last-level cache, all threads),\n"
               "        OpenBLAS sgemm/dgemm rate at the largest size taking ~0.3-1 s (float32:\n"
               "        oneDNN's instead where the kept GEMM choice runs it and it is faster),\n"
               "        oneDNN's bfloat16/float16/int8 rate where this CPU has a kernel, and the\n"
               "        ISA's theoretical ceiling per dtype (cores x clock x FLOP/cycle, inputs\n"
               "        printed: docs/precision.md).\n"
               "  cuda: device-to-device copy bandwidth, cuBLAS GEMM float32/float64/TF32 at\n"
               "        n=8192 (or what fits), cuBLASLt bfloat16/float16/float8/int8, host<->device\n"
               "        rates from pinned and pageable memory, and pinned both ways at once.\n"
               "Also runs the sanity checks (OpenBLAS core, threads, governor, load) and prints\n"
               "their warnings. The OpenBLAS figures use the best OpenBLAS kernels for this CPU\n"
               "unless OPENBLAS_CORETYPE or --openblas-core says otherwise (detected: what\n"
               "OpenBLAS picks itself). See docs/honest-numbers.md.\n");
}


static void print_table(const cJSON *doc, FILE *out) {
    const cJSON *b;
    cJSON_ArrayForEach(b, doc) {
        if (!cJSON_IsObject(b)) continue;
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(b, "unavailable");
        if (cJSON_IsString(why)) {
            fprintf(out, "%s: unavailable: %s\n\n", b->string, why->valuestring);
            continue;
        }
        const cJSON *threads = cJSON_GetObjectItemCaseSensitive(b, "threads");
        const cJSON *secs = cJSON_GetObjectItemCaseSensitive(b, "measure_s");
        fprintf(out, "%s", b->string);
        if (cJSON_IsNumber(threads)) fprintf(out, " (%d thread%s)", threads->valueint, threads->valueint == 1 ? "" : "s");
        if (cJSON_IsNumber(secs)) fprintf(out, ", measured in %.1f s", secs->valuedouble);
        fprintf(out, "\n");
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(b, "gemm_n");
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(b, rows[i].key);
            if (!cJSON_IsNumber(v)) continue;
            char label[96];
            if (strncmp(rows[i].key, "gemm_", 5) == 0 && cJSON_IsNumber(n)) {
                const cJSON *n64 = strcmp(rows[i].key, "gemm_float64_gflops") == 0
                                       ? cJSON_GetObjectItemCaseSensitive(b, "gemm_float64_n") : NULL;
                snprintf(label, sizeof label, "%s (n=%d)", rows[i].label, cJSON_IsNumber(n64) ? n64->valueint : n->valueint);
            } else {
                snprintf(label, sizeof label, "%s", rows[i].label);
            }
            fprintf(out, "  %-44s %10.1f %-7s  %s\n", label, v->valuedouble, rows[i].unit, rows[i].key);
        }
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(b, "error");
        const cJSON *lib32 = cJSON_GetObjectItemCaseSensitive(b, "gemm_float32_library");
        if (cJSON_IsString(lib32)) fprintf(out, "  GEMM float32 ceiling from: %s\n", lib32->valuestring);
        const cJSON *isa = cJSON_GetObjectItemCaseSensitive(b, "isa_peak_inputs");
        if (cJSON_IsString(isa)) fprintf(out, "  ISA ceilings: %s\n", isa->valuestring);
        if (cJSON_IsString(err)) fprintf(out, "  not measured: %s\n", err->valuestring);
        fprintf(out, "\n");
    }
}

int gb_cmd_peak(int argc, char **argv) {
    struct option opts[16] = {
        {"backend", required_argument, 0, 'b'}, {"threads", required_argument, 0, 't'},
        {"device", required_argument, 0, 'D'},  {"format", required_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'}};
    gb_backend_options_getopt(opts, 5, 16);
    const char *backends = NULL;
    /* every reduced-precision GEMM ceiling too (a run measures only its plan's) */
    gb_backend_options opt = {.threads = 0, .device = 0, .cache_cold = 0,
                              .peak_dtypes = 1u << GB_BFLOAT16 | 1u << GB_FLOAT16 | 1u << GB_FLOAT8_E4M3 | 1u << GB_INT8};
    int json = 0, ch;
    long v;
    optind = 1;
    while ((ch = gb_cli_getopt(argc, argv, "h", opts)) != -1) {
        int bo = gb_cli_backend_option("peak", ch, optarg); /* a backend's own option */
        if (bo > 0) return bo;
        if (bo == 0) continue;
        switch (ch) {
        case 'b': backends = optarg; break;
        case 't':
            if (gb_cli_parse_int(optarg, 1, 4096, &v)) {
                fprintf(stderr, "gpubench peak: --threads: expected a positive integer, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            opt.threads = (int)v;
            break;
        case 'D':
            if (gb_cli_parse_int(optarg, 0, 1024, &v)) {
                fprintf(stderr, "gpubench peak: --device: expected a device ordinal, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            opt.device = (int)v;
            break;
        case 'f':
            if (strcmp(optarg, "table") && strcmp(optarg, "json")) {
                fprintf(stderr, "gpubench peak: --format: expected table or json, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            json = strcmp(optarg, "json") == 0;
            break;
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: return gb_cli_bad_option("peak", argc, argv, "h");
        }
    }
    if (optind != argc) {
        fprintf(stderr, "gpubench peak: unexpected argument \"%s\"\n\n", argv[optind]);
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    int setup = gb_cli_setup_process("peak");
    if (setup != GB_EXIT_OK) return setup;
    gb_backend_set set;
    gb_err e = {{0}};
    if (gb_backends_init(&set, backends, &opt, &e) != GB_OK) {
        fprintf(stderr, "gpubench peak: %s\n", e.msg);
        gb_backends_shutdown(&set);
        return GB_EXIT_USAGE;
    }

    /* Sanity first, while the machine is still idle: a low ceiling is
     * explained by the same problems a low result is. */
    cJSON *ctx = gb_sysinfo_context(gb_full_argc, gb_full_argv);
    gb_backends_describe(&set, ctx);
    cJSON *warnings = cJSON_CreateArray();
    gb_cli_checks(&set, ctx, warnings);
    const cJSON *w;
    cJSON_ArrayForEach(w, warnings) gb_cli_warning(stderr, w->valuestring);
    cJSON_Delete(ctx);

    cJSON *doc = cJSON_CreateObject();
    int failed = 0;
    for (int i = 0; i < set.count; i++) {
        gb_backend_slot *s = &set.slot[i];
        cJSON *p = cJSON_AddObjectToObject(doc, s->name);
        if (!s->selected) {
            /* Not asked for (--backend) or not usable here: say which. */
            if (!s->available) cJSON_AddStringToObject(p, "unavailable", s->reason);
            else cJSON_DeleteItemFromObjectCaseSensitive(doc, s->name);
            continue;
        }
        if (!s->b->measure_peaks) {
            cJSON_AddStringToObject(p, "error", "this backend measures no ceilings");
            continue;
        }
        fprintf(stderr, "measuring %s ceilings...\n", s->name);
        gb_err pe = {{0}};
        if (s->b->measure_peaks(p, &pe) != GB_OK) {
            cJSON_AddStringToObject(p, "error", pe.msg);
            fprintf(stderr, "gpubench peak: %s ceilings: %s\n", s->name, pe.msg);
            failed = 1;
        }
    }
    gb_backends_shutdown(&set);

    if (json) {
        cJSON_AddItemToObject(doc, "warnings", warnings);
        char *text = cJSON_Print(doc);
        printf("%s\n", text);
        free(text);
    } else {
        print_table(doc, stdout);
        cJSON_Delete(warnings);
    }
    cJSON_Delete(doc);
    return failed ? GB_EXIT_CHECK : GB_EXIT_OK;
}
