/* report_table.h — a small table model and its renderers (terminal, GitHub
 * Markdown, HTML; CSV in writer_csv.c), used through the writers (writer.h).
 *
 * A table is built cell by cell as plain UTF-8 text plus a colour class;
 * each renderer escapes and pads for its own format, so the same table reads
 * the same in a terminal, on GitHub and in a browser. */
#ifndef GB_REPORT_TABLE_H
#define GB_REPORT_TABLE_H
#include <stdio.h>
#include <stddef.h>

typedef enum { GB_CELL_PLAIN = 0, GB_CELL_GOOD, GB_CELL_WARN, GB_CELL_BAD } gb_cell_class;
/* GB_ALIGN_TEXT: left-aligned running text, which HTML lets wrap.
 * GB_ALIGN_TAGGED: a number with a word after it ("1.52 SLOW", "0.71 fast"):
 * left-aligned on a terminal, where the numbers line up and the words trail,
 * right-aligned in Markdown and HTML (the fleet table's cells). */
typedef enum { GB_ALIGN_LEFT = 0, GB_ALIGN_RIGHT, GB_ALIGN_TEXT, GB_ALIGN_TAGGED } gb_align;

/* Marked text: spans a format shows in its own way, marked with bytes that
 * no results text holds (json_strict.h refuses control characters). A span
 * is opened and closed by the same marker.
 * Markdown writes marked text as it is (it is Markdown source: compare's and
 * the fleet report's names have always gone into their Markdown unescaped),
 * with `code` and **strong**; HTML escapes it, with <code> and <strong>; the
 * terminal drops the markers. GB_MK_DASH is a pause before a remark: " — "
 * in Markdown and HTML, two blanks on a terminal. */
#define GB_MK_CODE "\x01"
#define GB_MK_STRONG "\x02"
#define GB_MK_DASH "\x03"
/* Marked text written for a terminal, as Markdown, as HTML. */
void gb_marked_term(const char *s, FILE *out);
void gb_marked_md(const char *s, FILE *out);
void gb_marked_html(const char *s, FILE *out);
/* The terminal width of marked text (markers take none, a dash two). */
size_t gb_marked_width(const char *s);

#define GB_CELL_LEN 96
#define GB_TABLE_MAX_COLS 64 /* the report's CSV records: 45 columns, 60 with energy */

/* A cell's text is on the heap, as long as it needs to be: a crossover
 * sentence names every change of winner along a sweep, however many. */
typedef struct {
    char *text;        /* NULL: empty */
    gb_cell_class cls;
    char *note;        /* NULL: none; a remark after the text: "text (note)" on a
                          terminal, on a line of its own in Markdown and HTML */
} gb_cell;

typedef struct {
    int ncols;
    char head[GB_TABLE_MAX_COLS][GB_CELL_LEN];
    gb_align align[GB_TABLE_MAX_COLS];
    unsigned char hidden[GB_TABLE_MAX_COLS]; /* left out by the terminal renderer (gb_table_fit) */
    size_t wrap;     /* terminal: when > 0, a left-aligned last column is broken at blanks onto
                        continuation lines so that no line is wider than this */
    const char *eol; /* CSV: what ends a line; NULL: CRLF (RFC 4180) */
    /* Compare's and the fleet report's tables keep their own look: */
    int markup;      /* heads and cells are marked text (see above), not plain */
    int no_rule;     /* terminal: no rule line under the head */
    int md_compact;  /* Markdown: the align row as "|---|---:|" (not "| --- | ---: |") */
    /* terminal: blanks before column c (0: two); a fixed width (0: the widest
     * cell's), to which each cell is padded, a wider one pushing its row on */
    unsigned char gap[GB_TABLE_MAX_COLS];
    int width[GB_TABLE_MAX_COLS];
    size_t nrows, cap;
    gb_cell *cells;  /* nrows × ncols */
} gb_table;

void gb_table_init(gb_table *t);
void gb_table_free(gb_table *t);
/* Add a column (before any row); returns its index, or -1 when full. */
int gb_table_col(gb_table *t, const char *head, gb_align align);
/* Append an empty row (cells ""); returns its index, or -1 on allocation failure. */
long gb_table_row(gb_table *t);
void gb_table_set(gb_table *t, long row, int col, gb_cell_class cls, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A cell's note (gb_cell.note); "" leaves it without one. */
void gb_table_note(gb_table *t, long row, int col, const char *note);

/* Display width of UTF-8 text: code points (every character the report uses
 * — ±, ×, –, ✓, ✗, superscript digits — is one column wide). */
size_t gb_utf8_width(const char *s);

/* Width in terminal columns of the shown columns (two blanks between). */
size_t gb_table_term_width(const gb_table *t);
/* Hide the columns of drop[] (in that order, -1 entries skipped) until the
 * terminal table is at most max columns wide; returns how many it hid. */
int gb_table_fit(gb_table *t, size_t max, const int *drop, int ndrop);
/* Terminal: columns padded to their widest cell, ANSI colour when color. */
void gb_table_print_term(const gb_table *t, int color, FILE *out);
/* GitHub-flavoured Markdown: every row has ncols+1 pipes; '|' is escaped. */
void gb_table_print_md(const gb_table *t, FILE *out);
/* HTML <table> with classes good/warn/bad (styled by the page's CSS). */
void gb_table_print_html(const gb_table *t, FILE *out);

/* Running text broken at blanks so that no line goes past column width;
 * the text starts at column col (already written), and each continuation
 * line starts with indent blanks. A word wider than the room gets a line of
 * its own. No newline at the end. */
void gb_wrap_text(FILE *out, const char *s, size_t width, size_t col, size_t indent);

/* Escapers for running text. */
void gb_md_text(const char *s, FILE *out);
void gb_html_text(const char *s, FILE *out);
/* One CSV field (RFC 4180: quoted when it holds , " or a line break). */
void gb_csv_field(const char *s, FILE *out);
#endif
