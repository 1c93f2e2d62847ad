/* history_calibrate.c — how `history check` does on this machine's own
 * runs, measured on the history alone (gb_history_calibrate, history.h).
 *
 * Why: a CI gate is only as good as the noise it sits on, and that noise is
 * the machine's. The statistics' false-alarm rate and power were set by
 * simulation (docs/regression-statistics.md); on a real host the cases
 * differ a hundredfold in how much they move between processes (0.5% to 30%
 * on the H200 VMs, issue #29), so what a green check is worth, and which
 * cases a 20% slowdown could ever be caught in, is a property of this
 * history. Leaving each run out in turn and judging it against the others
 * is the A/A test the stored runs already hold, without a second of
 * measuring; the slowdown is made by scaling one case's stored samples,
 * which is what a slower build does to a time (the real thing, made inside
 * the runner, is GPUBENCH_FAULT_SLOW: docs/ci.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history_internal.h"

/* Fewer runs than this: one left out leaves a baseline of one, which
 * cannot measure a case's between-process noise. */
#define GB_CAL_MIN_RUNS 3

typedef struct {
    long long id;
    char commit[16], when[32];
    int compared, flagged, same, unsure, suspects, long_compared, long_same;
    char first_flagged[400];
    int fails;             /* check would fail it (exit 1): a case, the shift or a failed result */
    char fail_reason[600];
    char error[1200];      /* why compare could not judge it (its exit 2) */
} cal_run;

typedef struct {
    char name[400];
    int judged, flagged, suspect; /* of its judgements: flagged, a suspect (not flagged), the rest missed */
    int others;                   /* judgements in which another case was flagged with it */
    double width_sum;             /* its interval's half-width on a log scale, summed */
} cal_case;

typedef struct {
    gb_results *docs;  /* one per run: the template's cases with that run's samples */
    const char **names;
    cal_run *runs;
    size_t n;
    char (*result_name)[400]; /* the template's results, in case order */
    size_t nresults;
    cal_case *cases;
    size_t ncases;
    char machine[300]; /* as the report names it: GPU, else CPU, and its key */
    const char *db;    /* the history's path */
} calibration;

static gb_result *result_at(gb_results *doc, size_t flat) {
    for (size_t i = 0; i < doc->ncases; i++) {
        if (flat < doc->cases[i].nresults) return &doc->cases[i].results[flat];
        flat -= doc->cases[i].nresults;
    }
    return NULL;
}

static size_t find_result(const calibration *cal, const char *name) {
    for (size_t k = 0; k < cal->nresults; k++)
        if (strcmp(cal->result_name[k], name) == 0) return k;
    return (size_t)-1;
}

/* Fill doc (a fresh load of the template) with run_id's stored samples;
 * how many of its results the run held. */
static size_t fill_from_run(const calibration *cal, gb_results *doc, sqlite3_stmt *q, sqlite3_stmt *rounds,
                            long long run_id) {
    size_t held = 0;
    for (size_t k = 0; k < cal->nresults; k++) {
        gb_result *r = result_at(doc, k);
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, run_id);
        gb_hist_bind_text(q, 2, cal->result_name[k]);
        if (sqlite3_step(q) == SQLITE_ROW &&
            gb_hist_load_samples(rounds, sqlite3_column_int64(q, 0), sqlite3_column_blob(q, 1),
                                 (size_t)sqlite3_column_bytes(q, 1), r) == 0)
            held++;
        else
            gb_hist_leave_out(r);
    }
    return held;
}

/* Does run_id hold any of the template's results? (An indexed lookup a
 * name: a run of another suite is passed over without reading the
 * template again for it.) */
static int run_holds_any(const calibration *cal, sqlite3_stmt *q, long long run_id) {
    for (size_t k = 0; k < cal->nresults; k++) {
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, run_id);
        gb_hist_bind_text(q, 2, cal->result_name[k]);
        if (sqlite3_step(q) == SQLITE_ROW) return 1;
    }
    return 0;
}

/* The machine's most recent runs that hold any of the template's results,
 * up to want of them, each as a document. */
