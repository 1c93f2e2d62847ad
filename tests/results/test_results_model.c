/* test_results_model.c — the typed results model: every committed results
 * file loads and writes back unchanged; a broken file is refused with the
 * file and the JSON path of what is wrong; backends are described by data,
 * with the built-in table for files that do not describe them. */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results_io.h"
#include "results_model.h"
#include "testlib.h"

/* The committed results files that are broken on purpose (each must be
 * refused: a fixture that starts to load is a reader that stopped checking). */
static const char *const refused_fixtures[] = {
    "tests/data/compare/version7.json",                /* a newer schema_version */
    "tests/data/hardening/median_negative.json",       "tests/data/hardening/median_zero.json",
    "tests/data/hardening/op_ansi_escape.json",        "tests/data/hardening/peaks_cpu_array.json",
    "tests/data/hardening/results_duplicate_key.json", "tests/data/hardening/round_sizes_huge.json",
    "tests/data/hardening/round_sizes_past_samples.json", "tests/data/hardening/sample_zero.json",
    "tests/data/hardening/threads_huge.json",          NULL};

static int is_refused_fixture(const char *path) {
    for (int i = 0; refused_fixtures[i]; i++)
        if (!strcmp(path, refused_fixtures[i])) return 1;
    return 0;
}

/* A results file: JSON (read leniently: a broken fixture is still one) whose
 * "schema" is gpubench-results. */
static int is_results_file(const char *path) {
    size_t len = 0;
    char *text = gb_test_slurp(path, &len);
    if (!text) return 0;
    cJSON *doc = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    int yes = cJSON_IsString(schema) && !strcmp(schema->valuestring, GB_RESULTS_SCHEMA);
    cJSON_Delete(doc);
    return yes;
}

/* Every committed results file — results/reference/ and tests/data/ (three
 * folders deep) — into files[] (pointing into g); the ones broken on purpose into
 * broken[] (*nbroken of them) when broken is not NULL. */
static size_t committed_files(glob_t *g, const char **files, size_t cap, const char **broken, size_t *nbroken) {
    memset(g, 0, sizeof *g);
    glob("results/reference/*.json", 0, NULL, g);
    glob("tests/data/*.json", GLOB_APPEND, NULL, g);
    glob("tests/data/*/*.json", GLOB_APPEND, NULL, g);
    glob("tests/data/*/*/*.json", GLOB_APPEND, NULL, g);
    size_t k = 0, b = 0;
    for (size_t i = 0; i < g->gl_pathc; i++) {
        const char *p = g->gl_pathv[i];
        if (!is_results_file(p)) continue;
        if (is_refused_fixture(p)) {
            if (broken && b < cap) broken[b++] = p;
        } else if (k < cap) {
            files[k++] = p;
        }
    }
    if (nbroken) *nbroken = b;
    return k;
}

TEST(model_loads_every_committed_results_file) {
    glob_t g;
    const char *files[256], *broken[256];
    size_t nbroken = 0, n = committed_files(&g, files, 256, broken, &nbroken);
    CHECK(n >= 40); /* 11 references, 29 fixtures when this was written */
    for (size_t i = 0; i < n; i++) {
        gb_results r;
        gb_err e = {{0}};
        int rc = gb_results_load(files[i], &r, &e);
        if (!CHECK(rc == GB_OK)) fprintf(stderr, "    %s\n", e.msg);
        if (rc == GB_OK) CHECK(r.ncases > 0 && r.nruns >= 1);
        gb_results_free(&r);
    }
    CHECK(nbroken == sizeof refused_fixtures / sizeof *refused_fixtures - 1); /* each listed one exists */
    for (size_t i = 0; i < nbroken; i++) {
        gb_results r;
        gb_err e = {{0}};
        if (!CHECK(gb_results_load(broken[i], &r, &e) != GB_OK)) fprintf(stderr, "    %s loads\n", broken[i]);
        CHECK(strstr(e.msg, broken[i]) == e.msg); /* the message names the file */
        gb_results_free(&r);
    }
    globfree(&g);
}

/* Load, write, compare with the file as parsed: the same text, key order
 * and keys the model does not interpret included. */
