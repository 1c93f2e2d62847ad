/* writer_html.c — the HTML writer (writer.h): one self-contained page, its
 * style inline, charts as inline SVG (report_svg.h). */
#include "format.h"
#include "writer.h"

/* The page's head: the title the report gives (what a browser tab and a
 * bookmark show), and a style in which a table wider than the window scrolls
 * inside its own box, its footnotes right under it, and the charts fill the
 * page's width, two to a row. */
static void begin(FILE *out, const char *title) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", out);
    gb_html_text(title, out);
    fputs("</title>\n<style>\n"
          "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:96em;"
          "padding:0 1em;color:#222;line-height:1.4}\n"
          ".scroll{overflow-x:auto;max-width:100%}\n"
          "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.85em}\n"
          "th,td{border:1px solid #ccc;padding:.25em .5em}\ntd{white-space:nowrap}\n"
          "th{background:#f3f3f3;vertical-align:bottom}\ntd.num,th.num{text-align:right;"
          "font-variant-numeric:tabular-nums}\n"
          "td.good{color:#17731f;font-weight:600}\ntd.warn{color:#9a6a00}\ntd.bad{color:#b00020;font-weight:700}\n"
          "td.text{white-space:normal;min-width:16em}\n"
          ".caption{font-style:italic;color:#555}\n.notes{font-size:.85em;color:#444;list-style:none;padding-left:0}\n"
          ".warnings{background:#fff8e1;border-left:4px solid #e0a800;padding:.5em 1em;margin:1em 0}\n"
          /* charts two to a row over the page's width (one on a narrow window), each scaled to its cell */
          ".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,32em),1fr));gap:.75em;"
          "margin:.5em 0 1.5em}\nsvg.chart{width:100%;height:auto;border:1px solid #eee}\n"
          ".optable .notes{margin-top:-.5em}\n"
          "</style>\n</head>\n<body>\n", out);
}

static void end(FILE *out) { fputs("</body>\n</html>\n", out); }

static void heading(FILE *out, int level, const char *s, int color) {
    (void)color;
    fprintf(out, "<h%d>", level);
    gb_html_text(s, out);
    fprintf(out, "</h%d>\n", level);
}

static void para(FILE *out, const char *s, int em) {
    fputs(em ? "<p class=\"caption\">" : "<p>", out);
    gb_html_text(s, out);
    fputs("</p>\n", out);
}

static void list(FILE *out, const char *const *items, int n, int numbered) {
    if (n == 0) return;
    fputs("<ul class=\"notes\">\n", out);
    for (int i = 0; i < n; i++) {
        char prefix[32] = "";
        if (numbered) gb_superscript(prefix, sizeof prefix, i + 1);
        fprintf(out, "<li>%s%s", prefix, *prefix ? " " : "");
        gb_html_text(items[i], out);
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

static void table(FILE *out, const gb_table *t, int color) {
    (void)color;
    gb_table_print_html(t, out);
}

/* Headings, paragraphs and lists; a run of items (or fields, or warnings)
 * given in one call is one list. */
static void lines(FILE *out, gb_line_role role, const char *const *items, int n) {
    static const char *const open[GB_LINE_WARNING + 1] = {
        [GB_LINE_TITLE] = "<h1>", [GB_LINE_HEADING] = "<h2>", [GB_LINE_LABEL] = "<h3>",
        [GB_LINE_CAPTION] = "<h3>", [GB_LINE_TEXT] = "<p>", [GB_LINE_FIELD] = "<li>",
        [GB_LINE_ITEM] = "<li>", [GB_LINE_WARNING] = "<li>",
    };
    static const char *const close[GB_LINE_WARNING + 1] = {
        [GB_LINE_TITLE] = "</h1>\n", [GB_LINE_HEADING] = "</h2>\n", [GB_LINE_LABEL] = "</h3>\n",
        [GB_LINE_CAPTION] = "</h3>\n", [GB_LINE_TEXT] = "</p>\n", [GB_LINE_FIELD] = "</li>\n",
        [GB_LINE_ITEM] = "</li>\n", [GB_LINE_WARNING] = "</li>\n",
    };
    int list = role == GB_LINE_FIELD || role == GB_LINE_ITEM || role == GB_LINE_WARNING;
    if (n <= 0) return;
    if (role == GB_LINE_WARNING) fputs("<div class=\"warnings\">\n", out);
    if (list) fputs(role == GB_LINE_ITEM ? "<ul>\n" : "<ul class=\"notes\">\n", out);
    for (int i = 0; i < n; i++) {
        if (role == GB_LINE_TEXT && !*items[i]) continue; /* a blank line: the page spaces its blocks */
        fputs(open[role], out);
        gb_marked_html(items[i], out);
        fputs(close[role], out);
    }
    if (list) fputs("</ul>\n", out);
    if (role == GB_LINE_WARNING) fputs("</div>\n", out);
}

static void box_begin(FILE *out, const char *cls) { fprintf(out, "<div class=\"%s\">\n", cls); }
static void div_end(FILE *out) { fputs("</div>\n", out); }
static void charts_begin(FILE *out) { box_begin(out, "charts"); }

static int chart(FILE *out, const gb_svg_axes *ax, const gb_svg_series *s, size_t ns) {
    return gb_svg_chart(out, ax, s, ns);
}

static void nothing(FILE *out) { (void)out; }

const gb_writer gb_writer_html = {
    .name = "html", .begin = begin, .end = end, .heading = heading, .para = para, .list = list, .table = table,
    .lines = lines, .gap = nothing, .box_begin = box_begin, .box_end = div_end, .charts_begin = charts_begin,
    .chart = chart, .charts_end = div_end,
};
