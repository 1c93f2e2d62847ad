/* writer_term.c — the terminal writer (writer.h): running text broken at
 * GB_REPORT_COLUMNS, tables padded to their widest cell, bold headings and
 * coloured cells when asked (gb_report_want_color), a blank line between
 * blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "format.h"
#include "writer.h"

static void heading(FILE *out, int level, const char *s, int color) {
    (void)level;
    fprintf(out, "%s%s%s\n", color ? "\033[1m" : "", s, color ? "\033[0m" : "");
}

static void para(FILE *out, const char *s, int em) {
    (void)em;
    gb_wrap_text(out, s, GB_REPORT_COLUMNS, 0, 0);
    fputc('\n', out);
}

static void list(FILE *out, const char *const *items, int n, int numbered) {
    for (int i = 0; i < n; i++) {
        char prefix[32] = "", first[2048];
        if (numbered) gb_superscript(prefix, sizeof prefix, i + 1);
        snprintf(first, sizeof first, "  %s %s", *prefix ? prefix : "-", items[i]);
        gb_wrap_text(out, first, GB_REPORT_COLUMNS, 0, 4);
        fputc('\n', out);
    }
}

static void table(FILE *out, const gb_table *t, int color) { gb_table_print_term(t, color, out); }

static void gap(FILE *out) { fputc('\n', out); }

static void lines(FILE *out, gb_line_role role, const char *const *items, int n) {
    if (role == GB_LINE_TITLE) return; /* the command line that printed it says what it is */
    static const char *const prefix[GB_LINE_WARNING + 1] = {
        [GB_LINE_ITEM] = "  ", [GB_LINE_WARNING] = "!! WARNING: ",
    };
    /* a message a line: wrapped to GB_REPORT_COLUMNS on a terminal (its
     * continuations indented), whole when piped (a log, grep) */
    int wrap = isatty(fileno(out));
    for (int i = 0; i < n; i++) {
        const char *pre = prefix[role] ? prefix[role] : "";
        fputs(pre, out);
        char *text = NULL;
        size_t len = 0;
        FILE *m = wrap ? open_memstream(&text, &len) : NULL;
        if (m) {
            gb_marked_term(items[i], m);
            fclose(m);
        }
        if (m && text) gb_wrap_text(out, text, GB_REPORT_COLUMNS, strlen(pre), strlen(pre) + 4);
        else gb_marked_term(items[i], out);
        free(text);
        fputs(role == GB_LINE_LABEL ? ":\n" : "\n", out);
    }
}

static void begin(FILE *out, const char *title) { (void)out, (void)title; }
static void box_begin(FILE *out, const char *cls) { (void)out, (void)cls; }

static void nothing(FILE *out) { (void)out; }

const gb_writer gb_writer_term = {
    .name = "table", .terminal = 1, .begin = begin, .end = nothing, .heading = heading, .para = para,
    .list = list, .table = table, .lines = lines, .gap = gap, .box_begin = box_begin, .box_end = nothing,
};