TEST(model_round_trips_every_committed_results_file) {
    glob_t g;
    const char *files[256];
    size_t n = committed_files(&g, files, 256, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        gb_results r;
        gb_err e = {{0}};
        cJSON *orig = NULL;
        if (!CHECK(gb_results_load(files[i], &r, &e) == GB_OK)) continue;
        CHECK(gb_json_read_file(files[i], &orig, &e) == GB_OK);
        cJSON *back = gb_results_to_json(&r, 0);
        char *a = cJSON_Print(orig), *b = back ? cJSON_Print(back) : NULL;
        if (!CHECK(a && b && strcmp(a, b) == 0)) fprintf(stderr, "    %s changed on the way through\n", files[i]);
        free(a);
        free(b);
        cJSON_Delete(orig);
        cJSON_Delete(back);
        gb_results_free(&r);
    }
    globfree(&g);
}

/* A copy of tests/data/results_small_cpu_only.json with one change made by
 * edit (a cJSON edit of the parsed file); returns the load status and the
 * message. */
static int load_edited(void (*edit)(cJSON *doc), char *msg, size_t len, char *path, size_t plen) {
    cJSON *doc = NULL;
    gb_err e = {{0}};
    if (gb_json_read_file("tests/data/results_small_cpu_only.json", &doc, &e) != GB_OK) return -1;
    edit(doc);
    snprintf(path, plen, "/tmp/gb_model_%d.json", (int)getpid());
    if (gb_json_write_atomic(doc, path, &e) != GB_OK) return -1;
    cJSON_Delete(doc);
    gb_results r;
    int rc = gb_results_load(path, &r, &e);
    gb_results_free(&r);
    snprintf(msg, len, "%s", e.msg);
    return rc;
}

static double version_to_set;
static void set_version(cJSON *doc) {
    cJSON_ReplaceItemInObject(doc, "schema_version", cJSON_CreateNumber(version_to_set));
}

/* docs/results-schema.md, "Versions": every version up to this gpubench's
 * loads; a newer one is refused naming the file and both versions; one that
 * is not a whole number from 1 is refused. */
TEST(model_reads_schema_versions_up_to_its_own_and_refuses_newer) {
    char msg[GB_MSG_LEN], path[64], want[160];
    for (int v = 1; v <= GB_RESULTS_SCHEMA_VERSION; v++) {
        version_to_set = v;
        if (!CHECK(load_edited(set_version, msg, sizeof msg, path, sizeof path) == GB_OK)) fprintf(stderr, "    %s\n", msg);
    }
    version_to_set = GB_RESULTS_SCHEMA_VERSION + 1;
    CHECK(load_edited(set_version, msg, sizeof msg, path, sizeof path) == GB_FAIL);
    snprintf(want, sizeof want, "%s: schema_version %d, this gpubench reads %d", path, GB_RESULTS_SCHEMA_VERSION + 1,
             GB_RESULTS_SCHEMA_VERSION);
    if (!CHECK(strcmp(msg, want) == 0)) fprintf(stderr, "    %s\n", msg);
    const double not_versions[] = {0, -1, 1.5};
    for (int i = 0; i < 3; i++) {
        version_to_set = not_versions[i];
        CHECK(load_edited(set_version, msg, sizeof msg, path, sizeof path) == GB_FAIL);
        CHECK(strstr(msg, "is not a version (a whole number from 1)") != NULL);
    }
    unlink(path);
}

static cJSON *result_at(cJSON *doc, int c, int r) {
    return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), c), "results"), r);
}

static void drop_status(cJSON *doc) { cJSON_DeleteItemFromObject(result_at(doc, 2, 0), "status"); }
static void median_as_string(cJSON *doc) {
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(result_at(doc, 3, 0), "stats"), "median", cJSON_CreateString("1 ms"));
}
static void rounds_short(cJSON *doc) {
    cJSON *sizes = cJSON_CreateArray();
    cJSON_AddItemToArray(sizes, cJSON_CreateNumber(2));
    cJSON_AddItemToArray(sizes, cJSON_CreateNumber(3));
    cJSON_AddItemToObject(result_at(doc, 1, 0), "round_sizes", sizes);
}
static void negative_sample(cJSON *doc) {
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(result_at(doc, 0, 0), "samples_s"), 4, cJSON_CreateNumber(-2e-3));
}
static void negative_setup(cJSON *doc) {
    cJSON_ReplaceItemInObject(result_at(doc, 4, 0), "setup_s", cJSON_CreateNumber(-1));
}
static void stats_n_wrong(cJSON *doc) {
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(result_at(doc, 0, 0), "stats"), "n", cJSON_CreateNumber(2));
}
static void context_model_number(cJSON *doc) {
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "context"), "cpu"), "model",
                              cJSON_CreateNumber(7));
}
static void unknown_key(cJSON *doc) {
    cJSON_AddStringToObject(result_at(doc, 0, 0), "from_the_future", "kept");
    cJSON_AddNumberToObject(doc, "future_top", 3);
}

