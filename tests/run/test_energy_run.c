/* test_energy_run.c — energy and clocks through the real runner, with an
 * accelerator that computes with the CPU backend and whose monitor (the
 * gb_backend.monitor_* hooks the CUDA plugin fills from NVML) is a counter
 * that advances by 1 J on every read, at 1500/2600 MHz with the power-cap
 * reason set; and one whose counter never advances. What is asserted is what
 * the runner decides, never a value that depends on how fast this machine
 * is: measured or not (and why), the clocks' means, the limit flags, the
 * warning, the energy ratio's absence without a CPU counter, and that
 * --energy off records no energy. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "backend.h"
#include "backends.h"
#include "results_model.h"
#include "runner.h"
#include "testlib.h"

static int advancing = 1;
static double counter_j[2];
static int fake_devices = 1; /* 2: a second device, for --devices-concurrent */
/* the counters are read by a span's thread per device at once (concurrent) */
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

static int fake_init(const gb_backend_options *o, gb_err *e) { return gb_cpu_backend()->init(o, e); }
static int fake_supports(const gb_case *c, gb_err *e) { return gb_cpu_backend()->supports(c, e); }
static int fake_prepare(const gb_case *c, const gb_arrays *in, void **st, gb_err *e) {
    return gb_cpu_backend()->prepare(c, in, st, e);
}
/* Reads of the counter on the runner's own thread, one alone between two
 * repetitions: the GPU idled for each (an NVML read can take milliseconds). */
static pthread_t runner_thread;
static __thread int runner_reads_since_run; /* the runner thread's own reads since its own last run */
static int lone_runner_reads;
static int fake_run(void *st, int timing, double *s, gb_err *e) {
    pthread_mutex_lock(&fake_lock);
    if (runner_reads_since_run == 1) lone_runner_reads++;
    runner_reads_since_run = 0;
    pthread_mutex_unlock(&fake_lock);
    return gb_cpu_backend()->run(st, 0, s, e);
}
static int fake_fetch(void *st, gb_arrays *out, gb_err *e) { return gb_cpu_backend()->fetch(st, out, e); }
static void fake_release(void *st) { gb_cpu_backend()->release(st); }
static int fake_count(void) { return fake_devices; }
static int fake_use(int k, gb_device_info *info, gb_err *e) {
    memset(info, 0, sizeof *info);
    return k < fake_devices ? GB_OK : gb_errf(e, GB_FATAL, "no device %d", k);
}
static int fake_info(int k, gb_monitor_info *info) {
    memset(info, 0, sizeof *info);
    info->has_energy = info->has_clocks = 1;
    info->resolution_j = 1e-3;
    info->power_limit_w = 700;
    snprintf(info->counter, sizeof info->counter, "fake counter");
    snprintf(info->boundary, sizeof info->boundary, "the fake board");
    return k < fake_devices ? GB_OK : GB_SKIP;
}
static int fake_read(int k, gb_monitor_sample *s) {
    if (k < 0 || k >= fake_devices) return GB_SKIP;
    pthread_mutex_lock(&fake_lock);
    if (pthread_equal(pthread_self(), runner_thread)) runner_reads_since_run++;
    s->energy_j = advancing ? (counter_j[k] += 1.0) : 42.0;
    pthread_mutex_unlock(&fake_lock);
    s->power_w = NAN;
    if (!s->want_clocks) return GB_OK;
    s->sm_mhz = 1500;
    s->mem_mhz = 2600;
    s->reasons = GB_CLK_POWER_CAP | GB_CLK_IDLE;
    s->has_reasons = 1;
    return GB_OK;
}

static const gb_backend fake = {
    .abi_version = GB_ABI_VERSION,
    .name = "fake",
    .role = GB_ROLE_ACCELERATOR,
    .ntimings = 2,
    .timings = {"device", "end_to_end"},
    .timing_labels = {"fake dev", "fake e2e"},
    .init = fake_init,
    .supports = fake_supports,
    .prepare = fake_prepare,
    .run = fake_run,
    .fetch = fake_fetch,
    .release = fake_release,
    .device_count = fake_count,
    .use_device = fake_use,
    .monitor_info = fake_info,
    .monitor_read = fake_read,
};

static const char *suite_text =
    "{\"name\": \"t\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 1, \"min_reps\": 3, "
    "\"min_time_s\": 0, \"max_time_s\": 600, \"rounds\": 2},"
    " \"benchmarks\": [{\"op\": \"elementwise\", \"sizes\": [64]}]}";

static const gb_result *find(const gb_results *r, const char *backend, const char *timing) {
    for (size_t i = 0; i < r->cases[0].nresults; i++)
        if (!strcmp(r->cases[0].results[i].backend, backend) && !strcmp(r->cases[0].results[i].timing, timing))
            return &r->cases[0].results[i];
    return NULL;
}