static int load_runs(gb_history *h, const char *template_path, const char *key, size_t want, calibration *cal,
                     gb_err *e) {
    sqlite3 *db = gb_history_db(h);
    sqlite3_stmt *runs = NULL, *q = NULL, *rounds = NULL;
    int rc = -1;
    cal->docs = calloc(want, sizeof *cal->docs);
    cal->runs = calloc(want, sizeof *cal->runs);
    cal->names = calloc(want, sizeof *cal->names);
    if (!cal->docs || !cal->runs || !cal->names) return gb_errf(e, GB_FAIL, "out of memory"), -1;
    if (sqlite3_prepare_v2(db,
                           "SELECT r.id, coalesce(r.commit_sha, ''), coalesce(r.run_date, r.added_at) FROM runs r"
                           " JOIN machines m ON r.machine_id = m.id WHERE m.key = ?1 ORDER BY r.id DESC",
                           -1, &runs, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT id, samples FROM results WHERE run_id = ?1 AND name = ?2 AND status = 'ok'"
                           " AND samples IS NOT NULL LIMIT 1",
                           -1, &q, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, GB_HIST_ROUNDS_SQL, -1, &rounds, NULL) != SQLITE_OK) {
        gb_hist_sqlerr(h, e, "reading the runs");
        goto out;
    }
    gb_hist_bind_text(runs, 1, key);
    int step = SQLITE_DONE;
    while (cal->n < want && (step = sqlite3_step(runs)) == SQLITE_ROW) {
        gb_results *doc = &cal->docs[cal->n];
        long long id = sqlite3_column_int64(runs, 0);
        if (!run_holds_any(cal, q, id)) continue; /* a run of another suite */
        if (gb_results_load(template_path, doc, e) != GB_OK) goto out;
        if (fill_from_run(cal, doc, q, rounds, id) == 0) { /* none of them usable */
            gb_results_free(doc);
            memset(doc, 0, sizeof *doc);
            continue;
        }
        if (gb_hist_run_provenance(h, id, doc->runs[0].suite_json, &doc->runs[0], e) != 0) {
            gb_results_free(doc);
            memset(doc, 0, sizeof *doc);
            goto out;
        }
        cal_run *run = &cal->runs[cal->n];
        run->id = id;
        const char *commit = gb_hist_col_text(runs, 1);
        snprintf(run->commit, sizeof run->commit, "%.12s", *commit ? commit : "-");
        snprintf(run->when, sizeof run->when, "%.19s", gb_hist_col_text(runs, 2));
        cal->n++;
    }
    if (step != SQLITE_ROW && step != SQLITE_DONE) gb_hist_sqlerr(h, e, "reading the runs");
    else rc = 0;
out:
    sqlite3_finalize(runs);
    sqlite3_finalize(q);
    sqlite3_finalize(rounds);
    return rc;
}

