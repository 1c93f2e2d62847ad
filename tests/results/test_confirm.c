/* test_confirm.c — `gpubench compare --confirm SUITE`: the suspects of a
 * comparison re-measured in fresh processes (`run SUITE --case ...`), and
 * judged again on those alone.
 *
 * A tiny CPU-only suite (matmul 32 and 64, elementwise 256x256) runs for
 * real once (b1.json); every file compared is b1 itself or b1 doctored
 * through the results model, and the fresh processes whose verdict is
 * asserted are a fake child (GPUBENCH_CONFIRM_CHILD) that writes b1 again.
 * So no verdict depends on this machine's speed or load: a case made x100
 * slower in the current file only is a suspect the fresh processes (b1:
 * change 0) do not confirm; a case made x100 faster in the baseline is one
 * they do. One test runs the real children and asserts only what does not
 * depend on speed (they ran, their results were read, the directory went).
 * (Against separate real runs, the verdicts flaked under load: 1 in 3 for
 * confirm_with_no_suspect_runs_nothing.) */
#include <dirent.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "compare.h"
#include "results_model.h"
#include "stats.h"
#include "testlib.h"

#define CASE "matmul/float32/64x64x64/math=default"
#define TARGET CASE "/cpu/host"

/* max_time_s 30, never reached: a sweep skips a size whose projection from
 * the size before exceeds it, and under two busy loops every repetition of
 * the 32^3 GEMM once took 0.1 s (a stall, not the op), which projected 0.83 s
 * for 64^3 against the 0.5 s this suite had: 64^3 skipped, and the x100
 * case every test here doctors was not compared (all of them failed). */
static const char *const tiny_suite =
    "{\"name\": \"confirm-tiny\", \"defaults\": {\"rounds\": 3, \"min_time_s\": 0.02, \"max_time_s\": 30, "
    "\"warmup\": 1, \"min_warmup_s\": 0.001, \"dtypes\": [\"float32\"]},\n"
    " \"benchmarks\": [{\"op\": \"matmul\", \"sizes\": [32, 64]}, {\"op\": \"elementwise\", \"sizes\": [256]}]}\n";

static char dir[64];         /* this test file's scratch directory */
static int ready = -1;       /* the runs below were made (1), could not be (0) */
static char big[1 << 17];

