/* test_suite.c — suite parsing and validation: one valid suite, and one test
 * per kind of bad input, each checking the message names file, path, reason. */
#include <string.h>
#include "op.h"
#include "suite.h"
#include "testlib.h"

static int parse(const char *text, gb_suite *s, gb_err *e) {
    return gb_suite_parse(text, "suites/x.json", NULL, s, e);
}

/* Expect a parse failure whose message contains every given fragment. */
static void expect_error(const char *text, const char *frag1, const char *frag2) {
    gb_suite s;
    gb_err e = {{0}};
    int status = parse(text, &s, &e);
    CHECK(status == GB_FAIL);
    CHECK(strstr(e.msg, "suites/x.json: ") == e.msg);
    if (!strstr(e.msg, frag1) || (frag2 && !strstr(e.msg, frag2)))
        CHECK(!"message lacks the expected place or reason" || !e.msg[0]);
    if (status == GB_OK) gb_suite_free(&s);
}

TEST(suite_valid_expands_sizes_and_dtypes) {
    const char *text =
        "{\"name\":\"t\",\"description\":\"d\",\"defaults\":{\"dtypes\":[\"float32\",\"float64\"],"
        "\"warmup\":3,\"min_reps\":4,\"min_time_s\":0.1,\"max_time_s\":2,\"seed\":7},"
        "\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8,[2,3,4]],\"params\":{\"math\":\"tf32\"}},"
        "{\"op\":\"svd\",\"sizes\":[[30,10]],\"dtypes\":[\"float64\"],\"max_time_s\":9}]}";
    gb_suite s;
    gb_err e = {{0}};
    CHECK(parse(text, &s, &e) == GB_OK);
    CHECK(s.count == 5);
    CHECK(strcmp(s.name, "t") == 0);
    CHECK(s.seed == 7);
    CHECK(s.items[0].c.op_id == GB_OP_MATMUL && s.items[0].c.shape[0] == 8 && s.items[0].c.shape[2] == 8);
    CHECK(s.items[0].c.dtype == GB_FLOAT32 && s.items[1].c.dtype == GB_FLOAT64);
    CHECK(s.items[2].c.shape[0] == 2 && s.items[2].c.shape[1] == 3 && s.items[2].c.shape[2] == 4);
    CHECK(strcmp(s.items[2].c.label, "2x3x4") == 0);
    CHECK(s.items[0].c.params.math == GB_MATH_TF32);
    CHECK(s.items[0].budget.warmup == 3 && s.items[0].budget.min_reps == 4);
    CHECK(s.items[0].budget.max_reps == 1000); /* the built-in default */
    CHECK(s.items[4].c.op_id == GB_OP_SVD && s.items[4].c.dtype == GB_FLOAT64);
    CHECK(s.items[4].budget.max_time_s == 9 && s.items[4].c.shape[0] == 30 && s.items[4].c.shape[1] == 10);
    CHECK(s.items[0].c.flops == 2.0 * 8 * 8 * 8);
    gb_suite_free(&s);
}

TEST(suite_filters_select_ops_and_dtypes) {
    const char *text = "{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8,16]},"
                       "{\"op\":\"reduction\",\"sizes\":[8]}]}";
    gb_suite s;
    gb_err e;
    gb_suite_filter f = {.ops = "reduction", .dtypes = "float64", .has_seed = 1, .seed = 99};
    CHECK(gb_suite_parse(text, "x.json", &f, &s, &e) == GB_OK);
    CHECK(s.count == 1);
    CHECK(s.items[0].c.op_id == GB_OP_REDUCTION && s.items[0].c.dtype == GB_FLOAT64);
    CHECK(s.items[0].c.seed == 99);
    gb_suite_free(&s);
    gb_suite_filter bad = {.ops = "matmull"};
    CHECK(gb_suite_parse(text, "x.json", &bad, &s, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "--op") && strstr(e.msg, "matmull"));
}

TEST(suite_negative_size_names_the_place) {
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]},{\"op\":\"fft\",\"sizes\":[8]},"
                 "{\"op\":\"solve\",\"sizes\":[16,-4]}]}",
                 "benchmarks[2].sizes[1]: expected a positive integer, got -4", NULL);
}

TEST(suite_bad_shape_element_names_the_place) {
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[[4,0,4]]}]}",
                 "benchmarks[0].sizes[0][1]", "positive integer");
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[[4,4]]}]}",
                 "benchmarks[0].sizes[0]", "array of 3");
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[2.5]}]}",
                 "benchmarks[0].sizes[0]", "2.5");
}