TEST(model_names_the_file_and_path_of_a_missing_field) {
    char msg[512], path[128], want[256];
    CHECK(load_edited(drop_status, msg, sizeof msg, path, sizeof path) == GB_FAIL);
    snprintf(want, sizeof want, "%s: cases[2].results[0].status: missing", path);
    if (!CHECK(strncmp(msg, want, strlen(want)) == 0)) fprintf(stderr, "    got: %s\n", msg);
    unlink(path);
}

TEST(model_names_the_file_and_path_of_a_wrong_type) {
    char msg[512], path[128], want[256];
    CHECK(load_edited(median_as_string, msg, sizeof msg, path, sizeof path) == GB_FAIL);
    snprintf(want, sizeof want, "%s: cases[3].results[0].stats.median: expected a number, got a string", path);
    if (!CHECK(strcmp(msg, want) == 0)) fprintf(stderr, "    got: %s\n", msg);
    CHECK(load_edited(context_model_number, msg, sizeof msg, path, sizeof path) == GB_FAIL);
    CHECK(strstr(msg, ": context.cpu.model: expected a string, got a number") != NULL);
    unlink(path);
}

TEST(model_refuses_rounds_that_do_not_add_up_to_the_samples) {
    char msg[512], path[128];
    CHECK(load_edited(rounds_short, msg, sizeof msg, path, sizeof path) == GB_FAIL);
    CHECK(strstr(msg, ": cases[1].results[0].round_sizes: the rounds add up to 5 samples, but samples_s has") != NULL);
    CHECK(load_edited(stats_n_wrong, msg, sizeof msg, path, sizeof path) == GB_FAIL);
    CHECK(strstr(msg, ": cases[0].results[0].stats.n: 2, but samples_s has") != NULL);
    unlink(path);
}

TEST(model_refuses_negative_times) {
    char msg[512], path[128];
    CHECK(load_edited(negative_sample, msg, sizeof msg, path, sizeof path) == GB_FAIL);
    CHECK(strstr(msg, ": cases[0].results[0].samples_s[4]: expected a time in seconds (finite, positive), got -0.002"));
    CHECK(load_edited(negative_setup, msg, sizeof msg, path, sizeof path) == GB_FAIL);
    CHECK(strstr(msg, ": cases[4].results[0].setup_s: expected a non-negative number, got -1") != NULL);
    unlink(path);
}

static void device_named(cJSON *doc) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddNumberToObject(d, "index", 3);
    cJSON_AddStringToObject(d, "name", "NVIDIA H100 80GB HBM3");
    cJSON_AddStringToObject(d, "uuid", "GPU-0f1e2d3c");
    cJSON_AddStringToObject(d, "pci_bus_id", "00000000:19:00.0");
    cJSON_AddItemToObject(result_at(doc, 0, 0), "device", d);
}
static void device_negative_index(cJSON *doc) {
    device_named(doc);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(result_at(doc, 0, 0), "device"), "index", cJSON_CreateNumber(-1));
}

TEST(model_reads_and_writes_the_device_of_a_result) {
    char msg[512], path[128];
    CHECK(load_edited(device_named, msg, sizeof msg, path, sizeof path) == GB_OK);
    gb_results r, back;
    gb_err e = {{0}};
    CHECK(gb_results_load(path, &r, &e) == GB_OK);
    const gb_device_id *d = &r.cases[0].results[0].device;
    CHECK(d->present && d->index == 3);
    CHECK(strcmp(d->uuid, "GPU-0f1e2d3c") == 0 && strcmp(d->pci_bus_id, "00000000:19:00.0") == 0);
    CHECK(!r.cases[1].results[0].device.present);
    CHECK(gb_results_write(&r, path, 0, &e) == GB_OK);
    CHECK(gb_results_load(path, &back, &e) == GB_OK);
    CHECK(back.cases[0].results[0].device.present && strcmp(back.cases[0].results[0].device.name, d->name) == 0);
    gb_results_free(&back);
    gb_results_free(&r);
    CHECK(load_edited(device_negative_index, msg, sizeof msg, path, sizeof path) == GB_FAIL);
    CHECK(strstr(msg, ": cases[0].results[0].device.index: expected a non-negative number, got -1") != NULL);
    unlink(path);
}

TEST(model_keeps_keys_it_does_not_know) {
    char msg[512], path[128];
    CHECK(load_edited(unknown_key, msg, sizeof msg, path, sizeof path) == GB_OK);
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load(path, &r, &e) == GB_OK);
    cJSON *back = gb_results_to_json(&r, 0);
    CHECK(back != NULL);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(back, "future_top")) == 3);
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(result_at(back, 0, 0), "from_the_future")), "kept") == 0);
    cJSON_Delete(back);
    gb_results_free(&r);
    unlink(path);
}

