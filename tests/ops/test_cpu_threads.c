/* test_cpu_threads.c — the CPU side's threads: one OpenMP team bound one
 * per CPU of the process's CPU set (cpu_bind.c), on which OpenBLAS (its
 * OpenMP build) and FFTW (fftw3_omp) run too; and the measured team of
 * gpubench's own loops (cpu_team.c). In this process, with the CPU backend
 * brought up as the op tests do (threads from the CPU set). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "testlib.h"
#include "testlib_ops.h"

TEST(cpu_openblas_is_the_openmp_build_and_fftw_runs_on_openmp) {
    gb_test_cpu_up();
    /* OpenBLAS's parallel build: 0 sequential, 1 its own pthreads, 2 OpenMP */
    CHECK(openblas_get_parallel() == 2);
    gb_case c = gb_test_op_case(GB_OP_FFT, GB_FLOAT64, 256, 256);
    gb_arrays in = {0}, out = {0};
    gb_verdict v;
    CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
}

/* A loop of gpubench's own runs on one thread where that was measured 10%
 * faster than on all of them (cpu_team.c); a case of 2 ms or more on every
 * thread, unmeasured. A fake op whose repetitions report a time per team
 * shows the rule. */
static double fake_seconds[64];
static int fake_team, fake_stalls; /* fake_stalls: the all-thread team stalls, as below */
static long fake_all_runs;
static void fake_set_threads(void *state, int threads) { (void)state, fake_team = threads; }
static int fake_run(void *state, int timing, double *seconds, gb_err *e) {
    (void)state, (void)timing, (void)e;
    *seconds = fake_seconds[fake_team < 64 ? fake_team : 63];
    /* of every 10 repetitions on all threads, the last 6 stalled 3x: the
     * timed ones (each second of two) of three of the five rounds */
    if (fake_team > 1 && fake_stalls && fake_all_runs++ % 10 >= 4) *seconds *= 3;
    return GB_OK;
}

TEST(cpu_small_ops_run_on_one_thread_where_measured_faster_large_ones_on_all) {
    gb_test_cpu_up();
    int all = gb_cpu_threads();
    if (all < 2 || all >= 64) {
        SKIP("one thread (or more than this test's table): nothing to choose");
        return;
    }
    gb_op_impl fake = {.run = fake_run, .set_threads = fake_set_threads};
    char why[200];
    for (int t = 0; t < 64; t++) fake_seconds[t] = 1e-3;
    fake_seconds[1] = 2e-3; /* all threads faster than one */
    CHECK(gb_cpu_team_choose(&fake, NULL, NULL, why, sizeof why) == all && fake_team == all);
    CHECK(strncmp(why, "measured", 8) == 0);
    fake_seconds[1] = 0.95e-3; /* one thread faster, but by less than 10%: all stay */
    CHECK(gb_cpu_team_choose(&fake, NULL, NULL, why, sizeof why) == all && fake_team == all);
    fake_seconds[1] = 0.8e-3; /* one thread 20% faster: one */
    CHECK(gb_cpu_team_choose(&fake, NULL, NULL, why, sizeof why) == 1 && fake_team == 1);
    /* all threads truly faster (0.5 ms against 0.8), but three of their
     * five rounds stalled to 1.5 ms: the median says one thread, the
     * fastest rounds do not, and all stay */
    fake_seconds[1] = 0.8e-3;
    fake_seconds[all] = 0.5e-3;
    fake_stalls = 1, fake_all_runs = 0;
    CHECK(gb_cpu_team_choose(&fake, NULL, NULL, why, sizeof why) == all && fake_team == all);
    CHECK(strstr(why, "threads 1.5e+03, 500") != NULL); /* the stalled median, the fastest round */
    fake_stalls = 0;
    fake_seconds[all] = 2e-3; /* a repetition of 2 ms on all threads: not measured, */
    fake_seconds[1] = 1e-4;   /* whatever one thread would do */
    CHECK(gb_cpu_team_choose(&fake, NULL, NULL, why, sizeof why) == all && fake_team == all);
    CHECK(strncmp(why, "all:", 4) == 0);

    /* a real op: the team it ran on and how it was chosen are in extra */
    gb_case red = gb_test_op_case(GB_OP_REDUCTION, GB_FLOAT64, 64, 64); /* 32 KiB */
    gb_arrays in = {0};
    gb_err e = {{0}};
    red.op->count(&red);
    CHECK(red.op->make_inputs(&red, &in, &e) == GB_OK);
    void *st = NULL;
    if (CHECK(gb_cpu_backend()->prepare(&red, &in, &st, &e) == GB_OK)) {
        cJSON *extra = cJSON_CreateObject();
        gb_cpu_backend()->annotate(st, extra);
        double threads = cJSON_GetNumberValue(cJSON_GetObjectItem(extra, "threads"));
        const char *team = cJSON_GetStringValue(cJSON_GetObjectItem(extra, "team"));
        /* measured (1 thread or all), or, on a machine so loaded that one
         * repetition of 32 KiB took 2 ms, all and the reason */
        if (CHECK(team != NULL)) {
            if (!strncmp(team, "measured", 8))
                CHECK(threads == 1 || threads == all);
            else
                CHECK(strncmp(team, "all: a repetition on", 20) == 0 && threads == all);
        }
        cJSON_Delete(extra);
        gb_cpu_backend()->release(st);
    }
    gb_arrays_free(&in);
}