static cal_case *case_named(calibration *cal, const char *name) {
    for (size_t i = 0; i < cal->ncases; i++)
        if (strcmp(cal->cases[i].name, name) == 0) return &cal->cases[i];
    cal_case *c = &cal->cases[cal->ncases++]; /* room for every result: allocated so */
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

/* Judge run j against every other; NULL out of memory. */
static gb_compare_result *judge(calibration *cal, size_t j, const gb_compare_options *o) {
    const gb_results *base[GB_HISTORY_MAX_BASELINE + 1];
    const char *bnames[GB_HISTORY_MAX_BASELINE + 1];
    size_t nb = 0;
    for (size_t m = 0; m < cal->n; m++)
        if (m != j) base[nb] = &cal->docs[m], bnames[nb++] = cal->names[m];
    const gb_results *cur = &cal->docs[j];
    const char *cname = cal->names[j];
    return gb_compare_judge_runs(base, bnames, nb, &cur, &cname, 1, o);
}

static int is_flag(gb_cmp_verdict v) { return v == GB_V_REGRESSION || v == GB_V_IMPROVEMENT; }

/* One case of run j made o->inject slower: how check judged it. */
static int inject_one(calibration *cal, size_t j, const char *name, const gb_compare_options *co,
                      const gb_history_calibrate_options *o) {
    size_t k = find_result(cal, name);
    gb_result *r = k == (size_t)-1 ? NULL : result_at(&cal->docs[j], k);
    if (!r || r->status != GB_RS_OK || !r->nsamples) return 0;
    double *kept = malloc(r->nsamples * sizeof *kept), median = r->stats.median;
    if (!kept) return -1;
    memcpy(kept, r->samples, r->nsamples * sizeof *kept);
    for (size_t i = 0; i < r->nsamples; i++) r->samples[i] *= o->inject;
    r->stats.median *= o->inject;
    gb_compare_result *cmp = judge(cal, j, co);
    memcpy(r->samples, kept, r->nsamples * sizeof *kept);
    r->stats.median = median;
    free(kept);
    if (!cmp) return -1;
    cal_case *c = case_named(cal, name);
    int others = 0;
    for (size_t i = 0; i < cmp->nitems; i++) {
        const gb_cmp_item *it = &cmp->items[i];
        if (strcmp(it->name, name) == 0) {
            c->judged++;
            c->flagged += it->verdict == GB_V_REGRESSION;
            c->suspect += it->verdict != GB_V_REGRESSION && it->suspect;
            if (isfinite(it->ci_high) && isfinite(it->ci_low) && it->ci_low > -1)
                c->width_sum += (log1p(it->ci_high) - log1p(it->ci_low)) / 2;
        } else
            others |= is_flag(it->verdict);
    }
    c->others += others;
    gb_compare_result_free(cmp);
    return 0;
}

/* Why check fails cmp (every reason it has), into run. */
static void fail_reason(const gb_compare_result *cmp, cal_run *run) {
    run->fails = cmp->exit_code == 1;
    char *b = run->fail_reason;
    size_t len = sizeof run->fail_reason, l = 0;
    *b = '\0';
    if (!run->fails) return;
    const char *first_reg = NULL, *first_fail = NULL;
    for (size_t i = 0; i < cmp->nitems; i++) {
        if (cmp->items[i].verdict == GB_V_REGRESSION && !first_reg) first_reg = cmp->items[i].name;
        if (cmp->items[i].verdict == GB_V_FAILED && !first_fail) first_fail = cmp->items[i].name;
    }
    const int *n = cmp->summary.count;
    if (n[GB_V_REGRESSION])
        l += (size_t)snprintf(b + l, len - l, "%d regression%s (first: %s)", n[GB_V_REGRESSION],
                              n[GB_V_REGRESSION] == 1 ? "" : "s", first_reg ? first_reg : "?");
    for (size_t i = 0; i < cmp->nshifts && l < len; i++) {
        const gb_cmp_shift *sh = &cmp->shifts[i];
        if (sh->status == GB_SHIFT_UNEXPLAINED && sh->ratio > 1)
            l += (size_t)snprintf(b + l, len - l, "%sthe shift: %s x%.3f [%.3f, %.3f] unexplained", l ? "; " : "",
                                  sh->backend, sh->ratio, sh->lo, sh->hi);
    }
    int failed = n[GB_V_FAILED] + cmp->summary.failed_only_in_current;
    if (failed && l < len)
        l += (size_t)snprintf(b + l, len - l, "%s%d failed result%s%s%s", l ? "; " : "", failed, failed == 1 ? "" : "s",
                              first_fail ? " (first: " : "", first_fail ? first_fail : "");
    if (first_fail && l < len) l += (size_t)snprintf(b + l, len - l, ")");
    if (!l) snprintf(b, len, "%s", gb_cmp_outcome(cmp));
}

/* Run j left out and judged, then (inject) each of its long cases made slower. */
static int calibrate_run(calibration *cal, size_t j, const gb_history_calibrate_options *o) {
    gb_compare_options co = o->cmp;
    co.confirm_runs = GB_CI_CONFIRM_RUNS; /* mark the suspects; nothing is re-measured */
    co.nconfirm = 0;
    gb_compare_result *cmp = judge(cal, j, &co);
    if (!cmp) return -1;
    cal_run *run = &cal->runs[j];
    if (cmp->exit_code == 2) snprintf(run->error, sizeof run->error, "%s", cmp->error);
    fail_reason(cmp, run);
    size_t nlong = 0;
    char (*longs)[400] = calloc(cmp->nitems ? cmp->nitems : 1, sizeof *longs);
    if (!longs) {
        gb_compare_result_free(cmp);
        return -1;
    }
    for (size_t i = 0; i < cmp->nitems; i++) {
        const gb_cmp_item *it = &cmp->items[i];
        if (it->verdict == GB_V_NOT_COMPARED || it->verdict == GB_V_FAILED) continue;
        run->compared++;
        run->same += it->verdict == GB_V_SAME;
        run->unsure += it->verdict == GB_V_UNSURE;
        run->suspects += it->suspect;
        if (is_flag(it->verdict) && run->flagged++ == 0)
            snprintf(run->first_flagged, sizeof run->first_flagged, "%s", it->name);
        if (it->baseline.median_s >= o->min_time_s) {
            run->long_compared++;
            run->long_same += it->verdict == GB_V_SAME;
            snprintf(longs[nlong++], sizeof *longs, "%s", it->name);
        }
    }
    gb_compare_result_free(cmp);
    int rc = 0;
    for (size_t i = 0; o->inject > 0 && rc == 0 && i < nlong; i++) rc = inject_one(cal, j, longs[i], &co, o);
    free(longs);
    return rc;
}

static int by_flagged(const void *a, const void *b) {
    const cal_case *x = a, *y = b;
    double fx = x->judged ? (double)x->flagged / x->judged : 0, fy = y->judged ? (double)y->flagged / y->judged : 0;
    if (fx != fy) return fx < fy ? 1 : -1;
    double sx = x->judged ? (double)x->suspect / x->judged : 0, sy = y->judged ? (double)y->suspect / y->judged : 0;
    if (sx != sy) return sx < sy ? 1 : -1;
    return strcmp(x->name, y->name);
}

typedef struct {
    int runs_flagging, runs_failing, judged_long, same_long, judged, flagged, suspect, others;
} cal_totals;

static cal_totals totals(const calibration *cal) {
    cal_totals t = {0};
    for (size_t j = 0; j < cal->n; j++) {
        t.runs_flagging += cal->runs[j].flagged > 0;
        t.runs_failing += cal->runs[j].fails;
        t.judged_long += cal->runs[j].long_compared;
        t.same_long += cal->runs[j].long_same;
    }
    for (size_t i = 0; i < cal->ncases; i++) {
        t.judged += cal->cases[i].judged;
        t.flagged += cal->cases[i].flagged;
        t.suspect += cal->cases[i].suspect;
        t.others += cal->cases[i].others;
    }
    return t;
}

static double pct(int a, int b) { return b ? 100.0 * a / b : 0; }

static void print_text(const calibration *cal, const gb_history_calibrate_options *o, FILE *out) {
    cal_totals t = totals(cal);
    char mt[32];
    gb_hist_time_text(o->min_time_s, mt, sizeof mt);
    fprintf(out, "%s, machine %s:\neach of its last %zu runs judged against the other %zu, as `history check` "
                 "would\n(threshold %.3g%%, alpha %.3g; nothing re-measured)\n\n",
            cal->db, cal->machine, cal->n, cal->n - 1, 100 * o->cmp.rule.threshold, o->cmp.rule.alpha);
    fprintf(out, "  %6s  %-12s  %-19s  %8s  %7s  %6s  %8s  %s\n", "run", "commit", "time", "compared", "flagged", "same",
            "suspects", "long cases same");
    for (size_t j = 0; j < cal->n; j++) {
        const cal_run *r = &cal->runs[j];
        fprintf(out, "  %6lld  %-12s  %-19s  %8d  %7d  %6d  %8d  %d of %d%s%s\n", r->id, r->commit, r->when, r->compared,
                r->flagged, r->same, r->suspects, r->long_same, r->long_compared, r->flagged ? "  first flagged: " : "",
                r->flagged ? r->first_flagged : "");
        if (r->fails) fprintf(out, "          check fails it: %s\n", r->fail_reason);
        if (r->error[0]) fprintf(out, "          not judged: %s\n", r->error);
    }
    fprintf(out, "\nRuns check would fail: %d of %zu (for any reason check gives: a case, the shift, a failed\n"
                 "result; each named above).\n",
            t.runs_failing, cal->n);
    fprintf(out, "Runs flagging a case: %d of %zu (of same-build runs: false alarms on this machine's noise;\n"
                 "of runs of several commits: changes, or alarms).\n",
            t.runs_flagging, cal->n);
    fprintf(out, "Long cases (%s or more) coming out same: %d of %d judgements (%.0f%%); the rest are unsure\n"
                 "unless flagged. Suspects are what `check --confirm` would re-measure.\n",
            mt, t.same_long, t.judged_long, pct(t.same_long, t.judged_long));
    if (!(o->inject > 0)) return;
    fprintf(out, "\nx%.3g made in one long case of one run at a time (its stored samples scaled), %d judgements:\n",
            o->inject, t.judged);
    fprintf(out, "  flagged %d (%.0f%%), a suspect for --confirm %d (%.0f%%), missed %d (%.0f%%);\n"
                 "  another case flagged alongside in %d\n\n",
            t.flagged, pct(t.flagged, t.judged), t.suspect, pct(t.suspect, t.judged), t.judged - t.flagged - t.suspect,
            pct(t.judged - t.flagged - t.suspect, t.judged), t.others);
    fprintf(out, "  %-8s  %-8s  %-8s  %-9s  %s\n", "flagged", "suspect", "missed", "interval", "case");
    for (size_t i = 0; i < cal->ncases; i++) {
        const cal_case *c = &cal->cases[i];
        char fl[16], su[16], mi[16], w[16];
        snprintf(fl, sizeof fl, "%d/%d", c->flagged, c->judged);
        snprintf(su, sizeof su, "%d/%d", c->suspect, c->judged);
        snprintf(mi, sizeof mi, "%d/%d", c->judged - c->flagged - c->suspect, c->judged);
        double hw = c->judged ? 100 * expm1(c->width_sum / c->judged) : NAN;
        snprintf(w, sizeof w, hw < 10 ? "+-%.1f%%" : "+-%.0f%%", hw);
        fprintf(out, "  %-8s  %-8s  %-8s  %-9s  %s\n", fl, su, mi, w, c->name);
    }
    fprintf(out, "\ninterval: how far the change's interval reaches either way, as a factor (+-5%% is 1/1.05\n"
                 "to 1.05; same needs it inside the threshold). A missed case is one whose noise hides x%.3g\n"
                 "from one run; a suspect is decided by `history check --confirm` in fresh processes (docs/ci.md).\n",
            o->inject);
}

static void print_json(const calibration *cal, const gb_history_calibrate_options *o, FILE *out) {
    cal_totals t = totals(cal);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", "gpubench-history-calibrate");
    cJSON_AddNumberToObject(doc, "schema_version", 1);
    cJSON_AddNumberToObject(doc, "threshold", o->cmp.rule.threshold);
    cJSON_AddNumberToObject(doc, "alpha", o->cmp.rule.alpha);
    cJSON_AddNumberToObject(doc, "min_time_s", o->min_time_s);
    cJSON_AddStringToObject(doc, "history", cal->db);
    cJSON_AddStringToObject(doc, "machine", cal->machine);
    cJSON *runs = cJSON_AddArrayToObject(doc, "runs");
    for (size_t j = 0; j < cal->n; j++) {
        const cal_run *r = &cal->runs[j];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "id", (double)r->id);
        cJSON_AddStringToObject(x, "commit", r->commit);
        cJSON_AddStringToObject(x, "time", r->when);
        cJSON_AddNumberToObject(x, "compared", r->compared);
        cJSON_AddNumberToObject(x, "flagged", r->flagged);
        cJSON_AddNumberToObject(x, "same", r->same);
        cJSON_AddNumberToObject(x, "unsure", r->unsure);
        cJSON_AddNumberToObject(x, "suspects", r->suspects);
        cJSON_AddNumberToObject(x, "long_compared", r->long_compared);
        cJSON_AddNumberToObject(x, "long_same", r->long_same);
        if (r->flagged) cJSON_AddStringToObject(x, "first_flagged", r->first_flagged);
        cJSON_AddBoolToObject(x, "fails", r->fails);
        if (r->fails) cJSON_AddStringToObject(x, "fail_reason", r->fail_reason);
        if (r->error[0]) cJSON_AddStringToObject(x, "error", r->error);
        cJSON_AddItemToArray(runs, x);
    }
    cJSON *s = cJSON_AddObjectToObject(doc, "summary");
    cJSON_AddNumberToObject(s, "runs", (double)cal->n);
    cJSON_AddNumberToObject(s, "runs_flagging", t.runs_flagging);
    cJSON_AddNumberToObject(s, "runs_failing", t.runs_failing);
    cJSON_AddNumberToObject(s, "long_judged", t.judged_long);
    cJSON_AddNumberToObject(s, "long_same", t.same_long);
    if (o->inject > 0) {
        cJSON *inj = cJSON_AddObjectToObject(doc, "inject"), *cases = NULL;
        cJSON_AddNumberToObject(inj, "factor", o->inject);
        cJSON_AddNumberToObject(inj, "judged", t.judged);
        cJSON_AddNumberToObject(inj, "flagged", t.flagged);
        cJSON_AddNumberToObject(inj, "suspect", t.suspect);
        cJSON_AddNumberToObject(inj, "missed", t.judged - t.flagged - t.suspect);
        cJSON_AddNumberToObject(inj, "others_flagged", t.others);
        cases = cJSON_AddArrayToObject(inj, "cases");
        for (size_t i = 0; i < cal->ncases; i++) {
            const cal_case *c = &cal->cases[i];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "name", c->name);
            cJSON_AddNumberToObject(x, "judged", c->judged);
            cJSON_AddNumberToObject(x, "flagged", c->flagged);
            cJSON_AddNumberToObject(x, "suspect", c->suspect);
            cJSON_AddNumberToObject(x, "missed", c->judged - c->flagged - c->suspect);
            cJSON_AddNumberToObject(x, "others_flagged", c->others);
            if (c->judged) cJSON_AddNumberToObject(x, "interval_factor", exp(c->width_sum / c->judged));
            cJSON_AddItemToArray(cases, x);
        }
    }
    char *text = cJSON_Print(doc);
    if (text) fprintf(out, "%s\n", text);
    free(text);
    cJSON_Delete(doc);
}

