/* test_writers.c — the output writers (writer.h) and the typed compare
 * result (compare_result.h): every format is a complete writer found by its
 * name, the CSV and Markdown writers write what their formats say, and a
 * comparison's exit code is a field of the struct that its JSON document
 * repeats. Then what the writers give compare and the fleet report: lines
 * of a role, marked text, and tables with compare's and the fleet's own look
 * (fixed widths, gaps, no rule, notes, the compact Markdown align row,
 * tagged numbers) in the terminal's and Markdown's bytes, and a comparison
 * written through every writer (HTML a whole page, CSV without a mark).
 * What each format prints for whole documents is checked byte for byte by
 * test_golden.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report.h"
#include "results_model.h"
#include "testlib.h"
#include "writer.h"

TEST(writers_every_format_is_a_whole_writer_found_by_its_name) {
    int n = 0;
    for (const gb_writer *w; (w = gb_writer_at(n)) != NULL; n++) {
        CHECK(w->name && w->begin && w->end && w->heading && w->para && w->list && w->table && w->lines &&
              w->gap && w->box_begin && w->box_end);
        /* charts come as a set or not at all */
        CHECK((w->chart != NULL) == (w->charts_begin != NULL) && (w->chart != NULL) == (w->charts_end != NULL));
        CHECK(gb_format_parse(w->name) == n);
        CHECK(gb_writer_find(w->name) == w && gb_writer_index(w) == n);
    }
    CHECK(n == 4);
    CHECK(gb_format_parse("markdown") == GB_FMT_MD);
    CHECK(gb_format_parse("pdf") == -1 && gb_writer_find("pdf") == NULL);
}

/* What writer w writes for table t (freed here). */
static char *table_through(const gb_writer *w, gb_table *t) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        w->table(f, t, 0);
        fclose(f);
    }
    gb_table_free(t);
    return text;
}

static char *write_table(const gb_writer *w, const char *eol) {
    gb_table t;
    gb_table_init(&t);
    t.eol = eol;
    gb_table_col(&t, "name", GB_ALIGN_LEFT);
    gb_table_col(&t, "note", GB_ALIGN_RIGHT);
    long r = gb_table_row(&t);
    gb_table_set(&t, r, 0, GB_CELL_PLAIN, "a,b");
    gb_table_set(&t, r, 1, GB_CELL_BAD, "say \"hi\"");
    gb_table_row(&t); /* an empty row: empty fields */
    return table_through(w, &t);
}

TEST(writer_csv_quotes_fields_and_ends_lines_as_the_table_says) {
    char *crlf = write_table(&gb_writer_csv, NULL), *lf = write_table(&gb_writer_csv, "\n");
    CHECK(crlf && !strcmp(crlf, "name,note\r\n\"a,b\",\"say \"\"hi\"\"\"\r\n,\r\n"));
    CHECK(lf && !strcmp(lf, "name,note\n\"a,b\",\"say \"\"hi\"\"\"\n,\n"));
    free(crlf);
    free(lf);
    /* records, not a document: no headings or paragraphs */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gb_writer_csv.heading(f, 1, "title", 0);
    gb_writer_csv.para(f, "words", 0);
    fclose(f);
    CHECK(gb_writer_csv.records && text && len == 0);
    free(text);
}

TEST(writer_md_escapes_and_puts_sections_one_level_below_the_title) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gb_writer_md.heading(f, 1, "gpubench results", 0);
    gb_writer_md.heading(f, 2, "matmul", 0);
    gb_writer_md.para(f, "a | b", 1);
    fclose(f);
    CHECK(text && !strcmp(text, "## gpubench results\n\n### matmul\n\n_a \\| b_\n\n"));
    free(text);
    char *md = write_table(&gb_writer_md, NULL);
    CHECK(md && !strcmp(md, "| name | note |\n| --- | ---: |\n| a,b | **say \"hi\"** |\n|  |  |\n\n"));
    free(md);
}

/* The comparison of two fixtures: the struct's exit code, and its JSON's. */
static void exit_codes(const char *cur, int *field, int *json, int *has_error) {
    gb_results b, c;
    gb_err e = {{0}};
    *field = *json = *has_error = -1;
    if (gb_results_load("tests/data/compare/base.json", &b, &e) != GB_OK) return;
    if (gb_results_load(cur, &c, &e) != GB_OK) {
        gb_results_free(&b);
        return;
    }
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = GB_DEFAULT_REQUIRE_PRESENT};
    const gb_results *bp = &b, *cp = &c;
    const char *bn = "base.json";
    gb_compare_result *r = gb_compare_judge_runs(&bp, &bn, 1, &cp, &cur, 1, &o);
    if (r) {
        *field = r->exit_code;
        *has_error = *r->error != '\0';
        cJSON *doc = gb_compare_result_json(r);
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(doc, "exit_code");
        *json = cJSON_IsNumber(x) ? x->valueint : -2;
        cJSON_Delete(doc);
    }
    gb_compare_result_free(r);
    gb_results_free(&b);
    gb_results_free(&c);
}

