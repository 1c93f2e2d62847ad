/* test_stalls.c — a round that stalls is named, and decides nothing: a
 * round whose median is several times the case's other rounds' is recorded
 * in extra.stalled_rounds (run_record.c), and a size skipped by round 0's
 * projection (from a smaller size's stalled rate) is decided again in a later
 * round and measured there (run_visit.c). A fake accelerator computes with
 * the CPU backend and reports scripted times: per size, by how many times
 * that size was prepared (nothing is kept between rounds, so each round
 * prepares again). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "results_model.h"
#include "testlib.h"

typedef struct {
    void *cpu;
    long long size;
    int visit; /* 1: the first prepare of its size, 2: the second, ... */
} fake_state;

static int prepared[2]; /* prepares so far: [small size, large size] */
static long long small_size;
static double (*script)(long long size, int visit);

static int fake_init(const gb_backend_options *o, gb_err *e) { return gb_cpu_backend()->init(o, e); }
static int fake_supports(const gb_case *c, gb_err *e) { return gb_cpu_backend()->supports(c, e); }
static int fake_prepare(const gb_case *c, const gb_arrays *in, void **st, gb_err *e) {
    fake_state *f = calloc(1, sizeof *f);
    if (!f) return gb_errf(e, GB_SKIP, "out of memory");
    int status = gb_cpu_backend()->prepare(c, in, &f->cpu, e);
    if (status != GB_OK) {
        free(f);
        return status;
    }
    f->size = c->shape[0];
    f->visit = ++prepared[f->size == small_size ? 0 : 1];
    *st = f;
    return GB_OK;
}
static int fake_run(void *st, int timing, double *s, gb_err *e) {
    fake_state *f = st;
    int status = gb_cpu_backend()->run(f->cpu, 0, s, e);
    if (status == GB_OK) *s = script(f->size, f->visit);
    return status;
}
static int fake_fetch(void *st, gb_arrays *out, gb_err *e) { return gb_cpu_backend()->fetch(((fake_state *)st)->cpu, out, e); }
static void fake_release(void *st) {
    gb_cpu_backend()->release(((fake_state *)st)->cpu);
    free(st);
}

static const gb_backend fake = {
    .abi_version = GB_ABI_VERSION,
    .name = "fake",
    .role = GB_ROLE_ACCELERATOR,
    .ntimings = 1,
    .timings = {"device"},
    .timing_labels = {"fake dev"},
    .init = fake_init,
    .supports = fake_supports,
    .prepare = fake_prepare,
    .run = fake_run,
    .fetch = fake_fetch,
    .release = fake_release,
};

static const gb_result *fake_result(const gb_results *r, double size) {
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t j = 0; j < r->cases[i].nresults; j++)
            if (!strcmp(r->cases[i].results[j].backend, "fake") && r->cases[i].rank > 0 &&
                r->cases[i].shape[0] == size)
                return &r->cases[i].results[j];
    return NULL;
}

static const gb_value *extra_value(const gb_result *res, const char *key) {
    for (size_t k = 0; res && k < res->extra.n; k++)
        if (!strcmp(res->extra.item[k].key, key)) return &res->extra.item[k].v;
    return NULL;
}

/* round 2 of three stalls: 5 ms against 10 us */
static double stall_in_round_2(long long size, int visit) { return visit == 2 ? 5e-3 : 1e-5; }

