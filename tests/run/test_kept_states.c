/* test_kept_states.c — work a run does once, not again: a backend's prepared
 * state is kept from one round to the next (runner.c, kept_states): a case is
 * prepared once however many rounds visit it, every state is released by the
 * end of the run, and a device that fills up with kept states costs no result
 * (they are released and the case is tried again); and a case that is another
 * one's work for the CPU gets that one's CPU result (host_twins). A fake
 * accelerator counts its prepares, releases and live states, and computes
 * with the CPU backend. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "backends.h"
#include "results_model.h"
#include "runner.h"
#include "suite.h"
#include "testlib.h"

static int prepares, releases, live, max_live;
static int device_holds; /* > 0: a device with room for this many live states */

static int device_full(gb_err *e) {
    if (device_holds > 0 && live >= device_holds)
        return gb_errf(e, GB_SKIP, "needs more device memory than is free (%d states live)", live);
    return GB_OK;
}
static int fake_init(const gb_backend_options *o, gb_err *e) { return gb_cpu_backend()->init(o, e); }
/* as the CUDA backend: supports checks the free memory, and an allocation
 * in prepare fails when it is gone */
static int fake_supports(const gb_case *c, gb_err *e) {
    return device_full(e) == GB_OK ? gb_cpu_backend()->supports(c, e) : GB_SKIP;
}
static int fake_prepare(const gb_case *c, const gb_arrays *in, void **st, gb_err *e) {
    if (device_full(e) != GB_OK) return GB_SKIP;
    int status = gb_cpu_backend()->prepare(c, in, st, e);
    if (status == GB_OK) {
        prepares++;
        if (++live > max_live) max_live = live;
    }
    return status;
}
static int fake_run(void *st, int timing, double *s, gb_err *e) { return gb_cpu_backend()->run(st, 0, s, e); }
static int fake_fetch(void *st, gb_arrays *out, gb_err *e) { return gb_cpu_backend()->fetch(st, out, e); }
static void fake_release(void *st) {
    releases++;
    live--;
    gb_cpu_backend()->release(st);
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

/* Run a 3-round suite of three elementwise cases on the CPU and the fake,
 * keeping keep_bytes between rounds (0: the default); the results in r
 * (freed by the caller). */
static void run_three_rounds(gb_results *r, double keep_bytes) {
    const char *suite_text =
        "{\"name\": \"k\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 1, \"min_reps\": 3, "
        "\"min_time_s\": 0, \"max_time_s\": 600, \"rounds\": 3},"
        " \"benchmarks\": [{\"op\": \"elementwise\", \"sizes\": [16, 32, 64]}]}";
    prepares = releases = live = max_live = 0;
    CHECK(gb_test_run_cpu_and(suite_text, &fake, keep_bytes, r) == 0);
}

static void check_all_ok_in_three_rounds(const gb_results *r) {
    CHECK(r->ncases == 3);
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t k = 0; k < r->cases[i].nresults; k++) {
            const gb_result *x = &r->cases[i].results[k];
            CHECK(x->status == GB_RS_OK);
            CHECK(x->nrounds == 3);
        }
}

TEST(kept_states_a_case_is_prepared_once_for_all_its_rounds_and_released_at_the_end) {
    gb_results r;
    device_holds = 0;
    run_three_rounds(&r, 0);
    check_all_ok_in_three_rounds(&r);
    CHECK(prepares == 3); /* one per case, not one per case and round (9) */
    CHECK(releases == prepares && live == 0);
    CHECK(max_live == 3); /* all three were alive between rounds */
    gb_results_free(&r);
}

TEST(kept_states_a_full_device_releases_them_and_tries_again_instead_of_skipping) {
    gb_results r;
    device_holds = 1; /* a device with room for one case */
    run_three_rounds(&r, 0);
    check_all_ok_in_three_rounds(&r); /* no "out of device memory" skip */
    CHECK(max_live <= 1);
    CHECK(prepares > 3); /* the released ones were prepared again in later rounds */
    CHECK(releases == prepares && live == 0);
    device_holds = 0;
    gb_results_free(&r);
}

/* The CPU backend's state reads its case's inputs in place (prepare does not
 * copy them): when the inputs are not kept between rounds (made again each
 * round), no state is kept either, or a later round would read freed inputs
 * (seen: a segfault in round 2 of the default suite on a machine whose
 * input cache could not hold the 8192² FFT inputs). Under the sanitizer
 * build (CI) a state kept past its inputs is a use-after-free. */
TEST(kept_states_a_state_is_not_kept_when_its_inputs_are_not) {
    gb_results r;
    device_holds = 0;
    run_three_rounds(&r, 1); /* room for nothing */
    check_all_ok_in_three_rounds(&r);
    CHECK(prepares == 9); /* every case prepared again in every round */
    CHECK(max_live == 1 && releases == prepares && live == 0);
    gb_results_free(&r);
}

/* A plan per prepare (as FFTW's planner=measure, or a cuBLASLt heuristic,
 * may choose anew): the plan of every round prepared again is recorded,
 * extra.round_plans, so that compare can tell a plan change between rounds
 * from a change of the code (issue 30). */
static void fake_annotate(void *st, cJSON *extra) {
    (void)st;
    char plan[32];
    snprintf(plan, sizeof plan, "plan-%d", prepares % 2); /* alternates with each prepare */
    cJSON_AddStringToObject(extra, "plan", plan);
}

