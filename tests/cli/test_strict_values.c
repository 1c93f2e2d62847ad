/* test_strict_values.c — values a person writes are read strictly (issue 25,
 * part 9): every numeric flag of every command takes the whole string, in
 * decimal, in range, or exits 2 naming the flag; --sizes is the suites' own
 * size parser; an empty list entry is an error, never "everything"; a suite
 * that makes one case twice is refused naming both places; an
 * OPENBLAS_CORETYPE that OpenBLAS ignores is named, not recorded as chosen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "compare.h"
#include "gb.h"
#include "suite.h"
#include "testlib.h"

static char out[1 << 16];

/* gpubench ARGS (stderr too) into out; its exit status */
static int gb(const char *args) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", gb_test_binary(), args);
    return gb_test_sh(cmd, out, sizeof out);
}

TEST(strict_decimal_scanner_takes_only_plain_decimal) {
    double v;
    const char *end;
    CHECK(gb_scan_decimal("12", &v, &end) == 0 && v == 12 && *end == '\0');
    CHECK(gb_scan_decimal("1.5ms", &v, &end) == 0 && v == 1.5 && !strcmp(end, "ms"));
    CHECK(gb_scan_decimal("2e3s", &v, &end) == 0 && v == 2000 && !strcmp(end, "s"));
    CHECK(gb_scan_decimal("1e-3", &v, &end) == 0 && v == 1e-3 && *end == '\0');
    CHECK(gb_scan_decimal("1es", &v, &end) == 0 && v == 1 && !strcmp(end, "es")); /* the unit judges "es" */
    static const char *const bad[] = {"0x10", " 1", "+1", "-1", "inf", "nan", ".5", "1.", "", "1e999", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = gb_scan_decimal(bad[i], &v, &end);
        if (!CHECK(rc == -1)) fprintf(stderr, "    accepted \"%s\"\n", bad[i]);
    }
    long long n;
    CHECK(gb_parse_count("42", 1, 100, &n) == 0 && n == 42);
    static const char *const badn[] = {"+5", " 5", "5 ", "0x5", "5k", "", "-1", "101", "0", "99999999999999999999"};
    for (size_t i = 0; i < sizeof badn / sizeof *badn; i++)
        if (!CHECK(gb_parse_count(badn[i], 1, 100, &n) == -1)) fprintf(stderr, "    accepted \"%s\"\n", badn[i]);
    /* the library parsers on top of it */
    double d;
    char why[200];
    CHECK(gb_parse_duration("0x10us", &d, why, sizeof why) != 0);
    CHECK(gb_parse_duration(" 10us", &d, why, sizeof why) != 0);
    CHECK(gb_parse_percent("0x5%", &d, why, sizeof why) != 0);
    CHECK(gb_parse_percent("+5%", &d, why, sizeof why) != 0);
    CHECK(gb_parse_percent("5%", &d, why, sizeof why) == 0 && d == 0.05);
}

/* Each numeric flag, each loose value: exit 2, the flag named, nothing run. */
TEST(strict_every_numeric_flag_refuses_loose_values) {
    static const char *const flags[] = {
        "run --op matmul --sizes 8 --list --threads %s",      "run --op matmul --sizes 8 --list --device %s",
        "run --op matmul --sizes 8 --list --rounds %s",       "run --op matmul --sizes 8 --list --warmup %s",
        "run --op matmul --sizes 8 --list --seed %s",         "run --op matmul --sizes 8 --list --max-time %s",
        "run --op matmul --sizes 8 --list --min-time %s",     "run --op matmul --sizes 8 --list --devices %s",
        "info --threads %s",                                  "info --device %s",
        "peak --threads %s",                                  "peak --device %s",
        "compare --alpha %s tests/data/results_small.json tests/data/results_small.json",
        "compare --threshold %s%% tests/data/results_small.json tests/data/results_small.json",
        "compare --min-change %sus tests/data/results_small.json tests/data/results_small.json",
        "compare --confirm suites/quick.json --confirm-runs %s tests/data/results_small.json "
        "tests/data/results_small.json",
        "report --fleet --threshold %s%% tests/data/results_small.json",
        "slurm suites/quick.json --dir /nonexistent/gb-strict --nodes %s",
        "slurm suites/quick.json --dir /nonexistent/gb-strict --gpus-per-node %s",
    };
    /* "0x10s"-like values come with the unit the flag wants, so only the number is wrong */
    static const char *const values[] = {"0x10", "' 1'", "+1", "1x", "''", "0x1p3"};
    for (size_t f = 0; f < sizeof flags / sizeof *flags; f++) {
        /* the flag is the last "--name" before the value */
        const char *at = strstr(flags[f], " %s"), *dash = at;
        while (dash > flags[f] + 1 && !(dash[0] == '-' && dash[-1] == '-')) dash--;
        char flag[40];
        snprintf(flag, sizeof flag, "%.*s", (int)(at - dash + 1), dash - 1);
        for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
            char val[32], args[512];
            int timed = strstr(flags[f], "-time") != NULL;
            snprintf(val, sizeof val, "%s%s", values[v], timed && strcmp(values[v], "''") ? "s" : "");
            snprintf(args, sizeof args, flags[f], val);
            int rc = gb(args);
            if (!CHECK(rc == 2 && strstr(out, flag) != NULL))
                fprintf(stderr, "    gpubench %s -> %d: %.300s\n", args, rc, out);
        }
    }
    /* the values they take still work */
    CHECK(gb("run --op matmul --sizes 8 --list --threads 2 --rounds 3 --warmup 0 --seed 7 --max-time 1.5s "
             "--min-time 10ms") == 0);
    CHECK(strstr(out, "matmul/float32/8x8x8") != NULL);
}

