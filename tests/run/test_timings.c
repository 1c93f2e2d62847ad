/* test_timings.c — a timing only some ops have (gb_backend.has_timing, the
 * CUDA backend's end_to_end_overlapped): the runner records no result for the
 * other ops (no "skipped" noise), and the report shows its columns beside the
 * others in the tables of the ops that have it, and nowhere else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "backend.h"
#include "backends.h"
#include "report.h"
#include "results_model.h"
#include "runner.h"
#include "suite.h"
#include "testlib.h"

/* An accelerator that computes with the CPU backend and declares a second
 * timing only reduction has. */
static int fake_has_timing(const gb_case *c, int timing) { return timing == 0 || c->op_id == GB_OP_REDUCTION; }
static int fake_init(const gb_backend_options *o, gb_err *e) { return gb_cpu_backend()->init(o, e); }
static int fake_supports(const gb_case *c, gb_err *e) { return gb_cpu_backend()->supports(c, e); }
static int fake_prepare(const gb_case *c, const gb_arrays *in, void **st, gb_err *e) {
    return gb_cpu_backend()->prepare(c, in, st, e);
}
static int fake_run(void *st, int timing, double *s, gb_err *e) { return gb_cpu_backend()->run(st, 0, s, e); }
static int fake_fetch(void *st, gb_arrays *out, gb_err *e) { return gb_cpu_backend()->fetch(st, out, e); }
static void fake_release(void *st) { gb_cpu_backend()->release(st); }

static const gb_backend fake = {
    .abi_version = GB_ABI_VERSION,
    .name = "fake",
    .role = GB_ROLE_ACCELERATOR,
    .ntimings = 2,
    .timings = {"device", "extra"},
    .timing_labels = {"fake dev", "fake xtra"},
    .init = fake_init,
    .supports = fake_supports,
    .prepare = fake_prepare,
    .run = fake_run,
    .fetch = fake_fetch,
    .release = fake_release,
    .has_timing = fake_has_timing,
};

static int count_results(const gb_case_result *c, const char *backend, const char *timing) {
    int n = 0;
    for (size_t i = 0; i < c->nresults; i++)
        n += !strcmp(c->results[i].backend, backend) && !strcmp(c->results[i].timing, timing);
    return n;
}

TEST(timings_runner_records_an_optional_timing_only_where_it_applies) {
    const char *suite_text =
        "{\"name\": \"t\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 0, \"min_reps\": 2, "
        "\"min_time_s\": 0, \"max_time_s\": 600, \"rounds\": 1},"
        " \"benchmarks\": [{\"op\": \"elementwise\", \"sizes\": [16]}, {\"op\": \"reduction\", \"sizes\": [16]}]}";
    gb_results r;
    CHECK(gb_test_run_cpu_and(suite_text, &fake, 0, &r) == 0);
    CHECK(r.ncases == 2);
    for (size_t i = 0; i < r.ncases; i++) {
        const gb_case_result *c = &r.cases[i];
        int red = !strcmp(c->op, "reduction");
        CHECK(count_results(c, "cpu", "host") == 1);
        CHECK(count_results(c, "fake", "device") == 1);
        CHECK(count_results(c, "fake", "extra") == red); /* none at all for elementwise */
        CHECK(c->nresults == (size_t)(red ? 3 : 2));
        for (size_t k = 0; k < c->nresults; k++) CHECK(c->results[k].status == GB_RS_OK);
        CHECK(red ? gb_case_speedup(c, "extra") > 0 : gb_case_speedup(c, "extra") != gb_case_speedup(c, "extra"));
    }
    gb_results_free(&r);
}

/* The committed small results file with a third CUDA timing declared in
 * context.backends and measured for one op (its first case renamed to
 * elementwise), as a run with the overlapped timing writes it. */
static char *render_three_timings(gb_format f) {
    FILE *in = fopen("tests/data/results_small.json", "rb");
    if (!in) return NULL;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    cJSON *doc = cJSON_Parse(text);
    if (!doc) return NULL;
    cJSON *cuda = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "context"), "backends"), "cuda");
    cJSON *ts = cJSON_AddArrayToObject(cuda, "timings");
    const char *names[3][2] = {{"device", "gpu dev"}, {"end_to_end", "gpu e2e"}, {"end_to_end_overlapped", "gpu e2e-ovl"}};
    for (int i = 0; i < 3; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", names[i][0]);
        cJSON_AddStringToObject(t, "label", names[i][1]);
        cJSON_AddItemToArray(ts, t);
    }
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), 0);
    cJSON_ReplaceItemInObject(c0, "op", cJSON_CreateString("elementwise"));
    cJSON *results = cJSON_GetObjectItem(c0, "results");
    cJSON *ovl = cJSON_Duplicate(cJSON_GetArrayItem(results, 2), 1); /* the end_to_end result */
    cJSON_ReplaceItemInObject(ovl, "timing", cJSON_CreateString("end_to_end_overlapped"));
    cJSON_AddItemToArray(results, ovl);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(c0, "speedup"), "end_to_end_overlapped", 0.125);
    gb_results r;
    gb_err e = {{0}};
    char *buf = NULL;
    size_t len = 0;
    if (gb_results_from_json(doc, "three", &r, &e) == GB_OK) {
        FILE *out = open_memstream(&buf, &len);
        gb_report_options o = {.format = f, .wide = 1}; /* every column: this is about which ones exist */
        CHECK(gb_report_render(&r, &o, out) == 0);
        fclose(out);
        gb_results_free(&r);
    } else {
        fprintf(stderr, "    %s\n", e.msg);
    }
    cJSON_Delete(doc);
    return buf;
}

