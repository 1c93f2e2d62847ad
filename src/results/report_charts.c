/* report_charts.c — an op's charts in a report (report_internal.h): the
 * series of its rows, and when a chart would hold too many, one chart per
 * variant (small multiples) instead of one crowded legend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* More series than this in one chart and it is split, one chart per variant. */
enum { CHART_MAX_SERIES = 6, CAP = 64 };

/* One variant: run, dtype and params (its colour in a chart). */
static int same_variant(const row *a, const row *b) {
    return a->run == b->run && !strcmp(a->dtype, b->dtype) && !strcmp(a->params, b->params);
}

/* One series: a variant's square sweep, or its non-square shapes (unjoined, in its colour). */
static int same_series(const row *a, const row *b) {
    int sa = 0, sb = 0;
    gb_case_scalar_size(a->c, &sa);
    gb_case_scalar_size(b->c, &sb);
    return same_variant(a, b) && sa == sb;
}

/* What names a variant: run (merged files), dtype, params, a non-square shape. */
static void variant_name(const rdoc *d, const row *w, int square, size_t npoints, char *buf, size_t len) {
    snprintf(buf, len, "%.40s%s%s%s%.80s", d->merged ? w->run_name : "", d->merged ? " " : "", w->dtype,
             *w->params ? " " : "", w->params);
    if (!square)
        snprintf(buf + strlen(buf), len - strlen(buf), " (%.40s%s)", w->label, npoints > 1 ? ", …" : "");
}

/* The largest relative difference between two series at one size, or -1
 * when they cannot be one line (another side, other sizes, one has a point
 * the other lacks). */
static double apart(const gb_svg_series *a, const gb_svg_series *b) {
    if (a->side != b->side || a->n != b->n || a->joined != b->joined) return -1;
    double worst = 0;
    for (size_t j = 0; j < a->n; j++) {
        int pa = a->y[j] > 0, pb = b->y[j] > 0;
        if (a->x[j] != b->x[j] || pa != pb) return -1;
        if (pa) worst = fmax(worst, fmax(a->y[j], b->y[j]) / fmin(a->y[j], b->y[j]) - 1);
    }
    return worst;
}

static void drop(gb_svg_series *v) { free(v->x), free(v->y), v->x = v->y = NULL; }

/* The series of one op's rows [a, b): one per variant and side. which: 0 the
 * times, 1 the speedups. Returns how many (each x, y malloc'd). */
static size_t chart_series(const rdoc *d, size_t a, size_t b, int which, gb_svg_series *out, size_t cap) {
    static const char *const who[NSIDES] = {"CPU", "GPU device", "GPU end-to-end", "GPU end-to-end overlapped"};
    size_t ns = 0;
    int nvariants = 0;
    for (size_t i = a; i < b; i++) {
        const row *w = &d->rows[i];
        int square = 0, first = 1;
        gb_case_scalar_size(w->c, &square);
        for (size_t j = a; j < i && first; j++) first = !same_series(&d->rows[j], w);
        if (!first) continue; /* the first row of its series opens it */
        int variant = -1;
        for (size_t j = 0; j < ns && variant < 0; j++)
            if (same_variant(&d->rows[out[j].row], w)) variant = out[j].variant;
        if (variant < 0) variant = nvariants++;
        for (int k = which ? SIDE_DEV : SIDE_CPU; k < NSIDES; k++) {
            if (ns == cap) return ns;
            gb_svg_series *v = &out[ns];
            memset(v, 0, sizeof *v);
            v->x = malloc((b - a) * sizeof *v->x);
            v->y = malloc((b - a) * sizeof *v->y);
            if (!v->x || !v->y) {
                drop(v);
                return ns;
            }
            v->side = k, v->variant = variant, v->joined = square, v->row = i;
            snprintf(v->dtype, sizeof v->dtype, "%s", w->dtype);
            for (size_t j = i; j < b; j++) {
                const row *u = &d->rows[j];
                if (!same_series(u, w)) continue;
                const side *sd = &u->s[k];
                v->x[v->n] = gb_case_scalar_size(u->c, NULL);
                v->y[v->n] = which ? u->speedup[k - SIDE_DEV]
                                   : (sd->r && !strcmp(sd->status, "ok") ? sd->median * 1e3 : NAN);
                v->n++;
            }
            int any = 0;
            for (size_t j = 0; j < v->n; j++) any |= v->y[j] > 0;
            char name[192];
            variant_name(d, w, square, v->n, name, sizeof name);
            snprintf(v->label, sizeof v->label, "%s · %s", who[k], name);
            if (!any) {
                drop(v);
                continue;
            }
            ns++;
        }
    }
    return ns;
}

/* Series that would be drawn on top of each other (a host result shared
 * between transfer's directions, or measured alike) are drawn once, their
 * label naming every variant they stand for. A series joins the first group
 * it coincides with every member of, so near neighbours are not chained.
 * Returns the series left, in order. */