TEST(strict_sizes_flag_is_the_suites_size_parser) {
    static const char *const bad[] = {"1x", "x1", "1,,2", ",1", "1,", "''", "1xx2", "0", "0x10", "+8"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char args[256];
        snprintf(args, sizeof args, "run --op matmul --sizes %s --list", bad[i]);
        int rc = gb(args);
        if (!CHECK(rc == 2 && (strstr(out, "--sizes") || strstr(out, "sizes[")))) fprintf(stderr, "    %s -> %d: %s\n", args, rc, out);
    }
    CHECK(gb("run --op matmul --sizes 1x --list") == 2 && strstr(out, "an empty dimension"));
    CHECK(gb("run --op matmul --sizes 1,,2 --list") == 2 && strstr(out, "an empty entry"));
    /* the numbers a person writes, as a suite's 1e3 is 1000 (#47): 1e3, 1k,
     * 2.5e2; a sign or a fraction is refused naming --sizes and the entry */
    CHECK(gb("run --op matmul --sizes 1e3,1k,2.5e2 --dtype float32 --list") == 2 && strstr(out, "already made by")); /* 1e3 and 1k: one case twice */
    CHECK(gb("run --op matmul --sizes 1e3,2k,2.5e2 --dtype float32 --list") == 0 &&
          strstr(out, "matmul/float32/1000x1000x1000/") && strstr(out, "matmul/float32/2000x2000x2000/") &&
          strstr(out, "matmul/float32/250x250x250/"));
    static const char *const unwritten[] = {"-5", "1.5", "0.5", "+3", "1.2345k"};
    for (size_t i = 0; i < sizeof unwritten / sizeof *unwritten; i++) {
        char args[256], want[64];
        snprintf(args, sizeof args, "run --op matmul --sizes %s --list", unwritten[i]);
        snprintf(want, sizeof want, "at entry \"%s\"", unwritten[i]);
        int rc = gb(args);
        if (!CHECK(rc == 2 && strstr(out, "not a positive whole size (write 1000, 1e3 or 1k)") && strstr(out, want)))
            fprintf(stderr, "    %s -> %d: %s\n", args, rc, out);
    }
    /* what a suite takes for the op, the command line takes: a transfer's byte count */
    CHECK(gb("run --op transfer --sizes 1MiB,64KiB --list") == 0);
    CHECK(strstr(out, "transfer/float32/1MiB/") && strstr(out, "transfer/float32/64KiB/"));
    /* and refuses what it refuses, naming the entry as given and the op (not
     * the suite's internal path: #47) */
    CHECK(gb("run --op matmul --sizes 1MiB --list") == 2 && strstr(out, "--sizes: \"1MiB\" is not a size of op matmul") &&
          !strstr(out, "benchmarks["));
    CHECK(gb("run --op transfer --sizes 0x10MiB --list") == 2);
    CHECK(gb("run --op transfer --sizes 1.5KiB --list") == 0 && strstr(out, "transfer/float32/1536B/"));
    CHECK(gb("run --op matmul --sizes 8x16x4,32 --list") == 0 && strstr(out, "8x16x4") && strstr(out, "32x32x32"));
}

TEST(strict_an_empty_list_entry_is_an_error_not_everything) {
    CHECK(gb("run --op matmul --sizes 8 --backend '' --no-peak -o build/strict-backend.json") == 2 && strstr(out, "--backend"));
    CHECK(strstr(out, "empty entry"));
    CHECK(gb("run --op matmul --sizes 8 --backend cpu, --no-peak -o build/strict-backend.json") == 2 && strstr(out, "--backend"));
    CHECK(gb("run --op matmul --sizes 8 --backend ,cpu --no-peak -o build/strict-backend.json") == 2 && strstr(out, "--backend"));
    CHECK(gb("peak --backend ''") == 2 && strstr(out, "--backend"));
    CHECK(gb("run suites/quick.json --op '' --list") == 2 && strstr(out, "--op") && strstr(out, "empty entry"));
    CHECK(gb("run suites/quick.json --dtype float32,,float64 --list") == 2 && strstr(out, "--dtype"));
    CHECK(gb("run suites/quick.json --op matmul,fft --dtype float32 --list") == 0);
}

