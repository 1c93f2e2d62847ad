/* report_svg.c — log-log line charts as inline SVG (report_svg.h). */
#include "report_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_table.h"

/* scripts/plot_style.py's colours (Okabe-Ito: apart for the common kinds of
 * colour blindness); tests/scripts/test_plot.c checks they are the same. */
static const char *const side_colour[4] = {"#0072B2", "#009E73", "#D55E00", "#CC79A7"};
static const struct {
    const char *dtype, *colour;
} dtype_colour[] = {{"float64", "#0072B2"}, {"float32", "#D55E00"},     {"bfloat16", "#009E73"},
                    {"float16", "#CC79A7"}, {"float8_e4m3", "#E69F00"}, {"int8", "#000000"}};
static const char *const variant_colour[] = {"#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                             "#000000", "#0072B2", "#D55E00"};
#define NDTYPE_COLOURS (sizeof dtype_colour / sizeof dtype_colour[0])
#define NVARIANT_COLOURS (sizeof variant_colour / sizeof variant_colour[0])

enum { W = 720, LEFT = 70, RIGHT = 18, TOP = 34, PLOT_H = 250, LEGEND_TOP = PLOT_H + TOP + 54, LINE = 16 };
#define PLOT_W (W - LEFT - RIGHT)
#define CHAR_W 6.1 /* an average character of the legend's 11 px font */

typedef struct {
    double lx0, lx1, ly0, ly1; /* log10 of the axis ends */
} frame;

static double px(const frame *f, double x) { return LEFT + (log10(x) - f->lx0) / (f->lx1 - f->lx0) * PLOT_W; }
static double py(const frame *f, double y) { return TOP + PLOT_H - (log10(y) - f->ly0) / (f->ly1 - f->ly0) * PLOT_H; }

static int usable(double x, double y) { return x > 0 && y > 0 && isfinite(x) && isfinite(y); }

/* A tick label: whole numbers from 100 up, else up to three significant digits. */
static void tick_text(char *buf, size_t len, double v) {
    if (v >= 100) snprintf(buf, len, "%.0f", v);
    else snprintf(buf, len, "%.3g", v);
}

static void marker(FILE *out, int side, double x, double y, const char *colour, int hollow) {
    const char *fill = hollow ? "#fff" : colour;
    if (side == 0)
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>", x, y,
                fill, colour);
    else if (side == 1)
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>",
                x - 4, y - 4, fill, colour);
    else if (side == 2)
        fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>",
                x, y - 5, x + 5, y + 4, x - 5, y + 4, fill, colour);
    else
        fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>",
                x, y + 5, x + 5, y - 4, x - 5, y - 4, fill, colour);
}

/* The dash pattern of a side's line: solid, end-to-end dashed, overlapped dotted. */
static const char *dashes(int side) {
    return side == 2 ? " stroke-dasharray=\"7 4\"" : side == 3 ? " stroke-dasharray=\"2 3\"" : "";
}

double gb_svg_coincide_tolerance(const gb_svg_series *s, size_t ns) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < s[i].n; j++)
            if (usable(s[i].x[j], s[i].y[j])) lo = fmin(lo, s[i].y[j]), hi = fmax(hi, s[i].y[j]);
    if (!(lo <= hi)) return 0;
    double decades = fmax(log10(hi / lo), 0.3) * 1.2; /* the chart's margin */
    return pow(10, 3.0 / PLOT_H * decades) - 1;
}

/* How many distinct variants the chart's series are of. */
static int variants_in(const gb_svg_series *s, size_t ns) {
    int nv = 0;
    for (size_t i = 0; i < ns; i++) {
        size_t j = 0;
        while (j < i && s[j].variant != s[i].variant) j++;
        nv += j == i;
    }
    return nv;
}

/* A series' variant's place among the chart's variants (0, 1, ...): odd ones get hollow markers. */
static int variant_rank(const gb_svg_series *s, size_t i) {
    int rank = 0;
    for (size_t j = 0; j < i; j++) {
        size_t k = 0;
        while (k < j && s[k].variant != s[j].variant) k++;
        if (k == j && s[j].variant != s[i].variant) rank++;
        if (s[j].variant == s[i].variant) return rank;
    }
    return rank;
}

