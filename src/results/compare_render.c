/* compare_render.c — the comparison document as a terminal table, Markdown
 * (for a CI job summary or PR comment) or JSON. Warnings go first: a
 * comparison across different machines is the mistake most worth seeing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

static const char *s_of(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double n_of(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* v to three significant figures, trailing zeros kept ("8.00", "228",
 * "0.0451"), with unit u after a blank; every number of the table goes
 * through here, so a median and a change are shown to the same precision
 * (8.47 ms, not "8 ms"). */
static void fmt_sig3(double v, const char *u, char *buf, size_t len) {
    char e[32];
    snprintf(e, sizeof e, "%.2e", v); /* rounded to three figures first, so 999.96 reads 1.00e+03 */
    double r = strtod(e, NULL);
    int mag = r == 0 ? 0 : (int)floor(log10(fabs(r)) + 1e-9);
    snprintf(buf, len, "%.*f%s%s", mag >= 2 ? 0 : 2 - mag, r, *u ? " " : "", u);
}

static void fmt_time(double s, char *buf, size_t len) {
    char e[32];
    snprintf(e, sizeof e, "%.2e", s);
    double r = strtod(e, NULL); /* the unit is chosen for the rounded value: 999.96 us is 1.00 ms */
    if (!isfinite(s)) snprintf(buf, len, "-");
    else if (r >= 1.0) fmt_sig3(s, "s", buf, len);
    else if (r >= 1e-3) fmt_sig3(s * 1e3, "ms", buf, len);
    else if (r >= 1e-6) fmt_sig3(s * 1e6, "us", buf, len);
    else fmt_sig3(s * 1e9, "ns", buf, len);
}

static void fmt_pct(double f, char *buf, size_t len) {
    if (isnan(f)) snprintf(buf, len, "-");
    else if (isinf(f)) snprintf(buf, len, "%s", f > 0 ? "+inf" : "-inf");
    else if (fabs(f) < 0.01) snprintf(buf, len, "%+.2f%%", 100.0 * f); /* under 1%: to 0.01% */
    else {
        char n[16];
        fmt_sig3(100.0 * f, "", n, sizeof n);
        snprintf(buf, len, "%s%.12s%%", f > 0 ? "+" : "", n);
    }
}

static void fmt_ci(const cJSON *item, char *buf, size_t len) /* len >= 48 */ {
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(item, "ci_low");
    const cJSON *hi = cJSON_GetObjectItemCaseSensitive(item, "ci_high");
    if (!cJSON_IsNumber(lo) || !cJSON_IsNumber(hi)) {
        snprintf(buf, len, "%s", isfinite(n_of(item, "change")) ? "(too few)" : "-");
        return;
    }
    char a[20], b[20];
    fmt_pct(lo->valuedouble, a, sizeof a);
    fmt_pct(hi->valuedouble, b, sizeof b);
    snprintf(buf, len, "[%s, %s]", a, b);
}

static void fmt_p(double p, char *buf, size_t len) {
    if (isnan(p)) snprintf(buf, len, "-");
    else if (p < 1e-4) snprintf(buf, len, "<1e-4");
    else snprintf(buf, len, "%.4f", p);
}

static const char *loud(const char *verdict, int md) {
    if (strcmp(verdict, "regression") == 0) return md ? "**REGRESSION**" : "REGRESSION";
    if (strcmp(verdict, "failed") == 0) return md ? "**FAILED**" : "FAILED";
    if (strcmp(verdict, "improvement") == 0) return "improvement";
    if (strcmp(verdict, "not_compared") == 0) return "not compared";
    return verdict;
}

