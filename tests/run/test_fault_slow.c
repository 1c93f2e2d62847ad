/* test_fault_slow.c — GPUBENCH_FAULT_SLOW=FACTOR:CASE-PATTERN (run_fault.c):
 * the slowdown made on purpose to test a regression gate end to end.
 *
 * The runner is driven with a fake accelerator whose every repetition
 * reports exactly 100 µs (it does no work), so what the fault does to the
 * recorded times is asserted exactly, whatever this machine's speed or load:
 * the matching result's samples are FACTOR × 100 µs, the others 100 µs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "backend.h"
#include "results_model.h"
#include "run_internal.h" /* gb_run_fault_slow */
#include "testlib.h"
#include "timer.h"

#define FIXED_S 1e-4

static int fixed_init(const gb_backend_options *o, gb_err *e) {
    (void)o, (void)e;
    return GB_OK;
}
static int fixed_supports(const gb_case *c, gb_err *e) { return gb_cpu_backend()->supports(c, e); }
static int fixed_prepare(const gb_case *c, const gb_arrays *in, void **st, gb_err *e) {
    return gb_cpu_backend()->prepare(c, in, st, e);
}
static int fixed_run(void *st, int timing, double *s, gb_err *e) {
    (void)st, (void)timing, (void)e;
    *s = FIXED_S;
    return GB_OK;
}
static int fixed_fetch(void *st, gb_arrays *out, gb_err *e) {
    /* the CPU backend's output of the prepared state: verification passes */
    double ignored;
    int status = gb_cpu_backend()->run(st, 0, &ignored, e);
    return status == GB_OK ? gb_cpu_backend()->fetch(st, out, e) : status;
}
static void fixed_release(void *st) { gb_cpu_backend()->release(st); }

static const gb_backend fixed = {
    .abi_version = GB_ABI_VERSION,
    .name = "fixed",
    .role = GB_ROLE_ACCELERATOR,
    .ntimings = 1,
    .timings = {"device"},
    .timing_labels = {"fixed dev"},
    .init = fixed_init,
    .supports = fixed_supports,
    .prepare = fixed_prepare,
    .run = fixed_run,
    .fetch = fixed_fetch,
    .release = fixed_release,
};

static const char *const two_cases =
    "{\"name\": \"t\", \"defaults\": {\"dtypes\": [\"float32\", \"float64\"], \"warmup\": 1, \"min_reps\": 6, "
    "\"min_time_s\": 0, \"max_time_s\": 600, \"rounds\": 2},"
    " \"benchmarks\": [{\"op\": \"elementwise\", \"sizes\": [16]}]}";

static const gb_result *find(const gb_results *r, const char *dtype, const char *backend) {
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t j = 0; j < r->cases[i].nresults; j++)
            if (!strcmp(r->cases[i].dtype, dtype) && !strcmp(r->cases[i].results[j].backend, backend))
                return &r->cases[i].results[j];
    return NULL;
}

static int all_samples_are(const gb_result *res, double v) {
    if (!res || res->nsamples == 0) return 0;
    for (size_t i = 0; i < res->nsamples; i++)
        if (!(res->samples[i] > v * (1 - 1e-12) && res->samples[i] < v * (1 + 1e-12))) return 0;
    return 1;
}

TEST(fault_slow_makes_only_the_matching_result_factor_times_as_long_in_every_round) {
    setenv("GPUBENCH_FAULT_SLOW", "2.5:elementwise/float32/*/fixed/device", 1);
    gb_results r;
    int ran = gb_test_run_cpu_and(two_cases, &fixed, 0, &r);
    unsetenv("GPUBENCH_FAULT_SLOW");
    CHECK(ran == 0);
    if (ran != 0) return;
    const gb_result *slowed = find(&r, "float32", "fixed"), *other = find(&r, "float64", "fixed");
    CHECK(slowed && slowed->status == GB_RS_OK && slowed->nrounds == 2);
    CHECK(all_samples_are(slowed, 2.5 * FIXED_S));
    CHECK(all_samples_are(other, FIXED_S)); /* float64 does not match the pattern */
    cJSON *w = cJSON_CreateArray();
    CHECK(gb_run_fault_warnings(&r, w) == 1);
    const char *text = cJSON_GetStringValue(cJSON_GetArrayItem(w, 0));
    CHECK(text && strstr(text, "1 result made x2.5 slower on purpose") &&
          strstr(text, "elementwise/float32/16x16/fast_math=false/fixed/device"));
    cJSON_Delete(w);
    gb_results_free(&r);
}

