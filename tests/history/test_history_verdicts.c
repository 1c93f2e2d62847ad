/* test_history_verdicts.c — what `history check` judges a run against: the
 * baseline runs' own context and measured ceilings as their files recorded
 * them, never copies of the checked file's (real SQLite files, the real
 * binary). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "results_model.h"
#include "testlib.h"

#define FIXTURE "tests/data/results_small.json"

static char dir[] = "/tmp/gb_history_verdicts_XXXXXX";

static const char *path(const char *name) {
    static char buf[64][512];
    static int k;
    if (dir[sizeof dir - 2] == 'X' && !mkdtemp(dir)) abort();
    k = (k + 1) % 64;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

__attribute__((destructor)) static void remove_dir(void) {
    char cmd[300];
    if (dir[sizeof dir - 2] == 'X') return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "test_history_verdicts: could not remove %s\n", dir);
}

/* The fixture with every rate ceiling times f and the samples of only's
 * results (every result: NULL) times s. */
static int make_run_of(const char *out, double f, double s, const char *only) {
    gb_results r;
    gb_err e;
    if (gb_results_load(FIXTURE, &r, &e) != GB_OK) return -1;
    for (size_t b = 0; b < r.runs[0].peaks.n; b++)
        for (size_t i = 0; i < r.runs[0].peaks.set[b].values.n; i++)
            if (r.runs[0].peaks.set[b].values.item[i].v.kind == GB_VAL_NUMBER)
                r.runs[0].peaks.set[b].values.item[i].v.num *= f;
    for (size_t c = 0; c < r.ncases; c++)
        for (size_t k = 0; k < r.cases[c].nresults; k++) {
            gb_result *x = &r.cases[c].results[k];
            if (only && strcmp(x->backend, only)) continue;
            for (size_t i = 0; i < x->nsamples; i++) x->samples[i] *= s;
            x->stats.median *= s;
        }
    int rc = gb_results_write(&r, out, 0, &e);
    gb_results_free(&r);
    return rc == GB_OK ? 0 : -1;
}

static int make_run(const char *out, double f, double s) { return make_run_of(out, f, s, NULL); }

/* Three baseline runs whose ceilings were 20% lower than the checked run's:
 * the check's shift lines say its ceilings make times x0.8, not x1.000. */
TEST(history_check_judges_each_baseline_run_by_its_own_recorded_ceilings) {
    const char *db = path("h.sqlite");
    char cmd[2048];
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "b%d.json", i);
        CHECK(make_run(path(name), 0.8, 1.0 + 0.01 * i) == 0);
        snprintf(cmd, sizeof cmd, "%s history add %s --db %s --commit c%d >/dev/null 2>&1", gb_test_binary(),
                 path(name), db, i);
        CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    }
    CHECK(make_run(path("cur.json"), 1.0, 1.0) == 0);
    snprintf(cmd, sizeof cmd, "%s history check %s --db %s --format json > %s 2>/dev/null", gb_test_binary(),
             path("cur.json"), db, path("check.json"));
    gb_test_sh(cmd, NULL, 0);
    cJSON *doc = gb_test_load_json(path("check.json"));
    if (!CHECK(doc != NULL)) return;
    int seen = 0;
    const cJSON *sh;
    cJSON_ArrayForEach(sh, cJSON_GetObjectItem(doc, "shifts")) {
        const cJSON *r = cJSON_GetObjectItem(sh, "ceiling_ratio"), *k = cJSON_GetObjectItem(sh, "ceiling_keys");
        CHECK(cJSON_IsNumber(r) && fabs(r->valuedouble - 0.8) < 1e-6 && cJSON_IsNumber(k) && k->valuedouble > 0);
        const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(sh, "differs"));
        CHECK(d && strstr(d, "ceilings (x0.800)"));
        seen++;
    }
    CHECK(seen >= 1);
    cJSON_Delete(doc);
}

/* Five same-build runs and a sixth whose every CUDA result is three times
 * slower (a -O0 build): net of its shift no case is flagged, but check fails it on
 * the shift, and calibrate counts it failing with that reason. */
TEST(history_calibrate_counts_a_run_check_fails_on_the_shift_alone) {
    const char *db = path("cal.sqlite");
    char cmd[2048];
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%d.json", i);
        CHECK(make_run_of(path(name), 1.0, i == 5 ? 3.0 : 1.0 + 0.01 * i, i == 5 ? "cuda" : NULL) == 0);
        snprintf(cmd, sizeof cmd, "%s history add %s --db %s --commit c%d >/dev/null 2>&1", gb_test_binary(),
                 path(name), db, i);
        CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    }
    snprintf(cmd, sizeof cmd, "%s history calibrate %s --db %s -f json > %s 2>/dev/null", gb_test_binary(),
             path("c0.json"), db, path("cal.json"));
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    cJSON *doc = gb_test_load_json(path("cal.json"));
    if (!CHECK(doc != NULL)) return;
    const cJSON *s = cJSON_GetObjectItem(doc, "summary");
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(s, "runs_failing")) == 1);
    int named = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "runs")) {
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(r, "fail_reason"));
        if (cJSON_IsTrue(cJSON_GetObjectItem(r, "fails"))) named += why && strstr(why, "the shift: cuda x") != NULL;
    }
    CHECK(named == 1);
    cJSON_Delete(doc);
    /* the table says it too */
    char out[16384];
    snprintf(cmd, sizeof cmd, "%s history calibrate %s --db %s", gb_test_binary(), path("c0.json"), db);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    if (!CHECK(strstr(out, "Runs check would fail: 1 of 6") && strstr(out, "check fails it: the shift: cuda"))) fputs(out, stderr);
}
