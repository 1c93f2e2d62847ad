/* history_publish.c — the dashboard: a static site from a history.
 *
 * index.html lists every case (per machine) with its latest figure, its
 * change against the runs before, a small trend line and any step or drift
 * bisect finds; case-<id>.html draws one case over commits: the median of
 * each run with its 95% interval, one colour per machine, the ceiling (the
 * time at 100% of the machine's measured peak) as a dashed line, and the
 * step or drift marked in red. Everything is inline (CSS, SVG): no server,
 * no script, no network at view time. The charts are drawn here rather
 * than by report_svg.c, whose charts are log-log over sizes; these are
 * linear over a sequence of commits with interval bars. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "history_internal.h"
#include "report_table.h"
#include "results_io.h"
#include "stats.h"

static const char *const COLOURS[] = {"#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"};
#define NCOLOURS (sizeof COLOURS / sizeof *COLOURS)

static const char *CSS =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}"
    "h1{font-size:20px}h2{font-size:16px;margin-top:28px}"
    "table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #e4e4e4;text-align:left}"
    "th{background:#f5f5f5}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "td.case{max-width:330px}td.machine{font-size:12px}td.machine span{display:block;white-space:nowrap}td.num{white-space:nowrap}td.found span{display:block;white-space:nowrap}"
    ".bad{color:#c62828;font-weight:600}.good{color:#2e7d32}.muted{color:#777}"
    "a{color:#1565c0;text-decoration:none}a:hover{text-decoration:underline}code{font-size:12px}";


/* A page id from a case name: the first 12 hex digits of its SHA-256. */
static void page_id(const char *name, char id[13]) {
    char hex[65];
    gb_sha256_hex(name, strlen(name), hex);
    memcpy(id, hex, 12);
    id[12] = 0;
}


/* A small trend line for the index (no axes). */
static void spark_svg(const gb_history_series *s, const gb_changepoint *cp, FILE *out) {
    const double W = 140, H = 26;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < s->n; i++) {
        lo = fmin(lo, s->p[i].value);
        hi = fmax(hi, s->p[i].value);
    }
    /* at least 10% tall: a 1% wobble must not look like a 20% step */
    if (hi - lo < 0.1) {
        double mid = (hi + lo) / 2;
        lo = mid - 0.05;
        hi = mid + 0.05;
    }
    fprintf(out, "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\"><polyline fill=\"none\" stroke=\"#1f77b4\" "
                 "stroke-width=\"1.5\" points=\"", W, H, W, H);
    for (size_t i = 0; i < s->n; i++)
        fprintf(out, "%.1f,%.1f ", s->n > 1 ? 2 + (W - 4) * (double)i / (double)(s->n - 1) : W / 2,
                H - 3 - (H - 6) * (s->p[i].value - lo) / (hi - lo));
    fprintf(out, "\"/>");
    if (cp->step && cp->step_change > 0) {
        double x = 2 + (W - 4) * (double)cp->step_at / (double)(s->n - 1);
        fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.0f\" stroke=\"#c62828\" stroke-dasharray=\"2,2\"/>", x, x, H);
    }
    fprintf(out, "</svg>");
}

typedef struct {
    const gb_history_series *s;
    size_t n;
} case_group;

/* x positions: every point of the case's machines in one order (commit time
 * where known, then as added). */
typedef struct {
    double key_id;
    const char *time;
    const gb_history_point *p;
    size_t series;
    size_t slot;        /* its x position: one per commit (the same commit on two machines shares it) */
} xpoint;

static int xcmp(const void *a, const void *b) {
    const xpoint *x = a, *y = b;
    int c = strcmp(*x->time ? x->time : "~", *y->time ? y->time : "~");
    if (c) return c;
    return x->key_id < y->key_id ? -1 : x->key_id > y->key_id;
}

