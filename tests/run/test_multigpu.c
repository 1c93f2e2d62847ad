/* test_multigpu.c — what of the multi-GPU work runs without a GPU: the
 * --devices list, the multi-GPU ops of the catalogue (their params, counts,
 * the CPU side reusing the single-device routine), the skip reasons of a
 * routine asking for more devices than the run has, the strong-scaling
 * table and per-device reading of results (from a fixture of several
 * devices and gpus values). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "devices.h"
#include "op.h"
#include "report.h"
#include "results_model.h"
#include "suite.h"
#include "testlib.h"

#define FIXTURE "tests/data/results_multigpu.json"

TEST(multigpu_devices_list_and_all) {
    gb_backend_options o = {0};
    gb_err e = {{0}};
    CHECK(gb_devices_parse("0,2,3", &o, &e) == GB_OK);
    CHECK(o.ndevices == 3 && o.devices[0] == 0 && o.devices[1] == 2 && o.devices[2] == 3 && !o.all_devices);
    CHECK(gb_devices_parse("3,1", &o, &e) == GB_OK); /* measured in the order listed */
    CHECK(o.ndevices == 2 && o.devices[0] == 3 && o.devices[1] == 1);
    CHECK(gb_devices_parse("all", &o, &e) == GB_OK);
    CHECK(o.all_devices && o.ndevices == 0);
}

static void expect_devices_error(const char *text, const char *needle) {
    gb_backend_options o = {0};
    gb_err e = {{0}};
    CHECK(gb_devices_parse(text, &o, &e) == GB_FAIL);
    if (!strstr(e.msg, needle)) fprintf(stderr, "    --devices %s: \"%s\" lacks \"%s\"\n", text, e.msg, needle);
    CHECK(strstr(e.msg, needle) != NULL);
}

TEST(multigpu_devices_errors_name_the_bad_token) {
    expect_devices_error("0,x", "\"x\" is not a device ordinal");
    expect_devices_error("0,-1", "\"-1\" is not a device ordinal");
    expect_devices_error("1.5", "\"1.5\" is not a device ordinal");
    expect_devices_error("ALL", "\"ALL\" is not a device ordinal");
    expect_devices_error("0,,2", "an empty entry");
    expect_devices_error("", "an empty entry");
    expect_devices_error("2,0,2", "device 2 is listed twice");
    expect_devices_error("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "more than 16 devices");
}

TEST(multigpu_cli_devices_error_exits_2_naming_the_token) {
    char cmd[512], out[4096];
    snprintf(cmd, sizeof cmd, "%s run suites/quick.json --backend cpu --devices 0,zz --out /tmp/gb_mg_never.json 2>&1",
             gb_test_binary());
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 2);
    CHECK(strstr(out, "--devices \"0,zz\": \"zz\" is not a device ordinal") != NULL);
}

static int parse_one(const char *json, gb_suite *s, gb_err *e) { return gb_suite_parse(json, "t.json", NULL, s, e); }

TEST(multigpu_ops_in_the_catalogue) {
    static const char *const names[] = {"matmul_xt", "solve_mg", "fft_xt"};
    static const char *const base[] = {"matmul", "solve", "fft"};
    for (int i = 0; i < 3; i++) {
        const gb_op *op = gb_op_find(names[i]), *b = gb_op_find(base[i]);
        CHECK(op != NULL && b != NULL);
        if (!op || !b) continue;
        CHECK(op->multi_device == 1 && b->multi_device == 0);
        CHECK(!strcmp(op->rate_kind, b->rate_kind));
        /* the same math: the base op's size parser, counts and check */
        CHECK(op->count == b->count && op->verify == b->verify && op->make_inputs == b->make_inputs);
        int has_gpus = 0;
        for (const gb_param_spec *p = op->params; p->key; p++)
            if (!strcmp(p->key, "gpus")) has_gpus = p->type == GB_PARAM_INT && p->min == 1 && p->max == GB_MAX_DEVICES;
        CHECK(has_gpus);
    }
}