int gb_history_calibrate(gb_history *h, const char *template_path, const gb_history_calibrate_options *o, int json,
                         FILE *out, gb_err *e) {
    size_t nb = o->baseline_runs ? o->baseline_runs : 8;
    if (nb > GB_HISTORY_MAX_BASELINE) nb = GB_HISTORY_MAX_BASELINE;
    gb_results tpl;
    if (gb_results_load(template_path, &tpl, e) != GB_OK) return -1;
    calibration cal = {0};
    int rc = -1;
    char key[17];
    if (tpl.nruns != 1) {
        gb_errf(e, GB_FAIL, "%s: a merged file (%zu runs): give one run's file (its cases and machine are used)",
                template_path, tpl.nruns);
        goto out;
    }
    gb_history_machine_key(&tpl, 0, key);
    const gb_context *ctx = &tpl.runs[0].context;
    snprintf(cal.machine, sizeof cal.machine, "%.200s (key %s)", ctx->gpu_name && *ctx->gpu_name ? ctx->gpu_name
                                                                 : ctx->cpu_model ? ctx->cpu_model : "?", key);
    cal.db = gb_history_name(h);
    for (size_t i = 0; i < tpl.ncases; i++) cal.nresults += tpl.cases[i].nresults;
    cal.result_name = calloc(cal.nresults ? cal.nresults : 1, sizeof *cal.result_name);
    cal.cases = calloc(cal.nresults ? cal.nresults : 1, sizeof *cal.cases);
    if (!cal.result_name || !cal.cases) {
        gb_errf(e, GB_FAIL, "out of memory");
        goto out;
    }
    for (size_t i = 0, k = 0; i < tpl.ncases; i++)
        for (size_t r = 0; r < tpl.cases[i].nresults; r++)
            gb_result_name(&tpl.cases[i], &tpl.cases[i].results[r], NULL, cal.result_name[k++],
                           sizeof *cal.result_name);
    if (load_runs(h, template_path, key, nb + 1, &cal, e) != 0) goto out;
    if (cal.n < GB_CAL_MIN_RUNS) {
        gb_errf(e, GB_FAIL, "%s: %zu run%s of this machine (key %s) in %s hold%s its results: calibrating needs %d or "
                "more (each is judged against the others)", template_path, cal.n, cal.n == 1 ? "" : "s", key,
                gb_history_name(h), cal.n == 1 ? "s" : "", GB_CAL_MIN_RUNS);
        goto out;
    }
    char (*names)[40] = calloc(cal.n, sizeof *names);
    if (!names) {
        gb_errf(e, GB_FAIL, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < cal.n; j++) {
        snprintf(names[j], sizeof *names, "history run %lld", cal.runs[j].id);
        cal.names[j] = names[j];
    }
    int bad = 0;
    for (size_t j = 0; j < cal.n && !bad; j++) {
        if (o->progress) o->progress(o->progress_ctx, j, cal.n);
        bad = calibrate_run(&cal, j, o) != 0;
    }
    if (o->progress) o->progress(o->progress_ctx, cal.n, cal.n);
    if (bad) gb_errf(e, GB_FAIL, "out of memory");
    else {
        qsort(cal.cases, cal.ncases, sizeof *cal.cases, by_flagged);
        if (json) print_json(&cal, o, out);
        else print_text(&cal, o, out);
        rc = 0;
    }
    free(names);
out:
    for (size_t j = 0; j < cal.n; j++) gb_results_free(&cal.docs[j]);
    free(cal.docs);
    free(cal.runs);
    free(cal.names);
    free(cal.result_name);
    free(cal.cases);
    gb_results_free(&tpl);
    return rc;
}
