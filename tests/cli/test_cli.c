/* test_cli.c — the gpubench binary end to end: exit codes, messages, and a
 * run of suites/quick.json on the CPU whose results JSON is checked field by
 * field, and `run --export-gbench` against `export` on the same file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "commands.h"
#include "op.h"
#include "suite.h"
#include "testlib.h"

/* The cases of suites/quick.json as its parser plans them (every op and
 * dtype it names), so that a run's file can be held to all of them whatever
 * the suite holds; -1 when it does not load. */
static int quick_suite_cases(void) {
    gb_suite s;
    gb_err e = {{0}};
    if (gb_suite_load("suites/quick.json", NULL, &s, &e) != GB_OK) return -1;
    int n = (int)s.count;
    gb_suite_free(&s);
    return n;
}

static char out[1 << 16];

static int sh(const char *fmt, const char *arg) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, gb_test_binary(), arg);
    return gb_test_sh(cmd, out, sizeof out);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(cli_version_help_and_unknown_command) {
    CHECK(sh("%s --version", "") == 0);
    CHECK(strstr(out, "gpubench 0.") != NULL);
    /* with the build's commit and compiler, as context.build records them (#47) */
    char commit[64] = "";
    const char *at = strstr(out, "(commit ");
    if (CHECK(at && sscanf(at, "(commit %63[^,]", commit) == 1 && strstr(out, ", "))) {
        CHECK(sh("%s info --format json", "") == 0);
        char want[96];
        snprintf(want, sizeof want, "\"git_commit\": \"%s\"", commit);
        char want_tab[96];
        snprintf(want_tab, sizeof want_tab, "\"git_commit\":\t\"%s\"", commit);
        CHECK(strstr(out, want) || strstr(out, want_tab));
    }
    CHECK(sh("%s --help", "") == 0);
    CHECK(strstr(out, "run") && strstr(out, "compare"));
    CHECK(sh("%s frobnicate", "") == 2);
    CHECK(strstr(out, "unknown command"));
    static const char *const cmds[] = {"run", "list", "info", "validate", "peak", "report",
                                       "compare", "merge", "export"};
    for (int i = 0; i < 9; i++) {
        char c[256];
        snprintf(c, sizeof c, "%s %s --help", gb_test_binary(), cmds[i]);
        CHECK(gb_test_sh(c, out, sizeof out) == 0);
        CHECK(strstr(out, "usage: gpubench") != NULL);
    }
}

TEST(cli_bad_suites_exit_2_naming_the_place) {
    static const struct { const char *text, *expect; } cases[] = {
        {"{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizez\":[8]}]}", "benchmarks[0]: unknown key \"sizez\""},
        {"{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8, -4]}]}", "benchmarks[0].sizes[1]: expected a positive integer, got -4"},
        {"{\"name\":\"t\",\"benchmarks\":[{\"op\":\"qr\",\"sizes\":[8]}]}", "benchmarks[0].op: unknown op \"qr\""},
        {"{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}", "malformed JSON"},
    };
    for (int i = 0; i < 4; i++) {
        write_file("build/bad-suite.json", cases[i].text);
        CHECK(sh("%s validate %s", "build/bad-suite.json") == 2);
        CHECK(strstr(out, "build/bad-suite.json: ") && strstr(out, cases[i].expect));
        CHECK(sh("%s run %s --backend cpu --out build/never.json", "build/bad-suite.json") == 2);
        CHECK(strstr(out, cases[i].expect) != NULL);
    }
    CHECK(sh("%s validate %s", "build/does-not-exist.json") == 2);
    CHECK(strstr(out, "cannot open"));
    CHECK(sh("%s validate %s", "suites/quick.json suites/default.json") == 0);
}

TEST(cli_bad_flags_exit_2) {
    CHECK(sh("%s run suites/quick.json --backend %s", "gpu") == 2);
    CHECK(strstr(out, "unknown backend \"gpu\""));
    CHECK(sh("%s run suites/quick.json --threads %s", "zero") == 2);
    CHECK(sh("%s run suites/quick.json --format %s", "xml") == 2);
    CHECK(sh("%s run suites/quick.json --op %s --backend cpu", "qr") == 2);
    CHECK(strstr(out, "--op"));
    CHECK(sh("%s run %s", "") == 2);
}