TEST(multigpu_params_defaults_ranges_and_counts) {
    gb_suite s;
    gb_err e = {{0}};
    CHECK(parse_one("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul_xt\",\"sizes\":[[64,32,16]],\"dtypes\":[\"float64\"]},"
                    "{\"op\":\"matmul\",\"sizes\":[[64,32,16]],\"dtypes\":[\"float64\"]},"
                    "{\"op\":\"solve_mg\",\"sizes\":[128],\"params\":{\"gpus\":4,\"nrhs\":3,\"block\":64}},"
                    "{\"op\":\"fft_xt\",\"sizes\":[256],\"dtypes\":[\"float32\"]},"
                    "{\"op\":\"fft\",\"sizes\":[256],\"dtypes\":[\"float32\"],\"params\":{\"kind\":\"c2c\"}}]}",
                    &s, &e) == GB_OK);
    if (s.count != 6) {
        CHECK(s.count == 6);
        gb_suite_free(&s);
        return;
    }
    const gb_case *xt = &s.items[0].c, *mm = &s.items[1].c, *mg = &s.items[2].c, *fx = &s.items[4].c, *ff = &s.items[5].c;
    CHECK(xt->params.gpus == 1 && xt->params.block == 0);           /* defaults */
    CHECK(xt->flops == mm->flops && xt->bytes == mm->bytes && xt->flops == 2.0 * 64 * 32 * 16);
    CHECK(mg->params.gpus == 4 && mg->params.nrhs == 3 && mg->params.block == 64);
    CHECK(fx->params.fft_kind == GB_FFT_C2C);                       /* always the c2c case */
    CHECK(fx->bytes == ff->bytes && fx->flops == ff->flops);
    cJSON *pj = gb_params_to_json(mg);
    char *text = cJSON_PrintUnformatted(pj);
    CHECK(text && strstr(text, "\"gpus\":4") && strstr(text, "\"nrhs\":3"));
    free(text);
    cJSON_Delete(pj);
    gb_suite_free(&s);
    CHECK(parse_one("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul_xt\",\"sizes\":[8],\"params\":{\"gpus\":0}}]}", &s,
                    &e) == GB_FAIL);
    CHECK(strstr(e.msg, "gpus") != NULL);
    CHECK(parse_one("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"fft_xt\",\"sizes\":[8],\"params\":{\"gpus\":17}}]}", &s,
                    &e) == GB_FAIL);
    CHECK(parse_one("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"fft_xt\",\"sizes\":[8],\"params\":{\"kind\":\"r2c\"}}]}", &s,
                    &e) == GB_FAIL); /* fft_xt has no kind to choose */
}

TEST(multigpu_skip_reasons_with_one_device) {
    gb_err e = {{0}};
    CHECK(gb_multigpu_check(1, 2, 1, "cuFFT's multi-GPU plans", &e) == GB_SKIP);
    CHECK(strstr(e.msg, "cuFFT's multi-GPU plans needs at least 2 GPUs (gpus = 1)") != NULL);
    CHECK(gb_multigpu_check(2, 2, 1, "cuFFT's multi-GPU plans", &e) == GB_SKIP);
    CHECK(strstr(e.msg, "gpus = 2 but this run has 1 device") != NULL);
    CHECK(gb_multigpu_check(4, 1, 2, "cuBLASXt", &e) == GB_SKIP);
    CHECK(strstr(e.msg, "has 2 devices") != NULL);
    CHECK(gb_multigpu_check(1, 1, 1, "cuBLASXt", &e) == GB_OK);
    CHECK(gb_multigpu_check(2, 2, 8, "cuFFT", &e) == GB_OK);
}

/* The CPU side of a multi-GPU op is the single-device routine of the same
 * math, checked by the same verification. */