static int parse_fails_with(const char *text, const gb_suite_filter *f, const char *a, const char *b) {
    gb_suite s;
    gb_err e = {{0}};
    int rc = gb_suite_parse(text, "t.json", f, &s, &e);
    if (rc == GB_OK) {
        gb_suite_free(&s);
        return 0;
    }
    int ok = strstr(e.msg, a) && strstr(e.msg, b) && strstr(e.msg, "t.json");
    if (!ok) fprintf(stderr, "    got: %s\n", e.msg);
    return ok;
}

TEST(strict_a_suite_that_makes_one_case_twice_is_refused_naming_both) {
    CHECK(parse_fails_with("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[32,32]}]}", NULL,
                           "benchmarks[0].sizes[1]", "benchmarks[0].sizes[0]"));
    /* the same case from two entries (32 is 32x32x32) */
    CHECK(parse_fails_with("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"fft\",\"sizes\":[16]},"
                           "{\"op\":\"matmul\",\"sizes\":[8]},{\"op\":\"matmul\",\"sizes\":[[32,32,32],32]}]}",
                           NULL, "benchmarks[2].sizes[1]", "benchmarks[2].sizes[0]"));
    CHECK(parse_fails_with("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[32]},"
                           "{\"op\":\"matmul\",\"sizes\":[[32,32,32]],\"dtypes\":[\"float32\"]}]}",
                           NULL, "benchmarks[1].sizes[0]", "benchmarks[0].sizes[0]"));
    /* a filter does not hide it: a bad suite is bad whatever is selected */
    gb_suite_filter f = {.dtypes = "float64"};
    CHECK(parse_fails_with("{\"name\":\"t\",\"defaults\":{\"dtypes\":[\"float32\"]},\"benchmarks\":[{\"op\":\"matmul\","
                           "\"sizes\":[8,8]}]}", &f, "benchmarks[0].sizes[1]", "matmul/float32/8x8x8"));
    /* --sizes that repeat themselves, likewise */
    CHECK(gb("run --op matmul --sizes 8,8 --list") == 2 && strstr(out, "sizes[1]") && strstr(out, "sizes[0]"));
    /* but sizes that --sizes gave two entries of an op not chosen are not
     * this run's cases (#47: default.json's two svd entries, --op matmul) */
    CHECK(gb("run suites/default.json --op matmul --sizes 256 --list") == 0 && strstr(out, "matmul/float64/256x256x256"));
    CHECK(gb("run suites/default.json --op svd --sizes 256 --list") == 2 && strstr(out, "already made by"));
    /* different params are different cases */
    gb_suite s;
    gb_err e = {{0}};
    CHECK(gb_suite_parse("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]},"
                         "{\"op\":\"matmul\",\"sizes\":[8],\"params\":{\"math\":\"tf32\"},\"dtypes\":[\"float32\"]}]}",
                         "t.json", NULL, &s, &e) == GB_OK);
    if (s.count) gb_suite_free(&s);
}

/* OpenBLAS ignores a core name it does not know (and runs what it detects):
 * the run must not record that the environment chose the core, and it says
 * which name was ignored. */
TEST(strict_an_openblas_core_name_openblas_ignores_is_named_not_recorded) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "OPENBLAS_CORETYPE=garbage %s info --format json 2>/dev/null", gb_test_binary());
    if (!CHECK(gb_test_sh(cmd, out, sizeof out) == 0)) return;
    cJSON *doc = cJSON_Parse(out);
    const cJSON *ob = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "libraries"), "openblas");
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(ob, "core_chosen_by");
    CHECK(cJSON_IsString(by) && strcmp(by->valuestring, "environment") != 0);
    int named = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(doc, "warnings"))
        named |= cJSON_IsString(w) && strstr(w->valuestring, "OPENBLAS_CORETYPE=garbage") &&
                 strstr(w->valuestring, "ignored");
    CHECK(named);
    cJSON_Delete(doc);
    /* a name it takes is still the environment's choice, with no such warning */
    snprintf(cmd, sizeof cmd, "OPENBLAS_CORETYPE=Haswell %s info --format json 2>/dev/null", gb_test_binary());
    if (!CHECK(gb_test_sh(cmd, out, sizeof out) == 0)) return;
    doc = cJSON_Parse(out);
    ob = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "libraries"), "openblas");
    by = cJSON_GetObjectItemCaseSensitive(ob, "core_chosen_by");
    const cJSON *core = cJSON_GetObjectItemCaseSensitive(ob, "core");
    if (cJSON_IsString(core) && !strcmp(core->valuestring, "Haswell")) /* a DYNAMIC_ARCH x86-64 build */
        CHECK(cJSON_IsString(by) && strcmp(by->valuestring, "environment") == 0);
    CHECK(strstr(out, "is not a core this OpenBLAS runs") == NULL);
    cJSON_Delete(doc);
}