/* concurrent: two devices of the fake, measured alone and then at once */
static int run_devices(int energy, int concurrent, gb_results *r) {
    gb_suite s;
    gb_err e = {{0}};
    memset(&s, 0, sizeof s);
    memset(r, 0, sizeof *r);
    if (gb_suite_parse(suite_text, "t.json", NULL, &s, &e) != GB_OK) return -1;
    gb_backend_options o = {.threads = 1};
    gb_backend_set set = {0};
    set.count = 2;
    set.slot[0] = (gb_backend_slot){.b = gb_cpu_backend(), .name = "cpu", .available = 1, .selected = 1};
    set.slot[1] = (gb_backend_slot){.b = &fake, .name = "fake", .available = 1, .selected = 1, .has_device = 1};
    fake_devices = concurrent ? 2 : 1;
    if (concurrent) {
        set.count = 3;
        set.slot[2] = set.slot[1];
        set.slot[2].device_pos = 1;
        set.slot[2].device.index = 1;
    }
    int status = fake.init(&o, &e);
    if (status == GB_OK) status = gb_results_init(r, "t", 0, &e);
    gb_run_config cfg = {.backends = &set, .results = r, .energy = energy, .concurrent = concurrent};
    if (status == GB_OK) status = gb_runner_run(&s, &cfg, &e);
    if (status != GB_OK) fprintf(stderr, "    run: %s\n", e.msg);
    gb_suite_free(&s);
    fake_devices = 1;
    return status == GB_OK ? 0 : -1;
}
static int run_with(int energy, gb_results *r) { return run_devices(energy, 0, r); }

TEST(energy_run_measures_a_device_counter_and_its_clocks) {
    advancing = 1;
    gb_results r;
    CHECK(run_with(GB_ENERGY_AUTO, &r) == 0);
    const gb_result *dev = find(&r, "fake", "device"), *e2e = find(&r, "fake", "end_to_end"),
                    *cpu = find(&r, "cpu", "host");
    CHECK(dev && e2e && cpu);
    if (!dev || !e2e || !cpu) return;
    CHECK(dev->energy.present && dev->energy.measured);
    CHECK(dev->energy.j_per_op > 0 && dev->energy.power_w > 0 && dev->energy.bound > 0);
    CHECK(isfinite(dev->energy.idle_w) && isfinite(dev->energy.above_idle_j_per_op));
    CHECK(dev->energy.gb_per_j > 0 && isnan(dev->energy.gflop_per_j) == (r.cases[0].flops != r.cases[0].flops));
    CHECK(!strcmp(dev->energy.counter, "fake counter") && !strcmp(dev->energy.boundary, "the fake board"));
    CHECK_NEAR(dev->energy.power_limit_w, 700, 0);
    /* no CPU counter on this machine: no ratio, never a number passed off as one */
    CHECK(isnan(dev->energy.energy_ratio));
    /* energy on the device timing only; clocks on every timed phase */
    CHECK(!e2e->energy.present);
    CHECK(dev->clocks.present && e2e->clocks.present);
    CHECK_NEAR(dev->clocks.sm_mhz, 1500, 1e-9);
    CHECK_NEAR(dev->clocks.mem_mhz, 2600, 1e-9);
    CHECK(dev->clocks.power_limited == 1 && dev->clocks.thermal_limited == 0);
    CHECK(dev->clocks.reasons.n == 1 && !strcmp(dev->clocks.reasons.item[0], "power_cap")); /* gpu_idle left out */
    /* the CPU has no monitor: no clocks; its energy says why it is not measured */
    CHECK(!cpu->clocks.present);
    CHECK(cpu->energy.present && !cpu->energy.measured && strlen(cpu->energy.reason) > 0);
    cJSON *w = cJSON_CreateArray();
    CHECK(gb_run_energy_warnings(&r, w) == 1);
    CHECK(strstr(cJSON_GetArrayItem(w, 0)->valuestring, "power-limited") != NULL);
    cJSON_Delete(w);
    /* written and read back the same */
    cJSON *doc = gb_results_to_json(&r, 0);
    gb_results back;
    gb_err e = {{0}};
    CHECK(doc && gb_results_from_json(doc, "t", &back, &e) == GB_OK);
    if (doc && back.ncases == 1) {
        const gb_result *b = find(&back, "fake", "device");
        CHECK(b && b->energy.measured && fabs(b->energy.j_per_op - dev->energy.j_per_op) <= 1e-12 * dev->energy.j_per_op);
        CHECK(b && b->clocks.power_limited == 1 && b->clocks.reasons.n == 1);
        gb_results_free(&back);
    }
    cJSON_Delete(doc);
    gb_results_free(&r);
}