TEST(compare_exit_code_is_a_field_of_the_result_and_the_json_repeats_it) {
    int field, json, err;
    exit_codes("tests/data/compare/same.json", &field, &json, &err);
    CHECK(field == 0 && json == 0 && err == 0);
    exit_codes("tests/data/compare/slower10.json", &field, &json, &err);
    CHECK(field == 1 && json == 1 && err == 0);
    exit_codes("tests/data/compare/few_cur.json", &field, &json, &err); /* too little matched */
    CHECK(field == 2 && json == 2 && err == 1);
}

/* Every role, once, through writer w. */
static char *write_lines(const gb_writer *w) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    const char *one[1] = {"a " GB_MK_CODE "b_c" GB_MK_CODE " " GB_MK_STRONG "d" GB_MK_STRONG GB_MK_DASH "e"};
    const char *two[2] = {"x", "y"};
    for (int role = GB_LINE_TITLE; role <= GB_LINE_ITEM; role++) w->lines(f, (gb_line_role)role, one, 1);
    w->lines(f, GB_LINE_WARNING, two, 2);
    fclose(f);
    return text;
}

TEST(writer_lines_each_role_reads_as_its_format_says) {
    char *term = write_lines(&gb_writer_term), *md = write_lines(&gb_writer_md);
    /* title left out; heading; label with a colon; caption; text; field; item; warnings */
    CHECK(term && !strcmp(term, "a b_c d  e\n"
                                "a b_c d  e:\n"
                                "a b_c d  e\n"
                                "a b_c d  e\n"
                                "a b_c d  e\n"
                                "  a b_c d  e\n"
                                "!! WARNING: x\n!! WARNING: y\n"));
    /* Markdown as it is (no escaping of b_c), the marks as ` and **, the dash as " — " */
    CHECK(md && !strcmp(md, "## a `b_c` **d** — e\n\n"
                            "### a `b_c` **d** — e\n\n"
                            "### a `b_c` **d** — e\n\n"
                            "**a `b_c` **d** — e\n**\n\n"
                            "a `b_c` **d** — e\n"
                            "- a `b_c` **d** — e\n"
                            "- a `b_c` **d** — e\n"
                            "> [!WARNING]\n> - x\n> - y\n"));
    free(term);
    free(md);
}

/* A table in compare's look: marked cells, a fixed-width name column, one
 * blank before the number, two before the verdict, no rule, a note. */
static char *write_look(const gb_writer *w, int compact, gb_align num) {
    gb_table t;
    gb_table_init(&t);
    t.markup = t.no_rule = 1;
    t.md_compact = compact;
    gb_table_col(&t, "name", GB_ALIGN_LEFT);
    gb_table_col(&t, "n", num);
    gb_table_col(&t, "v", GB_ALIGN_LEFT);
    t.width[0] = 4;
    t.width[1] = 5;
    t.gap[1] = 1;
    long r = gb_table_row(&t);
    gb_table_set(&t, r, 0, GB_CELL_PLAIN, GB_MK_CODE "ab" GB_MK_CODE);
    gb_table_set(&t, r, 1, GB_CELL_PLAIN, "1.5");
    gb_table_set(&t, r, 2, GB_CELL_PLAIN, GB_MK_STRONG "BAD" GB_MK_STRONG);
    gb_table_note(&t, r, 2, "why");
    r = gb_table_row(&t);
    gb_table_set(&t, r, 0, GB_CELL_PLAIN, "toolong"); /* wider than its column: pushes its own row on */
    gb_table_set(&t, r, 1, GB_CELL_PLAIN, "123456");
    gb_table_set(&t, r, 2, GB_CELL_PLAIN, "ok");
    gb_table_note(&t, r, 2, ""); /* "": no note */
    return table_through(w, &t);
}