TEST(multigpu_cpu_side_runs_and_verifies) {
    const char *suite = gb_test_tmp("mg_cpu_suite.json"), *res = gb_test_tmp("mg_cpu_res.json");
    FILE *f = fopen(suite, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"name\":\"mg\",\"defaults\":{\"dtypes\":[\"float64\"],\"warmup\":0,\"min_reps\":2,\"min_time_s\":0,"
          "\"max_time_s\":2},\"benchmarks\":[{\"op\":\"matmul_xt\",\"sizes\":[48]},"
          "{\"op\":\"solve_mg\",\"sizes\":[40],\"params\":{\"gpus\":2,\"nrhs\":2}},{\"op\":\"fft_xt\",\"sizes\":[32]}]}",
          f);
    fclose(f);
    char cmd[512], out[16384];
    snprintf(cmd, sizeof cmd, "%s run %s --backend cpu --rounds 1 --no-peak --quiet --out %s 2>&1", gb_test_binary(), suite,
             res);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load(res, &r, &e) == GB_OK);
    CHECK(r.ncases == 3);
    for (size_t i = 0; i < r.ncases; i++) {
        CHECK(r.cases[i].nresults == 1);
        const gb_result *x = &r.cases[i].results[0];
        CHECK(x->status == GB_RS_OK && x->verification.status == GB_VS_PASSED);
        CHECK(!x->device.present); /* the host backend names no device */
    }
    gb_results_free(&r);
    remove(suite);
    remove(res);
}

TEST(multigpu_scaling_table_from_results) {
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load(FIXTURE, &r, &e) == GB_OK);
    gb_scaling_row *rows = NULL;
    size_t n = 0;
    CHECK(gb_scaling_compute(&r, &rows, &n, &e) == GB_OK);
    /* matmul_xt: gpus 1, 2, 4 in two timings; solve_mg: gpus 2, 4; the plain matmul has no gpus */
    CHECK(n == 8);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        const gb_scaling_row *w = &rows[i];
        CHECK(strcmp(w->op, "matmul") != 0);
        CHECK(strstr(w->params, "gpus") == NULL);
        if (!strcmp(w->op, "matmul_xt") && !strcmp(w->timing, "device")) {
            double t1 = 4.0, t = w->gpus == 1 ? 4.0 : w->gpus == 2 ? 2.2 : 1.25;
            CHECK(w->base_gpus == 1);
            CHECK_NEAR(w->median_s, t, 1e-12);
            CHECK_NEAR(w->speedup, t1 / t, 1e-12);
            CHECK_NEAR(w->efficiency, t1 / t / w->gpus, 1e-12);
            CHECK(w->gpus == (seen == 0 ? 1 : seen == 1 ? 2 : 4)); /* ordered by gpus */
            seen++;
        }
        if (!strcmp(w->op, "solve_mg")) {
            CHECK(w->base_gpus == 2); /* no gpus = 1 point: against its fewest */
            if (w->gpus == 4) {
                CHECK_NEAR(w->speedup, 1.0 / 0.8, 1e-12);
                CHECK_NEAR(w->efficiency, 1.25 * 2 / 4, 1e-12);
            }
        }
    }
    CHECK(seen == 3);
    free(rows);
    gb_results_free(&r);
}

TEST(multigpu_report_has_a_row_per_device_and_the_scaling_section) {
    char cmd[512], out[32768];
    snprintf(cmd, sizeof cmd, "%s report %s --format md 2>&1", gb_test_binary(), FIXTURE);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    /* device 0 and device 1, each with the speedup of its own median: 200/2 and 200/4 */
    CHECK(strstr(out, "2048x2048x2048 gpu0") != NULL);
    CHECK(strstr(out, "2048x2048x2048 gpu1") != NULL);
    const char *g1 = strstr(out, "2048x2048x2048 gpu1");
    const char *eol = g1 ? strchr(g1, '\n') : NULL;
    if (g1 && eol) {
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(eol - g1), g1);
        CHECK(strstr(line, "50.0×") != NULL);
        CHECK(strstr(line, "100×") == NULL);
    }
    CHECK(strstr(out, "Strong scaling over GPUs") != NULL);
}

