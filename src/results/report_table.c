/* report_table.c — table model and its terminal / Markdown / HTML renderers. */
#include "report_table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void gb_table_init(gb_table *t) { memset(t, 0, sizeof *t); }

void gb_table_free(gb_table *t) {
    for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++) {
        free(t->cells[i].text);
        free(t->cells[i].note);
    }
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

void gb_table_note(gb_table *t, long row, int col, const char *note) {
    if (row < 0 || (size_t)row >= t->nrows || col < 0 || col >= t->ncols || !*note) return;
    gb_cell *c = &t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
    char *copy = strdup(note);
    if (!copy) return; /* out of memory: the cell stays without one */
    free(c->note);
    c->note = copy;
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

size_t gb_marked_width(const char *s) {
    size_t w = 0;
    for (; *s; s++) {
        if (*s == *GB_MK_DASH) w += 2;
        else if (*s != *GB_MK_CODE && *s != *GB_MK_STRONG && ((unsigned char)*s & 0xC0) != 0x80) w++;
    }
    return w;
}

void gb_marked_term(const char *s, FILE *out) {
    for (; *s; s++) {
        if (*s == *GB_MK_DASH) fputs("  ", out);
        else if (*s != *GB_MK_CODE && *s != *GB_MK_STRONG) fputc(*s, out);
    }
}

void gb_marked_md(const char *s, FILE *out) {
    for (; *s; s++) {
        if (*s == *GB_MK_DASH) fputs(" — ", out);
        else if (*s == *GB_MK_CODE) fputc('`', out);
        else if (*s == *GB_MK_STRONG) fputs("**", out);
        else fputc(*s, out);
    }
}

void gb_marked_html(const char *s, FILE *out) {
    int code = 0, strong = 0;
    for (; *s; s++) {
        size_t n = strcspn(s, GB_MK_CODE GB_MK_STRONG GB_MK_DASH);
        if (n) {
            char part[1024];
            for (size_t off = 0; off < n; off += sizeof part - 1) {
                size_t k = n - off < sizeof part - 1 ? n - off : sizeof part - 1;
                memcpy(part, s + off, k);
                part[k] = 0;
                gb_html_text(part, out);
            }
            s += n;
            if (!*s) break;
        }
        if (*s == *GB_MK_DASH) fputs(" — ", out);
        else if (*s == *GB_MK_CODE) fputs((code = !code) ? "<code>" : "</code>", out);
        else fputs((strong = !strong) ? "<strong>" : "</strong>", out);
    }
    if (code) fputs("</code>", out); /* a span left open is closed: the page stays well-formed */
    if (strong) fputs("</strong>", out);
}

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

/* Blanks before column c on a terminal. */
static size_t gap_of(const gb_table *t, int c) { return t->gap[c] ? t->gap[c] : 2; }

/* The terminal width of a head or cell text, and of a cell with its note. */
static size_t text_width(const gb_table *t, const char *s) {
    return t->markup ? gb_marked_width(s) : gb_utf8_width(s);
}
static size_t term_width_of(const gb_table *t, const gb_cell *x) {
    return text_width(t, cell_text(x)) + (x->note ? 3 + text_width(t, x->note) : 0);
}
static void term_text(const gb_table *t, const char *s, FILE *out) {
    if (t->markup) gb_marked_term(s, out);
    else fputs(s, out);
}

/* Pad by display width first, then wrap the text in colour codes, so that
 * escape bytes never count towards the column width. x NULL: the head. */
static void term_cell(FILE *out, const gb_table *t, int c, const gb_cell *x, size_t width, int color) {
    const char *text = x ? cell_text(x) : t->head[c];
    gb_cell_class cls = x ? x->cls : GB_CELL_PLAIN;
    gb_align a = t->align[c];
    size_t w = x ? term_width_of(t, x) : text_width(t, text);
    size_t fill = width > w ? width - w : 0;
    if (a == GB_ALIGN_RIGHT) pad(out, fill);
    int paint = color && cls != GB_CELL_PLAIN && *text;
    if (paint) fputs(ansi(cls), out);
    term_text(t, text, out);
    if (x && x->note) {
        fputs(" (", out);
        term_text(t, x->note, out);
        fputc(')', out);
    }
    if (paint) fputs("\033[0m", out);
    if (a != GB_ALIGN_RIGHT) pad(out, fill);
}

/* The last shown column's start and the width left to it when the table
 * wraps it (0: it does not). */
static size_t wrap_room(const gb_table *t, const size_t *width, int last, size_t *start) {
    *start = 0;
    int shown = 0;
    for (int c = 0; c < last; c++)
        if (!t->hidden[c]) *start += width[c] + (shown++ ? gap_of(t, c) : 0);
    if (shown) *start += gap_of(t, last);
    if (!t->wrap || last < 0 || t->align[last] == GB_ALIGN_RIGHT || *start + 20 > t->wrap) return 0;
    return t->wrap - *start;
}

/* Whether the wrapped last column goes on lines of its own under each row:
 * the columns before it leave it under 20 characters (the crossover table
 * of a transfer's params and an end-to-end-overlapped timing started its
 * sentences at column 98 and ran to 210). */
static int last_below(const gb_table *t, const size_t *width, int last) {
    size_t start;
    return t->wrap && last > 0 && t->align[last] != GB_ALIGN_RIGHT && !t->markup &&
           wrap_room(t, width, last, &start) == 0 && start + 20 > t->wrap;
}
#define GB_BELOW_INDENT 4

static void term_widths(const gb_table *t, size_t *width) {
    int last = -1;
    for (int c = 0; c < t->ncols; c++) {
        if (!t->hidden[c]) last = c;
        if (t->width[c] > 0) { /* fixed: a wider cell pushes its own row on */
            width[c] = (size_t)t->width[c];
            continue;
        }
        width[c] = text_width(t, t->head[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t w = term_width_of(t, cell(t, r, c));
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

static int last_shown(const gb_table *t) {
    int last = -1;
    for (int c = 0; c < t->ncols; c++)
        if (!t->hidden[c]) last = c;
    return last;
}

size_t gb_table_term_width(const gb_table *t) {
    size_t width[GB_TABLE_MAX_COLS], total = 0;
    int shown = 0, last = last_shown(t);
    term_widths(t, width);
    int below = last_below(t, width, last);
    for (int c = 0; c < t->ncols; c++)
        if (!t->hidden[c] && !(below && c == last)) total += width[c] + (shown++ ? gap_of(t, c) : 0);
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
    int last = last_shown(t);
    /* the last column under its row: the heading names it on a line of its own */
    int below = last_below(t, width, last);
    if (below) {
        for (int c = last - 1; c >= 0; c--)
            if (!t->hidden[c]) {
                width[c] = 0; /* recomputed below without the last column's pull */
                break;
            }
        term_widths(t, width);
    }
    /* The last column is not padded on the right when left-aligned: no trailing blanks. */
    int last_left = last >= 0 && t->align[last] != GB_ALIGN_RIGHT;
    int first = 1;
    for (int c = 0; c < t->ncols; c++) {
        if (t->hidden[c] || (below && c == last)) continue;
        if (!first) pad(out, gap_of(t, c));
        first = 0;
        term_cell(out, t, c, NULL, c == last && last_left ? 0 : width[c], 0);
    }
    if (below) {
        fputc('\n', out);
        pad(out, GB_BELOW_INDENT);
        term_cell(out, t, last, NULL, 0, 0);
    }
    fputc('\n', out);
    if (!t->no_rule) {
        for (size_t i = 0; i < gb_table_term_width(t); i++) fputs("─", out);
        fputc('\n', out);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        first = 1;
        for (int c = 0; c < t->ncols; c++) {
            if (t->hidden[c]) continue;
            if (below && c == last) {
                fputc('\n', out);
                pad(out, GB_BELOW_INDENT);
                gb_wrap_text(out, cell_text(cell(t, r, c)), t->wrap, GB_BELOW_INDENT, GB_BELOW_INDENT);
                continue;
            }
            if (!first) pad(out, gap_of(t, c));
            first = 0;
            const gb_cell *x = cell(t, r, c);
            size_t start, room = c == last ? wrap_room(t, width, last, &start) : 0;
            if (room && !t->markup && !x->note && gb_utf8_width(cell_text(x)) > room &&
                !(color && x->cls != GB_CELL_PLAIN))
                gb_wrap_text(out, cell_text(x), start + room, start, start);
            else
                term_cell(out, t, c, x, c == last && last_left ? 0 : width[c], color);
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

/* Right-aligned in Markdown and HTML. */
static int numeric(gb_align a) { return a == GB_ALIGN_RIGHT || a == GB_ALIGN_TAGGED; }

static void md_cell_text(const gb_table *t, const char *s, FILE *out) {
    if (t->markup) gb_marked_md(s, out);
    else gb_md_text(s, out);
}

void gb_table_print_md(const gb_table *t, FILE *out) {
    fputc('|', out);
    for (int c = 0; c < t->ncols; c++) {
        fputc(' ', out);
        md_cell_text(t, t->head[c], out);
        fputs(" |", out);
    }
    fputs("\n|", out);
    for (int c = 0; c < t->ncols; c++)
        fputs(t->md_compact ? (numeric(t->align[c]) ? "---:|" : "---|") : numeric(t->align[c]) ? " ---: |" : " --- |",
              out);
    fputc('\n', out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputc('|', out);
        for (int c = 0; c < t->ncols; c++) {
            const gb_cell *x = cell(t, r, c);
            fputc(' ', out);
            /* Bold failures so they stand out on GitHub, where colour is not available. */
            if (x->cls == GB_CELL_BAD && *cell_text(x)) fputs("**", out);
            md_cell_text(t, cell_text(x), out);
            if (x->cls == GB_CELL_BAD && *cell_text(x)) fputs("**", out);
            if (x->note) {
                fputs("<br>", out);
                md_cell_text(t, x->note, out);
            }
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

static void html_cell_text(const gb_table *t, const char *s, FILE *out) {
    if (t->markup) gb_marked_html(s, out);
    else gb_html_text(s, out);
}

void gb_table_print_html(const gb_table *t, FILE *out) {
    fputs("<div class=\"scroll\"><table>\n<thead><tr>", out);
    for (int c = 0; c < t->ncols; c++) {
        fputs(numeric(t->align[c]) ? "<th class=\"num\">" : "<th>", out);
        html_cell_text(t, t->head[c], out);
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs("<tr>", out);
        for (int c = 0; c < t->ncols; c++) {
            const gb_cell *x = cell(t, r, c);
            const char *k = html_class(x->cls);
            int num = numeric(t->align[c]);
            if (t->align[c] == GB_ALIGN_TEXT)
                fputs("<td class=\"text\">", out);
            else if (k || num)
                fprintf(out, "<td class=\"%s%s%s\">", num ? "num" : "", (k && num) ? " " : "", k ? k : "");
            else
                fputs("<td>", out);
            html_cell_text(t, cell_text(x), out);
            if (x->note) {
                fputs("<br>", out);
                html_cell_text(t, x->note, out);
            }
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