TEST(kept_states_a_round_prepared_again_records_its_plan) {
    gb_backend planned = fake;
    planned.annotate = fake_annotate;
    const char *suite_text =
        "{\"name\": \"k\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 1, \"min_reps\": 3, "
        "\"min_time_s\": 0, \"max_time_s\": 600, \"rounds\": 3},"
        " \"benchmarks\": [{\"op\": \"elementwise\", \"sizes\": [16]}]}";
    prepares = releases = live = max_live = 0;
    device_holds = 0;
    gb_results r;
    if (!CHECK(gb_test_run_cpu_and(suite_text, &planned, 1, &r) == 0)) return; /* nothing kept: prepared each round */
    const gb_result *x = NULL;
    for (size_t k = 0; k < r.cases[0].nresults; k++)
        if (!strcmp(r.cases[0].results[k].backend, "fake")) x = &r.cases[0].results[k];
    if (!CHECK(x != NULL)) { gb_results_free(&r); return; }
    const gb_value *rp = gb_kv_find(&x->extra, "round_plans");
    CHECK(rp && rp->kind == GB_VAL_JSON);
    cJSON *a = rp ? cJSON_Parse(rp->text) : NULL;
    CHECK(cJSON_GetArraySize(a) == 3);
    CHECK(a && strcmp(cJSON_GetArrayItem(a, 0)->valuestring, cJSON_GetArrayItem(a, 1)->valuestring) != 0);
    cJSON_Delete(a);
    gb_results_free(&r);
}

/* ---- host results shared between cases (runner.c, host_twins) ------------- */

static const gb_result *result_of(const gb_case_result *c, const char *backend) {
    for (size_t k = 0; k < c->nresults; k++)
        if (!strcmp(c->results[k].backend, backend)) return &c->results[k];
    return NULL;
}

/* matmul's math and elementwise's fast_math are read by accelerators only:
 * the CPU's work for the tf32 / fast case is its twin's, measured once. */
TEST(shared_host_a_case_differing_only_in_an_accelerator_param_reuses_its_twins_cpu_result) {
    const char *suite_text =
        "{\"name\": \"t\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 1, \"min_reps\": 3, "
        "\"min_time_s\": 0, \"max_time_s\": 600, \"rounds\": 3},"
        " \"benchmarks\": [{\"op\": \"matmul\", \"sizes\": [32, 48]},"
        "                {\"op\": \"matmul\", \"sizes\": [48], \"params\": {\"math\": \"tf32\"}},"
        "                {\"op\": \"elementwise\", \"sizes\": [32]},"
        "                {\"op\": \"elementwise\", \"sizes\": [32], \"params\": {\"fast_math\": true}}]}";
    gb_results r;
    device_holds = 0;
    prepares = releases = live = max_live = 0;
    CHECK(gb_test_run_cpu_and(suite_text, &fake, 0, &r) == 0);
    CHECK(r.ncases == 5);
    static const struct { size_t twin, shared; } pairs[] = {{1, 2}, {3, 4}};
    for (size_t p = 0; p < 2 && r.ncases == 5; p++) {
        const gb_result *a = result_of(&r.cases[pairs[p].twin], "cpu"), *b = result_of(&r.cases[pairs[p].shared], "cpu");
        CHECK(a && b);
        if (!a || !b) continue;
        /* the same samples, every round: one measurement, not two */
        CHECK(b->status == GB_RS_OK && b->nsamples == a->nsamples && b->nrounds == 3 && a->nrounds == 3);
        CHECK(b->nsamples > 0 && memcmp(a->samples, b->samples, a->nsamples * sizeof *a->samples) == 0);
        const gb_value *same = gb_kv_find(&b->extra, "same_as");
        CHECK(same && strstr(gb_value_str(same), r.cases[pairs[p].twin].op) == gb_value_str(same));
        CHECK(gb_kv_find(&a->extra, "same_as") == NULL);
        /* the accelerator still measured the case, verified by the op's own check */
        const gb_result *f = result_of(&r.cases[pairs[p].shared], "fake");
        CHECK(f && f->status == GB_RS_OK && f->verification.status == GB_VS_PASSED &&
              !strcmp(f->verification.against, "reference"));
        CHECK(r.cases[pairs[p].shared].nspeedups == 1);
    }
    /* matmul 32 has no twin (another size), nor do the default cases */
    CHECK(gb_kv_find(&result_of(&r.cases[0], "cpu")->extra, "same_as") == NULL);
    gb_results_free(&r);
}

TEST(shared_host_a_case_with_another_budget_or_host_param_is_measured_itself) {
    const char *suite_text =
        "{\"name\": \"t\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 1, \"min_reps\": 3, "
        "\"min_time_s\": 0, \"max_time_s\": 600, \"rounds\": 2},"
        " \"benchmarks\": [{\"op\": \"matmul\", \"sizes\": [32]},"
        "                {\"op\": \"matmul\", \"sizes\": [32], \"params\": {\"math\": \"tf32\"}, \"min_reps\": 4},"
        "                {\"op\": \"fft\", \"sizes\": [32]},"
        "                {\"op\": \"fft\", \"sizes\": [32], \"params\": {\"kind\": \"c2c\"}}]}";
    gb_results r;
    CHECK(gb_test_run_cpu_and(suite_text, &fake, 0, &r) == 0);
    CHECK(r.ncases == 4);
    for (size_t i = 0; i < r.ncases; i++) {
        const gb_result *c = result_of(&r.cases[i], "cpu");
        CHECK(c && c->status == GB_RS_OK && gb_kv_find(&c->extra, "same_as") == NULL);
    }
    gb_results_free(&r);
}