void gb_svg_colours(const gb_svg_series *s, size_t ns, const char **colours) {
    if (variants_in(s, ns) < 2) {
        for (size_t i = 0; i < ns; i++) colours[i] = side_colour[s[i].side >= 0 && s[i].side < 4 ? s[i].side : 0];
        return;
    }
    /* a dtype's own colour for the first variant of it, then the free ones in order */
    const char *of[64] = {0};
    int used[NVARIANT_COLOURS] = {0};
    for (size_t i = 0; i < ns; i++) {
        int v = s[i].variant;
        if (v < 0 || v >= 64 || of[v]) continue;
        for (size_t d = 0; d < NDTYPE_COLOURS; d++) {
            if (strcmp(s[i].dtype, dtype_colour[d].dtype)) continue;
            for (size_t c = 0; c < NVARIANT_COLOURS; c++)
                if (!strcmp(variant_colour[c], dtype_colour[d].colour) && !used[c]) used[c] = 1, of[v] = variant_colour[c];
        }
    }
    for (size_t i = 0; i < ns; i++) {
        int v = s[i].variant;
        if (v < 0 || v >= 64 || of[v]) continue;
        size_t c = 0;
        while (c < NVARIANT_COLOURS && used[c]) c++;
        if (c < NVARIANT_COLOURS) used[c] = 1, of[v] = variant_colour[c];
        else of[v] = variant_colour[(size_t)v % NVARIANT_COLOURS];
    }
    for (size_t i = 0; i < ns; i++)
        colours[i] = s[i].variant >= 0 && s[i].variant < 64 ? of[s[i].variant] : variant_colour[0];
}

static void text(FILE *out, double x, double y, const char *anchor, const char *extra, const char *s) {
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
    gb_html_text(s, out);
    fputs("</text>\n", out);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* y tick values inside [lo, hi] (plain numbers, as plot_style.log_ticks):
 * 1-2-5 (or sparser) per decade when that gives three to seven, every decade
 * or every other on a wide range, evenly spaced round values on a narrow one;
 * so an axis never shows fewer than three labels where the range allows. */
static int y_tick_values(double lo, double hi, double *t, int cap) {
    static const int steps[3][3] = {{1, 2, 5}, {1, 3, 0}, {1, 0, 0}};
    /* a results file may hold any finite number (a median of 1e300: the
     * mutation sweep): an axis padded past DBL_MAX has no ticks, and no
     * decade count to cast */
    if (!(lo > 0) || !isfinite(lo) || !isfinite(hi) || !(hi >= lo)) return 0;
    int e0 = (int)floor(log10(lo)), e1 = (int)ceil(log10(hi)), n;
    for (int k = 0; k < 3; k++) {
        n = 0;
        for (int e = e0; e <= e1; e++)
            for (int m = 0; m < 3 && steps[k][m]; m++) {
                double v = steps[k][m] * pow(10, e);
                if (v >= lo && v <= hi * 1.0001 && n < cap) t[n++] = v;
            }
        if (n >= 3 && n <= 7) return n;
    }
    n = 0;
    for (int e = e0; e <= e1; e++)
        if (pow(10, e) >= lo && pow(10, e) <= hi * 1.0001 && n < cap) t[n++] = pow(10, e);
    if (n >= 3) {
        int every = (n + 6) / 7, m = 0;
        for (int i = 0; i < n; i += every) t[m++] = t[i];
        return m;
    }
    static const double mult[4] = {5, 2.5, 2, 1};
    for (int e = e1; e >= e0 - 2; e--)
        for (int k = 0; k < 4; k++) {
            double step = mult[k] * pow(10, e);
            n = 0;
            for (double v = ceil(lo / step - 1e-9) * step; v <= hi * 1.0001 && n < cap; v += step)
                if (v > 0) t[n++] = v;
            if (n >= 3 && n <= 7) return n;
        }
    return 0;
}

/* A tick label: whole numbers from 100 up, else up to three significant
 * digits; bytes as 4K, 1M (the largest binary unit that divides them). */
static void tick_label(char *buf, size_t len, double v, int bytes) {
    if (bytes && v >= 1024 && fmod(v, 1024) == 0) {
        static const char *const unit[] = {"", "K", "M", "G", "T"};
        int u = 0;
        while (u < 4 && fmod(v, 1024) == 0) v /= 1024, u++;
        snprintf(buf, len, "%.0f%s", v, unit[u]);
    } else
        tick_text(buf, len, v);
}

static void y_ticks(FILE *out, const frame *f) {
    double t[32];
    int n = y_tick_values(pow(10, f->ly0), pow(10, f->ly1), t, 32);
    for (int i = 0; i < n; i++) {
        double y = py(f, t[i]);
        char label[32];
        tick_text(label, sizeof label, t[i]);
        fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", LEFT,
                LEFT + PLOT_W, y, y);
        text(out, LEFT - 6, y + 4, "end", "", label);
    }
}