TEST(timings_report_shows_an_optional_timing_beside_the_others_only_where_measured) {
    char *t = render_three_timings(GB_FMT_TABLE);
    CHECK(t != NULL);
    if (!t) return;
    char *ew = strstr(t, "\nelementwise\n"), *mm = strstr(t, "\nmatmul\n");
    CHECK(ew && mm);
    if (ew && mm) {
        /* elementwise's table: GPU ms dev, e2e, e2e-ovl side by side, then the speedups */
        char *h = strstr(ew, "GPU ms dev");
        CHECK(h && h < mm);
        char *e2e = h ? strstr(h, "GPU ms e2e ") : NULL, *ovl = h ? strstr(h, "GPU ms e2e-ovl") : NULL;
        char *sp = h ? strstr(h, "speedup dev") : NULL, *spo = h ? strstr(h, "speedup e2e-ovl") : NULL;
        CHECK(e2e && ovl && sp && spo && e2e < ovl && ovl < sp && sp < spo && spo < mm);
        CHECK(strstr(ew, "0.12×") && strstr(ew, "0.12×") < mm); /* the overlapped speedup, 0.125 */
        /* matmul's table has no such columns, and no result is missing or skipped */
        CHECK(!strstr(mm, "e2e-ovl") || strstr(mm, "e2e-ovl") > strstr(mm, "Crossover"));
        CHECK(strstr(t, "5 cases, 16 results: 16 ok, 0 skipped"));
    }
    CHECK(strstr(t, "Further GPU timings") && strstr(t, "\"e2e-ovl\" (end-to-end-overlapped)"));
    free(t);
    char *csv = render_three_timings(GB_FMT_CSV);
    CHECK(csv && strstr(csv, "gpu_end_to_end_overlapped_median_s") && strstr(csv, "speedup_end_to_end_overlapped"));
    free(csv);
}

/* A case's speedups are the libraries' (the CPU's host time over each of
 * the accelerator's timings), never a framework peer's: CuPy, PyTorch and
 * JAX on the GPU each have a timing "host" too, and a speedup of each made
 * the key "host" twice in the results, which gpubench's own reader refused
 * (the peers run on the GPU host, 2026-12-03). */
#include "run_internal.h"
TEST(timings_speedups_are_the_libraries_never_a_peers) {
    gb_backend cpu = {.name = "cpu", .role = GB_ROLE_HOST, .ntimings = 1, .timings = {"host"}};
    gb_backend acc = {.name = "cuda", .role = GB_ROLE_ACCELERATOR, .ntimings = 1, .timings = {"device"}};
    gb_backend peer1 = {.name = "cupy", .role = GB_ROLE_ACCELERATOR, .ntimings = 1, .timings = {"host"}};
    gb_backend peer2 = {.name = "torch", .role = GB_ROLE_ACCELERATOR, .ntimings = 1, .timings = {"host"}};
    gb_backend_set set = {.count = 4};
    const gb_backend *bs[] = {&cpu, &acc, &peer1, &peer2};
    for (int k = 0; k < 4; k++) set.slot[k] = (gb_backend_slot){.b = bs[k], .name = bs[k]->name, .selected = 1, .peer = k >= 2};
    gb_results r;
    gb_err e = {{0}};
    if (!CHECK(gb_results_init(&r, "t", 0, &e) == GB_OK)) return;
    gb_case_result *c = gb_results_add_case(&r);
    static const char *const who[] = {"cpu", "cuda", "cupy", "torch"}, *const when[] = {"host", "device", "host", "host"};
    static const double med[] = {8e-3, 1e-3, 2e-3, 4e-3};
    for (int k = 0; c && k < 4; k++) {
        gb_result *x = gb_case_add_result(c);
        if (!x) break;
        CHECK(gb_set_string(&x->backend, who[k]) == GB_OK && gb_set_string(&x->timing, when[k]) == GB_OK);
        x->status = GB_RS_OK;
        x->stats.present = 1;
        x->stats.median = med[k];
    }
    gb_run_add_speedups(c, &set);
    CHECK(c && c->nspeedups == 1 && !strcmp(c->speedups[0].timing, "device") && c->speedups[0].value == 8.0);
    gb_results_free(&r);
}