static void path_of(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", dir, name); }

/* Scale every sample of the result named target by f, and write to. */
static int doctor(const char *from, const char *to, const char *target, double f) {
    gb_results r;
    gb_err e = {{0}};
    char a[128], b[128], name[400];
    path_of(a, sizeof a, from);
    path_of(b, sizeof b, to);
    if (gb_results_load(a, &r, &e) != GB_OK) return -1;
    int hit = 0;
    for (size_t c = 0; c < r.ncases; c++)
        for (size_t k = 0; k < r.cases[c].nresults; k++) {
            gb_result *x = &r.cases[c].results[k];
            gb_result_name(&r.cases[c], x, NULL, name, sizeof name);
            if (target && strcmp(name, target)) continue;
            for (size_t i = 0; i < x->nsamples; i++) x->samples[i] *= f;
            hit++;
        }
    int rc = hit && gb_results_write(&r, b, GB_WRITE_SAMPLES_6G, &e) == GB_OK ? 0 : -1;
    gb_results_free(&r);
    return rc;
}

/* Every measured result of a real run given a fixed pattern: 3 rounds of
 * 20 samples, case i's base time ±2% in a set order. The verdicts the tests
 * assert then do not depend on how loaded the machine was when the run was
 * made: under two busy loops a real run's own noise once turned a x100
 * change into no regression, and, with its samples already fixed, the
 * number of samples a round (fewer under load) once made stage 1 and 2
 * unsure of a x100 change (two processes a side: few degrees of freedom, so
 * the verdict sat near its edge). */
#define STEADY_ROUNDS 3
#define STEADY_PER_ROUND 20
static int steady(const char *name) {
    gb_results r;
    gb_err e = {{0}};
    char a[128];
    path_of(a, sizeof a, name);
    if (gb_results_load(a, &r, &e) != GB_OK) return -1;
    int bad = 0;
    for (size_t c = 0; c < r.ncases; c++)
        for (size_t k = 0; k < r.cases[c].nresults; k++) {
            gb_result *x = &r.cases[c].results[k];
            if (!x->nsamples) continue;
            size_t n = STEADY_ROUNDS * STEADY_PER_ROUND;
            double *s = realloc(x->samples, n * sizeof *s);
            size_t *rs = realloc(x->round_sizes, STEADY_ROUNDS * sizeof *rs);
            if (s) x->samples = s;
            if (rs) x->round_sizes = rs;
            if (!s || !rs) {
                bad = 1;
                continue;
            }
            double base = 1e-4 * (double)(c + 1);
            for (size_t i = 0; i < n; i++) s[i] = base * (1 + 0.02 * (double)((i * 7) % 5 - 2) / 2);
            x->nsamples = n;
            gb_stats st; /* the file's stats follow from its samples, as the reader checks */
            gb_stats_compute(s, n, &st);
            x->stats.n = st.n;
            x->stats.min = st.min, x->stats.max = st.max, x->stats.median = st.median, x->stats.mean = st.mean;
            x->stats.stddev = st.stddev, x->stats.cv = st.cv, x->stats.ci95_low = st.ci95_low;
            x->stats.ci95_high = st.ci95_high;
            for (int i = 0; i < STEADY_ROUNDS; i++) rs[i] = STEADY_PER_ROUND;
            x->nrounds = STEADY_ROUNDS;
            x->has |= GB_R_HAS_ROUNDS;
        }
    int rc = !bad && gb_results_write(&r, a, GB_WRITE_SAMPLES_6G, &e) == GB_OK ? 0 : -1;
    if (rc) fprintf(stderr, "    steady(%s): %s\n", name, bad ? "out of memory" : e.msg);
    gb_results_free(&r);
    return rc;
}

/* The suite, one real run of it (b1.json, its samples made steady) and the
 * fake child: it records its arguments in child-args.txt and writes
 * $GB_FAKE_RESULT as its --out. */
static int setup(void) {
    if (ready >= 0) return ready;
    ready = 0;
    if (access(gb_test_binary(), X_OK) != 0) return 0;
    snprintf(dir, sizeof dir, "/tmp/gb_confirm_XXXXXX");
    if (!mkdtemp(dir)) return 0;
    char p[128], cmd[600];
    path_of(p, sizeof p, "suite.json");
    FILE *f = fopen(p, "w");
    if (!f) return 0;
    fputs(tiny_suite, f);
    fclose(f);
    path_of(p, sizeof p, "fake-child.sh");
    if (!(f = fopen(p, "w"))) return 0;
    fputs("#!/bin/sh\necho \"$@\" >> \"$GB_FAKE_DIR/child-args.txt\"\n"
          "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n"
          "cp \"$GB_FAKE_RESULT\" \"$out\"\n", f);
    fclose(f);
    if (chmod(p, 0755) != 0) return 0;
    snprintf(cmd, sizeof cmd, "%s run %s/suite.json --no-peak --quiet -o %s/b1.json >/dev/null 2>&1", gb_test_binary(),
             dir, dir);
    if (gb_test_sh(cmd, NULL, 0) != 0 || steady("b1.json") != 0) return 0;
    ready = 1;
    return 1;
}

/* `compare OPTIONS b... -- c` with TMPDIR=dir (the confirmation runs' own
 * directory lands there, so the test sees it removed); stdout and stderr
 * into big (stderr first, then stdout after a marker). child: the file the
 * fake child writes as each fresh process's results, or NULL for the real
 * children (this gpubench). */
static int compare_with(const char *opts, const char *base, const char *cur, const char *child) {
    char cmd[6000], self[4096], env[600] = "";
    if (!realpath(gb_test_binary(), self)) return -1; /* the command runs in dir */
    if (child)
        snprintf(env, sizeof env, "GPUBENCH_CONFIRM_CHILD=%s/fake-child.sh GB_FAKE_DIR=%s GB_FAKE_RESULT=%s/%s", dir, dir,
                 dir, child);
    snprintf(cmd, sizeof cmd,
             "cd %s && rm -f child-args.txt && TMPDIR=%s %s %s compare %s %s -- %s 2>err.txt >out.txt; rc=$?; "
             "cat err.txt; echo '=== stdout'; cat out.txt; exit $rc", dir, dir, env, self, opts, base, cur);
    return gb_test_sh(cmd, big, sizeof big);
}

/* the fresh processes are the fake child writing b1.json */
static int compare(const char *opts, const char *base, const char *cur) { return compare_with(opts, base, cur, "b1.json"); }

/* the scratch directory goes when the tests end */
__attribute__((destructor)) static void remove_scratch(void) {
    if (!dir[0]) return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* No gpubench-confirm-* directory left in dir. */
static int no_confirm_dir_left(void) {
    DIR *d = opendir(dir);
    int left = 0;
    for (struct dirent *x = d ? readdir(d) : NULL; x; x = readdir(d)) left |= !strncmp(x->d_name, "gpubench-confirm-", 17);
    if (d) closedir(d);
    return d && !left;
}

/* The comparison item named target in a --format json output, or NULL. */
static const cJSON *item_of(const cJSON *doc, const char *target) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(doc, "comparisons");
    for (const cJSON *it = l ? l->child : NULL; it; it = it->next)
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(it, "name")->valuestring, target)) return it;
    return NULL;
}

