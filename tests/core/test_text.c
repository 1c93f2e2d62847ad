/* test_text.c — text is UTF-8 without NUL wherever it enters
 * (docs/reliability.md, "Text"): every JSON file (suites, results,
 * policies) through the strict reader, every command-line argument, and what
 * gpubench records from the machine (replaced, not refused). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_strict.h"
#include "testlib.h"

static int parse(const char *text, gb_err *e) {
    cJSON *doc = NULL;
    memset(e, 0, sizeof *e);
    int rc = gb_json_parse_strict(text, strlen(text), "t.json", &doc, e);
    cJSON_Delete(doc);
    return rc;
}

/* A file written into a fresh directory; the path in path. */
static void write_file(char *path, size_t len, const char *dir, const char *name, const char *text) {
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

static int sh(char *out, size_t cap, const char *fmt, const char *a, const char *b) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, gb_test_binary(), a, b ? b : "");
    return gb_test_sh(cmd, out, cap);
}

TEST(text_nul_escape_in_a_string_or_key_is_refused_with_its_path) {
    gb_err e;
    /* cJSON ends the string at \u0000: "matmul\u0000x" ran matmul */
    CHECK(parse("{\"benchmarks\": [{\"op\": \"matmul\\u0000x\"}]}", &e) == GB_FAIL);
    CHECK(strstr(e.msg, "t.json: benchmarks[0].op: NUL character (\\u0000) in a string at line 1, column"));
    CHECK(parse("{\"params\": {\"density\\u0000zz\": 0.1}}", &e) == GB_FAIL);
    CHECK(strstr(e.msg, "params.density: NUL character (\\u0000) in a key"));
    /* an escaped backslash then "u0000" is text, not the escape */
    CHECK(parse("{\"name\": \"a\\\\u0000\"}", &e) == GB_OK);
    /* the escapes of other characters still read */
    CHECK(parse("{\"name\": \"\\u00e9\\u20ac\\ud83d\\ude00\\\"\"}", &e) == GB_OK);
}

TEST(text_invalid_utf8_in_a_string_or_key_is_refused_with_its_path) {
    static const char *const bad[] = {
        "\x80",             /* a continuation byte alone */
        "\xc3",             /* a sequence cut short */
        "\xc0\xaf",         /* an overlong '/' */
        "\xe0\x80\xaf",     /* overlong, three bytes */
        "\xed\xa0\x80",     /* a UTF-16 surrogate */
        "\xf4\x90\x80\x80", /* past U+10FFFF */
        "\xf5\x80\x80\x80", /* no such lead byte */
        "\xff",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[128];
        gb_err e;
        snprintf(text, sizeof text, "{\"suite\": {\"name\": \"ab%s\"}}", bad[i]);
        CHECK(parse(text, &e) == GB_FAIL);
        CHECK(strstr(e.msg, "t.json: suite.name: invalid UTF-8 at byte 3 of the string"));
        snprintf(text, sizeof text, "{\"k%s\": 1}", bad[i]);
        CHECK(parse(text, &e) == GB_FAIL && strstr(e.msg, "invalid UTF-8 at byte 2 of the key"));
        CHECK(gb_utf8_invalid_at(bad[i]) == 0);
    }
    gb_err e;
    CHECK(parse("{\"name\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbf\"}", &e) == GB_OK);
    CHECK(gb_utf8_invalid_at("caf\xc3\xa9") == -1);
}