static void header(const cJSON *cmp, int md, FILE *out) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(cmp, "method");
    const cJSON *sides[2] = {cJSON_GetObjectItemCaseSensitive(cmp, "baseline"),
                             cJSON_GetObjectItemCaseSensitive(cmp, "current")};
    const char *names[2] = {"baseline", "current"};
    if (md) fprintf(out, "## gpubench compare\n\n");
    for (int i = 0; i < 2; i++) {
        fprintf(out, "%s%-8s %s%s", md ? "- " : "", names[i], md ? "`" : "", s_of(sides[i], "path"));
        fprintf(out, "%s", md ? "`" : "");
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(sides[i], "runs");
        for (const cJSON *r = runs ? runs->child : NULL; r; r = r->next)
            fprintf(out, " (%s, %s%s%s)", s_of(r, "name"), s_of(r, "date"), *s_of(r, "gpu") ? ", " : "",
                    s_of(r, "gpu"));
        fprintf(out, "\n");
    }
    double a = n_of(m, "alpha");
    fprintf(out, "%sthreshold %.1f%%, alpha %g%s%s%s: %.0f baseline run%s, %.0f current; change = ratio of the "
            "runs' round medians, %g%% interval from their rounds and runs, p Holm-adjusted over the cases\n\n",
            md ? "- " : "", 100.0 * n_of(m, "threshold"), a, *s_of(m, "policy") ? " (policy " : "",
            s_of(m, "policy"), *s_of(m, "policy") ? " overrides per op)" : "", n_of(m, "baseline_runs"),
            n_of(m, "baseline_runs") == 1 ? "" : "s", n_of(m, "current_runs"), 100.0 * (1.0 - a));
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(cmp, "warnings");
    if (w && w->child) {
        if (md) fprintf(out, "> [!WARNING]\n");
        for (const cJSON *x = w->child; x; x = x->next)
            fprintf(out, "%s%s\n", md ? "> - " : "!! WARNING: ", x->valuestring);
        fprintf(out, "\n");
    }
}

static void one_side_lists(const cJSON *cmp, int md, FILE *out) {
    static const char *const keys[] = {"only_in_baseline", "only_in_current"};
    static const char *const titles[] = {"Only in the baseline (not run now)", "Only in the current run (new)"};
    for (int i = 0; i < 2; i++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(cmp, keys[i]);
        if (!l || !l->child) continue;
        fprintf(out, md ? "\n### %s\n\n" : "\n%s:\n", titles[i]);
        for (const cJSON *x = l->child; x; x = x->next) fprintf(out, md ? "- `%s`\n" : "  %s\n", x->valuestring);
    }
}

/* What --confirm did: how many suspects were re-measured, in how many fresh
 * processes, how long it took, and how many stage 2 confirmed. */
static void confirm_summary(const cJSON *s, int md, FILE *out) {
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(s, "confirm");
    if (!c) return;
    double sus = n_of(c, "suspects"), procs = n_of(c, "processes");
    if (sus == 0) {
        fprintf(out, "%sConfirm: 0 re-measured: no suspect (no regression, and no unsure case beyond +threshold)\n",
                md ? "- " : "");
        return;
    }
    if (procs == 0) { /* the first judgement alone (the library's, before the runs) */
        fprintf(out, "%sConfirm: %.0f suspect%s, not re-measured\n", md ? "- " : "", sus, sus == 1 ? "" : "s");
        return;
    }
    fprintf(out, "%sConfirm: %.0f suspect%s (%d case%s of %s) re-measured in %.0f fresh process%s each, %.1f s: "
            "%.0f confirmed, %.0f not confirmed\n", md ? "- " : "", sus, sus == 1 ? "" : "s",
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "cases")),
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "cases")) == 1 ? "" : "s", s_of(c, "suite"), procs,
            procs == 1 ? "" : "es", n_of(c, "seconds"), n_of(c, "confirmed"), n_of(c, "not_confirmed"));
}

/* "[confirmed]" / "[not confirmed]" after the verdict of a re-measured case. */
static const char *confirm_mark(const cJSON *it) {
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(it, "confirm");
    if (!c) return "";
    return strcmp(s_of(c, "verdict"), "regression") == 0 ? " [confirmed]" : " [not confirmed]";
}