TEST(multigpu_results_of_two_devices_are_never_paired) {
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load(FIXTURE, &r, &e) == GB_OK);
    const gb_case_result *c = &r.cases[0];
    const gb_result *d0 = &c->results[1], *d1 = &c->results[3], *host = &c->results[0];
    CHECK(d0->device.present && d1->device.present && d0->device.index == 0 && d1->device.index == 1);
    CHECK(!gb_device_same(&d0->device, &d1->device));
    CHECK(gb_device_same(&d0->device, &d0->device));
    CHECK(gb_device_same(&host->device, &d1->device)); /* no device: any */
    char n0[512], n1[512];
    gb_result_name(c, d0, NULL, n0, sizeof n0);
    gb_result_name(c, d1, NULL, n1, sizeof n1);
    CHECK(strcmp(n0, n1) != 0);
    CHECK(strstr(n1, "/cuda/device/gpu1") != NULL);
    CHECK(strstr(n0, "gpu") == NULL); /* device 0 keeps the name from before devices */
    CHECK_NEAR(gb_result_speedup(host, d1), 0.2 / 0.004, 1e-9);
    /* a file compared with itself pairs each device with itself only */
    snprintf(n0, sizeof n0, "%s compare %s %s --format json 2>&1", gb_test_binary(), FIXTURE, FIXTURE);
    char out[65536];
    gb_test_sh(n0, out, sizeof out);
    CHECK(strstr(out, "gpu1") != NULL);
    gb_results_free(&r);
}

TEST(multigpu_concurrent_results_load_write_and_stay_apart) {
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load(FIXTURE, &r, &e) == GB_OK);
    const gb_case_result *c = &r.cases[0];
    const gb_result *alone = &c->results[1], *once = &c->results[5];
    CHECK(once->concurrent.present && once->concurrent.devices == 2 && !alone->concurrent.present);
    CHECK(once->device.present && once->device.index == alone->device.index);
    CHECK_NEAR(once->concurrent.aggregate_gflops, c->flops / 0.003 * 1e-9 + c->flops / 0.005 * 1e-9, 1e-6);
    CHECK(!gb_result_same_series(alone, once)); /* the same device, alone and at once: two series */
    CHECK(gb_result_same_series(once, once));
    char name[512];
    gb_result_name(c, once, NULL, name, sizeof name);
    CHECK(strstr(name, "/cuda/device/gpu0/concurrent") != NULL);
    /* written and read back unchanged */
    CHECK(gb_results_write(&r, gb_test_tmp("mg_roundtrip.json"), 0, &e) == GB_OK);
    gb_results back;
    CHECK(gb_results_load(gb_test_tmp("mg_roundtrip.json"), &back, &e) == GB_OK);
    CHECK(back.cases[0].results[5].concurrent.present && back.cases[0].results[5].concurrent.devices == 2);
    CHECK(isnan(back.cases[0].results[1].concurrent.aggregate_gbs) || !back.cases[0].results[1].concurrent.present);
    gb_results_free(&back);
    gb_results_free(&r);
    remove(gb_test_tmp("mg_roundtrip.json"));
    /* a malformed concurrent object is refused with its path */
    FILE *f = fopen(gb_test_tmp("mg_bad.json"), "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"schema\":\"gpubench-results\",\"schema_version\":1,\"cases\":[{\"op\":\"matmul\",\"dtype\":\"float32\","
          "\"shape\":[8,8,8],\"results\":[{\"backend\":\"cuda\",\"timing\":\"device\",\"status\":\"ok\","
          "\"concurrent\":{\"devices\":0}}]}]}",
          f);
    fclose(f);
    CHECK(gb_results_load(gb_test_tmp("mg_bad.json"), &back, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "cases[0].results[0].concurrent.devices") != NULL);
    remove(gb_test_tmp("mg_bad.json"));
}