TEST(fault_slow_unset_or_matching_nothing_changes_no_time) {
    gb_results r;
    unsetenv("GPUBENCH_FAULT_SLOW");
    CHECK(gb_test_run_cpu_and(two_cases, &fixed, 0, &r) == 0);
    CHECK(all_samples_are(find(&r, "float32", "fixed"), FIXED_S));
    cJSON *w = cJSON_CreateArray();
    CHECK(gb_run_fault_warnings(&r, w) == 0 && cJSON_GetArraySize(w) == 0);
    gb_results_free(&r);
    setenv("GPUBENCH_FAULT_SLOW", "3:matmul/", 1);
    CHECK(gb_test_run_cpu_and(two_cases, &fixed, 0, &r) == 0);
    unsetenv("GPUBENCH_FAULT_SLOW");
    CHECK(all_samples_are(find(&r, "float32", "fixed"), FIXED_S));
    CHECK(gb_run_fault_warnings(&r, w) == 1); /* said, so a typo in the pattern is not a silent no-op */
    const char *text = cJSON_GetStringValue(cJSON_GetArrayItem(w, 0));
    CHECK(text && strstr(text, "no measured result matches its pattern 'matmul/'"));
    cJSON_Delete(w);
    gb_results_free(&r);
}

TEST(fault_slow_waits_out_the_difference_it_adds) {
    double s = 0.004, t0 = gb_now();
    gb_run_fault_slow(1.5, &s);
    CHECK(gb_now() - t0 >= 0.002); /* a busy wait: it can only take longer under load */
    CHECK_NEAR(s, 0.006, 1e-15);
}

TEST(fault_slow_refuses_a_malformed_value_naming_the_variable) {
    const char *bad[] = {"1.2", "x:matmul", "1:matmul", "0.5:matmul", "1.2:", "2000:matmul", "-2:matmul", "1.2e:m"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("GPUBENCH_FAULT_SLOW", bad[i], 1);
        gb_err e = {{0}};
        CHECK(gb_run_fault_read(&e) == GB_FAIL);
        CHECK(strstr(e.msg, "GPUBENCH_FAULT_SLOW=") && strstr(e.msg, "FACTOR:CASE-PATTERN"));
    }
    setenv("GPUBENCH_FAULT_SLOW", "1.2:matmul/float32/256x256x256/math=default/cpu/host", 1);
    gb_err e = {{0}};
    CHECK(gb_run_fault_read(&e) == GB_OK);
    unsetenv("GPUBENCH_FAULT_SLOW");
    CHECK(gb_run_fault_read(&e) == GB_OK);
}

/* From the command line: refused before any file is claimed or written. */
TEST(fault_slow_malformed_stops_run_with_exit_2_and_no_results_file) {
    const char *json = gb_test_tmp("fault.json");
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof cmd,
             "rm -f %s; GPUBENCH_FAULT_SLOW=fast:matmul %s run suites/quick.json --backend cpu --no-peak --out %s 2>&1",
             json, gb_test_binary(), json);
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 2);
    CHECK(strstr(out, "GPUBENCH_FAULT_SLOW='fast:matmul': give FACTOR:CASE-PATTERN") != NULL);
    FILE *f = fopen(json, "rb");
    CHECK(f == NULL);
    if (f) fclose(f);
}

/* A history keeps the machine's times: a file whose context says it was made
 * slower on purpose is refused by `history add` (nothing stored: the next
 * good file is run 1), and `run --history` with the variable set refuses to
 * start, before measuring or writing anything. */
TEST(fault_slow_runs_are_kept_out_of_a_history) {
    const char *made = gb_test_tmp("fault-made.json"), *db = gb_test_tmp("fault.sqlite");
    const char *json = gb_test_tmp("fault-run.json");
    cJSON *doc = gb_test_load_json("tests/data/results_small.json");
    CHECK(doc != NULL);
    if (!doc) return;
    cJSON_AddStringToObject(cJSON_GetObjectItem(doc, "context"), "fault_slow", "1.2:matmul");
    CHECK(gb_test_write_json(made, doc) == 0);
    cJSON_Delete(doc);
    char cmd[2048], out[4096];
    snprintf(cmd, sizeof cmd, "rm -f %s %s; %s history add %s --db %s 2>&1", db, json, gb_test_binary(), made, db);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2);
    CHECK(strstr(out, "context.fault_slow: made slower on purpose (GPUBENCH_FAULT_SLOW=1.2:matmul)") != NULL);
    snprintf(cmd, sizeof cmd, "%s history add tests/data/results_small.json --db %s 2>&1", gb_test_binary(), db);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "added as run 1 ") != NULL);
    snprintf(cmd, sizeof cmd,
             "GPUBENCH_FAULT_SLOW=1.2:matmul %s run suites/quick.json --backend cpu --no-peak --history=%s --out %s 2>&1",
             gb_test_binary(), db, json);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2);
    CHECK(strstr(out, "--history: GPUBENCH_FAULT_SLOW is set (1.2:matmul)") != NULL);
    FILE *f = fopen(json, "rb");
    CHECK(f == NULL);
    if (f) fclose(f);
}