static void summary(const cJSON *cmp, int md, FILE *out) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(cmp, "summary");
    fprintf(out, "\n%sSummary: %.0f regression%s, %.0f failed, %.0f improvement%s, %.0f same, %.0f unsure, "
            "%.0f not compared, %.0f only in baseline, %.0f only in current%s\n",
            md ? "**" : "", n_of(s, "regression"), n_of(s, "regression") == 1 ? "" : "s",
            n_of(s, "failed") + n_of(s, "failed_only_in_current"), n_of(s, "improvement"),
            n_of(s, "improvement") == 1 ? "" : "s", n_of(s, "same"), n_of(s, "unsure"),
            n_of(s, "not_compared"), n_of(s, "only_in_baseline"), n_of(s, "only_in_current"), md ? "**" : "");
    confirm_summary(s, md, out);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(cmp, "comparisons");
    for (const cJSON *it = list ? list->child : NULL; it; it = it->next) {
        const char *v = s_of(it, "verdict");
        if (strcmp(v, "regression") && strcmp(v, "failed")) continue;
        char ch[24];
        fmt_pct(n_of(it, "change"), ch, sizeof ch);
        if (strcmp(v, "failed") == 0)
            fprintf(out, "%s%s %s (%s)\n", md ? "- " : "  ", loud(v, md), s_of(it, "name"), s_of(it, "reason"));
        else
            fprintf(out, "%s%s %s %s\n", md ? "- " : "  ", loud(v, md), s_of(it, "name"), ch);
    }
    if (*s_of(cmp, "error")) fprintf(out, "Result: ERROR: %s\n", s_of(cmp, "error"));
    else fprintf(out, "%s", n_of(cmp, "exit_code") != 0 ? "Result: FAIL\n" : "Result: pass\n");
}

/* One comparison's cells as both formats print them. */
typedef struct {
    char base[24], cur[24], change[24], interval[48], p[16];
} row_cells;

static void row_format(const cJSON *it, row_cells *r) {
    fmt_time(n_of(cJSON_GetObjectItemCaseSensitive(it, "baseline"), "median_s"), r->base, sizeof r->base);
    fmt_time(n_of(cJSON_GetObjectItemCaseSensitive(it, "current"), "median_s"), r->cur, sizeof r->cur);
    fmt_pct(n_of(it, "change"), r->change, sizeof r->change);
    fmt_ci(it, r->interval, sizeof r->interval);
    fmt_p(n_of(it, "p_holm"), r->p, sizeof r->p);
}

static void table(const cJSON *cmp, FILE *out) {
    header(cmp, 0, out);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(cmp, "comparisons");
    int w = 4;
    for (const cJSON *it = list ? list->child : NULL; it; it = it->next) {
        int l = (int)strlen(s_of(it, "name"));
        if (l > w) w = l;
    }
    if (w > 70) w = 70;
    fprintf(out, "%-*s %10s %10s %8s %19s %7s  %s\n", w, "case", "baseline", "current", "change", "interval", "p",
            "verdict");
    for (const cJSON *it = list ? list->child : NULL; it; it = it->next) {
        row_cells r;
        row_format(it, &r);
        const char *reason = s_of(it, "reason");
        fprintf(out, "%-*s %10s %10s %8s %19s %7s  %s%s%s%s%s\n", w, s_of(it, "name"), r.base, r.cur, r.change,
                r.interval, r.p,
                loud(s_of(it, "verdict"), 0), confirm_mark(it), *reason ? " (" : "", reason, *reason ? ")" : "");
    }
    one_side_lists(cmp, 0, out);
    summary(cmp, 0, out);
}

static void markdown(const cJSON *cmp, FILE *out) {
    header(cmp, 1, out);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(cmp, "comparisons");
    fprintf(out, "| case | baseline | current | change | interval | p | verdict |\n");
    fprintf(out, "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (const cJSON *it = list ? list->child : NULL; it; it = it->next) {
        row_cells r;
        row_format(it, &r);
        const char *reason = s_of(it, "reason");
        fprintf(out, "| `%s` | %s | %s | %s | %s | %s | %s%s%s%s |\n", s_of(it, "name"), r.base, r.cur, r.change,
                r.interval, r.p,
                loud(s_of(it, "verdict"), 1), confirm_mark(it), *reason ? "<br>" : "", reason);
    }
    one_side_lists(cmp, 1, out);
    summary(cmp, 1, out);
}

void gb_compare_render(const cJSON *cmp, gb_compare_format f, FILE *out) {
    if (f == GB_CMP_JSON) {
        char *s = cJSON_Print(cmp);
        if (s) {
            fprintf(out, "%s\n", s);
            free(s);
        }
        return;
    }
    if (f == GB_CMP_MD) markdown(cmp, out);
    else table(cmp, out);
}