TEST(cli_list_shows_ops_and_backends) {
    CHECK(sh("%s list", "") == 0);
    static const char *const ops[] = {"matmul", "elementwise", "reduction", "fft", "solve", "spgemm", "svd"};
    for (int i = 0; i < 7; i++) CHECK(strstr(out, ops[i]) != NULL);
    CHECK(strstr(out, "cpu          available") != NULL);
    /* no GPU here: cuda is listed, unavailable, with a reason after the colon */
    char *cuda = strstr(out, "cuda");
    CHECK(cuda != NULL);
    if (cuda && strstr(cuda, "unavailable")) CHECK(strstr(cuda, "unavailable: ") != NULL);
}

TEST(cli_info_reports_cpu_and_libraries) {
    CHECK(sh("%s info", "") == 0);
    CHECK(strstr(out, "model:") && strstr(out, "cores:") && strstr(out, "isa:"));
    CHECK(strstr(out, "openblas:") && strstr(out, "core:") && strstr(out, "fftw"));
    CHECK(strstr(out, "graphblas") && strstr(out, "cjson") && strstr(out, "compiler"));
    CHECK(sh("%s info --format json > build/info.json", "") == 0);
    FILE *f = fopen("build/info.json", "r");
    CHECK(f != NULL);
    if (!f) return;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    cJSON *j = cJSON_Parse(buf);
    CHECK(j != NULL);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "cpu"), "logical_cpus") != NULL);
    cJSON_Delete(j);
}

/* ---- the end-to-end run ---------------------------------------------------- */

static cJSON *load(const char *path) { return gb_test_load_json(path); }

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