TEST(suite_typo_key_is_an_error) {
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"size\":[8]}]}",
                 "benchmarks[0]: unknown key \"size\"", NULL);
    expect_error("{\"name\":\"t\",\"defualts\":{},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                 "top level: unknown key \"defualts\"", NULL);
    expect_error("{\"name\":\"t\",\"defaults\":{\"min_rep\":3},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                 "defaults: unknown key \"min_rep\"", NULL);
}

TEST(suite_unknown_op_is_an_error) {
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmull\",\"sizes\":[8]}]}",
                 "benchmarks[0].op: unknown op \"matmull\"", "known: matmul");
}

TEST(suite_unknown_or_bad_param_is_an_error) {
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"spgemm\",\"sizes\":[8],\"params\":{\"densty\":0.1}}]}",
                 "benchmarks[0].params.densty: unknown param", "density");
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"spgemm\",\"sizes\":[8],\"params\":{\"density\":2}}]}",
                 "benchmarks[0].params.density", "got 2");
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8],\"params\":{\"math\":\"fp8\"}}]}",
                 "benchmarks[0].params.math: unknown value \"fp8\"", "tf32");
}

TEST(suite_bad_dtype_and_budget_are_errors) {
    expect_error("{\"name\":\"t\",\"defaults\":{\"dtypes\":[\"float128\"]},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                 "defaults.dtypes[0]: unknown dtype \"float128\"", NULL);
    expect_error("{\"name\":\"t\",\"defaults\":{\"min_reps\":0},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                 "defaults.min_reps", "got 0");
    expect_error("{\"name\":\"t\",\"defaults\":{\"min_time_s\":5,\"max_time_s\":1},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                 "defaults: max_time_s (1) is smaller than min_time_s (5)", NULL);
    expect_error("{\"name\":\"t\",\"defaults\":{\"min_reps\":10,\"max_reps\":5},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                 "defaults: max_reps (5) is smaller than min_reps (10)", NULL);
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8],\"warmup\":\"2\"}]}",
                 "benchmarks[0].warmup: expected an integer, got a string", NULL);
    expect_error("{\"name\":\"t\",\"defaults\":{\"rounds\":0},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                 "defaults.rounds", "got 0");
    expect_error("{\"name\":\"t\",\"defaults\":{\"rounds\":2.5},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                 "defaults.rounds", "integer");
    /* rounds is a property of the whole run, not of one benchmark */
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8],\"rounds\":2}]}",
                 "benchmarks[0]", "rounds");
}

TEST(suite_rounds_default_suite_value_and_override) {
    const char *text = "{\"name\":\"t\",\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}";
    gb_suite s;
    gb_err e = {{0}};
    CHECK(gb_suite_parse(text, "t.json", NULL, &s, &e) == GB_OK);
    CHECK(s.rounds == 3);
    gb_suite_free(&s);
    CHECK(gb_suite_parse("{\"name\":\"t\",\"defaults\":{\"rounds\":5},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}",
                         "t.json", NULL, &s, &e) == GB_OK);
    CHECK(s.rounds == 5);
    gb_suite_free(&s);
    gb_suite_filter f = {0};
    f.rounds = 1;
    CHECK(gb_suite_parse(text, "t.json", &f, &s, &e) == GB_OK);
    CHECK(s.rounds == 1);
    gb_suite_free(&s);
}

TEST(suite_missing_required_keys) {
    expect_error("{\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8]}]}", "missing required key \"name\"", NULL);
    expect_error("{\"name\":\"t\"}", "missing required key \"benchmarks\"", NULL);
    expect_error("{\"name\":\"t\",\"benchmarks\":[]}", "benchmarks: expected a non-empty array", NULL);
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"sizes\":[8]}]}", "benchmarks[0]: missing required key \"op\"", NULL);
    expect_error("{\"name\":\"t\",\"benchmarks\":[{\"op\":\"fft\",\"sizes\":[]}]}", "benchmarks[0].sizes: expected a non-empty array", NULL);
}

TEST(suite_malformed_json_gives_line_and_column) {
    expect_error("{\"name\":\"t\",\n\"benchmarks\":[{\"op\":\"matmul\" \"sizes\":[8]}]}", "line 2, column",
                 "malformed JSON");
    expect_error("", "malformed JSON", NULL);
}

TEST(suite_shipped_suites_are_valid) {
    static const char *const files[] = {"suites/quick.json", "suites/default.json"};
    for (int i = 0; i < 2; i++) {
        gb_suite s;
        gb_err e = {{0}};
        int ok = gb_suite_load(files[i], NULL, &s, &e) == GB_OK;
        if (!ok) CHECK(!e.msg[0]);
        CHECK(ok);
        if (!ok) continue;
        /* every single-device op of the catalogue is in both shipped suites
         * (the multi-GPU routines are suites/multigpu.json's: test_multigpu.c) */
        unsigned seen = 0, want = 0;
        for (size_t k = 0; k < s.count; k++) seen |= 1u << s.items[k].c.op_id;
        for (int op = 0; op < GB_OP_COUNT; op++)
            if (!gb_ops[op]->multi_device) want |= 1u << op;
        CHECK(seen == want);
        gb_suite_free(&s);
    }
}