TEST(multigpu_report_shows_devices_at_once) {
    char cmd[512], out[32768];
    snprintf(cmd, sizeof cmd, "%s report %s 2>&1", gb_test_binary(), FIXTURE);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    const char *sec = strstr(out, "All devices at once");
    CHECK(sec != NULL);
    /* gpu0: 2 ms alone, 3 ms at once */
    CHECK(sec && strstr(sec, "gpu0 of 2") && strstr(sec, "1.50×"));
    CHECK(sec && strstr(sec, "gpu1 of 2") && strstr(sec, "1.25×"));
}

/* ---- the concurrent engine, driven by a backend of this test --------------- */

#include <pthread.h>
#include "concurrent.h"

static __thread int fake_current = -1;      /* the device use_device made current on this thread */
static int fake_fail_prepare = -1;          /* the device whose prepare fails */
static int fake_ran[4], fake_wrong_device;
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

static int fake_use(int k, gb_device_info *info, gb_err *e) {
    fake_current = k;
    if (info) info->index = k;
    return GB_OK;
}
static int fake_supports(const gb_case *c, gb_err *why) { return GB_OK; }
static int fake_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    if (fake_current == fake_fail_prepare) return gb_errf(e, GB_SKIP, "device %d: no memory", fake_current);
    int *s = malloc(sizeof *s);
    *s = fake_current;
    *state = s;
    return GB_OK;
}
static int fake_run(void *state, int timing, double *seconds, gb_err *e) {
    int dev = *(int *)state;
    pthread_mutex_lock(&fake_lock);
    fake_ran[dev]++;
    if (dev != fake_current) fake_wrong_device = 1; /* run on another thread's device */
    pthread_mutex_unlock(&fake_lock);
    *seconds = 1e-3 * (dev + 1);
    return GB_OK;
}
static void fake_release(void *state) { free(state); }

/* Three devices of the fake backend b, a lane each with buf's rows for
 * samples and no hook (concurrent.h: the caller sets what it uses). */
typedef struct {
    gb_backend b;
    gb_backend_slot slots[3];
    gb_concurrent_lane lanes[3];
    double buf[3][8];
} fake_group;
static void fake_group_init(fake_group *g) {
    memset(g, 0, sizeof *g);
    g->b.supports = fake_supports;
    g->b.prepare = fake_prepare;
    g->b.run = fake_run;
    g->b.release = fake_release;
    g->b.use_device = fake_use;
    for (int i = 0; i < 3; i++) {
        g->slots[i].b = &g->b;
        g->slots[i].has_device = 1;
        g->slots[i].device_pos = i;
        g->lanes[i].slot = &g->slots[i];
        g->lanes[i].samples = g->buf[i];
    }
}

TEST(multigpu_concurrent_engine_runs_each_device_on_its_own_thread) {
    static fake_group g;
    fake_group_init(&g);
    gb_concurrent_lane *lanes = g.lanes;
    gb_case c;
    memset(&c, 0, sizeof c);
    gb_arrays in = {0};
    volatile sig_atomic_t stop = 0;
    gb_err e = {{0}};
    memset(fake_ran, 0, sizeof fake_ran);
    fake_fail_prepare = 1;
    fake_wrong_device = 0;
    CHECK(gb_concurrent_measure(&c, &in, lanes, 3, 0, 2, 5, &stop, &e) == GB_OK);
    /* devices 0 and 2: 2 warm-up + 5 timed each, on their own device; device 1 keeps its reason */
    CHECK(lanes[0].status == GB_OK && lanes[0].n == 5 && fake_ran[0] == 7);
    CHECK(lanes[2].status == GB_OK && lanes[2].n == 5 && fake_ran[2] == 7);
    CHECK_NEAR(lanes[2].samples[4], 3e-3, 1e-15);
    CHECK(lanes[1].status == GB_SKIP && lanes[1].n == 0 && fake_ran[1] == 0);
    CHECK(strstr(lanes[1].err.msg, "device 1: no memory") != NULL);
    CHECK(!fake_wrong_device);
    /* a stop request halts every lane at the same repetition */
    stop = 1;
    fake_fail_prepare = -1;
    CHECK(gb_concurrent_measure(&c, &in, lanes, 3, 0, 0, 5, &stop, &e) == GB_OK);
    for (int i = 0; i < 3; i++) CHECK(lanes[i].n == 0 && lanes[i].status == GB_OK);
}