TEST(cli_quick_suite_cpu_end_to_end) {
    remove("build/quick-cpu.json");
    int rc = sh("%s run suites/quick.json --backend cpu --out %s", "build/quick-cpu.json");
    CHECK(rc == 0);
    if (rc != 0) fprintf(stderr, "%s\n", out);
    CHECK(strstr(out, "results: build/quick-cpu.json") != NULL);
    cJSON *doc = load("build/quick-cpu.json");
    CHECK(doc != NULL);
    if (!doc) return;
    CHECK(strcmp(get(doc, "schema")->valuestring, "gpubench-results") == 0);
    CHECK(get(doc, "schema_version")->valueint == 1);
    CHECK(cJSON_IsTrue(get(doc, "complete")));
    CHECK(cJSON_IsFalse(get(doc, "interrupted")));
    CHECK(strcmp(get(get(doc, "suite"), "name")->valuestring, "quick") == 0);
    const cJSON *ctx = get(doc, "context");
    CHECK(cJSON_IsString(get(ctx, "hostname")) && cJSON_IsString(get(ctx, "date")));
    CHECK(cJSON_IsNumber(get(ctx, "cpu_threads_used")) && get(ctx, "cpu_threads_used")->valueint >= 1);
    CHECK(cJSON_IsString(get(get(get(ctx, "libraries"), "openblas"), "core")));
    CHECK(strstr(get(ctx, "command_line")->valuestring, "run suites/quick.json") != NULL);
    CHECK(get(ctx, "seed")->valueint == 42);
    CHECK(get(ctx, "rounds")->valueint == 3);
    const cJSON *cpu_peaks = get(get(doc, "peaks"), "cpu");
    CHECK(cJSON_IsNumber(get(cpu_peaks, "triad_gbs")) && get(cpu_peaks, "triad_gbs")->valuedouble > 0);
    CHECK(cJSON_IsNumber(get(cpu_peaks, "gemm_float64_gflops")));

    const cJSON *cases = get(doc, "cases");
    CHECK(quick_suite_cases() >= 54); /* 27 sizes × 2 dtypes when this was written */
    CHECK(cJSON_GetArraySize(cases) == quick_suite_cases());
    unsigned ops_seen = 0;
    int ok = 0, projected = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases) {
        const char *op = get(c, "op")->valuestring;
        const gb_op *known = gb_op_find(op);
        CHECK(known != NULL);
        if (known) ops_seen |= 1u << known->id;
        CHECK(cJSON_IsArray(get(c, "shape")) && cJSON_IsString(get(c, "label")));
        CHECK(cJSON_IsObject(get(c, "params")));
        CHECK(get(c, "bytes")->valuedouble > 0);
        const cJSON *results = get(c, "results");
        CHECK(cJSON_GetArraySize(results) == 1);
        const cJSON *r = cJSON_GetArrayItem(results, 0);
        CHECK(strcmp(get(r, "backend")->valuestring, "cpu") == 0);
        CHECK(strcmp(get(r, "timing")->valuestring, "host") == 0);
        if (strcmp(get(r, "status")->valuestring, "ok") != 0) {
            /* A size projected past max_time_s from the previous one is an
             * honest outcome on a machine busy with other work (seen in CI
             * beside a parallel build); anything else is a failure. */
            if (!strcmp(get(r, "status")->valuestring, "skipped") && strstr(get(r, "reason")->valuestring, "projected"))
                projected++;
            else
                fprintf(stderr, "    %s %s: %s: %s\n", op, get(c, "label")->valuestring,
                        get(r, "status")->valuestring, get(r, "reason")->valuestring);
            continue;
        }
        ok++;
        const cJSON *st = get(r, "stats");
        int n = get(st, "n")->valueint;
        /* min_reps 5 unless max_time_s ended the visit first: which one
         * depends on this machine's speed and load (the rule itself is
         * tested on a scripted clock in test_stopping.c), so only n >= 1 */
        CHECK(n >= 1);
        CHECK(cJSON_GetArraySize(get(r, "samples_s")) == n);
        CHECK(n <= 1000); /* max_reps default caps the samples kept */
        /* three rounds (the default), fewer when max_time_s ended a visit
         * (after which round depends on the speed) */
        const cJSON *sizes = get(r, "round_sizes");
        int rounds = cJSON_GetArraySize(sizes), total = 0;
        CHECK(rounds >= 1 && rounds <= 3);
        const cJSON *k;
        cJSON_ArrayForEach(k, sizes) total += k->valueint;
        CHECK(total == n);
        double med = get(st, "median")->valuedouble;
        CHECK(med > 0 && get(st, "min")->valuedouble <= med);
        CHECK(get(st, "ci95_low")->valuedouble <= med && med <= get(st, "ci95_high")->valuedouble);
        CHECK(get(r, "setup_s")->valuedouble >= 0);
        CHECK(strcmp(get(get(r, "verification"), "status")->valuestring, "passed") == 0);
        CHECK(cJSON_IsNumber(get(r, "gbs")));
        CHECK(cJSON_IsNumber(get(r, "pct_of_peak")));
        CHECK(cJSON_IsObject(get(r, "extra")));
        CHECK(get(c, "speedup") == NULL); /* one backend: no speedup */
    }
    /* every single-device op of the catalogue (the multi-GPU routines are
     * suites/multigpu.json's) */
    unsigned single_device = 0;
    for (int i = 0; i < GB_OP_COUNT; i++)
        if (!gb_ops[i]->multi_device) single_device |= 1u << i;
    CHECK(ops_seen == single_device && __builtin_popcount(single_device) >= 11);
    CHECK(ok > 0 && ok + projected == cJSON_GetArraySize(cases));
    const cJSON *sum = get(doc, "summary");
    CHECK(get(sum, "ok")->valueint == ok && get(sum, "failed")->valueint == 0);
    cJSON_Delete(doc);
}

/* SIGINT, SIGTERM (timeout, SLURM, Kubernetes) and SIGHUP all stop the run
 * after the current repetition: the results measured so far are written,
 * marked interrupted with the signal's name, and the exit status is 128 + the
 * signal's number. The signal goes once the run has written its first case
 * (not after a fixed sleep: under load 2 s were not always enough to get
 * there); the wait for it is bounded only against a hang (120 s). */