static cJSON *json_part(void) {
    const char *s = strstr(big, "=== stdout\n");
    return s ? cJSON_Parse(s + 11) : NULL;
}

TEST(confirm_a_one_process_slowdown_is_not_confirmed_in_fresh_processes) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    if (!CHECK(doctor("b1.json", "c-slow.json", TARGET, 100) == 0)) return;
    /* stage 1 alone: the x3 case is flagged (or at least beyond +threshold) */
    int rc1 = compare("-f json", "b1.json b1.json", "c-slow.json");
    cJSON *one = json_part();
    const cJSON *it = item_of(one, TARGET);
    /* every test here failed together once, in make test beside two busy
     * loops and two other builds: if again, the output says why */
    if (!CHECK(it && cJSON_GetObjectItemCaseSensitive(it, "change")->valuedouble > 1.5)) {
        char *item = it ? cJSON_Print(it) : NULL;
        fprintf(stderr, "    compare exit %d; the case's comparison:\n%.6000s\n", rc1, item ? item : "(none)");
        free(item);
        char cmd[300];
        snprintf(cmd, sizeof cmd, "cp %s/b1.json %s/c-slow.json build/tests/ 2>/dev/null", dir, dir);
        if (system(cmd) != 0) fprintf(stderr, "    (b1.json and c-slow.json could not be kept in build/tests)\n");
    }
    CHECK(rc1 == 1 || rc1 == 0);
    cJSON_Delete(one);
    /* with --confirm: re-measured, not confirmed, exit 0 */
    int rc = compare("-f json --confirm suite.json --confirm-runs 3", "b1.json b1.json", "c-slow.json");
    CHECK(rc == 0);
    CHECK(strstr(big, "--confirm: re-measuring") != NULL); /* the children ran, their output on stderr */
    CHECK(strstr(big, "fresh process 3 of 3") != NULL);
    cJSON *doc = json_part();
    it = item_of(doc, TARGET);
    if (CHECK(it != NULL)) {
        CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "suspect")));
        const cJSON *cf = cJSON_GetObjectItemCaseSensitive(it, "confirm");
        CHECK(cf && cJSON_GetObjectItemCaseSensitive(cf, "runs")->valueint == 3);
        CHECK(cf && strcmp(cJSON_GetObjectItemCaseSensitive(cf, "verdict")->valuestring, "regression") != 0);
        CHECK(cf && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cf, "change")) &&
              cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cf, "lo")) &&
              cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cf, "hi")) &&
              cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cf, "p_holm")));
        /* the fresh processes measured b1's speed: no change, far from x100 */
        CHECK(cf && cJSON_GetObjectItemCaseSensitive(cf, "change")->valuedouble < 1.0);
        CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(it, "verdict")->valuestring, "regression") != 0);
        CHECK(strstr(cJSON_GetObjectItemCaseSensitive(it, "reason")->valuestring, "not confirmed in 3 fresh processes") != NULL);
    }
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "summary"), "confirm");
    CHECK(sc && cJSON_GetObjectItemCaseSensitive(sc, "suspects")->valueint >= 1 &&
          cJSON_GetObjectItemCaseSensitive(sc, "processes")->valueint == 3 &&
          cJSON_GetObjectItemCaseSensitive(sc, "seconds")->valuedouble > 0);
    cJSON_Delete(doc);
    CHECK(no_confirm_dir_left());
    /* the table marks the line and the summary says what was re-measured */
    compare("--verbose --confirm suite.json --confirm-runs 2", "b1.json b1.json", "c-slow.json");
    CHECK(strstr(big, "[not confirmed]") != NULL);
    CHECK(strstr(big, "re-measured in 2 fresh processes each") != NULL);
    CHECK(strstr(big, "not confirmed in 2 fresh processes") != NULL);
}