static size_t merge_coinciding(const rdoc *d, gb_svg_series *s, size_t ns) {
    double tol = gb_svg_coincide_tolerance(s, ns), within[CAP] = {0};
    int lead[CAP];
    for (size_t i = 0; i < ns; i++) {
        lead[i] = -1;
        for (size_t j = 0; j < i && lead[i] < 0; j++) {
            if (lead[j] >= 0) continue;
            double gap = 0;
            for (size_t m = j; m < i && gap >= 0; m++)
                if (m == j || lead[m] == (int)j) {
                    double g = apart(&s[m], &s[i]);
                    gap = g < 0 || g > tol ? -1 : fmax(gap, g);
                }
            if (gap >= 0) lead[i] = (int)j, within[j] = fmax(within[j], gap);
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < ns; i++) {
        if (lead[i] < 0) continue;
        char name[192];
        int square = 0;
        gb_case_scalar_size(d->rows[s[i].row].c, &square);
        variant_name(d, &d->rows[s[i].row], square, s[i].n, name, sizeof name);
        gb_svg_series *l = &s[lead[i]];
        snprintf(l->label + strlen(l->label), sizeof l->label - strlen(l->label), " = %s", name);
        l->identical = 1;
    }
    for (size_t i = 0; i < ns; i++) {
        if (lead[i] >= 0) {
            drop(&s[i]);
            continue;
        }
        if (s[i].identical) {
            size_t len = strlen(s[i].label);
            if (within[i] == 0) snprintf(s[i].label + len, sizeof s[i].label - len, " (identical)");
            else snprintf(s[i].label + len, sizeof s[i].label - len, " (coincide, within %.2g%%)", 100 * within[i]);
        }
        if (kept != i) s[kept] = s[i];
        kept++;
    }
    return kept;
}

static void chart_or_say(const gb_writer *wr, FILE *out, const gb_svg_axes *ax, const gb_svg_series *s, size_t n) {
    if (n == 0 || wr->chart(out, ax, s, n) != 0) wr->para(out, "No data to chart.", 0);
}

void gb_report_charts(const gb_writer *wr, const rdoc *d, size_t a, size_t b, FILE *out) {
    gb_svg_series *s = calloc(CAP, sizeof *s), *part = calloc(CAP, sizeof *part);
    if (!s || !part) {
        free(s), free(part);
        return;
    }
    int geo = 0;
    for (size_t i = a; i < b; i++) {
        int sq = 1;
        gb_case_scalar_size(d->rows[i].c, &sq);
        geo |= !sq;
    }
    const char *xlabel = geo ? "size n (n×n, or the geometric mean of a non-square shape's dimensions)" : "size n";
    const char *lab = d->rows[a].label;
    size_t ll = lab ? strlen(lab) : 0;
    int bytes = ll > 2 && !strcmp(lab + ll - 2, "iB"); /* sizes given in bytes (transfer): ticks say 4K, 1M */
    if (bytes) xlabel = "bytes copied";
    wr->charts_begin(out);
    for (int which = 0; which < (d->gpu_cols ? 2 : 1); which++) {
        size_t ns = merge_coinciding(d, s, chart_series(d, a, b, which, s, CAP));
        const char *what = which ? "speedup (CPU median / GPU median)" : "median time";
        gb_svg_axes ax = {.xlabel = xlabel, .ylabel = which ? "speedup (×), above 1×: the GPU is faster" : "time (ms)",
                          .hline = which ? 1.0 : NAN, .hline_label = which ? "1× (same speed)" : NULL,
                          .x_bytes = bytes};
        char title[256];
        int nv = 0;
        for (size_t i = 0; i < ns; i++) nv = s[i].variant + 1 > nv ? s[i].variant + 1 : nv;
        if (ns <= CHART_MAX_SERIES || nv < 2) {
            snprintf(title, sizeof title, "%s: %s", d->rows[a].op, what);
            ax.title = title;
            chart_or_say(wr, out, &ax, s, ns);
        } else {
            /* one chart per variant: a chart of one variant colours its sides */
            for (int v = 0; v < nv; v++) {
                size_t np = 0;
                for (size_t i = 0; i < ns; i++)
                    if (s[i].variant == v) part[np++] = s[i];
                if (np == 0) continue;
                char name[192];
                variant_name(d, &d->rows[part[0].row], 1, 0, name, sizeof name);
                snprintf(title, sizeof title, "%s %s: %s", d->rows[a].op, name, what);
                for (size_t i = 0; i < np; i++) { /* the title names the variant: the legend the side (and shape) */
                    char *cut = part[i].identical ? NULL : strstr(part[i].label, " · ");
                    char *shape = part[i].joined ? NULL : strrchr(part[i].label, '(');
                    if (cut && shape && shape > cut) memmove(cut + 1, shape, strlen(shape) + 1);
                    else if (cut) *cut = '\0';
                }
                ax.title = title;
                chart_or_say(wr, out, &ax, part, np);
            }
        }
        for (size_t i = 0; i < ns; i++) drop(&s[i]);
    }
    wr->charts_end(out);
    free(s), free(part);
}
