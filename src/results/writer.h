/* writer.h — one writer per output format (as Google Benchmark's reporters
 * and nvbench's printers): the terminal (writer_term.c), GitHub Markdown
 * (writer_md.c), a self-contained HTML page (writer_html.c) and CSV
 * (writer_csv.c). The report (report.c, report_pair.c) decides WHAT a
 * document says — its headings, paragraphs, lists and tables (report_table.h)
 * — and calls these to write it; HOW each piece looks in a format (escaping,
 * padding, colour, markup) is the writer's alone. Adding a format is one new
 * file with one gb_writer, and its line in gb_writers[] (writer.c).
 *
 * Compare (compare_render.c) and the fleet report (fleet_render.c) write
 * through the same writers: tables (with the look their tables have always
 * had: gb_table's markup, no_rule, gap, width, md_compact) and lines of a
 * role (gb_line_role).
 *
 * A writer that sets `records` (CSV) writes data, not a document: it leaves
 * out headings, paragraphs and lists, and the report hands it one flat table
 * of every case instead of one table per op. */
#ifndef GB_WRITER_H
#define GB_WRITER_H
#include <stddef.h>
#include <stdio.h>

#include "report_svg.h"
#include "report_table.h"

/* A line-oriented document's lines (compare's and the fleet report's): what
 * each line is, each format showing it its own way. The text is marked text
 * (report_table.h: code, strong, a dash), which Markdown writes as it is.
 * How each looks, Markdown | terminal (each line ends with a newline):
 *   TITLE    the document's title       "## x" + blank line  | left out (the command line says it)
 *   HEADING  a heading                  "### x" + blank line | "x"
 *   LABEL    the title of a list below  "### x" + blank line | "x:"
 *   CAPTION  a caption over a list      "**x", "**" + blank  | "x"
 *   TEXT     a line as it is ("": a blank line)
 *   FIELD    a fact of a header         "- x"                | "x"
 *   ITEM     an item of a list          "- x"                | "  x"
 *   WARNING  a warning, first of all    "> [!WARNING]" once, then "> - x" | "!! WARNING: x"
 * (CAPTION's Markdown, the bold broken across a line, is the fleet report's
 * as it has always been: kept byte for byte.) */
typedef enum {
    GB_LINE_TITLE,
    GB_LINE_HEADING,
    GB_LINE_LABEL,
    GB_LINE_CAPTION,
    GB_LINE_TEXT,
    GB_LINE_FIELD,
    GB_LINE_ITEM,
    GB_LINE_WARNING,
} gb_line_role;

typedef struct gb_writer {
    const char *name;  /* as --format names it: "table", "md", "csv", "html" */
    int records;       /* writes one flat table of records (see above) */
    int terminal;      /* a terminal: tables fit GB_REPORT_COLUMNS unless --wide; colour */
    /* The document's start and end (HTML: the page's head, with title). */
    void (*begin)(FILE *out, const char *title);
    void (*end)(FILE *out);
    /* level 1: the document's title, 2: a section (an op's table). */
    void (*heading)(FILE *out, int level, const char *s, int color);
    /* A paragraph; em: a caption (Markdown italic, HTML class "caption"). */
    void (*para)(FILE *out, const char *s, int em);
    /* Items, bulleted, or numbered with superscripts (footnotes). */
    void (*list)(FILE *out, const char *const *items, int n, int numbered);
    void (*table)(FILE *out, const gb_table *t, int color);
    /* n lines of one role (gb_line_role), e.g. a list's items in one call. */
    void (*lines)(FILE *out, gb_line_role role, const char *const *items, int n);
    /* A blank line where the format separates blocks with one (the terminal). */
    void (*gap)(FILE *out);
    /* A box around the next blocks, of class cls ("warnings"): HTML only. */
    void (*box_begin)(FILE *out, const char *cls);
    void (*box_end)(FILE *out);
    /* Charts (NULL: the format has none): charts_begin, a chart per call
     * (0, or -1 when it could not be drawn), charts_end. */
    void (*charts_begin)(FILE *out);
    int (*chart)(FILE *out, const gb_svg_axes *ax, const gb_svg_series *s, size_t ns);
    void (*charts_end)(FILE *out);
} gb_writer;

extern const gb_writer gb_writer_term, gb_writer_md, gb_writer_csv, gb_writer_html;

/* The writer --format name names (NULL when none does). */
const gb_writer *gb_writer_find(const char *name);
/* The writer of index i in gb_writers[] (gb_format's values), NULL past the end. */
const gb_writer *gb_writer_at(int i);
/* The index of w in gb_writers[]. */
int gb_writer_index(const gb_writer *w);
#endif