TEST(confirm_a_real_slowdown_is_confirmed_and_fails) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    /* the baseline x100 faster in one case: every fresh process is far slower
     * than it. x3 was not enough: b1 is one real run, and when it was measured
     * on a loaded machine and the fresh processes on a quieter moment, they
     * came out x3 faster than b1 and the slowdown was "not confirmed" */
    if (!CHECK(doctor("b1.json", "b1-fast.json", TARGET, 1.0 / 100) == 0)) return;
    char p[128];
    path_of(p, sizeof p, "policy.json");
    FILE *f = fopen(p, "w");
    if (!CHECK(f != NULL)) return;
    fputs("{\"ops\": {\"matmul\": {\"threshold\": \"20%\"}}}\n", f); /* a policy keeps working with --confirm */
    fclose(f);
    int rc = compare("-f json --quiet --policy policy.json --confirm suite.json -n 3", "b1-fast.json b1-fast.json",
                     "b1.json");
    CHECK(rc == 1);
    cJSON *doc = json_part();
    const cJSON *it = item_of(doc, TARGET);
    if (CHECK(it != NULL)) {
        CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(it, "verdict")->valuestring, "regression") == 0);
        CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(it, "threshold")->valuedouble, 0.20, 1e-12);
        const cJSON *cf = cJSON_GetObjectItemCaseSensitive(it, "confirm");
        CHECK(cf && strcmp(cJSON_GetObjectItemCaseSensitive(cf, "verdict")->valuestring, "regression") == 0);
        CHECK(cf && cJSON_GetObjectItemCaseSensitive(cf, "change")->valuedouble > 1.0);
        const char *why = cJSON_GetObjectItemCaseSensitive(it, "reason")->valuestring;
        CHECK(strstr(why, "confirmed in 3 fresh processes") != NULL && strstr(why, "not confirmed") == NULL);
    }
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "summary"), "confirm");
    CHECK(sc && cJSON_GetObjectItemCaseSensitive(sc, "confirmed")->valueint >= 1);
    cJSON_Delete(doc);
    CHECK(no_confirm_dir_left());
}

