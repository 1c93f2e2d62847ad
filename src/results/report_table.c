/* report_table.c — table model and its terminal / Markdown / HTML renderers. */
#include "report_table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void gb_table_init(gb_table *t) { memset(t, 0, sizeof *t); }

void gb_table_free(gb_table *t) {
    for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++) free(t->cells[i].text);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

int gb_table_col(gb_table *t, const char *head, gb_align align) {
    if (t->ncols >= GB_TABLE_MAX_COLS || t->nrows) return -1;
    snprintf(t->head[t->ncols], GB_CELL_LEN, "%s", head);
    t->align[t->ncols] = align;
    return t->ncols++;
}

long gb_table_row(gb_table *t) {
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        gb_cell *c = realloc(t->cells, cap * (size_t)t->ncols * sizeof *c);
        if (!c) return -1;
        t->cells = c;
        t->cap = cap;
    }
    memset(&t->cells[t->nrows * (size_t)t->ncols], 0, (size_t)t->ncols * sizeof(gb_cell));
    return (long)t->nrows++;
}

void gb_table_set(gb_table *t, long row, int col, gb_cell_class cls, const char *fmt, ...) {
    if (row < 0 || (size_t)row >= t->nrows || col < 0 || col >= t->ncols) return;
    gb_cell *c = &t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!text) return;  /* out of memory: the cell stays as it was */
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    free(c->text);
    c->text = text;
    c->cls = cls;
}

size_t gb_utf8_width(const char *s) {
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) w++;
    return w;
}

static const gb_cell *cell(const gb_table *t, size_t r, int c) {
    return &t->cells[r * (size_t)t->ncols + (size_t)c];
}
/* Never NULL ("" when empty), so renderers need not check. */
static const char *cell_text(const gb_cell *x) { return x->text ? x->text : ""; }

static void pad(FILE *out, size_t n) {
    while (n--) fputc(' ', out);
}

static const char *ansi(gb_cell_class cls) {
    switch (cls) {
    case GB_CELL_GOOD: return "\033[32m";
    case GB_CELL_WARN: return "\033[33m";
    case GB_CELL_BAD: return "\033[1;31m";
    default: return "";
    }
}

/* Pad by display width first, then wrap the text in colour codes, so that
 * escape bytes never count towards the column width. */
static void term_cell(FILE *out, const char *text, gb_cell_class cls, size_t width, gb_align a,
                      int color) {
    size_t w = gb_utf8_width(text);
    size_t fill = width > w ? width - w : 0;
    if (a == GB_ALIGN_RIGHT) pad(out, fill);
    if (color && cls != GB_CELL_PLAIN && *text)
        fprintf(out, "%s%s\033[0m", ansi(cls), text);
    else
        fputs(text, out);
    if (a != GB_ALIGN_RIGHT) pad(out, fill);
}

/* The last shown column's start and the width left to it when the table
 * wraps it (0: it does not). */
static size_t wrap_room(const gb_table *t, const size_t *width, int last, size_t *start) {
    *start = 0;
    int shown = 0;
    for (int c = 0; c < last; c++)
        if (!t->hidden[c]) *start += width[c] + (shown++ ? 2 : 0);
    if (shown) *start += 2;
    if (!t->wrap || last < 0 || t->align[last] == GB_ALIGN_RIGHT || *start + 20 > t->wrap) return 0;
    return t->wrap - *start;
}

static void term_widths(const gb_table *t, size_t *width) {
    int last = -1;
    for (int c = 0; c < t->ncols; c++) {
        if (!t->hidden[c]) last = c;
        width[c] = gb_utf8_width(t->head[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t w = gb_utf8_width(cell_text(cell(t, r, c)));
            if (w > width[c]) width[c] = w;
        }
    }
    size_t start, room = last >= 0 ? wrap_room(t, width, last, &start) : 0;
    if (room && width[last] > room) width[last] = room;
}

void gb_wrap_text(FILE *out, const char *s, size_t width, size_t col, size_t indent) {
    size_t start = col;
    while (*s) {
        while (*s == ' ') s++;
        size_t n = strcspn(s, " ");
        if (!n) break;
        char word[1024];
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), s);
        size_t w = gb_utf8_width(word);
        if (col > start && col + 1 + w > width) {
            fputc('\n', out);
            pad(out, indent);
            col = start = indent;
        } else if (col > start) {
            fputc(' ', out);
            col++;
        }
        fwrite(s, 1, n, out);
        col += w;
        s += n;
    }
}

size_t gb_table_term_width(const gb_table *t) {
    size_t width[GB_TABLE_MAX_COLS], total = 0;
    int shown = 0;
    term_widths(t, width);
    for (int c = 0; c < t->ncols; c++)
        if (!t->hidden[c]) total += width[c] + (shown++ ? 2 : 0);
    return total;
}