static void chart(const case_group *g, double threshold, FILE *out) {
    const double W = 1000, H = 430, L = 80, R = 20, T = 34, B = 86;
    size_t total = 0;
    for (size_t k = 0; k < g->n; k++) total += g->s[k].n;
    xpoint *xp = calloc(total ? total : 1, sizeof *xp);
    size_t *pos0 = calloc(g->n, sizeof *pos0);
    if (!xp || !pos0) { free(xp); free(pos0); return; }
    size_t m = 0;
    for (size_t k = 0; k < g->n; k++)
        for (size_t i = 0; i < g->s[k].n; i++)
            xp[m++] = (xpoint){(double)g->s[k].p[i].run_id, g->s[k].p[i].commit_time, &g->s[k].p[i], k, 0};
    qsort(xp, m, sizeof *xp, xcmp);
    size_t nslots = 0;
    for (size_t i = 0; i < m; i++) {
        int same = i > 0 && *xp[i].p->commit && strcmp(xp[i].p->commit, xp[i - 1].p->commit) == 0;
        xp[i].slot = same ? xp[i - 1].slot : nslots++;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < m; i++) {
        const gb_history_point *p = xp[i].p;
        lo = fmin(lo, isfinite(p->lo) ? p->lo : p->median);
        hi = fmax(hi, isfinite(p->hi) ? p->hi : p->median);
    }
    /* each machine's ceiling: the median over its runs of the time at 100%
     * of its measured peak (NAN: none). It joins the axis when it is near
     * the data; far below, a note says where it is. */
    double data_lo = lo, *ceil_k = calloc(g->n, sizeof *ceil_k), *tmpv = calloc(total ? total : 1, sizeof *tmpv);
    for (size_t k = 0; ceil_k && tmpv && k < g->n; k++) {
        size_t c = 0;
        for (size_t i = 0; i < g->s[k].n; i++)
            if (isfinite(g->s[k].p[i].ceiling_s)) tmpv[c++] = g->s[k].p[i].ceiling_s;
        ceil_k[k] = c ? gb_median(tmpv, c) : NAN;
        if (isfinite(ceil_k[k]) && ceil_k[k] >= data_lo * 0.5) lo = fmin(lo, ceil_k[k]);
    }
    free(tmpv);
    double pad = (hi - lo) * 0.08 + hi * 1e-3;
    lo = fmax(0, lo - pad);
    hi += pad;
    double pw = W - L - R, ph = H - T - B;
    /* 2% inside each end: the first and last interval bars are not cut */
#define XSL(k) (L + pw * 0.02 + (nslots > 1 ? pw * 0.96 * (double)(k) / (double)(nslots - 1) : pw * 0.48))
#define XS(i) XSL(xp[i].slot)
#define YS(v) (T + ph - ph * ((v) - lo) / (hi - lo))
    fprintf(out, "<svg viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" style=\"max-width:%.0fpx\" font-size=\"12\">", W, H, W);
    fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" stroke=\"#ccc\"/>", L, T, pw, ph);
    /* y grid at 1, 2 or 5 times a power of ten, about five lines */
    double raw = (hi - lo) / 5, mag = pow(10, floor(log10(raw))), step = mag;
    if (raw / mag > 5) step = 10 * mag;
    else if (raw / mag > 2) step = 5 * mag;
    else if (raw / mag > 1) step = 2 * mag;
    for (double v = ceil(lo / step) * step; v <= hi; v += step) {
        char buf[32];
        gb_hist_time_text(v, buf, sizeof buf);
        fprintf(out, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e6e6e6\"/>", L, L + pw, YS(v), YS(v));
        fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", L - 6, YS(v) + 4, buf);
    }
    size_t every = nslots > 30 ? (nslots + 29) / 30 : 1;
    for (size_t i = 0; i < m; i++) {
        if ((i > 0 && xp[i].slot == xp[i - 1].slot) || xp[i].slot % every) continue; /* a commit's label once */
        fprintf(out, "<text transform=\"translate(%.1f,%.0f) rotate(-45)\" text-anchor=\"end\" font-family=\"monospace\" "
                     "font-size=\"11\">", XS(i), T + ph + 14);
        gb_html_text(*xp[i].p->commit ? xp[i].p->commit : "-", out);
        fprintf(out, "</text>");
    }
    fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#555\">commit (oldest left)</text>", L + pw / 2, H - 4);
    for (size_t k = 0, notes = 0; ceil_k && k < g->n; k++) {
        if (!isfinite(ceil_k[k])) continue;
        const char *col = COLOURS[k % NCOLOURS];
        char who[300] = "";
        if (g->n > 1) snprintf(who, sizeof who, " of %s", g->s[k].machine);
        if (ceil_k[k] >= data_lo * 0.5) {
            fprintf(out, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"6,4\"/>"
                         "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">ceiling (100%% of peak)",
                    L, L + pw, YS(ceil_k[k]), YS(ceil_k[k]), col, L + pw - 4, YS(ceil_k[k]) - 4, col);
        } else {
            char buf[32];
            gb_hist_time_text(ceil_k[k], buf, sizeof buf);
            fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" fill=\"%s\">ceiling %s: below the chart, "
                         "%.2g&#215; faster than the fastest run", L + pw - 4, T + ph - 6 - 14.0 * (double)notes++, col, buf,
                    data_lo / ceil_k[k]);
        }
        gb_html_text(who, out);
        fprintf(out, "</text>");
    }
    free(ceil_k);
    /* per machine: interval bars, the median line, markers; change points in red */
    for (size_t k = 0; k < g->n; k++) {
        const char *col = COLOURS[k % NCOLOURS];
        gb_changepoint cp;
        gb_history_series_changepoint(&g->s[k], threshold, &cp);
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", col);
        for (size_t i = 0; i < m; i++)
            if (xp[i].series == k) fprintf(out, "%.1f,%.1f ", XS(i), YS(xp[i].p->median));
        fprintf(out, "\"/>");
        for (size_t i = 0; i < m; i++) {
            if (xp[i].series != k) continue;
            const gb_history_point *p = xp[i].p;
            size_t idx = (size_t)(p - g->s[k].p);
            if (isfinite(p->lo) && isfinite(p->hi))
                fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-opacity=\"0.55\" "
                             "stroke-width=\"2\"/>", XS(i), XS(i), YS(p->lo), YS(p->hi), col);
            int bad = p->verified == 0;
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"%s><title>", XS(i), YS(p->median),
                    bad ? "#fff" : col, bad ? " stroke=\"#c62828\" stroke-width=\"2\"" : "");
            char med[32], l[32], h[32];
            gb_hist_time_text(p->median, med, sizeof med);
            gb_hist_time_text(p->lo, l, sizeof l);
            gb_hist_time_text(p->hi, h, sizeof h);
            fprintf(out, "run %lld, ", p->run_id);
            gb_html_text(p->commit, out);
            fprintf(out, ": %s (%s .. %s)%s</title></circle>", med, l, h, bad ? ", verification FAILED" : "");
            if (cp.step && cp.step_change > 0 && idx == cp.step_at) {
                double x0 = (XS(i) + (xp[i].slot > 0 ? XSL(xp[i].slot - 1) : XS(i))) / 2;
                fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#c62828\" stroke-dasharray=\"5,3\" "
                             "stroke-width=\"1.5\"/><text x=\"%.1f\" y=\"%.0f\" fill=\"#c62828\">step %+.1f%%</text>",
                        x0, x0, T, T + ph, x0 + 4, T + 14 + 14.0 * (double)k, cp.step_change * 100);
            }
            if (cp.drift && cp.drift_total > 0 && idx == cp.drift_from) {
                double x0 = (XS(i) + (xp[i].slot > 0 ? XSL(xp[i].slot - 1) : XS(i))) / 2;
                fprintf(out, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"#c62828\" fill-opacity=\"0.07\"/>"
                             "<text x=\"%.1f\" y=\"%.0f\" fill=\"#c62828\">drift %+.1f%%/run, %+.0f%% in all</text>",
                        x0, T, L + pw - x0, ph, x0 + 4, T + 30 + 14.0 * (double)k, cp.drift_per_point * 100,
                        cp.drift_total * 100);
            }
        }
    }
    for (size_t k = 0; k < g->n; k++) { /* legend, above the plot (the commit labels fill the space below) */
        fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">",
                L + 300.0 * (double)k, T - 24, COLOURS[k % NCOLOURS], L + 16 + 300.0 * (double)k, T - 14);
        gb_html_text(g->s[k].machine, out);
        fprintf(out, "</text>");
    }
    fprintf(out, "</svg>");