TEST(confirm_with_no_suspect_runs_nothing) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    /* every case twice as fast: improvements, no suspect */
    if (!CHECK(doctor("b1.json", "c-fast.json", NULL, 0.5) == 0)) return;
    int rc = compare("--confirm suite.json", "b1.json b1.json", "c-fast.json");
    CHECK(rc == 0);
    CHECK(strstr(big, "Confirm: 0 re-measured") != NULL);
    CHECK(strstr(big, "re-measuring") == NULL); /* no child ran */
    char p[128];
    path_of(p, sizeof p, "child-args.txt");
    CHECK(access(p, F_OK) != 0);
    CHECK(no_confirm_dir_left());
}

TEST(confirm_refuses_bad_runs_and_suites_before_running) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    static const char *const bad[] = {"0", "17", "x", "3x"};
    char opts[200];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(opts, sizeof opts, "--confirm suite.json --confirm-runs %s", bad[i]);
        CHECK(compare(opts, "b1.json", "b1.json") == 2);
        CHECK(strstr(big, "--confirm-runs: expected a whole number from 1 to 16") != NULL);
    }
    CHECK(compare("--confirm-runs 3", "b1.json", "b1.json") == 2);
    CHECK(strstr(big, "--confirm-runs needs --confirm SUITE") != NULL);
    /* a suite that is not there, or not a suite: named, before anything runs */
    CHECK(compare("--confirm nosuch.json", "b1.json", "b1.json") == 2);
    CHECK(strstr(big, "nosuch.json") != NULL && strstr(big, "re-measuring") == NULL);
    char p[128];
    path_of(p, sizeof p, "broken.json");
    FILE *f = fopen(p, "w");
    if (!CHECK(f != NULL)) return;
    fputs("{\"name\": \"broken\", \"benchmarks\": [{\"op\": \"nosuchop\", \"sizes\": [8]}]}\n", f);
    fclose(f);
    CHECK(compare("--confirm broken.json", "b1.json", "b1.json") == 2);
    CHECK(strstr(big, "broken.json") != NULL && strstr(big, "nosuchop") != NULL);
}

/* The two tests below need TARGET to be the only suspect (the error names the
 * first one): the baseline is b1 twice and the current file b1 with TARGET
 * made x3 slower, so no other case differs at all. */
TEST(confirm_a_suspect_the_suite_lacks_or_the_run_lost_is_an_error) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    if (!CHECK(doctor("b1.json", "b1-slow.json", TARGET, 100) == 0)) return;
    /* a valid suite without the suspect's case: exit 2 naming it, nothing run */
    char p[128];
    path_of(p, sizeof p, "other.json");
    FILE *f = fopen(p, "w");
    if (!CHECK(f != NULL)) return;
    fputs("{\"name\": \"other\", \"defaults\": {\"dtypes\": [\"float32\"]}, "
          "\"benchmarks\": [{\"op\": \"elementwise\", \"sizes\": [256]}]}\n", f);
    fclose(f);
    CHECK(compare("--confirm other.json", "b1.json b1.json", "b1-slow.json") == 2);
    CHECK(strstr(big, "matmul/float32/64x64x64/math=default") != NULL);
    CHECK(strstr(big, "no case of the suite has this name") != NULL);
    CHECK(strstr(big, "re-measuring") == NULL);
    /* the library: a confirmation run without the suspect is exit 2, naming it */
    gb_results b1, b2, cur, partial;
    gb_err e = {{0}};
    char a[128], b[128], c[128], d[128];
    path_of(a, sizeof a, "b1.json");
    path_of(b, sizeof b, "b1.json");
    path_of(c, sizeof c, "b1-slow.json");
    path_of(d, sizeof d, "other-run.json");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s run %s/other.json --no-peak --quiet -o %s >/dev/null 2>&1", gb_test_binary(), dir, d);
    if (!CHECK(gb_test_sh(cmd, NULL, 0) == 0)) return;
    if (!CHECK(gb_results_load(a, &b1, &e) == GB_OK && gb_results_load(b, &b2, &e) == GB_OK &&
               gb_results_load(c, &cur, &e) == GB_OK && gb_results_load(d, &partial, &e) == GB_OK))
        return;
    const gb_results *bp[2] = {&b1, &b2}, *cp = &cur, *conf[1] = {&partial};
    const char *bn[2] = {"b1", "b2"}, *cn = "cur", *confn[1] = {"other-run.json"};
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = 1, .confirm_runs = 1, .confirm = conf,
                            .confirm_names = confn, .nconfirm = 1};
    cJSON *cmp = gb_compare_runs(bp, bn, 2, &cp, &cn, 1, &o);
    if (CHECK(cmp != NULL)) {
        CHECK(cJSON_GetObjectItemCaseSensitive(cmp, "exit_code")->valueint == 2);
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(cmp, "error");
        CHECK(cJSON_IsString(err) && strstr(err->valuestring, "suspect " TARGET " is missing from confirmation run 1 "
                                                              "(other-run.json)") != NULL);
    }
    cJSON_Delete(cmp);
    gb_results_free(&b1), gb_results_free(&b2), gb_results_free(&cur), gb_results_free(&partial);
}