int gb_table_fit(gb_table *t, size_t max, const int *drop, int ndrop) {
    int hid = 0;
    for (int i = 0; i < ndrop && gb_table_term_width(t) > max; i++)
        if (drop[i] >= 0 && drop[i] < t->ncols && !t->hidden[drop[i]]) {
            t->hidden[drop[i]] = 1;
            hid++;
        }
    return hid;
}

void gb_table_print_term(const gb_table *t, int color, FILE *out) {
    size_t width[GB_TABLE_MAX_COLS];
    term_widths(t, width);
    int last = -1;
    for (int c = 0; c < t->ncols; c++)
        if (!t->hidden[c]) last = c;
    /* The last column is not padded on the right when left-aligned: no trailing blanks. */
    int last_left = last >= 0 && t->align[last] != GB_ALIGN_RIGHT;
    int first = 1;
    for (int c = 0; c < t->ncols; c++) {
        if (t->hidden[c]) continue;
        if (!first) fputs("  ", out);
        first = 0;
        term_cell(out, t->head[c], GB_CELL_PLAIN, c == last && last_left ? 0 : width[c], t->align[c], 0);
    }
    fputc('\n', out);
    for (size_t i = 0; i < gb_table_term_width(t); i++) fputs("─", out);
    fputc('\n', out);
    for (size_t r = 0; r < t->nrows; r++) {
        first = 1;
        for (int c = 0; c < t->ncols; c++) {
            if (t->hidden[c]) continue;
            if (!first) fputs("  ", out);
            first = 0;
            const gb_cell *x = cell(t, r, c);
            size_t start, room = c == last ? wrap_room(t, width, last, &start) : 0;
            if (room && gb_utf8_width(cell_text(x)) > room && !(color && x->cls != GB_CELL_PLAIN))
                gb_wrap_text(out, cell_text(x), start + room, start, start);
            else
                term_cell(out, cell_text(x), x->cls, c == last && last_left ? 0 : width[c], t->align[c], color);
        }
        fputc('\n', out);
    }
}

void gb_md_text(const char *s, FILE *out) {
    for (; *s; s++) {
        if (strchr("|*_`<>[]\\", *s)) fputc('\\', out);
        if (*s == '\n') { fputc(' ', out); continue; }
        fputc(*s, out);
    }
}

void gb_table_print_md(const gb_table *t, FILE *out) {
    fputc('|', out);
    for (int c = 0; c < t->ncols; c++) {
        fputc(' ', out);
        gb_md_text(t->head[c], out);
        fputs(" |", out);
    }
    fputs("\n|", out);
    for (int c = 0; c < t->ncols; c++) fputs(t->align[c] == GB_ALIGN_RIGHT ? " ---: |" : " --- |", out);
    fputc('\n', out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputc('|', out);
        for (int c = 0; c < t->ncols; c++) {
            const gb_cell *x = cell(t, r, c);
            fputc(' ', out);
            /* Bold failures so they stand out on GitHub, where colour is not available. */
            if (x->cls == GB_CELL_BAD && *cell_text(x)) fputs("**", out);
            gb_md_text(cell_text(x), out);
            if (x->cls == GB_CELL_BAD && *cell_text(x)) fputs("**", out);
            fputs(" |", out);
        }
        fputc('\n', out);
    }
}

void gb_html_text(const char *s, FILE *out) {
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

static const char *html_class(gb_cell_class cls) {
    switch (cls) {
    case GB_CELL_GOOD: return "good";
    case GB_CELL_WARN: return "warn";
    case GB_CELL_BAD: return "bad";
    default: return NULL;
    }
}

void gb_table_print_html(const gb_table *t, FILE *out) {
    fputs("<div class=\"scroll\"><table>\n<thead><tr>", out);
    for (int c = 0; c < t->ncols; c++) {
        fputs(t->align[c] == GB_ALIGN_RIGHT ? "<th class=\"num\">" : "<th>", out);
        gb_html_text(t->head[c], out);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs("<tr>", out);
        for (int c = 0; c < t->ncols; c++) {
            const gb_cell *x = cell(t, r, c);
            const char *k = html_class(x->cls);
            int num = t->align[c] == GB_ALIGN_RIGHT;
            if (t->align[c] == GB_ALIGN_TEXT)
                fputs("<td class=\"text\">", out);
            else if (k || num)
                fprintf(out, "<td class=\"%s%s%s\">", num ? "num" : "", (k && num) ? " " : "", k ? k : "");
            else
                fputs("<td>", out);
            gb_html_text(cell_text(x), out);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody>\n</table></div>\n", out);
}

void gb_csv_field(const char *s, FILE *out) {
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}
