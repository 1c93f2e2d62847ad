/* writer_csv.c — the CSV writer (writer.h): records, not a document. Only
 * tables are written, each row a line of RFC 4180 fields (quoted when they
 * hold , " or a line break) ended by CRLF, the head first; headings,
 * paragraphs and lists are data a spreadsheet has no column for, and are
 * left out. */
#include <stdlib.h>

#include "writer.h"

static void heading(FILE *out, int level, const char *s, int color) { (void)out, (void)level, (void)s, (void)color; }
static void para(FILE *out, const char *s, int em) { (void)out, (void)s, (void)em; }
static void list(FILE *out, const char *const *items, int n, int numbered) {
    (void)out, (void)items, (void)n, (void)numbered;
}
static void lines(FILE *out, gb_line_role role, const char *const *items, int n) {
    (void)out, (void)role, (void)items, (void)n;
}
static void begin(FILE *out, const char *title) { (void)out, (void)title; }
static void box_begin(FILE *out, const char *cls) { (void)out, (void)cls; }

/* A field of a table of marked text (report_table.h): as a terminal shows
 * it, marks dropped, a note in parentheses after it. */
static void marked_field(const char *s, const char *note, FILE *out) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    gb_marked_term(s, f);
    if (note) {
        fputs(" (", f);
        gb_marked_term(note, f);
        fputc(')', f);
    }
    if (fclose(f) == 0) gb_csv_field(buf, out);
    free(buf);
}

/* t->eol ends each line: CRLF (RFC 4180) unless the table says otherwise. */
static void table(FILE *out, const gb_table *t, int color) {
    (void)color;
    const char *eol = t->eol ? t->eol : "\r\n";
    for (int c = 0; c < t->ncols; c++) {
        if (c) fputc(',', out);
        if (t->markup) marked_field(t->head[c], NULL, out);
        else gb_csv_field(t->head[c], out);
    }
    fputs(eol, out);
    for (size_t r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            const gb_cell *x = &t->cells[r * (size_t)t->ncols + (size_t)c];
            if (c) fputc(',', out);
            if (t->markup) marked_field(x->text ? x->text : "", x->note, out);
            else gb_csv_field(x->text ? x->text : "", out);
        }
        fputs(eol, out);
    }
}

static void nothing(FILE *out) { (void)out; }

const gb_writer gb_writer_csv = {
    .name = "csv", .records = 1, .begin = begin, .end = nothing, .heading = heading, .para = para,
    .list = list, .table = table, .lines = lines, .gap = nothing, .box_begin = box_begin, .box_end = nothing,
};
