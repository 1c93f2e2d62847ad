/* fuzz_results.c — the results loader, then every reader of what it loaded:
 * report (every format, and the one-line case summary), the crossover
 * (computed, and the words for each entry), compare (against itself and a
 * real run, every format), export (both formats) and merge (results/merge.h:
 * the input twice, so that its cases repeat, then a real run). A file the model accepts must be safe for all
 * of them, and must write back to JSON that the model accepts again. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "export.h"
#include "fuzz.h"
#include "json_strict.h"
#include "merge.h"
#include "report.h"
#include "results_model.h"
#include "writer.h"

#define REAL_RUN "tests/data/results_small.json"

static FILE *gb_fuzz_sink(void) {
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    return sink;
}

static void readers(const gb_results *doc, const gb_results *real) {
    FILE *out = gb_fuzz_sink();
    for (int f = GB_FMT_TABLE; f <= GB_FMT_HTML; f++) {
        gb_report_options o = {.format = (gb_format)f, .ops = NULL, .color = f == GB_FMT_TABLE};
        gb_report_render(doc, &o, out);
    }
    for (size_t i = 0; i < doc->ncases; i++) gb_report_case(doc, &doc->cases[i], NULL, out);

    gb_crossover_entry *xs = NULL;
    size_t nx = 0;
    gb_err e = {{0}};
    if (gb_crossover_compute(doc, &xs, &nx, &e) == GB_OK) {
        for (size_t i = 0; i < nx; i++) {
            free(gb_crossover_text(&xs[i]));
            free(gb_crossover_gpu_sizes(&xs[i]));
            gb_crossover_entry_free(&xs[i]);
        }
        free(xs);
    }
    for (size_t i = 0; i < doc->ncrossover; i++) {
        free(gb_crossover_text(&doc->crossover[i]));
        free(gb_crossover_gpu_sizes(&doc->crossover[i]));
    }

    gb_compare_options co = {.rule = GB_DEFAULT_RULE};
    const gb_results *pairs[][2] = {{doc, doc}, {real, doc}};
    for (int k = 0; k < 2; k++) {
        if (!pairs[k][0] || !pairs[k][1]) continue;
        const char *na = "a.json", *nb = "b.json";
        gb_compare_result *cmp = gb_compare_judge_runs(&pairs[k][0], &na, 1, &pairs[k][1], &nb, 1, &co);
        for (int f = 0; cmp && gb_writer_at(f); f++) gb_compare_render(cmp, gb_writer_at(f), out);
        if (cmp) gb_compare_print_json(cmp, out);
        gb_compare_result_free(cmp);
    }

    cJSON *ex[2] = {gb_export_gbench_doc(doc), gb_export_benchmark_action_doc(doc)};
    for (int k = 0; k < 2; k++) {
        char *text = ex[k] ? cJSON_PrintUnformatted(ex[k]) : NULL;
        free(text);
        cJSON_Delete(ex[k]);
    }
}

/* merge, as the command does it: the input twice (every case a repeat of
 * itself), then the real run; the merged results are summarized and written
 * to JSON as the command writes them. */
static void merge(const gb_results *doc, const gb_results *real) {
    gb_merge m;
    gb_err e = {{0}};
    if (gb_merge_init(&m, "-", &e) == GB_OK && gb_merge_add(&m, doc, "a.json", NULL, &e) == GB_OK &&
        gb_merge_add(&m, doc, "b.json", "b", &e) == GB_OK && (!real || gb_merge_add(&m, real, "real.json", NULL, &e) == GB_OK)) {
        gb_results *out = gb_merge_finish(&m);
        gb_results_summarize(out);
        cJSON *json = gb_results_to_json(out, 0);
        char *text = json ? cJSON_PrintUnformatted(json) : NULL;
        free(text);
        cJSON_Delete(json);
    } else if (!e.msg[0]) {
        __builtin_trap(); /* a failure must say why */
    }
    gb_merge_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static gb_results real;
    static int real_loaded = -1;
    if (real_loaded < 0) {
        gb_err e0;
        real_loaded = gb_results_load(REAL_RUN, &real, &e0) == GB_OK;
        /* merge writes its document to standard output */
        if (!freopen("/dev/null", "w", stdout)) return 0;
    }
    cJSON *json;
    gb_err e = {{0}};
    if (gb_json_parse_strict((const char *)data, size, "fuzz.json", &json, &e) != GB_OK) {
        if (!e.msg[0]) __builtin_trap(); /* a failure must say why */
        return 0;
    }
    gb_results doc;
    int ok = gb_results_from_json(json, "fuzz.json", &doc, &e) == GB_OK;
    cJSON_Delete(json);
    if (!ok) {
        if (!e.msg[0]) __builtin_trap();
        return 0;
    }
    readers(&doc, real_loaded ? &real : NULL);
    /* What was accepted writes back to JSON that is accepted again. */
    cJSON *back = gb_results_to_json(&doc, 0);
    if (back) {
        gb_results again;
        if (gb_results_from_json(back, "back.json", &again, &e) != GB_OK) __builtin_trap();
        gb_results_free(&again);
        cJSON_Delete(back);
    }
    merge(&doc, real_loaded ? &real : NULL);
    gb_results_free(&doc);
    return 0;
}