/* Each kind of JSON file refuses both, through its command. */
TEST(text_suite_results_and_policy_refuse_nul_and_invalid_utf8) {
    char dir[] = "/tmp/gb_text_XXXXXX", p[256], out[4096];
    CHECK(mkdtemp(dir) != NULL);
    write_file(p, sizeof p, dir, "nul.json", "{\"name\": \"t\", \"benchmarks\": [{\"op\": \"matmul\\u0000x\", \"sizes\": [8]}]}");
    CHECK(sh(out, sizeof out, "%s validate %s", p, NULL) == 2 && strstr(out, "benchmarks[0].op: NUL character"));
    write_file(p, sizeof p, dir, "u8.json", "{\"name\": \"t\xe9\", \"benchmarks\": [{\"op\": \"matmul\", \"sizes\": [8]}]}");
    CHECK(sh(out, sizeof out, "%s validate %s", p, NULL) == 2 && strstr(out, "name: invalid UTF-8 at byte 2"));

    cJSON *r = gb_test_load_json("tests/data/results_small.json");
    CHECK(r != NULL);
    if (r) {
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(r, "suite"), "name", cJSON_CreateString("s\xff"));
        char *text = cJSON_PrintUnformatted(r);
        write_file(p, sizeof p, dir, "r.json", text ? text : "");
        free(text);
        cJSON_Delete(r);
        CHECK(sh(out, sizeof out, "%s report %s", p, NULL) == 2 && strstr(out, "suite.name: invalid UTF-8"));
    }
    write_file(p, sizeof p, dir, "policy.json", "{\"ops\": {\"fft\": {\"threshold\": \"5%\\u0000\"}}}");
    CHECK(sh(out, sizeof out, "%s compare tests/data/results_small.json tests/data/results_small.json --policy %s", p,
             NULL) == 2 &&
          strstr(out, "ops.fft.threshold: NUL character"));
    snprintf(out, sizeof out, "rm -rf %s", dir);
    gb_test_sh(out, NULL, 0);
}

/* An argument that is not UTF-8 is refused before anything is written (run
 * would record it in context.command_line). */
TEST(text_command_line_argument_not_utf8_is_refused_before_anything_is_written) {
    char dir[] = "/tmp/gb_text_XXXXXX", out[4096], cmd[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s/r\xe9.json", dir);
    CHECK(sh(out, sizeof out, "%s run --op matmul --sizes 8 --backend cpu --out '%s'", cmd, NULL) == 2);
    CHECK(strstr(out, "gpubench: argument 9 is not UTF-8 text (byte "));
    CHECK(access(cmd, F_OK) != 0);
    CHECK(sh(out, sizeof out, "%s merge tests/data/results_small.json -o - --name '%s'", "n\xc0\xaf", NULL) == 2);
    CHECK(strstr(out, "argument 6 is not UTF-8"));
    /* UTF-8 that is not ASCII is text */
    CHECK(sh(out, sizeof out, "%s merge tests/data/results_small.json -o - --name '%s' >/dev/null", "n\xc3\xa9",
             NULL) == 0);
    rmdir(dir);
}

/* What gpubench records from the machine is not refused (the user did not
 * type it): each byte that is not UTF-8 is written as '?', and the file
 * reads back, in gpubench and in Python. */
TEST(text_environment_value_not_utf8_is_recorded_replaced) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "k\xff", "a\xc3\xa9\xe2\x82\xff\xed\xa0\x80z");
    gb_json_scrub(doc);
    gb_err e = {{0}};
    CHECK(gb_json_check_tree(doc, "d", &e) == GB_OK);
    CHECK(cJSON_GetObjectItem(doc, "k?") != NULL);
    CHECK(!strcmp(cJSON_GetObjectItem(doc, "k?")->valuestring, "a\xc3\xa9???" "???z"));
    cJSON_Delete(doc);

    char dir[] = "/tmp/gb_text_XXXXXX", out[8192];
    CHECK(mkdtemp(dir) != NULL);
    int rc = sh(out, sizeof out,
                "CUDA_VISIBLE_DEVICES=\"$(printf 'x\\377y')\" %s run --op elementwise --sizes 64 --backend cpu "
                "--max-time 100ms --min-time 1ms --rounds 1 --warmup 0 --no-peak --quiet --out %s/r.json >/dev/null",
                dir, NULL);
    CHECK(rc == 0);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding=\"utf-8\")); "
             "print(d[\"context\"][\"environment\"][\"CUDA_VISIBLE_DEVICES\"])' %s/r.json",
             dir);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0 && !strcmp(out, "x?y\n"));
    snprintf(cmd, sizeof cmd, "%s report %s/r.json >/dev/null", gb_test_binary(), dir);
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}