/* The phases after the timed repetitions: every lane that prepared runs
 * each phase for the longest wish of the group, on its own device's state. */
static double want_of[3], ran_for[3][GB_CONCURRENT_PHASES + 1];
static int phases_of[3], wished_phases;
static double fake_want(void *ctx) {
    int i = *(int *)ctx;
    return phases_of[i] < wished_phases ? want_of[i] : 0; /* satisfied after wished_phases */
}
static void fake_phase(void *ctx, const gb_backend *b, void *state, double seconds) {
    int i = *(int *)ctx;
    double s;
    gb_err e = {{0}};
    if (*(int *)state != i || b->run(state, 0, &s, &e) != GB_OK) fake_wrong_device = 1;
    ran_for[i][phases_of[i]++] = seconds;
}

TEST(multigpu_concurrent_phases_run_every_lane_for_the_longest_wish) {
    static fake_group g;
    fake_group_init(&g);
    gb_concurrent_lane *lanes = g.lanes;
    int ids[3] = {0, 1, 2};
    memset(ran_for, 0, sizeof ran_for);
    memset(phases_of, 0, sizeof phases_of);
    want_of[0] = 0.25, want_of[1] = 0, want_of[2] = 0.5; /* device 1 wants none, yet works with the others */
    for (int i = 0; i < 3; i++) {
        lanes[i].timed_ctx = &ids[i];
        lanes[i].phase_want = fake_want;
        lanes[i].phase = fake_phase;
    }
    gb_case c;
    memset(&c, 0, sizeof c);
    gb_arrays in = {0};
    volatile sig_atomic_t stop = 0;
    gb_err e = {{0}};
    fake_fail_prepare = -1;
    fake_wrong_device = 0;
    wished_phases = 2;
    CHECK(gb_concurrent_measure(&c, &in, lanes, 3, 0, 1, 3, &stop, &e) == GB_OK);
    /* two phases of 0.5 s each on every lane (the wishes stop after two), then none */
    for (int i = 0; i < 3; i++) {
        CHECK(phases_of[i] == 2);
        CHECK_NEAR(ran_for[i][0], 0.5, 1e-15);
        CHECK_NEAR(ran_for[i][1], 0.5, 1e-15);
    }
    CHECK(!fake_wrong_device);
    /* a lane whose device could not prepare runs no phase; the others still do */
    memset(phases_of, 0, sizeof phases_of);
    fake_fail_prepare = 2;
    CHECK(gb_concurrent_measure(&c, &in, lanes, 3, 0, 1, 3, &stop, &e) == GB_OK);
    CHECK(phases_of[0] == 2 && phases_of[1] == 2 && phases_of[2] == 0);
    CHECK_NEAR(ran_for[1][0], 0.25, 1e-15); /* the longest wish left: lane 0's */
    /* wishes that never end stop at GB_CONCURRENT_PHASES */
    memset(phases_of, 0, sizeof phases_of);
    fake_fail_prepare = -1;
    wished_phases = 1000;
    CHECK(gb_concurrent_measure(&c, &in, lanes, 3, 0, 1, 3, &stop, &e) == GB_OK);
    for (int i = 0; i < 3; i++) CHECK(phases_of[i] == GB_CONCURRENT_PHASES);
    /* no wish: no phase at all */
    memset(phases_of, 0, sizeof phases_of);
    for (int i = 0; i < 3; i++) lanes[i].phase_want = NULL;
    CHECK(gb_concurrent_measure(&c, &in, lanes, 3, 0, 1, 3, &stop, &e) == GB_OK);
    CHECK(phases_of[0] == 0 && phases_of[1] == 0 && phases_of[2] == 0);
}