TEST(confirm_a_failing_run_is_exit_2_naming_its_cases_and_keeping_its_log) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    if (!CHECK(doctor("b1.json", "b1-slow.json", TARGET, 100) == 0)) return;
    /* a file-size limit of 512 bytes: the confirmation run cannot write its
     * results (compare itself writes nothing before it fails) */
    char cmd[6000], self[4096];
    if (!CHECK(realpath(gb_test_binary(), self) != NULL)) return;
    snprintf(cmd, sizeof cmd,
             "cd %s && (ulimit -f 1; TMPDIR=%s %s compare --quiet --confirm suite.json -n 2 b1.json b1.json -- "
             "b1-slow.json 2>&1 >/dev/null)", dir, dir, self);
    CHECK(gb_test_sh(cmd, big, sizeof big) == 2);
    CHECK(strstr(big, "--confirm: confirmation run 1 of 2") != NULL);
    CHECK(strstr(big, "re-measuring matmul/float32/64x64x64/math=default") != NULL);
    CHECK(strstr(big, "its output: ") != NULL && strstr(big, "confirm-1.log") != NULL);
    CHECK(!no_confirm_dir_left()); /* kept, for its log */
    snprintf(cmd, sizeof cmd, "rm -rf %s/gpubench-confirm-*", dir); /* the other tests expect none */
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
}

/* The fake child was given what a real one is: `run SUITE --case NAME
 * --no-peak --out DIR/confirm-K.json`, once per fresh process. */
TEST(confirm_runs_each_fresh_process_as_run_case_of_the_suspects) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    if (!CHECK(doctor("b1.json", "c-slow.json", TARGET, 100) == 0)) return;
    compare("--verbose --confirm suite.json --confirm-runs 2", "b1.json b1.json", "c-slow.json");
    char p[128], args[2048] = "";
    path_of(p, sizeof p, "child-args.txt");
    FILE *f = fopen(p, "r");
    if (!CHECK(f != NULL)) return;
    size_t n = fread(args, 1, sizeof args - 1, f);
    fclose(f);
    args[n] = '\0';
    const char *one = strstr(args, "run suite.json --case " CASE " --no-peak --out ");
    CHECK(one && strstr(one, "/confirm-1.json\n"));
    const char *two = one ? strstr(one + 1, "run suite.json --case " CASE " --no-peak --out ") : NULL;
    CHECK(two && strstr(two, "/confirm-2.json\n") && !strstr(two + 1, "run suite.json"));
}

/* The real children (this gpubench): they ran, their results were read and
 * their directory removed. Only that is asserted: what they measured, and so
 * the verdict, depends on this machine's speed and load. */