TEST(energy_run_a_counter_that_does_not_advance_is_not_measured) {
    advancing = 0;
    gb_results r;
    CHECK(run_with(GB_ENERGY_AUTO, &r) == 0);
    const gb_result *dev = find(&r, "fake", "device");
    CHECK(dev && dev->energy.present && !dev->energy.measured);
    CHECK(dev && strstr(dev->energy.reason, "does not advance") != NULL);
    CHECK(dev && dev->clocks.present); /* the clocks are still sampled */
    gb_results_free(&r);
    advancing = 1;
}

TEST(energy_run_off_records_no_energy) {
    advancing = 1;
    gb_results r;
    CHECK(run_with(GB_ENERGY_OFF, &r) == 0);
    const gb_result *dev = find(&r, "fake", "device"), *cpu = find(&r, "cpu", "host");
    CHECK(dev && !dev->energy.present && dev->clocks.present);
    CHECK(cpu && !cpu->energy.present);
    gb_results_free(&r);
}

TEST(energy_mode_parses_its_three_words) {
    int m = -1;
    CHECK(gb_energy_mode_parse("auto", &m) == GB_OK && m == GB_ENERGY_AUTO);
    CHECK(gb_energy_mode_parse("on", &m) == GB_OK && m == GB_ENERGY_ON);
    CHECK(gb_energy_mode_parse("off", &m) == GB_OK && m == GB_ENERGY_OFF);
    CHECK(gb_energy_mode_parse("yes", &m) == GB_FAIL);
}

TEST(energy_run_on_extends_a_short_span_with_an_energy_phase) {
    /* the timed repetitions of a 64x64 elementwise last far less than 100 of
     * the counter's periods: --energy on adds back-to-back repetitions, read
     * from one counter update to another */
    advancing = 1;
    runner_thread = pthread_self();
    runner_reads_since_run = lone_runner_reads = 0;
    gb_results r;
    CHECK(run_with(GB_ENERGY_ON, &r) == 0);
    const gb_result *dev = find(&r, "fake", "device");
    CHECK(dev && dev->energy.measured);
    CHECK(dev && !strcmp(dev->energy.phase, "timed+energy"));
    CHECK(dev && dev->energy.j_per_op > 0 && dev->energy.seconds > 0);
    /* the op's own spread: its median interval's wider side */
    if (dev) {
        const gb_result_stats *st = &dev->stats;
        double up = st->ci95_high / st->median - 1, down = 1 - st->ci95_low / st->median;
        CHECK_NEAR(dev->energy.spread, up > down ? up : down, 1e-12);
    }
    /* a device's counter is read by the span's thread while the repetitions
     * run back to back, never by the runner between them */
    CHECK(lone_runner_reads == 0);
    gb_results_free(&r);
}

TEST(energy_run_concurrent_devices_get_an_energy_phase_together) {
    /* --devices-concurrent with --energy on: each device's result at once
     * has its own counter's J/op, extended by a phase the two devices ran
     * together (their timed repetitions alone are far too short), and the
     * report sums them into the group's J/op */
    advancing = 1;
    runner_thread = pthread_self();
    runner_reads_since_run = lone_runner_reads = 0;
    counter_j[0] = counter_j[1] = 0;
    gb_results r;
    CHECK(run_devices(GB_ENERGY_ON, 1, &r) == 0);
    int at_once = 0;
    for (size_t i = 0; r.ncases == 1 && i < r.cases[0].nresults; i++) {
        const gb_result *x = &r.cases[0].results[i];
        if (!x->concurrent.present || strcmp(x->timing, "device")) continue;
        at_once++;
        CHECK(x->concurrent.devices == 2);
        CHECK(x->energy.measured && !strcmp(x->energy.phase, "timed+energy"));
        /* (the bound it reached depends on how often the spans' threads got
         * a core: not asserted) */
        CHECK(x->energy.j_per_op > 0 && isfinite(x->energy.bound));
    }
    CHECK(at_once == 2);
    CHECK(lone_runner_reads == 0); /* read by the spans' threads, never between repetitions */
    gb_results_free(&r);
}

TEST(energy_cli_refuses_an_unknown_mode_and_records_why_cpu_energy_is_missing) {
    char out[4096];
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s run --op matmul --sizes 32 --energy sometimes --out /dev/null 2>&1", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2);
    CHECK(strstr(out, "--energy: expected auto, on or off") != NULL);
    /* a machine without RAPL (this one, a VM): the reason, never a number */
    const char *path = gb_test_tmp("energy_cli.json");
    snprintf(cmd, sizeof cmd,
             "%s run --backend cpu --op matmul --sizes 32 --dtype float32 --rounds 1 --no-peak --quiet --out %s "
             ">/dev/null 2>&1", gb_test_binary(), path);
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_load(path, &r, &e) == GB_OK);
    const gb_result *cpu = r.ncases ? find(&r, "cpu", "host") : NULL;
    CHECK(cpu && cpu->energy.present);
    if (cpu && cpu->energy.present && !cpu->energy.measured) CHECK(strlen(cpu->energy.reason) > 0);
    if (cpu && cpu->energy.measured) CHECK(cpu->energy.j_per_op > 0); /* a host with RAPL */
    gb_results_free(&r);
}