static void check_stopped_by(const char *sig, int code) {
    char path[64], cmd[512];
    snprintf(path, sizeof path, "build/interrupted-%s.json", sig);
    remove(path);
    snprintf(cmd, sizeof cmd,
             "%s run suites/quick.json --backend cpu --no-peak --quiet --out %s "
             "> /dev/null 2>&1 & pid=$!; for i in $(seq 1 2400); do [ -e %s ] && break; sleep 0.05; done; "
             "kill -%s $pid; wait $pid",
             gb_test_binary(), path, path, sig);
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == code);
    cJSON *doc = load(path);
    CHECK(doc != NULL);
    if (!doc) return;
    CHECK(cJSON_IsTrue(get(doc, "interrupted")));
    char name[16];
    snprintf(name, sizeof name, "SIG%s", sig);
    CHECK(cJSON_IsString(get(doc, "interrupted_by")) && strcmp(get(doc, "interrupted_by")->valuestring, name) == 0);
    CHECK(cJSON_IsFalse(get(doc, "complete")));
    /* every case is listed; what was measured is kept; the run stopped
     * before its end: a case not reached is listed, skipped "not reached:
     * the run was interrupted", or a result has fewer rounds than the run
     * was to make */
    CHECK(cJSON_GetArraySize(get(doc, "cases")) == quick_suite_cases()); /* every case of suites/quick.json */
    const cJSON *sum = get(doc, "summary");
    CHECK(get(sum, "ok")->valueint > 0);
    int rounds = get(get(doc, "context"), "rounds")->valueint, short_of_rounds = 0;
    const cJSON *c, *r;
    cJSON_ArrayForEach(c, get(doc, "cases")) cJSON_ArrayForEach(r, get(c, "results"))
        if (cJSON_IsArray(get(r, "round_sizes")) && cJSON_GetArraySize(get(r, "round_sizes")) < rounds)
            short_of_rounds++;
    CHECK(get(sum, "skipped")->valueint > 0 || short_of_rounds > 0);
    cJSON_Delete(doc);
}

TEST(cli_ctrl_c_keeps_the_results_measured_so_far) { check_stopped_by("INT", 130); }

/* `timeout` signals the command and then its process group: the same SIGTERM
 * twice within a moment must still write the results, marked interrupted.
 * The two deliveries are made here by hand, back to back, once the run has
 * written its first case: `timeout 2` signalled at a fixed time, which under
 * load could come before the run was under way (and a kill of a process
 * group from a test risks the test runner's own). */
TEST(cli_timeout_stops_a_run_with_its_results_written) {
    remove("build/timeout.json");
    char cmd[768];
    snprintf(cmd, sizeof cmd,
             "%s run suites/quick.json --backend cpu --no-peak --quiet --out build/timeout.json > /dev/null 2>&1 & "
             "pid=$!; for i in $(seq 1 2400); do [ -e build/timeout.json ] && break; sleep 0.05; done; "
             "kill -TERM $pid; kill -TERM $pid; wait $pid",
             gb_test_binary());
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 143);
    cJSON *doc = load("build/timeout.json");
    CHECK(doc && cJSON_IsTrue(get(doc, "interrupted")));
    cJSON_Delete(doc);
    /* the same, with the two deliveries far enough apart to be seen twice,
     * while the run is busy measuring its ceilings (it has said so on
     * stderr; not stopped by a signal): the second must not end it before it
     * writes its results */
    remove("build/timeout.json");
    snprintf(cmd, sizeof cmd,
             "rm -f build/timeout.err; %s run suites/quick.json --backend cpu --peak fresh --out build/timeout.json "
             "> /dev/null "
             "2> build/timeout.err & pid=$!; "
             "for i in $(seq 1 2400); do grep -q 'ceilings' build/timeout.err 2>/dev/null && break; sleep 0.05; done; "
             "kill -TERM $pid; sleep 0.3; kill -TERM $pid; wait $pid",
             gb_test_binary());
    rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 143);
    doc = load("build/timeout.json");
    CHECK(doc && cJSON_IsTrue(get(doc, "interrupted")));
    CHECK(doc && cJSON_IsString(get(doc, "interrupted_by")) &&
          strcmp(get(doc, "interrupted_by")->valuestring, "SIGTERM") == 0);
    cJSON_Delete(doc);
}
TEST(cli_sigterm_is_an_interruption_too) { check_stopped_by("TERM", 143); }
TEST(cli_sighup_is_an_interruption_too) { check_stopped_by("HUP", 129); }