TEST(confirm_real_fresh_processes_run_and_are_read) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    if (!CHECK(doctor("b1.json", "c-slow.json", TARGET, 100) == 0)) return;
    int rc = compare_with("-f json --confirm suite.json --confirm-runs 2", "b1.json b1.json", "c-slow.json", NULL);
    CHECK(rc == 0 || rc == 1);
    CHECK(strstr(big, "fresh process 2 of 2") != NULL);
    CHECK(strstr(big, "gpubench results") != NULL); /* a real child's own report, on stderr */
    cJSON *doc = json_part();
    const cJSON *it = item_of(doc, TARGET);
    const cJSON *cf = it ? cJSON_GetObjectItemCaseSensitive(it, "confirm") : NULL;
    CHECK(cf && cJSON_GetObjectItemCaseSensitive(cf, "runs")->valueint == 2 &&
          cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cf, "change")));
    cJSON_Delete(doc);
    CHECK(no_confirm_dir_left());
}

/* --confirm-unsure: an unsure case whose estimate is not slower (baseline
 * processes 6% apart, the current one between them) is no suspect of
 * --confirm alone, and is re-measured with the flag; the flag needs
 * --confirm. */
TEST(confirm_unsure_re_measures_an_unsure_case_that_is_not_slower) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    CHECK(doctor("b1.json", "u2.json", TARGET, 1.06) == 0);
    CHECK(doctor("b1.json", "u3.json", TARGET, 1.03) == 0);
    for (int flag = 0; flag < 2; flag++) {
        int rc = compare(flag ? "--confirm suite.json --confirm-runs 2 --confirm-unsure -q -f json"
                              : "--confirm suite.json --confirm-runs 2 -q -f json",
                         "b1.json u2.json", "u3.json");
        CHECK(rc == 0);
        cJSON *doc = json_part();
        const cJSON *it = item_of(doc, TARGET);
        if (!CHECK(it != NULL)) {
            cJSON_Delete(doc);
            continue;
        }
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "verdict");
        const cJSON *sus = cJSON_GetObjectItemCaseSensitive(it, "suspect");
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(it, "change");
        if (!flag) {
            /* stage 1: unsure, its estimate within +-5%: not re-measured */
            CHECK(v && !strcmp(v->valuestring, "unsure"));
            CHECK(cJSON_IsNumber(ch) && fabs(ch->valuedouble) < 0.05);
            CHECK(cJSON_IsFalse(sus));
        } else {
            CHECK(cJSON_IsTrue(sus));
            const cJSON *cf = cJSON_GetObjectItemCaseSensitive(it, "confirm");
            CHECK(cf && cJSON_GetObjectItemCaseSensitive(cf, "runs")->valueint == 2);
            const cJSON *why = cJSON_GetObjectItemCaseSensitive(it, "reason");
            CHECK(cJSON_IsString(why) && strstr(why->valuestring, "re-measured in 2 fresh processes") != NULL);
        }
        cJSON_Delete(doc);
    }
    CHECK(compare("--confirm-unsure", "b1.json", "u3.json") == 2);
    CHECK(strstr(big, "--confirm-unsure needs --confirm SUITE") != NULL);
}

/* `history check --confirm SUITE`: compare's second stage on the history's
 * baseline (the CI default docs/ci.md recommends). A history of two runs
 * whose target was 3x faster; the current run b1 and its fresh processes
 * (the fake child writing b1) are all 100x slower: confirmed, exit 1. */
