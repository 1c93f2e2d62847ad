/* compare_render.c — a comparison (compare_result.h) as a terminal table,
 * Markdown (for a CI job summary or PR comment) or JSON (compare_json.c).
 * Warnings go first: a comparison across different machines is the mistake
 * most worth seeing. Compare's numbers keep their own look (format.h:
 * three significant figures with the unit, "8.47 ms"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "format.h"

/* The interval; JSON has no NaN, so a bound that is not finite is no bound. */
static void fmt_ci(const gb_cmp_item *it, char *buf, size_t len) /* len >= 48 */ {
    if (!isfinite(it->ci_low) || !isfinite(it->ci_high)) {
        snprintf(buf, len, "%s", isfinite(it->change) ? "(too few)" : "-");
        return;
    }
    char a[20], b[20];
    gb_fmt_change(it->ci_low, a, sizeof a);
    gb_fmt_change(it->ci_high, b, sizeof b);
    snprintf(buf, len, "[%s, %s]", a, b);
}

static const char *loud(const char *verdict, int md) {
    if (strcmp(verdict, "regression") == 0) return md ? "**REGRESSION**" : "REGRESSION";
    if (strcmp(verdict, "failed") == 0) return md ? "**FAILED**" : "FAILED";
    if (strcmp(verdict, "improvement") == 0) return "improvement";
    if (strcmp(verdict, "not_compared") == 0) return "not compared";
    return verdict;
}



static void header(const gb_compare_result *cmp, int md, FILE *out) {
    const gb_cmp_file *sides[2] = {&cmp->baseline, &cmp->current};
    const char *names[2] = {"baseline", "current"};
    if (md) fprintf(out, "## gpubench compare\n\n");
    for (int i = 0; i < 2; i++) {
        fprintf(out, "%s%-8s %s%s", md ? "- " : "", names[i], md ? "`" : "", sides[i]->path);
        fprintf(out, "%s", md ? "`" : "");
        for (size_t k = 0; k < sides[i]->nruns; k++) {
            const gb_cmp_run_desc *r = &sides[i]->runs[k];
            fprintf(out, " (%s, %s%s%s)", gb_json_str(r->name), gb_json_str(r->date), *gb_json_str(r->gpu) ? ", " : "",
                    gb_json_str(r->gpu));
        }
        fprintf(out, "\n");
    }
    double a = cmp->alpha;
    const char *policy = cmp->policy ? cmp->policy : "";
    fprintf(out, "%sthreshold %.1f%%, alpha %g%s%s%s: %.0f baseline run%s, %.0f current; change = ratio of the "
            "runs' round medians, %g%% interval from their rounds and runs, p Holm-adjusted over the cases\n\n",
            md ? "- " : "", 100.0 * cmp->threshold, a, *policy ? " (policy " : "", policy,
            *policy ? " overrides per op)" : "", (double)cmp->nbase, cmp->nbase == 1 ? "" : "s", (double)cmp->ncur,
            100.0 * (1.0 - a));
    if (cmp->warnings.n) {
        if (md) fprintf(out, "> [!WARNING]\n");
        for (size_t i = 0; i < cmp->warnings.n; i++)
            fprintf(out, "%s%s\n", md ? "> - " : "!! WARNING: ", cmp->warnings.item[i]);
        fprintf(out, "\n");
    }
}

static void one_side_lists(const gb_compare_result *cmp, int md, FILE *out) {
    const gb_cmp_strs *lists[] = {&cmp->only_in_baseline, &cmp->only_in_current};
    static const char *const titles[] = {"Only in the baseline (not run now)", "Only in the current run (new)"};
    for (int i = 0; i < 2; i++) {
        const gb_cmp_strs *l = lists[i];
        if (!l->n) continue;
        fprintf(out, md ? "\n### %s\n\n" : "\n%s:\n", titles[i]);
        for (size_t k = 0; k < l->n; k++) fprintf(out, md ? "- `%s`\n" : "  %s\n", l->item[k]);
    }
}

/* What --confirm did: how many suspects were re-measured, in how many fresh
 * processes, how long it took, and how many stage 2 confirmed. */
static void confirm_summary(const gb_cmp_confirm_summary *c, int md, FILE *out) {
    if (!c->present) return;
    double sus = c->suspects, procs = (double)c->processes;
    if (sus == 0) {
        fprintf(out, "%sConfirm: 0 re-measured: no suspect (no regression, and no unsure case beyond +threshold)\n",
                md ? "- " : "");
        return;
    }
    if (procs == 0) { /* the first judgement alone (the library's, before the runs) */
        fprintf(out, "%sConfirm: %.0f suspect%s, not re-measured\n", md ? "- " : "", sus, sus == 1 ? "" : "s");
        return;
    }
    int ncases = (int)c->cases.n;
    fprintf(out, "%sConfirm: %.0f suspect%s (%d case%s of %s) re-measured in %.0f fresh process%s each, %.1f s: "
            "%.0f confirmed, %.0f not confirmed\n", md ? "- " : "", sus, sus == 1 ? "" : "s", ncases,
            ncases == 1 ? "" : "s", c->suite ? c->suite : "", procs, procs == 1 ? "" : "es", c->seconds,
            (double)c->confirmed, (double)c->not_confirmed);
}

