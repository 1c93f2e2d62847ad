/* test_writers.c — the output writers (writer.h) and the typed compare
 * result (compare_result.h): every format is a complete writer found by its
 * name, the CSV and Markdown writers write what their formats say, and a
 * comparison's exit code is a field of the struct that its JSON document
 * repeats. What each format prints for whole reports is checked byte for
 * byte by test_golden.c. */
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
        CHECK(w->name && w->begin && w->end && w->heading && w->para && w->list && w->table && w->gap &&
              w->box_begin && w->box_end);
        /* charts come as a set or not at all */
        CHECK((w->chart != NULL) == (w->charts_begin != NULL) && (w->chart != NULL) == (w->charts_end != NULL));
        CHECK(gb_format_parse(w->name) == n);
        CHECK(gb_writer_find(w->name) == w && gb_writer_index(w) == n);
    }
    CHECK(n == 4);
    CHECK(gb_format_parse("markdown") == GB_FMT_MD);
    CHECK(gb_format_parse("pdf") == -1 && gb_writer_find("pdf") == NULL);
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
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        w->table(f, &t, 0);
        fclose(f);
    }
    gb_table_free(&t);
    return text;
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