/* x ticks at the sizes that were run, thinned so that labels do not overlap. */
static void x_ticks(FILE *out, const frame *f, const gb_svg_series *s, size_t ns, int bytes) {
    size_t total = 0;
    for (size_t i = 0; i < ns; i++) total += s[i].n;
    double *xs = malloc((total ? total : 1) * sizeof *xs);
    if (!xs) return;
    size_t n = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < s[i].n; j++)
            if (usable(s[i].x[j], s[i].y[j])) xs[n++] = s[i].x[j];
    qsort(xs, n, sizeof *xs, cmp_double);
    double last = -1e9;
    for (size_t j = 0; j < n; j++) {
        if (j && xs[j] == xs[j - 1]) continue;
        double x = px(f, xs[j]);
        char t[32];
        tick_label(t, sizeof t, xs[j], bytes);
        double need = 7.0 * (double)strlen(t) + 10;
        fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#e3e3e3\"/>\n", x, x, TOP,
                TOP + PLOT_H);
        if (x - last < need) continue;
        text(out, x, TOP + PLOT_H + 16, "middle", "", t);
        last = x;
    }
    free(xs);
}

/* The legend's lines of one label, at most width characters each, broken at
 * spaces: starts[k] and lens[k] of each. How many. */
static int wrap(const char *label, int width, int *starts, int *lens, int cap) {
    int n = 0, len = (int)strlen(label), at = 0;
    while (at < len && n < cap) {
        int end = at + width < len ? at + width : len;
        if (end < len) {
            int sp = end;
            while (sp > at && label[sp] != ' ') sp--;
            if (sp > at) end = sp;
            while (end > at + 1 && ((unsigned char)label[end] & 0xC0) == 0x80) end--; /* not inside a character */
        }
        starts[n] = at, lens[n] = end - at, n++;
        at = end;
        while (at < len && label[at] == ' ') at++;
    }
    return n;
}