/* --param sets an op's param from the command line (#47), as a suite's
 * "params" would: every selected benchmark whose op takes it, OP.KEY for
 * one op; a key no selected op takes, a value the op refuses, a value not
 * written in decimal and an unknown op are refused naming --param as given
 * (never a suite path), and what ran is recorded in the results' suite. */
TEST(strict_param_sets_an_op_param_or_is_refused_naming_it) {
    CHECK(gb("run suites/quick.json --param batch=64 --op batched_matmul --list") == 0 &&
          strstr(out, "batched_matmul/float32/32x32x32/batch=64") && !strstr(out, "batch=1000"));
    CHECK(gb("run suites/quick.json --param fft.kind=c2c --list") == 0 && strstr(out, "fft/float32/") &&
          strstr(out, "kind=c2c") && !strstr(out, "kind=r2c") && strstr(out, "kind=transpose"));
    static const struct { const char *args, *want; } refused[] = {
        {"suites/quick.json --param kind=c2c", "--param kind=c2c: unknown value \"c2c\" (allowed: stride2, transpose) (op slicing; --param OP.kind=c2c sets it for one op)"},
        {"suites/quick.json --op matmul --param kind=c2c", "--param kind=c2c: no op of this run takes a param \"kind\" (matmul: math)"},
        {"suites/quick.json --param spgemm.density=2", "--param spgemm.density=2: expected a value in [1e-09, 1], got 2 (op spgemm)"},
        {"suites/quick.json --param spgemm.density=0x1", "--param spgemm.density=0x1: expected a number, got a string (op spgemm)"},
        {"suites/quick.json --param fft.fast=1", "no op of this run takes a param \"fast\" (fft: kind, planner)"},
        {"suites/quick.json --param nosuch.kind=1", "--param nosuch.kind=1: \"nosuch\" is not an op"},
        {"--op fft --sizes 8 --param kind", "--param: expected KEY=VALUE (e.g. kind=c2c), got \"kind\""},
        {"--op fft --sizes 8 --param =c2c", "--param: expected KEY=VALUE (e.g. kind=c2c), got \"=c2c\""},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char args[512];
        snprintf(args, sizeof args, "run %s --list", refused[i].args);
        int rc = gb(args);
        if (!CHECK(rc == 2 && strstr(out, refused[i].want) && !strstr(out, "benchmarks[")))
            fprintf(stderr, "    %s -> %d: %s\n", args, rc, out);
    }
    const char *path = gb_test_tmp("strict_param.json");
    char args[512];
    snprintf(args, sizeof args, "run --op fft --sizes 16 --dtype float64 --param kind=c2c --backend cpu --no-peak --quiet -o %s",
             path);
    CHECK(gb(args) == 0);
    cJSON *doc = gb_test_load_json(path);
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "cases"), 0);
    const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "suite"), "benchmarks"), 0);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "params"), "kind")) ?: "", "c2c"));
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(b, "params"), "kind")) ?: "", "c2c"));
    cJSON_Delete(doc);
}

/* --reps N measures exactly N timed repetitions a result (#47), shared by
 * the rounds, whatever the suite's own counts and time floors; it and
 * --min-time together are refused. */
TEST(strict_reps_measures_exactly_that_many_repetitions) {
    const char *path = gb_test_tmp("strict_reps.json");
    char args[512];
    snprintf(args, sizeof args, "run --op elementwise --sizes 64 --dtype float32 --reps 7 --rounds 3 --backend cpu "
                                "--no-peak --quiet -o %s", path);
    CHECK(gb(args) == 0);
    cJSON *doc = gb_test_load_json(path);
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "cases"), 0), "results"), 0);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "samples_s")) == 7);
    const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(r, "round_sizes");
    CHECK(cJSON_GetArraySize(rounds) == 3 && cJSON_GetArrayItem(rounds, 0)->valueint == 3 &&
          cJSON_GetArrayItem(rounds, 1)->valueint == 2 && cJSON_GetArrayItem(rounds, 2)->valueint == 2);
    cJSON_Delete(doc);
    CHECK(gb("run --op matmul --sizes 8 --reps 3 --min-time 1s --list") == 2 && strstr(out, "--reps and --min-time"));
    CHECK(gb("run --op matmul --sizes 8 --reps 0 --list") == 2 && strstr(out, "--reps: expected an integer from 1"));
    CHECK(gb("run --op matmul --sizes 8 --reps 1e3 --list") == 2 && strstr(out, "--reps"));
}
