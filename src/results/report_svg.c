/* report_svg.c — log-log line charts as inline SVG (report_svg.h). */
#include "report_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_table.h"

/* The shades of scripts/plot.py's SIDES, dark to light, per side. */
static const char *const shades[3][4] = {
    {"#1f5fa8", "#7fb2e0", "#0b2f5e", "#4a90d0"},
    {"#1b7f3b", "#7cc98a", "#0b4a1f", "#3fa85a"},
    {"#d9620a", "#f5b272", "#8a3a00", "#f08a30"},
};

enum { W = 1000, H = 380, LEFT = 78, TOP = 34, BOTTOM = 58, LEGEND = 340 };
#define PLOT_W (W - LEFT - LEGEND)
#define PLOT_H (H - TOP - BOTTOM)

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
    else
        fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>",
                x, y - 5, x + 5, y + 4, x - 5, y + 4, fill, colour);
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

/* y ticks: every decade, with 2 and 5 between when the range spans less
 * than three decades, so an axis always has a few labels. */
static void y_ticks(FILE *out, const frame *f) {
    int dense = f->ly1 - f->ly0 < 3;
    for (int k = (int)floor(f->ly0); k <= (int)ceil(f->ly1); k++)
        for (int m = 1; m <= 5; m++) {
            if (m != 1 && !(dense && (m == 2 || m == 5))) continue;
            double v = m * pow(10, k), l = log10(v);
            if (l < f->ly0 || l > f->ly1) continue;
            double y = py(f, v);
            char t[32];
            tick_text(t, sizeof t, v);
            fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", LEFT,
                    LEFT + PLOT_W, y, y);
            text(out, LEFT - 6, y + 4, "end", "", t);
        }
}

/* x ticks at the sizes that were run, thinned so that labels do not overlap. */
static void x_ticks(FILE *out, const frame *f, const gb_svg_series *s, size_t ns) {
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
        tick_text(t, sizeof t, xs[j]);
        double need = 7.0 * (double)strlen(t) + 10;
        fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#e3e3e3\"/>\n", x, x, TOP,
                TOP + PLOT_H);
        if (x - last < need) continue;
        text(out, x, TOP + PLOT_H + 16, "middle", "", t);
        last = x;
    }
    free(xs);
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

    fprintf(out, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                 "height=\"%d\" role=\"img\" font-family=\"system-ui,sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fputs("<title>", out);
    gb_html_text(ax->title, out);
    fputs("</title>\n", out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H);
    text(out, LEFT + PLOT_W / 2.0, 20, "middle", " font-size=\"14\" font-weight=\"600\"", ax->title);
    y_ticks(out, &f);
    x_ticks(out, &f, s, ns);
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", LEFT, TOP,
            PLOT_W, PLOT_H);
    text(out, LEFT + PLOT_W / 2.0, H - 14, "middle", "", ax->xlabel);
    fprintf(out, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">", TOP + PLOT_H / 2.0);
    gb_html_text(ax->ylabel, out);
    fputs("</text>\n", out);
    if (!isnan(ax->hline) && ax->hline > 0) {
        double y = py(&f, ax->hline);
        fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" stroke-dasharray=\"2 3\"/>\n",
                LEFT, LEFT + PLOT_W, y, y);
        if (ax->hline_label) text(out, LEFT + PLOT_W - 4, y - 5, "end", " fill=\"#444\"", ax->hline_label);
    }
    for (size_t i = 0; i < ns; i++) {
        const gb_svg_series *v = &s[i];
        int side = v->side >= 0 && v->side < 3 ? v->side : 0;
        const char *colour = shades[side][v->variant & 3];
        int hollow = (v->variant & 3) == 1 || (v->variant & 3) == 2;
        if (v->joined) {
            fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", colour,
                    side == 2 ? " stroke-dasharray=\"7 4\"" : "");
            for (size_t j = 0; j < v->n; j++)
                if (usable(v->x[j], v->y[j])) fprintf(out, "%.1f,%.1f ", px(&f, v->x[j]), py(&f, v->y[j]));
            fputs("\"/>\n", out);
        }
        for (size_t j = 0; j < v->n; j++)
            if (usable(v->x[j], v->y[j])) {
                marker(out, side, px(&f, v->x[j]), py(&f, v->y[j]), colour, hollow);
                fputc('\n', out);
            }
        /* the legend, outside the data: one row per series */
        double ly = TOP + 8 + 18.0 * (double)i;
        if (ly > H - 10) continue;
        double lx = LEFT + PLOT_W + 16;
        fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>", lx,
                lx + 28, ly, ly, colour, side == 2 ? " stroke-dasharray=\"7 4\"" : v->joined ? "" : " opacity=\"0\"");
        marker(out, side, lx + 14, ly, colour, hollow);
        fputc('\n', out);
        text(out, lx + 36, ly + 4, "start", " font-size=\"11\"", v->label);
    }
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