TEST(confirm_history_check_runs_the_second_stage_on_the_history_baseline) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    /* x100 faster, not x3: far beyond what b1's own noise (one real run, on
     * a machine that may be loaded) can blur; with x3 the check failed
     * under load */
    CHECK(doctor("b1.json", "h1.json", TARGET, 1 / 100.0) == 0);
    CHECK(doctor("b1.json", "h2.json", TARGET, 1 / 100.3) == 0);
    static char cmd[24000];
    char self[4096];
    if (!CHECK(realpath(gb_test_binary(), self) != NULL)) return;
    snprintf(cmd, sizeof cmd,
             "cd %s && rm -f h.sqlite && %s history add h1.json --db h.sqlite --commit c1 >/dev/null 2>&1 && "
             "%s history add h2.json --db h.sqlite --commit c2 >/dev/null 2>&1 && "
             "TMPDIR=%s GPUBENCH_CONFIRM_CHILD=%s/fake-child.sh GB_FAKE_DIR=%s GB_FAKE_RESULT=%s/b1.json "
             "%s history check b1.json --db h.sqlite --confirm suite.json --confirm-runs 2 --quiet --format json "
             "2>err.txt >out.txt; rc=$?; cat err.txt; echo '=== stdout'; cat out.txt; exit $rc",
             dir, self, self, dir, dir, dir, dir, self);
    int rc = gb_test_sh(cmd, big, sizeof big);
    CHECK(rc == 1);
    cJSON *doc = json_part();
    const cJSON *it = item_of(doc, TARGET);
    const cJSON *cf = cJSON_GetObjectItemCaseSensitive(it, "confirm");
    CHECK(cf && !strcmp(cJSON_GetObjectItemCaseSensitive(cf, "verdict")->valuestring, "regression"));
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "summary"), "confirm");
    CHECK(sc && cJSON_GetObjectItemCaseSensitive(sc, "processes")->valueint == 2);
    cJSON_Delete(doc);
    CHECK(no_confirm_dir_left());
}

/* A confirming process is a run the user started: it gets the user's
 * environment, without gpubench's own markers (a marker set in the
 * comparing process is not passed on), and the CPU set the comparing
 * process was given (child_env.h). The fake child reports both. */
TEST(confirm_children_get_the_users_environment_and_cpu_set) {
    if (!setup()) { SKIP("no gpubench binary, or the tiny suite could not run"); return; }
    if (!CHECK(doctor("b1.json", "c-slow.json", TARGET, 100) == 0)) return;
    char p[128], cmd[6000];
    path_of(p, sizeof p, "env-child.sh");
    FILE *f = fopen(p, "w");
    if (!CHECK(f != NULL)) return;
    fprintf(f, "#!/bin/sh\n{ echo \"marker=${GPUBENCH_REEXEC_TOKEN-none} original=${GPUBENCH_ORIGINAL_OPENBLAS_CORETYPE-none}"
               " user=${GB_USER_VAR-none}\"; grep Cpus_allowed_list /proc/self/status; } > \"$GB_FAKE_DIR/child-env.txt\"\n"
               "exec %s/fake-child.sh \"$@\"\n", dir);
    fclose(f);
    if (!CHECK(chmod(p, 0755) == 0)) return;
    char self[4096];
    if (!CHECK(realpath(gb_test_binary(), self) != NULL)) return;
    snprintf(cmd, sizeof cmd,
             "cd %s && GPUBENCH_REEXEC_TOKEN=1:2 GPUBENCH_ORIGINAL_OPENBLAS_CORETYPE==Prescott GB_USER_VAR=mine "
             "GPUBENCH_CONFIRM_CHILD=%s/env-child.sh GB_FAKE_DIR=%s GB_FAKE_RESULT=%s/b1.json TMPDIR=%s "
             "%s compare --confirm suite.json --confirm-runs 1 b1.json b1.json -- c-slow.json >/dev/null 2>&1; "
             "cat child-env.txt; grep Cpus_allowed_list /proc/self/status",
             dir, dir, dir, dir, dir, self);
    CHECK(gb_test_sh(cmd, big, sizeof big) == 0);
    CHECK(strstr(big, "marker=none original=none user=mine\n") != NULL);
    /* the child's set, then this shell's: the same line twice */
    const char *a = strstr(big, "Cpus_allowed_list:"), *b = a ? strstr(a + 1, "Cpus_allowed_list:") : NULL;
    CHECK(a && b && strcspn(a, "\n") == strcspn(b, "\n") && !strncmp(a, b, strcspn(a, "\n")));
}