#undef XS
#undef XSL
#undef YS
    free(xp);
    free(pos0);
}

static int write_buf(const char *dir, const char *file, char *buf, size_t len, gb_err *e) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = gb_file_write(path, buf, len, e);
    free(buf);
    return rc;
}

/* A case name that may wrap after each '/' (names are long; the table must
 * fit a laptop's window). */
/* A commit's first 12 bytes, escaped (a commit is whatever history add was
 * given: text from a results file or the command line, never trusted). */
static void short_commit_html(const char *commit, FILE *out) {
    char c[13];
    snprintf(c, sizeof c, "%.12s", commit);
    gb_html_text(c, out);
}

static void name_html(const char *name, FILE *out) {
    char part[512];
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "/");
        snprintf(part, sizeof part, "%.*s", (int)n, p);
        gb_html_text(part, out);
        p += n;
        if (*p == '/') {
            fputs("/<wbr>", out);
            p++;
        }
    }
}

static void head(FILE *out, const char *title) {
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    gb_html_text(title, out);
    fprintf(out, "</title><style>%s</style></head><body>\n", CSS);
}

static int case_page(const case_group *g, const char *id, const char *dir, double threshold, gb_err *e) {
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) return gb_errf(e, GB_FAIL, "out of memory");
    head(out, g->s[0].name);
    fprintf(out, "<p><a href=\"index.html\">&larr; all cases</a></p><h1>");
    gb_html_text(g->s[0].name, out);
    fprintf(out, "</h1><p class=\"muted\">Median time of each run with its 95%% interval; lower is faster. "
                 "Red: a step (the first commit after which it stayed slower) or a drift, as "
                 "<code>gpubench history bisect</code> finds them (beyond %.3g%%). A hollow red point failed verification.</p>\n",
            threshold * 100);
    chart(g, threshold, out);
    for (size_t k = 0; k < g->n; k++) {
        const gb_history_series *s = &g->s[k];
        fprintf(out, "<h2>");
        gb_html_text(s->machine, out);
        fprintf(out, " <span class=\"muted\">[");
        gb_html_text(s->machine_key, out);
        fprintf(out, "]</span></h2><table><tr><th>run</th><th>commit</th><th>branch</th>"
                     "<th>time</th><th>median</th><th>95%% interval</th><th>%% of ceiling</th><th>verified</th></tr>\n");
        for (size_t i = s->n; i-- > 0;) {
            const gb_history_point *p = &s->p[i];
            char med[32], l[32], h[32], pct[16];
            gb_hist_time_text(p->median, med, sizeof med);
            gb_hist_time_text(p->lo, l, sizeof l);
            gb_hist_time_text(p->hi, h, sizeof h);
            if (isfinite(p->pct)) snprintf(pct, sizeof pct, "%.1f", p->pct);
            else snprintf(pct, sizeof pct, "-");
            fprintf(out, "<tr><td class=\"num\">%lld</td><td><code>", p->run_id);
            gb_html_text(p->commit, out);
            fprintf(out, "</code></td><td>");
            gb_html_text(p->branch, out);
            fprintf(out, "</td><td>");
            gb_html_text(*p->commit_time ? p->commit_time : p->added_at, out);
            fprintf(out, "</td><td class=\"num\">%s</td><td class=\"num\">%s .. %s</td><td class=\"num\">%s</td><td%s>%s</td></tr>\n",
                    med, l, h, pct, p->verified == 0 ? " class=\"bad\"" : "",
                    p->verified == 1 ? "passed" : p->verified == 0 ? "FAILED" : "-");
        }
        fprintf(out, "</table>\n");
    }
    fprintf(out, "</body></html>\n");
    fclose(out);
    char file[64];
    snprintf(file, sizeof file, "case-%s.html", id);
    return write_buf(dir, file, buf, len, e);
}

