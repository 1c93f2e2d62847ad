/* writer_md.c — the GitHub Markdown writer (writer.h): for a CI job summary,
 * a PR comment or a README. A section is one level below the title ("##"
 * then "###"), since the page that shows it has its own "#". */
#include "format.h"
#include "writer.h"

static void heading(FILE *out, int level, const char *s, int color) {
    (void)color;
    fprintf(out, "%.*s ", level + 1, "######");
    gb_md_text(s, out);
    fputs("\n\n", out);
}

/* A caption (em) in italics. */
static void para(FILE *out, const char *s, int em) {
    if (em) fputc('_', out);
    gb_md_text(s, out);
    fputs(em ? "_\n\n" : "\n\n", out);
}

static void list(FILE *out, const char *const *items, int n, int numbered) {
    if (n == 0) return;
    for (int i = 0; i < n; i++) {
        char prefix[32] = "";
        if (numbered) gb_superscript(prefix, sizeof prefix, i + 1);
        /* A trailing backslash is a hard line break on GitHub; "- " would
         * make footnote numbers bullets. */
        if (*prefix) fprintf(out, "%s ", prefix);
        else fputs("- ", out);
        gb_md_text(items[i], out);
        fputs(*prefix && i + 1 < n ? "\\\n" : "\n", out);
    }
    fputc('\n', out);
}

static void table(FILE *out, const gb_table *t, int color) {
    (void)color;
    gb_table_print_md(t, out);
    fputc('\n', out);
}

/* Marked text is Markdown already (writer.h): written as it is. */
static void lines(FILE *out, gb_line_role role, const char *const *items, int n) {
    static const char *const prefix[GB_LINE_WARNING + 1] = {
        [GB_LINE_TITLE] = "## ", [GB_LINE_HEADING] = "### ", [GB_LINE_LABEL] = "### ", [GB_LINE_CAPTION] = "**",
        [GB_LINE_FIELD] = "- ",  [GB_LINE_ITEM] = "- ",        [GB_LINE_WARNING] = "> - ",
    };
    static const char *const suffix[GB_LINE_WARNING + 1] = {
        [GB_LINE_TITLE] = "\n\n", [GB_LINE_HEADING] = "\n\n", [GB_LINE_LABEL] = "\n\n", [GB_LINE_CAPTION] = "\n**\n\n",
    };
    if (role == GB_LINE_WARNING && n > 0) fputs("> [!WARNING]\n", out); /* a GitHub alert */
    for (int i = 0; i < n; i++) {
        fputs(prefix[role] ? prefix[role] : "", out);
        gb_marked_md(items[i], out);
        fputs(suffix[role] ? suffix[role] : "\n", out);
    }
}

static void begin(FILE *out, const char *title) { (void)out, (void)title; }
static void box_begin(FILE *out, const char *cls) { (void)out, (void)cls; }

static void nothing(FILE *out) { (void)out; }

const gb_writer gb_writer_md = {
    .name = "md", .begin = begin, .end = nothing, .heading = heading, .para = para, .list = list,
    .table = table, .lines = lines, .gap = nothing, .box_begin = box_begin, .box_end = nothing,
};