int gb_svg_chart(FILE *out, const gb_svg_axes *ax, const gb_svg_series *s, size_t ns) {
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < s[i].n; j++) {
            if (!usable(s[i].x[j], s[i].y[j])) continue;
            x0 = fmin(x0, s[i].x[j]), x1 = fmax(x1, s[i].x[j]);
            y0 = fmin(y0, s[i].y[j]), y1 = fmax(y1, s[i].y[j]);
        }
    if (!(x0 <= x1)) return -1;
    if (!isnan(ax->hline) && ax->hline > 0) y0 = fmin(y0, ax->hline), y1 = fmax(y1, ax->hline);
    /* a margin of a tenth of the span (at least a factor 1.3) around the data */
    frame f = {log10(x0), log10(x1), log10(y0), log10(y1)};
    double mx = fmax(0.1 * (f.lx1 - f.lx0), log10(1.3)), my = fmax(0.08 * (f.ly1 - f.ly0), log10(1.3));
    f.lx0 -= mx, f.lx1 += mx, f.ly0 -= my, f.ly1 += my;

    /* the legend under the data: two columns when every label fits half the width */
    const char **colour = malloc((ns ? ns : 1) * sizeof *colour);
    if (!colour) return -1;
    gb_svg_colours(s, ns, colour);
    size_t longest = 0;
    for (size_t i = 0; i < ns; i++) longest = strlen(s[i].label) > longest ? strlen(s[i].label) : longest;
    int cols = (double)longest * CHAR_W + 44 <= PLOT_W / 2.0 ? 2 : 1;
    int width = (int)((PLOT_W / (double)cols - 44) / CHAR_W);
    int rows_h = 0, col_h[2] = {0, 0};
    for (size_t i = 0; i < ns; i++) {
        int st[8], ln[8];
        col_h[cols == 2 ? (int)(i % 2) : 0] += wrap(s[i].label, width, st, ln, 8) * LINE + 4;
        if (cols == 2 && i % 2 == 1) rows_h += col_h[0] > col_h[1] ? col_h[0] : col_h[1], col_h[0] = col_h[1] = 0;
    }
    rows_h += col_h[0] > col_h[1] ? col_h[0] : col_h[1];
    int H = LEGEND_TOP + rows_h + 6;

    fprintf(out, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                 "height=\"%d\" role=\"img\" font-family=\"system-ui,sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fputs("<title>", out);
    gb_html_text(ax->title, out);
    fputs("</title>\n", out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H);
    text(out, LEFT + PLOT_W / 2.0, 20, "middle", " font-size=\"14\" font-weight=\"600\"", ax->title);
    y_ticks(out, &f);
    x_ticks(out, &f, s, ns, ax->x_bytes);
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", LEFT, TOP,
            PLOT_W, PLOT_H);
    text(out, LEFT + PLOT_W / 2.0, TOP + PLOT_H + 36, "middle", "", ax->xlabel);
    fprintf(out, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">", TOP + PLOT_H / 2.0);
    gb_html_text(ax->ylabel, out);
    fputs("</text>\n", out);
    if (!isnan(ax->hline) && ax->hline > 0) {
        double y = py(&f, ax->hline);
        fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" stroke-dasharray=\"2 3\"/>\n",
                LEFT, LEFT + PLOT_W, y, y);
        if (ax->hline_label) text(out, LEFT + PLOT_W - 4, y - 5, "end", " fill=\"#444\"", ax->hline_label);
    }
    double ly = LEGEND_TOP, row_end = LEGEND_TOP;
    for (size_t i = 0; i < ns; i++) {
        const gb_svg_series *v = &s[i];
        int side = v->side >= 0 && v->side < 4 ? v->side : 0;
        int hollow = variant_rank(s, i) & 1;
        if (v->joined) {
            fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", colour[i], dashes(side));
            for (size_t j = 0; j < v->n; j++)
                if (usable(v->x[j], v->y[j])) fprintf(out, "%.1f,%.1f ", px(&f, v->x[j]), py(&f, v->y[j]));
            fputs("\"/>\n", out);
        }
        for (size_t j = 0; j < v->n; j++)
            if (usable(v->x[j], v->y[j])) {
                marker(out, side, px(&f, v->x[j]), py(&f, v->y[j]), colour[i], hollow);
                fputc('\n', out);
            }
        /* its legend entry, under the data */
        int col = cols == 2 ? (int)(i % 2) : 0;
        if (col == 0) ly = row_end;
        double lx = LEFT + col * (PLOT_W / 2.0), top = ly + 8;
        fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>", lx,
                lx + 28, top, top, colour[i], v->joined ? dashes(side) : " opacity=\"0\"");
        marker(out, side, lx + 14, top, colour[i], hollow);
        fputc('\n', out);
        int st[8], ln[8], nl = wrap(v->label, width, st, ln, 8);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", lx + 36, top + 4);
        for (int k = 0; k < nl; k++) {
            char part[400];
            snprintf(part, sizeof part, "%.*s", ln[k], v->label + st[k]);
            fprintf(out, "<tspan x=\"%.1f\" dy=\"%d\">", lx + 36, k ? LINE : 0);
            gb_html_text(part, out);
            fputs("</tspan>", out);
        }
        fputs("</text>\n", out);
        double end = ly + nl * LINE + 4;
        if (end > row_end) row_end = end;
    }
    free(colour);
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