TEST(writer_table_keeps_fixed_widths_gaps_notes_and_marks_per_format) {
    char *term = write_look(&gb_writer_term, 0, GB_ALIGN_RIGHT);
    CHECK(term && !strcmp(term, "name     n  v\n"
                                "ab     1.5  BAD (why)\n"
                                "toolong 123456  ok\n"));
    char *md = write_look(&gb_writer_md, 0, GB_ALIGN_RIGHT);
    CHECK(md && !strcmp(md, "| name | n | v |\n| --- | ---: | --- |\n"
                            "| `ab` | 1.5 | **BAD**<br>why |\n| toolong | 123456 | ok |\n\n"));
    /* tagged numbers: left on a terminal, right in Markdown; the compact align row */
    char *tterm = write_look(&gb_writer_term, 1, GB_ALIGN_TAGGED), *tmd = write_look(&gb_writer_md, 1, GB_ALIGN_TAGGED);
    CHECK(tterm && !strcmp(tterm, "name n      v\n"
                                  "ab   1.5    BAD (why)\n"
                                  "toolong 123456  ok\n"));
    CHECK(tmd && strstr(tmd, "| name | n | v |\n|---|---:|---|\n") == tmd);
    char *html = write_look(&gb_writer_html, 0, GB_ALIGN_RIGHT), *csv = write_look(&gb_writer_csv, 0, GB_ALIGN_RIGHT);
    CHECK(html && strstr(html, "<td><code>ab</code></td>") && strstr(html, "<td><strong>BAD</strong><br>why</td>"));
    CHECK(csv && !strcmp(csv, "name,n,v\r\nab,1.5,BAD (why)\r\ntoolong,123456,ok\r\n"));
    free(term);
    free(md);
    free(tterm);
    free(tmd);
    free(html);
    free(csv);
}

/* base.json against slower10.json (regressions), written through w. */
static char *compare_through(const gb_writer *w) {
    gb_results b, c;
    gb_err e = {{0}};
    if (gb_results_load("tests/data/compare/base.json", &b, &e) != GB_OK) return NULL;
    if (gb_results_load("tests/data/compare/slower10.json", &c, &e) != GB_OK) {
        gb_results_free(&b);
        return NULL;
    }
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = GB_DEFAULT_REQUIRE_PRESENT};
    const gb_results *bp = &b, *cp = &c;
    const char *bn = "base.json", *cn = "slower10.json";
    gb_compare_result *r = gb_compare_judge_runs(&bp, &bn, 1, &cp, &cn, 1, &o);
    char *text = NULL;
    size_t len = 0;
    FILE *f = r ? open_memstream(&text, &len) : NULL;
    if (f) {
        gb_compare_render(r, w, f);
        fclose(f);
    }
    gb_compare_result_free(r);
    gb_results_free(&b);
    gb_results_free(&c);
    return text;
}

TEST(compare_writes_through_every_writer_html_a_whole_page_and_no_mark_left) {
    for (int i = 0; gb_writer_at(i); i++) {
        char *s = compare_through(gb_writer_at(i));
        CHECK(s && *s && !strpbrk(s, GB_MK_CODE GB_MK_STRONG GB_MK_DASH));
        free(s);
    }
    char *html = compare_through(&gb_writer_html);
    CHECK(html && strstr(html, "<!DOCTYPE html>") == html && strstr(html, "<title>gpubench compare</title>"));
    CHECK(html && strstr(html, "<strong>REGRESSION</strong>") && strstr(html, "<code>base.json</code>"));
    CHECK(html && !strcmp(html + strlen(html) - strlen("</html>\n"), "</html>\n"));
    char *md = compare_through(&gb_writer_md), *term = compare_through(&gb_writer_term);
    CHECK(md && strstr(md, "**REGRESSION**") && strstr(md, "- baseline `base.json`"));
    CHECK(term && !strstr(term, "**") && strstr(term, "\nResult: FAIL\n"));
    free(html);
    free(md);
    free(term);
}

/* `compare --format html` and `report --fleet --format html`: the HTML
 * writer's page, which came with the writers; the exit codes stay compare's
 * and the report's. */
TEST(cli_compare_and_fleet_write_html_pages) {
    static char out[1 << 16];
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s compare tests/data/compare/base.json tests/data/compare/slower10.json --format html",
             gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 1); /* a regression: exit 1, as in every format */
    CHECK(strstr(out, "<!DOCTYPE html>") == out && strstr(out, "<title>gpubench compare</title>"));
    CHECK(strstr(out, "<p><strong>Summary: ") && strstr(out, "</html>\n"));
    snprintf(cmd, sizeof cmd, "%s report --fleet tests/data/fleet/cpu_a.json tests/data/fleet/cpu_b.json --format html",
             gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "<!DOCTYPE html>") == out && strstr(out, "<h2>Fleet: 2 columns"));
    CHECK(strstr(out, "<th class=\"num\">spread</th>") && strstr(out, "</html>\n"));
    snprintf(cmd, sizeof cmd, "%s report --fleet tests/data/fleet/cpu_a.json --format pdf", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && strstr(out, "not a fleet format"));
}
