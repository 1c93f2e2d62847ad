/* compare_render.c — a comparison (compare_result.h) through the format
 * writers (writer.h: the terminal table, Markdown for a CI job summary or PR
 * comment, an HTML page), or as its JSON document (compare_json.c). This file
 * says what the comparison shows — a header, the warnings, a table of the
 * cases, what one side alone has, the summary — and the writers how. Warnings
 * go first: a comparison across different machines is the mistake most worth
 * seeing. Compare's numbers keep their own look (format.h: three significant
 * figures with the unit, "8.47 ms"). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "format.h"
#include "writer.h"

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

/* A verdict as the table and the summary show it: a failure in strong type. */
static const char *loud(gb_cmp_verdict v) {
    switch (v) {
    case GB_V_REGRESSION: return GB_MK_STRONG "REGRESSION" GB_MK_STRONG;
    case GB_V_FAILED: return GB_MK_STRONG "FAILED" GB_MK_STRONG;
    case GB_V_NOT_COMPARED: return "not compared";
    default: return gb_verdict_name(v);
    }
}

/* One line of a role, formatted (nothing written out of memory). */
__attribute__((format(printf, 4, 5))) static void line(const gb_writer *w, FILE *out, gb_line_role role,
                                                       const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    const char *items[1] = {s};
    w->lines(out, role, items, 1);
    free(s);
}