/* "[confirmed]" / "[not confirmed]" after the verdict of a re-measured case. */
static const char *confirm_mark(const gb_cmp_item *it) {
    if (!it->confirm.have) return "";
    return it->confirm.verdict == GB_V_REGRESSION ? " [confirmed]" : " [not confirmed]";
}

static void summary(const gb_compare_result *cmp, int md, FILE *out) {
    const gb_cmp_summary *s = &cmp->summary;
    const int *n = s->count;
    fprintf(out, "\n%sSummary: %.0f regression%s, %.0f failed, %.0f improvement%s, %.0f same, %.0f unsure, "
            "%.0f not compared, %.0f only in baseline, %.0f only in current%s\n",
            md ? "**" : "", (double)n[GB_V_REGRESSION], n[GB_V_REGRESSION] == 1 ? "" : "s",
            (double)(n[GB_V_FAILED] + s->failed_only_in_current), (double)n[GB_V_IMPROVEMENT],
            n[GB_V_IMPROVEMENT] == 1 ? "" : "s", (double)n[GB_V_SAME], (double)n[GB_V_UNSURE],
            (double)n[GB_V_NOT_COMPARED], (double)cmp->only_in_baseline.n, (double)cmp->only_in_current.n,
            md ? "**" : "");
    confirm_summary(&s->confirm, md, out);
    for (size_t i = 0; i < cmp->nitems; i++) {
        const gb_cmp_item *it = &cmp->items[i];
        const char *v = gb_verdict_name(it->verdict);
        if (it->verdict != GB_V_REGRESSION && it->verdict != GB_V_FAILED) continue;
        char ch[24];
        gb_fmt_change(gb_json_num(it->change), ch, sizeof ch);
        if (it->verdict == GB_V_FAILED)
            fprintf(out, "%s%s %s (%s)\n", md ? "- " : "  ", loud(v, md), it->name, it->reason);
        else
            fprintf(out, "%s%s %s %s\n", md ? "- " : "  ", loud(v, md), it->name, ch);
    }
    if (*cmp->error) fprintf(out, "Result: ERROR: %s\n", cmp->error);
    else fprintf(out, "%s", cmp->exit_code != 0 ? "Result: FAIL\n" : "Result: pass\n");
}

/* One comparison's cells as both formats print them. */
typedef struct {
    char base[24], cur[24], change[24], interval[48], p[16];
} row_cells;

static void row_format(const gb_cmp_item *it, row_cells *r) {
    gb_fmt_time3(it->baseline.median_s, r->base, sizeof r->base);
    gb_fmt_time3(it->current.median_s, r->cur, sizeof r->cur);
    gb_fmt_change(gb_json_num(it->change), r->change, sizeof r->change);
    fmt_ci(it, r->interval, sizeof r->interval);
    gb_fmt_p(gb_json_num(it->p_holm), r->p, sizeof r->p);
}

static void table(const gb_compare_result *cmp, FILE *out) {
    header(cmp, 0, out);
    int w = 4;
    for (size_t i = 0; i < cmp->nitems; i++) {
        int l = (int)strlen(cmp->items[i].name);
        if (l > w) w = l;
    }
    if (w > 70) w = 70;
    fprintf(out, "%-*s %10s %10s %8s %19s %7s  %s\n", w, "case", "baseline", "current", "change", "interval", "p",
            "verdict");
    for (size_t i = 0; i < cmp->nitems; i++) {
        const gb_cmp_item *it = &cmp->items[i];
        row_cells r;
        row_format(it, &r);
        const char *reason = it->reason;
        fprintf(out, "%-*s %10s %10s %8s %19s %7s  %s%s%s%s%s\n", w, it->name, r.base, r.cur, r.change,
                r.interval, r.p, loud(gb_verdict_name(it->verdict), 0), confirm_mark(it), *reason ? " (" : "",
                reason, *reason ? ")" : "");
    }
    one_side_lists(cmp, 0, out);
    summary(cmp, 0, out);
}

static void markdown(const gb_compare_result *cmp, FILE *out) {
    header(cmp, 1, out);
    fprintf(out, "| case | baseline | current | change | interval | p | verdict |\n");
    fprintf(out, "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (size_t i = 0; i < cmp->nitems; i++) {
        const gb_cmp_item *it = &cmp->items[i];
        row_cells r;
        row_format(it, &r);
        const char *reason = it->reason;
        fprintf(out, "| `%s` | %s | %s | %s | %s | %s | %s%s%s%s |\n", it->name, r.base, r.cur, r.change,
                r.interval, r.p, loud(gb_verdict_name(it->verdict), 1), confirm_mark(it), *reason ? "<br>" : "",
                reason);
    }
    one_side_lists(cmp, 1, out);
    summary(cmp, 1, out);
}

void gb_compare_render(const gb_compare_result *cmp, gb_compare_format f, FILE *out) {
    if (f == GB_CMP_JSON) {
        cJSON *doc = gb_compare_result_json(cmp);
        char *s = doc ? cJSON_Print(doc) : NULL;
        if (s) {
            fprintf(out, "%s\n", s);
            free(s);
        }
        cJSON_Delete(doc);
        return;
    }
    if (f == GB_CMP_MD) markdown(cmp, out);
    else table(cmp, out);
}