TEST(model_reads_the_runners_raw_samples) {
    const char *text = "{\"schema\": \"gpubench-results\", \"schema_version\": 1, \"cases\": [{\"op\": \"matmul\","
                       " \"dtype\": \"float32\", \"shape\": [4, 4, 4], \"results\": [{\"backend\": \"cpu\","
                       " \"timing\": \"host\", \"status\": \"ok\", \"round_sizes\": [2, 1]}]}]}";
    cJSON *doc = cJSON_Parse(text);
    cJSON_AddItemToObject(result_at(doc, 0, 0), "samples_s", cJSON_CreateRaw("[0.001,0.002,0.0015]"));
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_from_json(doc, "live", &r, &e) == GB_OK);
    if (r.ncases == 1) {
        CHECK(r.cases[0].results[0].nsamples == 3);
        CHECK_NEAR(r.cases[0].results[0].samples[1], 0.002, 0);
        /* written back in the runner's form */
        cJSON *back = gb_results_to_json(&r, GB_WRITE_SAMPLES_6G);
        char *s = cJSON_PrintUnformatted(back);
        CHECK(s && strstr(s, "\"samples_s\":[0.001,0.002,0.0015]"));
        free(s);
        cJSON_Delete(back);
    }
    gb_results_free(&r);
    cJSON_Delete(doc);
}

TEST(model_describes_backends_from_data_else_the_built_in_table) {
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load("tests/data/results_small.json", &r, &e) == GB_OK);
    /* files so far: the built-in table */
    const gb_backend_desc *h = gb_results_host(&r, 0), *a = gb_results_accelerator(&r, 0);
    CHECK(strcmp(h->name, "cpu") == 0 && h->role == GB_ROLE_HOST && !h->described);
    CHECK(strcmp(a->name, "cuda") == 0 && a->ntimings == 2 && gb_backend_timing_index(a, "end_to_end") == 1);
    CHECK(gb_results_backend(NULL, 0, "cpu")->role == GB_ROLE_HOST);
    CHECK(gb_results_backend(NULL, 0, "rocm")->role == GB_ROLE_ACCELERATOR);
    gb_results_free(&r);
    /* a file whose backends describe themselves */
    const char *text = "{\"schema\": \"gpubench-results\", \"schema_version\": 1, \"context\": {\"backends\": {"
                       "\"x86\": {\"available\": true, \"role\": \"host\", \"timings\": [{\"name\": \"wall\", \"label\": \"x86\"}]},"
                       "\"npu\": {\"available\": true, \"role\": \"accelerator\", \"timings\": [{\"name\": \"on_chip\","
                       " \"label\": \"npu chip\"}]}}}, \"cases\": []}";
    cJSON *doc = cJSON_Parse(text);
    CHECK(gb_results_from_json(doc, "described", &r, &e) == GB_OK);
    h = gb_results_host(&r, 0);
    a = gb_results_accelerator(&r, 0);
    CHECK(strcmp(h->name, "x86") == 0 && h->described && strcmp(h->timings[0].name, "wall") == 0);
    CHECK(strcmp(a->name, "npu") == 0 && a->ntimings == 1 && strcmp(a->timings[0].label, "npu chip") == 0);
    gb_results_free(&r);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "context"), "backends"), "npu"),
                              "role", cJSON_CreateString("gpu"));
    CHECK(gb_results_from_json(doc, "described", &r, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "described: context.backends.npu.role: expected \"host\" or \"accelerator\", got \"gpu\""));
    cJSON_Delete(doc);
}

TEST(model_summary_counts_results_by_status) {
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load("tests/data/results_h100.json", &r, &e) == GB_OK);
    gb_summary before = r.summary;
    r.summary.order = NULL; /* keep the loaded one's template to free below */
    int bad = gb_results_summarize(&r);
    CHECK(r.summary.cases == before.cases && r.summary.results == before.results);
    CHECK(r.summary.ok == before.ok && r.summary.skipped == before.skipped);
    CHECK(bad == before.failed + before.errors);
    r.summary.order = before.order;
    gb_results_free(&r);
}

/* What the runner will do: fill a document in code, write it in its form
 * (samples with 6 digits), and have every reader load it back. */