/* A line per case as soon as its first round is measured, also when stdout
 * is a pipe or a file (a CI log): the log has case lines while the run is
 * still in its first round (not only once a case's last round is done). */
TEST(cli_case_lines_reach_a_piped_log_while_the_run_goes_on) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             /* the run's own pid, not pgrep/pkill -f by name: those also
              * matched another checkout's tests running on the same machine */
             "rm -f build/live.log build/live.json build/live.pid; "
             "sh -c 'echo $$ > build/live.pid; exec \"$0\" \"$@\"' %s run suites/quick.json --backend cpu --no-peak "
             "--rounds 3 --out build/live.json 2>/dev/null | cat > build/live.log & "
             "for i in $(seq 1 2400); do "
             "  if grep -q '✓' build/live.log 2>/dev/null; then "
             "    if kill -0 $(cat build/live.pid) 2>/dev/null; then echo LIVE; else echo ENDED; fi; break; fi; "
             "  sleep 0.05; done; "
             "kill -TERM $(cat build/live.pid); wait",
             gb_test_binary());
    gb_test_sh(cmd, out, sizeof out);
    CHECK(strstr(out, "LIVE") != NULL);
    /* stopped right after the first line: the first case had had one round of three */
    cJSON *doc = load("build/live.json");
    const cJSON *first = cJSON_GetArrayItem(get(doc, "cases"), 0);
    const cJSON *r0 = cJSON_GetArrayItem(get(first, "results"), 0);
    CHECK(cJSON_GetArraySize(get(r0, "round_sizes")) == 1);
    cJSON_Delete(doc);
}

/* Every run ends with where its time went: in the JSON and on stderr. */
TEST(cli_run_records_its_time_breakdown) {
    write_file("build/tiny.json",
               "{\"name\":\"tiny\",\"defaults\":{\"min_reps\":3,\"min_time_s\":0.01,\"max_time_s\":30,\"rounds\":2},"
               "\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[64,128]},{\"op\":\"fft\",\"sizes\":[64]}]}");
    int rc = sh("%s run build/tiny.json --backend cpu --no-peak --out build/tiny-results.json 2>&1", NULL);
    CHECK(rc == 0);
    CHECK(strstr(out, "time: ") != NULL && strstr(out, "timed samples") != NULL && strstr(out, "warm-up") != NULL);
    cJSON *doc = load("build/tiny-results.json");
    const cJSON *tb = get(doc, "time_breakdown");
    CHECK(cJSON_IsObject(tb));
    static const char *const keys[] = {"samples_s", "timing_overhead_s", "warmup_s", "setup_s", "inputs_s",
                                       "verify_s", "energy_s", "ceilings_s", "write_s", "other_s"};
    double sum = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const cJSON *v = get(tb, keys[i]);
        CHECK(cJSON_IsNumber(v) && v->valuedouble >= 0);
        if (cJSON_IsNumber(v)) sum += v->valuedouble;
    }
    const cJSON *wall = get(tb, "wall_s");
    CHECK(cJSON_IsNumber(wall) && wall->valuedouble > 0);
    /* the parts add up to the wall time ("the rest" is what no part counted) */
    if (cJSON_IsNumber(wall)) CHECK_NEAR(sum, wall->valuedouble, 1e-6 + 1e-9 * wall->valuedouble);
    /* the samples the results hold are the timed samples counted */
    double samples = 0;
    const cJSON *c, *r, *x;
    cJSON_ArrayForEach(c, get(doc, "cases")) cJSON_ArrayForEach(r, get(c, "results"))
        cJSON_ArrayForEach(x, get(r, "samples_s")) samples += x->valuedouble;
    CHECK(fabs(samples - get(tb, "samples_s")->valuedouble) <= 1e-3 * samples + 1e-4);
    /* each result says what fetching and checking its output cost (once per
     * backend: its timings share the one fetch), and those add up to the part */
    double verify = 0;
    cJSON_ArrayForEach(c, get(doc, "cases")) {
        const char *counted = "";
        cJSON_ArrayForEach(r, get(c, "results")) {
            /* a result not measured has no output to check, so no verify_s
             * (one of these failed once under load: say which, if again) */
            const char *status = get(r, "status")->valuestring;
            if (strcmp(status, "ok") != 0) {
                fprintf(stderr, "    %s %s: %s (%s)\n", get(c, "name") ? get(c, "name")->valuestring : "?",
                        get(r, "backend")->valuestring, status,
                        get(r, "reason") ? get(r, "reason")->valuestring : "no reason");
                continue;
            }
            const cJSON *v = get(r, "verify_s");
            if (!CHECK(cJSON_IsNumber(v) && v->valuedouble >= 0))
                fprintf(stderr, "    an ok result of %s without verify_s\n",
                        get(c, "name") ? get(c, "name")->valuestring : "?");
            if (cJSON_IsNumber(v) && strcmp(counted, get(r, "backend")->valuestring) != 0) {
                verify += v->valuedouble;
                counted = get(r, "backend")->valuestring;
            }
        }
    }
    CHECK_NEAR(verify, get(tb, "verify_s")->valuedouble, 1e-6);
    CHECK(cJSON_IsNumber(get(tb, "adopted_warmups")));
    cJSON_Delete(doc);
}