/* "baseline FILE (run, date, gpu)...", the file's name as code. */
static char *side_text(const char *name, const gb_cmp_file *side) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, "%-8s " GB_MK_CODE "%s" GB_MK_CODE, name, side->path);
    for (size_t k = 0; k < side->nruns; k++) {
        const gb_cmp_run_desc *r = &side->runs[k];
        fprintf(f, " (%s, %s%s%s)", gb_json_str(r->name), gb_json_str(r->date), *gb_json_str(r->gpu) ? ", " : "",
                gb_json_str(r->gpu));
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void header(const gb_compare_result *cmp, const gb_writer *w, FILE *out) {
    line(w, out, GB_LINE_TITLE, "gpubench compare");
    char *fields[3] = {side_text("baseline", &cmp->baseline), side_text("current", &cmp->current), NULL};
    double a = cmp->alpha;
    const char *policy = cmp->policy ? cmp->policy : "";
    if (asprintf(&fields[2],
                 "threshold %.1f%%, alpha %g%s%s%s: %.0f baseline run%s, %.0f current; change = ratio of the "
                 "runs' round medians, %g%% interval from their rounds and runs, p Holm-adjusted over the cases",
                 100.0 * cmp->threshold, a, *policy ? " (policy " : "", policy, *policy ? " overrides per op)" : "",
                 (double)cmp->nbase, cmp->nbase == 1 ? "" : "s", (double)cmp->ncur, 100.0 * (1.0 - a)) < 0)
        fields[2] = NULL;
    const char *shown[3] = {fields[0] ? fields[0] : "", fields[1] ? fields[1] : "", fields[2] ? fields[2] : ""};
    w->lines(out, GB_LINE_FIELD, shown, 3);
    for (int i = 0; i < 3; i++) free(fields[i]);
    if (*cmp->build_note) line(w, out, GB_LINE_FIELD, "build: %s", cmp->build_note);
    line(w, out, GB_LINE_TEXT, "%s", "");
    if (cmp->warnings.n) {
        w->lines(out, GB_LINE_WARNING, (const char *const *)cmp->warnings.item, (int)cmp->warnings.n);
        line(w, out, GB_LINE_TEXT, "%s", "");
    }
}

/* A list of case names under its label, each name as code. */
static void name_list(const char *label, const gb_cmp_strs *l, const gb_writer *w, FILE *out) {
    if (!l->n) return;
    char **items = calloc(l->n, sizeof *items);
    if (!items) return;
    for (size_t k = 0; k < l->n; k++)
        if (asprintf(&items[k], GB_MK_CODE "%s" GB_MK_CODE, l->item[k]) < 0) items[k] = NULL;
    int ok = 1;
    for (size_t k = 0; k < l->n; k++) ok &= items[k] != NULL;
    line(w, out, GB_LINE_LABEL, "%s", label);
    if (ok) w->lines(out, GB_LINE_ITEM, (const char *const *)items, (int)l->n);
    line(w, out, GB_LINE_TEXT, "%s", "");
    for (size_t k = 0; k < l->n; k++) free(items[k]);
    free(items);
}

/* What --confirm did: how many suspects were re-measured, in how many fresh
 * processes, how long it took, and how many stage 2 confirmed. */
static void confirm_summary(const gb_cmp_confirm_summary *c, const gb_writer *w, FILE *out) {
    if (!c->present) return;
    double sus = c->suspects, procs = (double)c->processes;
    if (sus == 0) {
        line(w, out, GB_LINE_FIELD, "%s",
             "Confirm: 0 re-measured: no suspect (no regression, and no unsure case beyond +threshold)");
        return;
    }
    if (procs == 0) { /* the first judgement alone (the library's, before the runs) */
        line(w, out, GB_LINE_FIELD, "Confirm: %.0f suspect%s, not re-measured", sus, sus == 1 ? "" : "s");
        return;
    }
    int ncases = (int)c->cases.n;
    line(w, out, GB_LINE_FIELD,
         "Confirm: %.0f suspect%s (%d case%s of %s) re-measured in %.0f fresh process%s each, %.1f s: "
         "%.0f confirmed, %.0f not confirmed",
         sus, sus == 1 ? "" : "s", ncases, ncases == 1 ? "" : "s", c->suite ? c->suite : "", procs,
         procs == 1 ? "" : "es", c->seconds, (double)c->confirmed, (double)c->not_confirmed);
}

/* "[confirmed]" / "[not confirmed]" after the verdict of a re-measured case. */
static const char *confirm_mark(const gb_cmp_item *it) {
    if (!it->confirm.have) return "";
    return it->confirm.verdict == GB_V_REGRESSION ? " [confirmed]" : " [not confirmed]";
}

/* The one word the outcome is. */
static const char *outcome(const gb_compare_result *cmp) {
    const char *o = gb_cmp_outcome(cmp);
    if (!strcmp(o, "error")) return "ERROR";
    if (!strcmp(o, "all_unsure")) return cmp->exit_code ? "FAIL (all unsure, --fail-on-unsure)" : "ALL UNSURE";
    return !strcmp(o, "fail") ? "FAIL" : "pass";
}

static void result_line(const gb_compare_result *cmp, const gb_writer *w, FILE *out) {
    if (*cmp->error) line(w, out, GB_LINE_TEXT, "Result: ERROR: %s", cmp->error);
    else line(w, out, GB_LINE_TEXT, GB_MK_STRONG "Result: %s" GB_MK_STRONG, outcome(cmp));
}

/* The summary, first: the counts, the shift of each backend, what failed,
 * one line for the unsure and same cases and what would decide them, and
 * the outcome. */
static void summary(const gb_compare_result *cmp, const gb_writer *w, FILE *out) {
    const gb_cmp_summary *s = &cmp->summary;
    const int *n = s->count;
    line(w, out, GB_LINE_TEXT,
         GB_MK_STRONG "Summary: %.0f regression%s, %.0f failed, %.0f improvement%s, %.0f same, %.0f unsure, "
                      "%.0f not compared, %.0f only in baseline, %.0f only in current" GB_MK_STRONG,
         (double)n[GB_V_REGRESSION], n[GB_V_REGRESSION] == 1 ? "" : "s",
         (double)(n[GB_V_FAILED] + s->failed_only_in_current), (double)n[GB_V_IMPROVEMENT],
         n[GB_V_IMPROVEMENT] == 1 ? "" : "s", (double)n[GB_V_SAME], (double)n[GB_V_UNSURE],
         (double)n[GB_V_NOT_COMPARED], (double)cmp->only_in_baseline.n, (double)cmp->only_in_current.n);
    char none[400] = "";
    for (size_t i = 0; i < cmp->nshifts; i++) {
        const gb_cmp_shift *sh = &cmp->shifts[i];
        /* only a shift whose interval holds 1 is "none established"; one of
         * too few cases is named as such (its interval may exclude 1) */
        if (!sh->applied && sh->status == GB_SHIFT_NONE && sh->lo <= 1 && sh->hi >= 1) {
            size_t l = strlen(none);
            snprintf(none + l, sizeof none - l, "%s%s x%.3f [%.3f, %.3f]", l ? ", " : "", sh->backend, sh->ratio,
                     sh->lo, sh->hi);
            continue;
        }
        char t[600];
        gb_cmp_shift_text(sh, cmp->threshold, t, sizeof t);
        line(w, out, GB_LINE_FIELD, "Shift: %s", t);
    }
    if (*none) line(w, out, GB_LINE_FIELD, "Shift: none established (%s)", none);
    confirm_summary(&s->confirm, w, out);
    for (size_t i = 0; i < cmp->nitems; i++) {
        const gb_cmp_item *it = &cmp->items[i];
        char ch[24];
        gb_fmt_change(gb_json_num(it->change), ch, sizeof ch);
        if (it->verdict == GB_V_FAILED)
            line(w, out, GB_LINE_ITEM, "%s %s (%s)", loud(it->verdict), it->name, it->reason);
        else if (it->verdict == GB_V_REGRESSION || it->verdict == GB_V_IMPROVEMENT)
            line(w, out, GB_LINE_ITEM, "%s %s %s", loud(it->verdict), it->name, ch);
    }
    int plan = 0, edge = 0;
    for (size_t i = 0; i < cmp->nitems; i++) {
        plan += cmp->items[i].verdict == GB_V_UNSURE && cmp->items[i].plan_changed;
        edge += cmp->items[i].decide.on_threshold;
    }
    if (n[GB_V_UNSURE] || n[GB_V_SAME])
        line(w, out, GB_LINE_TEXT,
             "%s%.0f unsure, %.0f same: %d of the unsure could be decided within %.3g s more (%.3g s, cheapest "
             "first: more rounds, baseline runs or confirming processes; each case's in --verbose)%s%s%s",
             s->all_unsure ? "All unsure: " : "", (double)n[GB_V_UNSURE], (double)n[GB_V_SAME], s->decidable,
             s->budget_s, s->decidable_s, plan ? "; plan changed: " : "", plan ? "re-run" : "",
             edge ? "; some sit on the threshold" : "");
    result_line(cmp, w, out);
}

/* A name cut to width by its middle: the op's head and the backend/timing
 * tail stay ("fft/float32/1024x1024/kind=r2c,pl…/cuda/end_to_end"). */
static void short_name(const char *name, int width, char *buf, size_t len) {
    int l = (int)strlen(name);
    if (l <= width) {
        snprintf(buf, len, "%s", name);
        return;
    }
    int tail = width / 2, head = width - tail - 1;
    snprintf(buf, len, "%.*s\u2026%s", head, name, name + l - tail);
}

/* The cases, a row each, within 100 columns: the medians as `report` writes
 * them (ms, three figures), the change judged (net of the backend's shift,
 * when one was taken out: then the raw change beside it), its interval and
 * the verdict. The reasons are --verbose's (and the JSON's). */
static void cases_table(const gb_compare_result *cmp, const gb_writer *w, FILE *out, int verbose) {
    int netted = 0;
    for (size_t i = 0; i < cmp->nshifts; i++) netted |= cmp->shifts[i].applied;
    char ci_head[32];
    snprintf(ci_head, sizeof ci_head, "%g%% interval", 100.0 * (1.0 - cmp->alpha));
    const char *head[] = {"case", "base ms", "cur ms", netted ? "raw" : NULL, netted ? "net" : "change", ci_head,
                          "verdict"};
    gb_table t;
    gb_table_init(&t);
    t.markup = t.no_rule = 1;
    int col[7], nc = 0;
    for (int c = 0; c < 7; c++) {
        if (!head[c]) { col[c] = -1; continue; }
        col[c] = nc++;
        gb_table_col(&t, head[c], c == 0 || c == 6 ? GB_ALIGN_LEFT : GB_ALIGN_RIGHT);
        t.gap[col[c]] = 1;
    }
    int wname = 4, cap = netted ? 33 : 41;
    for (size_t i = 0; i < cmp->nitems; i++) {
        int l = (int)strlen(cmp->items[i].name);
        if (l > wname) wname = l;
    }
    /* the 100 columns are a terminal's; a page or Markdown wraps, so names stay whole there */
    int cut = !verbose && w->terminal;
    t.width[0] = cut ? (wname > cap ? cap : wname) : (wname > 70 ? 70 : wname);
    for (size_t i = 0; i < cmp->nitems; i++) {
        const gb_cmp_item *it = &cmp->items[i];
        long r = gb_table_row(&t);
        if (r < 0) break;
        char base[24], cur[24], raw[24], change[24], interval[48], name[400];
        gb_fmt_sig(base, sizeof base, it->baseline.median_s * 1e3);
        gb_fmt_sig(cur, sizeof cur, it->current.median_s * 1e3);
        gb_fmt_change(gb_json_num(it->raw_change), raw, sizeof raw);
        gb_fmt_change(gb_json_num(it->change), change, sizeof change);
        fmt_ci(it, interval, sizeof interval);
        if (cut) short_name(it->name, t.width[0], name, sizeof name);
        else snprintf(name, sizeof name, "%s", it->name);
        gb_table_set(&t, r, col[0], GB_CELL_PLAIN, GB_MK_CODE "%s" GB_MK_CODE, name);
        gb_table_set(&t, r, col[1], GB_CELL_PLAIN, "%s", base);
        gb_table_set(&t, r, col[2], GB_CELL_PLAIN, "%s", cur);
        if (col[3] >= 0) gb_table_set(&t, r, col[3], GB_CELL_PLAIN, "%s", raw);
        gb_table_set(&t, r, col[4], GB_CELL_PLAIN, "%s", change);
        gb_table_set(&t, r, col[5], GB_CELL_PLAIN, "%s", interval);
        gb_table_set(&t, r, col[6], GB_CELL_PLAIN, "%s%s", loud(it->verdict), confirm_mark(it));
        if (verbose) {
            char dec[240], note[sizeof it->reason + 260];
            gb_cmp_decide_text(&it->decide, dec, sizeof dec);
            snprintf(note, sizeof note, "%s%s%s", it->reason, *it->reason && *dec ? "; " : "", dec);
            gb_table_note(&t, r, col[6], note);
        }
    }
    w->table(out, &t, 0);
    gb_table_free(&t);
}

void gb_compare_render_verbose(const gb_compare_result *cmp, const gb_writer *w, FILE *out, int verbose) {
    w->begin(out, "gpubench compare");
    header(cmp, w, out);
    summary(cmp, w, out);
    line(w, out, GB_LINE_TEXT, "%s", "");
    cases_table(cmp, w, out, verbose);
    w->gap(out);
    name_list("Only in the baseline (not run now)", &cmp->only_in_baseline, w, out);
    name_list("Only in the current run (new)", &cmp->only_in_current, w, out);
    result_line(cmp, w, out);
    w->end(out);
}

void gb_compare_render(const gb_compare_result *cmp, const gb_writer *w, FILE *out) {
    gb_compare_render_verbose(cmp, w, out, 0);
}

void gb_compare_print_json(const gb_compare_result *cmp, FILE *out) {
    cJSON *doc = gb_compare_result_json(cmp);
    char *s = doc ? cJSON_Print(doc) : NULL;
    if (s) {
        fprintf(out, "%s\n", s);
        free(s);
    }
    cJSON_Delete(doc);
}