TEST(stalls_a_round_several_times_the_others_is_named_in_extra) {
    const char *suite_text =
        "{\"name\": \"st\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 1, \"min_reps\": 3, "
        "\"max_reps\": 5, \"min_time_s\": 0, \"max_time_s\": 600, \"rounds\": 3},"
        " \"benchmarks\": [{\"op\": \"elementwise\", \"sizes\": [64]}]}";
    small_size = 64, prepared[0] = prepared[1] = 0, script = stall_in_round_2;
    gb_results r;
    if (!CHECK(gb_test_run_cpu_and(suite_text, &fake, 1, &r) == 0)) return; /* nothing kept: prepared each round */
    const gb_result *res = fake_result(&r, 64);
    CHECK(res && res->status == GB_RS_OK && res->nrounds == 3);
    const gb_value *v = extra_value(res, "stalled_rounds");
    if (CHECK(v && v->kind == GB_VAL_JSON)) {
        cJSON *list = cJSON_Parse(v->text);
        CHECK(cJSON_GetArraySize(list) == 1);
        const cJSON *one = cJSON_GetArrayItem(list, 0);
        CHECK(cJSON_GetObjectItem(one, "round")->valueint == 2);
        CHECK_NEAR(cJSON_GetObjectItem(one, "times_others")->valuedouble, 500, 1e-6);
        CHECK(cJSON_IsNumber(cJSON_GetObjectItem(one, "steal_cpu_s")));
        cJSON_Delete(list);
    }
    /* the median is a good round's, not the stall's */
    CHECK(res && res->stats.median < 1e-4);
    gb_results_free(&r);
}

/* round 0 of the small size stalls at 2 ms a repetition (a rate is kept
 * from 1 ms up), which projects the large size, 4096x the work, far past
 * max_time_s; later rounds run the small size in 1 us, and the large one
 * takes 1 ms a repetition */
static double small_stalls_first(long long size, int visit) {
    if (size == small_size) return visit == 1 ? 2e-3 : 1e-6;
    return 1e-3;
}

TEST(stalls_a_size_skipped_by_a_stalled_projection_is_measured_in_a_later_round) {
    const char *suite_text =
        "{\"name\": \"pj\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 1, \"min_reps\": 3, "
        "\"max_reps\": 5, \"min_time_s\": 0, \"max_time_s\": 0.5, \"rounds\": 3},"
        " \"benchmarks\": [{\"op\": \"elementwise\", \"sizes\": [16, 1024]}]}";
    small_size = 16, prepared[0] = prepared[1] = 0, script = small_stalls_first;
    gb_results r;
    if (!CHECK(gb_test_run_cpu_and(suite_text, &fake, 1, &r) == 0)) return;
    const gb_result *res = fake_result(&r, 1024);
    if (res) fprintf(stderr, "    status %d (%s), %zu samples, %zu rounds\n", (int)res->status, res->reason, res->stats.n,
                     res->nrounds);
    /* measured in rounds 2 and 3 */
    CHECK(res && res->status == GB_RS_OK && res->stats.n >= 2 && res->nrounds == 2);
    CHECK(res && res->stats.median == 1e-3);
    CHECK(prepared[1] >= 1);
    gb_results_free(&r);
}

/* a size the rates still rule out in every round stays skipped, with the
 * projection's reason, and is prepared never */
static double small_always_slow(long long size, int visit) { return size == small_size ? 2e-3 : 1e-3; }

TEST(stalls_a_projection_that_holds_in_every_round_still_skips) {
    const char *suite_text =
        "{\"name\": \"pk\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 1, \"min_reps\": 3, "
        "\"max_reps\": 5, \"min_time_s\": 0, \"max_time_s\": 0.5, \"rounds\": 3},"
        " \"benchmarks\": [{\"op\": \"elementwise\", \"sizes\": [16, 1024]}]}";
    small_size = 16, prepared[0] = prepared[1] = 0, script = small_always_slow;
    gb_results r;
    if (!CHECK(gb_test_run_cpu_and(suite_text, &fake, 1, &r) == 0)) return;
    const gb_result *res = fake_result(&r, 1024);
    CHECK(res && res->status == GB_RS_SKIPPED && strstr(res->reason, "projected") != NULL);
    CHECK(prepared[1] == 0);
    int fakes = 0; /* one result, not one a round */
    for (size_t i = 0; i < r.ncases; i++)
        for (size_t j = 0; j < r.cases[i].nresults; j++) fakes += !strcmp(r.cases[i].results[j].backend, "fake");
    CHECK(fakes == 2);
    gb_results_free(&r);
}