TEST(model_a_document_built_in_code_writes_and_loads_back) {
    gb_results r;
    gb_err e = {{0}};
    if (!CHECK(gb_results_init(&r, "built", 0, &e) == GB_OK)) return;
    CHECK(gb_set_string(&r.gpubench_version, GB_VERSION) == GB_OK);
    r.complete = 1;
    r.interrupted = 0;
    cJSON *prov = cJSON_Parse("{\"context\": {\"hostname\": \"host-a\", \"backends\": {\"cpu\": {\"available\": true}}},"
                              " \"warnings\": [\"a warning\"], \"suite\": {\"name\": \"built\"}}");
    CHECK(gb_run_set_provenance(&r.runs[0], prov, "built", &e) == GB_OK);
    cJSON_Delete(prov);
    static const double samples[] = {0.0012345678, 0.0011, 0.0013, 0.00125};
    static const size_t rounds[] = {3, 1};
    for (int n = 256; n <= 512; n *= 2) {
        gb_case_result *c = gb_results_add_case(&r);
        if (!CHECK(c != NULL)) break;
        char label[32];
        snprintf(label, sizeof label, "%dx%d", n, n);
        CHECK(gb_set_string(&c->op, "fft") == GB_OK && gb_set_string(&c->dtype, "float32") == GB_OK &&
              gb_set_string(&c->label, label) == GB_OK && gb_set_string(&c->rate_kind, "flops") == GB_OK);
        c->has |= GB_C_HAS_LABEL | GB_C_HAS_RATE_KIND | GB_C_HAS_SPEEDUP;
        c->shape = malloc(2 * sizeof *c->shape);
        c->shape[0] = c->shape[1] = n;
        c->rank = 2;
        gb_result *res = gb_case_add_result(c);
        if (!CHECK(res != NULL)) break;
        CHECK(gb_set_string(&res->backend, "cpu") == GB_OK && gb_set_string(&res->timing, "host") == GB_OK);
        res->status = GB_RS_OK;
        res->samples = malloc(sizeof samples);
        memcpy(res->samples, samples, sizeof samples);
        res->nsamples = 4;
        res->round_sizes = malloc(sizeof rounds);
        memcpy(res->round_sizes, rounds, sizeof rounds);
        res->nrounds = 2;
        res->has |= GB_R_HAS_SAMPLES | GB_R_HAS_ROUNDS | GB_R_HAS_REASON | GB_R_HAS_GFLOPS;
        res->stats.present = 1;
        res->stats.n = 4;
        res->stats.median = 0.00125;
        res->stats.ci95_low = 0.0011;
        res->stats.ci95_high = 0.0013;
        cJSON *extra = cJSON_Parse("{\"threads\": 4, \"routine\": \"fftwf\"}");
        CHECK(gb_kvlist_from_cjson(&res->extra, extra, "extra", &e) == GB_OK);
        cJSON_Delete(extra);
        c->speedups = calloc(1, sizeof *c->speedups);
        c->speedups[0].timing = strdup("device");
        c->speedups[0].value = n == 256 ? 0.5 : 2;
        c->nspeedups = 1;
    }
    CHECK(gb_results_summarize(&r) == 0 && r.summary.cases == 2 && r.summary.ok == 2);
    r.has_crossover = 1;
    char path[128];
    snprintf(path, sizeof path, "/tmp/gb_model_built_%d.json", (int)getpid());
    CHECK(gb_results_write(&r, path, GB_WRITE_SAMPLES_6G, &e) == GB_OK);
    gb_results_free(&r);

    gb_results back;
    if (!CHECK(gb_results_load(path, &back, &e) == GB_OK)) {
        fprintf(stderr, "    %s\n", e.msg);
        return;
    }
    CHECK(back.ncases == 2 && back.cases[1].nresults == 1);
    const gb_result *res = &back.cases[1].results[0];
    CHECK(res->nsamples == 4 && res->nrounds == 2 && res->status == GB_RS_OK);
    CHECK_NEAR(res->samples[0], 0.00123457, 0); /* 6 significant digits, as the runner writes */
    CHECK(isnan(res->gflops) && (res->has & GB_R_HAS_GFLOPS)); /* null, written */
    CHECK(!(res->has & GB_R_HAS_SETUP));                       /* absent, not written */
    CHECK(gb_value_num(gb_kv_find(&res->extra, "threads")) == 4);
    CHECK(back.summary.ok == 2 && strcmp(gb_results_run_name(&back, 0), "host-a") == 0);
    CHECK(strcmp(back.runs[0].suite_name, "built") == 0 && gb_results_warnings(&back)->n == 1);
    CHECK(gb_case_speedup(&back.cases[1], "device") == 2);
    gb_results_free(&back);
    unlink(path);
}