/* The latest run against the median of up to 8 runs before it (ratio - 1). */
static double latest_change(const gb_history_series *s) {
    if (s->n < 2) return NAN;
    double v[8];
    size_t k = 0;
    for (size_t i = s->n - 1; i-- > 0 && k < 8;) v[k++] = s->p[i].value;
    for (size_t a = 1; a < k; a++)
        for (size_t b = a; b > 0 && v[b - 1] > v[b]; b--) {
            double t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    double med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    return expm1(s->p[s->n - 1].value - med);
}

/* Whether the database's own name (its links followed) is one publish
 * writes in the directory dir_st: index.html or case-*.html. The page
 * would replace it (a history named pd/index.html, published into pd, was
 * lost). */
static int db_is_a_page(const char *db, const struct stat *dir_st, char *page, size_t len) {
    char real[PATH_MAX];
    if (!realpath(db, real)) return 0;
    char *slash = strrchr(real, '/');
    if (!slash) return 0;
    const char *base = slash + 1;
    *slash = '\0';
    struct stat ds;
    if (stat(*real ? real : "/", &ds) != 0 || ds.st_dev != dir_st->st_dev || ds.st_ino != dir_st->st_ino) return 0;
    snprintf(page, len, "%s", base);
    return !strcmp(base, "index.html") || fnmatch("case-*.html", base, 0) == 0;
}

int gb_history_publish(gb_history *h, const gb_history_filter *f, const char *dir, double threshold, size_t *pages,
                       gb_err *e) {
    *pages = 0;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return gb_errf(e, GB_FAIL, "%s: cannot make the directory: %s", dir, strerror(errno));
    struct stat sb; /* said before anything is read: "publish h.sqlite" named the database, not a directory */
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gb_errf(e, GB_FAIL, "%s: not a directory: publish writes its pages into a directory", dir);
    char page[NAME_MAX + 1];
    if (db_is_a_page(gb_history_name(h), &sb, page, sizeof page))
        return gb_errf(e, GB_FAIL, "%s: the history --db %s is %s there, a page publish writes: gpubench never "
                       "writes over one of its own inputs; publish into another directory", dir, gb_history_name(h), page);
    gb_history_series_set set;
    if (gb_history_series_load(h, f, &set, e) != GB_OK) return GB_FAIL;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) {
        gb_history_series_free(&set);
        return gb_errf(e, GB_FAIL, "out of memory");
    }
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%d %H:%M UTC", &tm);
    head(out, "gpubench history");
    fprintf(out, "<h1>gpubench history</h1><p class=\"muted\">%zu series from <code>", set.n);
    gb_html_text(gb_history_name(h), out);
    fprintf(out, "</code>, published %s. Change: the latest run against the median of the (up to 8) runs before it. "
                 "Trend: each run's median, oldest left; red, a step or drift beyond %.3g%% "
                 "(<code>gpubench history bisect</code>).</p>\n<table><tr><th>case</th><th>machine</th><th>runs</th>"
                 "<th>latest median</th><th>change</th><th>%% of ceiling</th><th>trend</th><th>found</th></tr>\n",
            now, threshold * 100);
    int status = GB_OK;
    /* series come sorted by name, then machine: a case's machines are adjacent */
    for (size_t k = 0; k < set.n && status == GB_OK;) {
        case_group g = {&set.s[k], 1};
        while (k + g.n < set.n && strcmp(set.s[k + g.n].name, set.s[k].name) == 0) g.n++;
        char id[13];
        page_id(set.s[k].name, id);
        status = case_page(&g, id, dir, threshold, e);
        (*pages)++;
        for (size_t j = 0; j < g.n; j++) {
            const gb_history_series *s = &g.s[j];
            const gb_history_point *p = &s->p[s->n - 1];
            gb_changepoint cp;
            gb_history_series_changepoint(s, threshold, &cp);
            double ch = latest_change(s);
            char med[32], pct[16], chs[24];
            gb_hist_time_text(p->median, med, sizeof med);
            if (isfinite(p->pct)) snprintf(pct, sizeof pct, "%.1f", p->pct);
            else snprintf(pct, sizeof pct, "-");
            if (isfinite(ch)) snprintf(chs, sizeof chs, "%+.1f%%", ch * 100);
            else snprintf(chs, sizeof chs, "-");
            fprintf(out, "<tr><td class=\"case\"><a href=\"case-%s.html\">", id);
            name_html(s->name, out);
            fprintf(out, "</a></td><td class=\"machine\"><span>");
            gb_html_text(s->p[s->n - 1].host, out);
            fprintf(out, "</span><span class=\"muted\">");
            gb_html_text(s->hardware, out);
            fprintf(out, "</span>");
            /* the change is descriptive (one run against a few): it is red
             * only when bisect's tests found the slowdown */
            int found = (cp.step && cp.step_change > 0) || (cp.drift && cp.drift_total > 0);
            fprintf(out, "</td><td class=\"num\">%zu</td><td class=\"num\">%s</td><td class=\"num%s\">%s</td>"
                         "<td class=\"num\">%s</td><td>", s->n, med, found ? " bad" : "", chs, pct);
            spark_svg(s, &cp, out);
            fprintf(out, "</td><td class=\"bad found\">");
            /* one commit on both sides: the machine's, and no commit blamed */
            if (cp.step && cp.step_change > 0) {
                fprintf(out, "<span>step %+.1f%% %s ", cp.step_change * 100,
                        cp.step_same_build ? "between runs of" : "at");
                short_commit_html(s->p[cp.step_at].commit, out);
                fprintf(out, "</span>");
            }
            if (cp.drift && cp.drift_total > 0) {
                fprintf(out, "<span>drift %+.1f%%/run</span><span>%s ", cp.drift_per_point * 100,
                        cp.drift_same_build ? "within runs of" : "from");
                short_commit_html(s->p[cp.drift_from].commit, out);
                fprintf(out, "</span>");
            }
            if ((cp.step_same_build && cp.step_change > 0) || (cp.drift_same_build && cp.drift_total > 0))
                fprintf(out, "<span>(the machine, not the code)</span>");
            fprintf(out, "</td></tr>\n");
        }
        k += g.n;
    }
    fprintf(out, "</table></body></html>\n");
    fclose(out);
    if (status == GB_OK) status = write_buf(dir, "index.html", buf, len, e);
    else free(buf);
    gb_history_series_free(&set);
    return status;
}