/* ---- --export-gbench ------------------------------------------------------- */


TEST(cli_run_export_gbench_equals_export_of_its_results_file) {
    /* A tiny CPU-only suite of our own: two ops, two sizes, few repetitions. */
    char dir[] = "/tmp/gb_test_gbench_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char suite[256], results[256], run_gb[256], exp_gb[256], cmd[2048];
    snprintf(suite, sizeof suite, "%s/tiny.json", dir);
    snprintf(results, sizeof results, "%s/results.json", dir);
    snprintf(run_gb, sizeof run_gb, "%s/run-gbench.json", dir);
    snprintf(exp_gb, sizeof exp_gb, "%s/export-gbench.json", dir);
    write_file(suite,
               "{\"name\": \"tiny\", \"defaults\": {\"dtypes\": [\"float32\"], \"warmup\": 0, \"min_reps\": 3,"
               " \"min_time_s\": 0, \"max_time_s\": 30, \"seed\": 1}," /* never reached: no size skipped by a stall's projection */
               " \"benchmarks\": [{\"op\": \"reduction\", \"sizes\": [64, 128]}, {\"op\": \"matmul\", \"sizes\": [32]}]}");
    snprintf(cmd, sizeof cmd, "%s run %s --backend cpu --no-peak --quiet --out %s --export-gbench %s",
             gb_test_binary(), suite, results, run_gb);
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 0);
    if (rc != 0) fprintf(stderr, "%s\n", out);
    snprintf(cmd, sizeof cmd, "%s export %s --format gbench -o %s", gb_test_binary(), results, exp_gb);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);

    size_t la = 0, lb = 0;
    char *a = gb_test_slurp(run_gb, &la), *b = gb_test_slurp(exp_gb, &lb);
    CHECK(a != NULL && b != NULL);
    /* byte-identical: the run exports what `gpubench export` does */
    CHECK(a && b && la == lb && memcmp(a, b, la) == 0);
    /* and not identically empty: 3 results with samples, each listed */
    cJSON *g = a ? cJSON_Parse(a) : NULL;
    const cJSON *benches = get(g, "benchmarks");
    CHECK(cJSON_IsArray(benches) && cJSON_GetArraySize(benches) > 0);
    int medians = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, benches) {
        const cJSON *an = get(x, "aggregate_name");
        medians += cJSON_IsString(an) && !strcmp(an->valuestring, "median");
    }
    CHECK(medians == 3);
    cJSON_Delete(g);
    free(a);
    free(b);
    remove(suite);
    remove(results);
    remove(run_gb);
    remove(exp_gb);
    rmdir(dir);
}

/* FFTW wisdom is kept between runs (set-up, not the plans, changes): under
 * $XDG_CACHE_HOME/gpubench by default, off with GPUBENCH_FFTW_WISDOM=. */