/* The report prints a J/op with its bound ("±10%"), and a dash where the
 * bound is past 50% (the default run's shortest spans reached ±200-1750%)
 * or where the op ran less than half of the span its energy was read over
 * (J/op / W against its median: launch-bound, the idle board's energy):
 * such a figure stays in the JSON and the CSV, never in a table, a ratio
 * or the GPU's watts. */
static void put_energy(cJSON *result, double j, double bound, double busy) {
    double median = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "stats"), "median")->valuedouble;
    cJSON *e = cJSON_AddObjectToObject(result, "energy");
    cJSON_AddStringToObject(e, "status", "measured");
    const char *keys[] = {"j_per_op", "power_w", "bound", "seconds", "spread"};
    const double v[] = {j, j * busy / median, bound, 0.3, 0.05}; /* W: the op ran `busy` of each repetition's time */
    for (int i = 0; i < 5; i++) cJSON_AddNumberToObject(e, keys[i], v[i]);
}

TEST(energy_report_prints_a_bound_and_leaves_out_wide_or_launch_bound_figures) {
    cJSON *doc = gb_test_load_json("tests/data/results_h100.json");
    if (!CHECK(doc != NULL)) return;
    int put = 0;
    const double j[] = {0.123456, 0.987654, 0.456789}, bound[] = {0.1, 0.9, 0.1}, busy[] = {0.9, 0.9, 0.2};
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(c, "results")) {
            const cJSON *b = cJSON_GetObjectItem(r, "backend"), *t = cJSON_GetObjectItem(r, "timing");
            if (put < 3 && cJSON_IsString(b) && !strcmp(b->valuestring, "cuda") && !strcmp(t->valuestring, "device") &&
                cJSON_GetObjectItem(r, "stats"))
                put_energy(r, j[put], bound[put], busy[put]), put++;
        }
    }
    const char *in = gb_test_tmp("energy-bounds.json");
    CHECK(gb_test_write_json(in, doc) == 0);
    cJSON_Delete(doc);
    if (!CHECK(put == 3)) return;
    char cmd[1024], out[1 << 16];
    snprintf(cmd, sizeof cmd, "%s report '%s' --format md 2>&1", gb_test_binary(), in);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "0.123 ±15%") != NULL); /* the counter's 10% and the op's own 5% */
    CHECK(strstr(out, "0.988") == NULL && strstr(out, "±90%") == NULL);
    CHECK(strstr(out, "0.457") == NULL);
    CHECK(strstr(out, "bound is past ±50%") != NULL && strstr(out, "launch-bound") != NULL);
    snprintf(cmd, sizeof cmd, "%s report '%s' --format csv 2>&1", gb_test_binary(), in);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "0.987654") != NULL && strstr(out, "0.456789") != NULL);
}

/* --devices-concurrent's table: each device's J/op at once and the group's
 * sum within the widest bound; the sum is a dash unless every device's
 * figure is one the tables show. */
TEST(energy_report_sums_the_devices_at_once_within_the_widest_bound) {
    for (int wide = 0; wide < 2; wide++) {
        cJSON *doc = gb_test_load_json("tests/data/results_multigpu.json");
        if (!CHECK(doc != NULL)) return;
        int put = 0;
        cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), 0), "results")) {
            if (!cJSON_GetObjectItem(r, "concurrent")) continue;
            /* 1.25 J at 5% + 0.75 J at 10% (each with the op's 5%), or the second past 50% */
            put_energy(r, put ? 0.75 : 1.25, put ? (wide ? 0.9 : 0.1) : 0.05, 0.9);
            put++;
        }
        const char *in = gb_test_tmp("energy-concurrent.json");
        CHECK(put == 2 && gb_test_write_json(in, doc) == 0);
        cJSON_Delete(doc);
        char cmd[1024], out[1 << 16];
        snprintf(cmd, sizeof cmd, "%s report '%s' --format md 2>&1", gb_test_binary(), in);
        CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
        const char *sec = strstr(out, "All devices at once");
        if (!CHECK(sec != NULL)) continue;
        CHECK(strstr(sec, "J/op: each device's energy per repetition at once") != NULL);
        CHECK(strstr(sec, "1.25 ±10%") != NULL);
        if (!wide) CHECK(strstr(sec, "2.00 ±15%") != NULL && strstr(sec, "0.750 ±15%") != NULL);
        else CHECK(strstr(sec, "±15%") == NULL && strstr(sec, "±95%") == NULL); /* no sum, no wide figure */
    }
}