TEST(multigpu_suite_covers_every_multi_gpu_op) {
    gb_suite s;
    gb_err e = {{0}};
    CHECK(gb_suite_load("suites/multigpu.json", NULL, &s, &e) == GB_OK);
    unsigned seen = 0, want = 0;
    int gpus_seen[GB_MAX_DEVICES + 1] = {0};
    for (size_t k = 0; k < s.count; k++) {
        seen |= 1u << s.items[k].c.op_id;
        if (s.items[k].c.op->multi_device) gpus_seen[s.items[k].c.params.gpus] = 1;
    }
    for (int op = 0; op < GB_OP_COUNT; op++)
        if (gb_ops[op]->multi_device) want |= 1u << op;
    CHECK((seen & want) == want);
    CHECK(gpus_seen[1] && gpus_seen[2] && gpus_seen[4] && gpus_seen[8]); /* a strong-scaling sweep */
    gb_suite_free(&s);
}

TEST(multigpu_crossover_is_per_device) {
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load(FIXTURE, &r, &e) == GB_OK);
    gb_crossover_entry *x = NULL;
    size_t n = 0;
    CHECK(gb_crossover_compute(&r, &x, &n, &e) == GB_OK);
    int seen[2] = {0, 0}, single = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(x[i].op, "matmul")) {
            CHECK(x[i].device == 0 || x[i].device == 1);
            if (x[i].device == 0 || x[i].device == 1) seen[x[i].device]++;
        } else {
            single += x[i].device == -1; /* the multi-GPU ops name no device */
        }
    }
    CHECK(seen[0] == 2 && seen[1] == 2); /* device and end_to_end, for each device */
    CHECK(single == (int)n - 4);
    /* stored and read back with the device */
    gb_crossover_entry *old = r.crossover;
    size_t nold = r.ncrossover;
    r.crossover = x;
    r.ncrossover = n;
    r.has_crossover = 1;
    CHECK(gb_results_write(&r, gb_test_tmp("mg_cross.json"), 0, &e) == GB_OK);
    gb_results back;
    CHECK(gb_results_load(gb_test_tmp("mg_cross.json"), &back, &e) == GB_OK);
    int found = 0;
    for (size_t i = 0; i < back.ncrossover; i++) found += back.crossover[i].device == 1;
    CHECK(found == 2);
    gb_results_free(&back);
    remove(gb_test_tmp("mg_cross.json"));
    r.crossover = old;
    r.ncrossover = nold;
    for (size_t i = 0; i < n; i++) gb_crossover_entry_free(&x[i]);
    free(x);
    gb_results_free(&r);
}

TEST(multigpu_case_line_per_device) {
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load(FIXTURE, &r, &e) == GB_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f) return;
    gb_report_case(&r, &r.cases[0], NULL, f); /* matmul on devices 0 and 1 */
    gb_report_case(&r, &r.cases[1], NULL, f); /* matmul_xt: no device */
    fclose(f);
    int lines = 0;
    for (char *p = buf; p && *p; p++) lines += *p == '\n';
    CHECK(lines == 3);
    CHECK(buf && strstr(buf, "2048x2048x2048 gpu0") && strstr(buf, "2048x2048x2048 gpu1"));
    CHECK(buf && strstr(buf, "50.0× dev") != NULL); /* device 1's own speedup */
    free(buf);
    gb_results_free(&r);
}