static const char *first_wisdom(const char *path) {
    static char w[32];
    cJSON *doc = load(path);
    const cJSON *r = cJSON_GetArrayItem(get(cJSON_GetArrayItem(get(doc, "cases"), 0), "results"), 0);
    const cJSON *x = get(get(r, "extra"), "wisdom");
    snprintf(w, sizeof w, "%s", cJSON_IsString(x) ? x->valuestring : "");
    cJSON_Delete(doc);
    return w;
}

TEST(cli_fftw_wisdom_is_kept_between_runs) {
    write_file("build/fft-tiny.json",
               "{\"name\":\"fft-tiny\",\"defaults\":{\"min_reps\":2,\"min_time_s\":0,\"rounds\":1},"
               "\"benchmarks\":[{\"op\":\"fft\",\"sizes\":[64],\"dtypes\":[\"float64\"]}]}");
    gb_test_sh("rm -rf build/xdg-cache", NULL, 0);
    const char *run = "XDG_CACHE_HOME=build/xdg-cache %s run build/fft-tiny.json --backend cpu --no-peak --quiet "
                      "--out build/fft-tiny-%s.json > /dev/null 2>&1";
    char cmd[512];
    snprintf(cmd, sizeof cmd, run, gb_test_binary(), "1");
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(strcmp(first_wisdom("build/fft-tiny-1.json"), "none") == 0);
    CHECK(gb_test_sh("ls build/xdg-cache/gpubench/fftw-wisdom-* >/dev/null 2>&1", NULL, 0) == 0);
    snprintf(cmd, sizeof cmd, run, gb_test_binary(), "2");
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(strcmp(first_wisdom("build/fft-tiny-2.json"), "imported") == 0);
    snprintf(cmd, sizeof cmd, "GPUBENCH_FFTW_WISDOM= %s", run);
    char cmd2[600];
    snprintf(cmd2, sizeof cmd2, cmd, gb_test_binary(), "3");
    CHECK(gb_test_sh(cmd2, out, sizeof out) == 0);
    CHECK(strcmp(first_wisdom("build/fft-tiny-3.json"), "off") == 0);
}

/* ---- overrides and a run without a suite file --------------------------- */

TEST(cli_durations_need_a_unit) {
    double s = 0;
    CHECK(gb_cli_parse_duration("1s", &s) == 0 && s == 1);
    CHECK(gb_cli_parse_duration("500ms", &s) == 0 && fabs(s - 0.5) < 1e-12);
    CHECK(gb_cli_parse_duration("250us", &s) == 0 && fabs(s - 250e-6) < 1e-15);
    CHECK(gb_cli_parse_duration("2min", &s) == 0 && s == 120);
    CHECK(gb_cli_parse_duration("5", &s) == -1);      /* seconds or milliseconds? refused */
    CHECK(gb_cli_parse_duration("-1s", &s) == -1);
    CHECK(gb_cli_parse_duration("1h", &s) == -1);
    CHECK(sh("%s run --op matmul --sizes 8 --max-time 5 2>&1", NULL) == 2);
    CHECK(strstr(out, "--max-time") && strstr(out, "unit"));
}

TEST(cli_run_without_a_suite_file) {
    int rc = sh("%s run --op matmul --sizes 32,48 --dtype float32 --max-time 200ms --min-time 5ms --warmup 1 "
                "--rounds 1 --backend cpu --no-peak -o build/oneoff.json 2>&1", NULL);
    CHECK(rc == 0);
    CHECK(strstr(out, "matmul") && strstr(out, "32x32x32") && strstr(out, "48x48x48"));
    cJSON *doc = load("build/oneoff.json");
    const cJSON *suite = get(doc, "suite");
    CHECK(cJSON_IsObject(suite) && !strcmp(get(suite, "path")->valuestring, "(command line)"));
    CHECK(cJSON_GetArraySize(get(doc, "cases")) == 2);
    cJSON_Delete(doc);
    /* --list names the cases --filter keeps, measuring nothing */
    CHECK(sh("%s run suites/quick.json --filter '^fft/float32' --list", NULL) == 0);
    CHECK(strstr(out, "fft/float32/") && !strstr(out, "matmul") && !strstr(out, "float64"));
    CHECK(sh("%s run --sizes 8 2>&1", NULL) == 2 && strstr(out, "--op and --sizes"));
}