/* ---- command-line overrides (gpubench run --sizes/--max-time/--filter) ---- */

static const char *const override_suite =
    "{\"name\":\"t\",\"defaults\":{\"max_time_s\":5,\"warmup\":2},"
    "\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[8,16],\"params\":{\"math\":\"tf32\"},\"max_time_s\":9},"
    "{\"op\":\"matmul\",\"sizes\":[8],\"dtypes\":[\"float64\"]},"
    "{\"op\":\"fft\",\"sizes\":[64],\"warmup\":7}]}";

TEST(suite_overrides_replace_sizes_and_budget_everywhere) {
    gb_suite_filter f = {.sizes = "32,48", .max_time_s = 0.25, .min_time_s = 0.05, .has_warmup = 1, .warmup = 0};
    gb_suite s;
    gb_err e = {{0}};
    CHECK(gb_suite_parse(override_suite, "suites/x.json", &f, &s, &e) == GB_OK);
    if (s.count == 0) return;
    /* matmul tf32: 2 sizes x 2 dtypes, matmul float64: 2, fft: 2 x 2 */
    CHECK(s.count == 10);
    for (size_t i = 0; i < s.count; i++) {
        CHECK(s.items[i].c.shape[0] == 32 || s.items[i].c.shape[0] == 48);
        /* the command line wins over the benchmark's own max_time_s and warmup */
        CHECK(s.items[i].budget.max_time_s == 0.25 && s.items[i].budget.min_time_s == 0.05);
        CHECK(s.items[i].budget.warmup == 0);
    }
    /* and the results' "suite" records what ran */
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(s.doc, "defaults");
    CHECK(cJSON_GetObjectItemCaseSensitive(d, "max_time_s")->valuedouble == 0.25);
    gb_suite_free(&s);
}

TEST(suite_override_values_are_validated_as_in_a_file) {
    gb_suite_filter f = {.sizes = "8,10x20"}; /* matmul takes n or three dimensions */
    gb_suite s;
    gb_err e = {{0}};
    CHECK(gb_suite_parse(override_suite, "suites/x.json", &f, &s, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "--sizes: \"10x20\" is not a size of op matmul") != NULL); /* as given (#47) */
    gb_suite_filter g = {.sizes = "8,,x"};
    CHECK(gb_suite_parse(override_suite, "suites/x.json", &g, &s, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "--sizes") && strstr(e.msg, "8,,x"));
    gb_suite_filter h = {.min_time_s = 9}; /* above the suite's max_time_s 5 */
    CHECK(gb_suite_parse(override_suite, "suites/x.json", &h, &s, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "max_time_s") && strstr(e.msg, "min_time_s"));
}

TEST(suite_filter_regex_on_case_names) {
    gb_suite_filter f = {.name_regex = "^matmul/float32/.*math=tf32"};
    gb_suite s;
    gb_err e = {{0}};
    CHECK(gb_suite_parse(override_suite, "suites/x.json", &f, &s, &e) == GB_OK);
    CHECK(s.count == 2);
    char name[256];
    if (s.count == 2) {
        gb_case_name(&s.items[1].c, name, sizeof name);
        CHECK(strcmp(name, "matmul/float32/16x16x16/math=tf32") == 0);
    }
    gb_suite_free(&s);
    gb_suite_filter bad = {.name_regex = "matmul("};
    CHECK(gb_suite_parse(override_suite, "suites/x.json", &bad, &s, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "--filter") && strstr(e.msg, "matmul("));
}

TEST(suite_from_args_is_a_one_off_suite) {
    gb_suite_filter f = {.ops = "matmul,svd", .dtypes = "float64", .sizes = "64,128"};
    gb_suite s;
    gb_err e = {{0}};
    CHECK(gb_suite_from_args(&f, &s, &e) == GB_OK);
    CHECK(s.count == 4 && strcmp(s.name, "matmul+svd") == 0);
    if (s.count == 4) CHECK(s.items[3].c.op_id == GB_OP_SVD && s.items[3].c.dtype == GB_FLOAT64);
    gb_suite_free(&s);
    gb_suite_filter no_sizes = {.ops = "matmul"};
    CHECK(gb_suite_from_args(&no_sizes, &s, &e) == GB_FAIL && strstr(e.msg, "--sizes"));
    gb_suite_filter bad_op = {.ops = "matmull", .sizes = "8"};
    CHECK(gb_suite_from_args(&bad_op, &s, &e) == GB_FAIL && strstr(e.msg, "matmull"));
}
