/* compare.c — matching results across runs and judging each case.
 *
 * A case is matched by op, dtype, shape, params, backend and timing (and
 * machine in merged files) across every baseline file and every current
 * file; each file is one process. The statistics (compare_stats.h): the
 * change is the ratio of the two sides' mean log round medians; its
 * interval a t interval whose variance adds the sampling noise of a round
 * median, the drift between rounds (net of that noise) and the shift
 * between processes, each measured on the case and shrunk toward the
 * suite's typical. Verdicts (docs/regression-statistics.md):
 *   regression / improvement  the estimate beyond the threshold, and a
 *                             change of at least half the threshold
 *                             established: one-sided p <= alpha after Holm
 *                             over every compared case (and the medians
 *                             apart by min_change, when set)
 *   same                      the whole (1 - alpha) interval within +-threshold
 *   unsure                    otherwise, with the reason
 * No samples-only rank test: one treats every sample as independent, so
 * drift between rounds and shifts between processes look to it like
 * changes (mannwhitney.c, unused, was removed).
 *
 * gb_compare_judge_runs goes in four steps: collect (every file's results
 * as entries, indexed by key), match (each baseline result with its matches
 * in every file, and its noise), judge (the suite's noise, every case's
 * change, Holm over the family, the verdicts, --confirm's second stage) and
 * record (the items, the one-sided lists, the summary and the exit code,
 * into a gb_compare_result). Matching is compare_match.c, verdict rules
 * compare_judge.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "compare_stats.h"

/* A compared file as the result names it. -1 out of memory. */
static int describe_doc(const gb_results *doc, const char *name, gb_cmp_file *f) {
    f->path = name;
    f->nruns = doc->nruns;
    f->runs = calloc(doc->nruns ? doc->nruns : 1, sizeof *f->runs);
    if (!f->runs) return -1;
    for (size_t i = 0; i < doc->nruns; i++) {
        const gb_context *ctx = &doc->runs[i].context;
        f->runs[i] = (gb_cmp_run_desc){gb_results_run_name(doc, (int)i), ctx->date, ctx->gpu_name, ctx->cpu_model};
    }
    return 0;
}

static void warn_incomplete(const gb_results *doc, const char *which, gb_cmp_strs *warnings) {
    for (size_t i = 0; i < doc->nruns; i++) {
        const gb_run *run = &doc->runs[i];
        if (run->complete == 0) {
            char line[300];
            snprintf(line, sizeof line, "the %s run%s%s is incomplete (%s): cases missing from it are listed "
                     "as present on one side only", which, doc->merged ? " " : "",
                     doc->merged ? gb_results_run_name(doc, (int)i) : "",
                     run->interrupted == 1 ? "interrupted" : "not finished");
            gb_cmp_strs_add(warnings, line);
        }
    }
}

/* --confirm re-measures a case judged a regression, and an unsure one whose
 * estimate is itself beyond +threshold: on a noisy host that is where a real
 * slowdown lands when one current process cannot show its own shift. With
 * --confirm-unsure, every unsure case: to be decided either way. */
static int is_suspect(const matched *m, int confirm_unsure) {
    if (m->have_ch && confirm_unsure && m->verdict == GB_V_UNSURE) return 1;
    return m->have_ch && m->change > m->rule.threshold &&
           (m->verdict == GB_V_REGRESSION || m->verdict == GB_V_UNSURE);
}

/* ---- collect ------------------------------------------------------------ */

/* Every file's results as entries, each file's indexed by key: matching is
 * linear in the cases (20,000 took minutes by scanning). */
typedef struct {
    size_t nbase, ncur;
    int by_machine;
    entries eb[GB_MAX_PROCS], ec[GB_MAX_PROCS];
    matcher mb[GB_MAX_PROCS], mc[GB_MAX_PROCS];
    const gb_results *const *base, *const *cur;
    matched *ms;      /* one per baseline result matched in a current file */
    size_t nm;
    size_t usable_b;  /* baseline results with samples (what --require-present counts) */
    size_t present;   /* of those, matched by a current result that ran (ok or failed; a skip is absent) */
} comparison;

static int collect(comparison *k, const gb_results *const *base, size_t nbase, const gb_results *const *cur,
                   size_t ncur) {
    k->nbase = nbase;
    k->ncur = ncur;
    k->base = base;
    k->cur = cur;
    /* Machines are part of the key only when a merged file holds several:
     * single runs on CI runners with changing hostnames must still match. */
    for (size_t i = 0; i < nbase; i++) k->by_machine |= gb_cmp_distinct_run_names(base[i]) > 1;
    for (size_t i = 0; i < ncur; i++) k->by_machine |= gb_cmp_distinct_run_names(cur[i]) > 1;
    int failed = 0;
    for (size_t i = 0; i < nbase; i++) failed |= gb_cmp_collect(base[i], k->by_machine, &k->eb[i]) != 0;
    for (size_t i = 0; i < ncur; i++) failed |= gb_cmp_collect(cur[i], k->by_machine, &k->ec[i]) != 0;
    for (size_t i = 0; i < nbase && !failed; i++) failed |= gb_cmp_matcher_init(&k->mb[i], &k->eb[i]) != 0;
    for (size_t i = 0; i < ncur && !failed; i++) failed |= gb_cmp_matcher_init(&k->mc[i], &k->ec[i]) != 0;
    if (failed || !(k->ms = calloc(k->eb[0].n ? k->eb[0].n : 1, sizeof *k->ms))) return -1;
    return 0;
}

static void comparison_free(comparison *k) {
    for (size_t i = 0; i < k->nbase; i++) gb_cmp_matcher_free(&k->mb[i]), free(k->eb[i].e);
    for (size_t i = 0; i < k->ncur; i++) gb_cmp_matcher_free(&k->mc[i]), free(k->ec[i].e);
    free(k->ms);
}

/* ---- match --------------------------------------------------------------- */

/* Each result of the first baseline with its matches in every file, and
 * every case's noise; those in no current file go to only_in_baseline. */
static int match(comparison *k, const gb_compare_options *o, gb_compare_result *res) {
    char name[400];
    for (size_t i = 0; i < k->eb[0].n; i++) {
        matched *m = &k->ms[k->nm];
        memset(m, 0, sizeof *m);
        m->b = &k->eb[0].e[i];
        char dummy[120];
        int usable = gb_cmp_result_ok(m->b->r, dummy, sizeof dummy);
        k->usable_b += usable;
        const gb_result *br[GB_MAX_PROCS], *cr[GB_MAX_PROCS];
        br[m->nb_seen++] = m->b->r;
        for (size_t f = 1; f < k->nbase; f++) {
            entry *x = gb_cmp_match_in(&k->eb[f], &k->mb[f], m->b);
            if (x) br[m->nb_seen++] = x->r;
        }
        for (size_t f = 0; f < k->ncur; f++) {
            entry *x = gb_cmp_match_in(&k->ec[f], &k->mc[f], m->b);
            if (x) cr[m->nc_seen++] = x->r;
        }
        if (m->nc_seen == 0) {
            gb_result_name(m->b->c, m->b->r, m->b->machine, name, sizeof name);
            if (gb_cmp_strs_add(&res->only_in_baseline, name) != 0) return -1;
            continue;
        }
        k->nm++;
        m->rule = gb_policy_rule(o->policy, m->b->c->op, m->b->r->backend, o->rule, o->cli_set);
        int okb = gb_cmp_result_ok(br[0], m->db, sizeof m->db), okc = 0;
        for (int j = 0; j < m->nc_seen; j++) {
            if (gb_cmp_current_failed(cr[j]) && !m->cfail) m->cfail = cr[j];
            char d[120];
            if (gb_cmp_result_ok(cr[j], d, sizeof d)) { m->cp[m->kc++] = cr[j]; okc = 1; }
            if (j == 0 || !okc) snprintf(m->dc, sizeof m->dc, "%s", d);
        }
        for (int j = 0; j < m->nb_seen; j++) {
            char d[120];
            if (gb_cmp_result_ok(br[j], d, sizeof d)) m->bp[m->kb++] = br[j];
        }
        k->present += usable && (okc || m->cfail);
        if (m->cfail) {
            m->verdict = GB_V_FAILED;
            gb_cmp_result_ok(m->cfail, m->dc, sizeof m->dc);
            snprintf(m->reason, sizeof m->reason, "current: %s", m->dc);
            continue;
        }
        if (!okb || !okc) {
            m->verdict = GB_V_NOT_COMPARED;
            snprintf(m->reason, sizeof m->reason, "%s%s%s%s%s", okb ? "" : "baseline: ", okb ? "" : m->db,
                     !okb && !okc ? "; " : "", okc ? "" : "current: ", okc ? "" : m->dc);
            continue;
        }
        gb_proc_view vb[GB_MAX_PROCS], vc[GB_MAX_PROCS];
        gb_cmp_views_of(m->bp, m->kb, vb);
        gb_cmp_views_of(m->cp, m->kc, vc);
        gb_noise_summarize(vb, m->kb, vc, m->kc, &m->noise);
        gb_cmp_compare_plans(m);
        if (!m->noise.ok) {
            m->verdict = GB_V_NOT_COMPARED;
            snprintf(m->reason, sizeof m->reason, "%s", m->noise.reason);
        }
    }
    return 0;
}

/* ---- judge --------------------------------------------------------------- */

/* The suite's typical noise, every case's change, Holm over the family, the
 * verdicts; then --confirm's second stage. -1 out of memory. */
static int judge(comparison *k, const gb_compare_options *o, gb_compare_result *res) {
    size_t nm = k->nm;
    matched *ms = k->ms;
    gb_case_noise *all = calloc(nm ? nm : 1, sizeof *all);
    int *want = calloc(nm ? nm : 1, sizeof *want);
    double *thr = calloc(nm ? nm : 1, sizeof *thr), *alp = calloc(nm ? nm : 1, sizeof *alp);
    gb_family_change *fam = calloc(nm ? nm : 1, sizeof *fam);
    size_t family = (size_t)-1;
    if (all && want && thr && alp && fam) {
        for (size_t i = 0; i < nm; i++) {
            all[i] = ms[i].noise; /* ok == 0 for the rest */
            want[i] = ms[i].verdict != GB_V_FAILED;
            thr[i] = ms[i].rule.threshold;
            alp[i] = ms[i].rule.alpha;
        }
        gb_noise_prior prior;
        gb_noise_priors(all, nm, &prior);
        if (gb_noise_baselines_measure_themselves(all, nm)) gb_noise_priors_weigh(all, nm, &prior);
        gb_noise_priors_guard(&prior);
        family = gb_noise_family_with(all, want, nm, thr, alp, &prior, fam);
        /* the shift common to each backend's cases, from the raw changes;
         * where established, every case is judged again net of it */
        if (family != (size_t)-1 && gb_cmp_shift_estimate(ms, fam, nm, k->base, k->nbase, k->cur, k->ncur,
                                                          o->rule.threshold, res->shifts, GB_CMP_MAX_SHIFTS,
                                                          &res->nshifts) != 0)
            family = (size_t)-1;
        int netted = 0;
        for (size_t i = 0; i < nm && family != (size_t)-1; i++) {
            ms[i].raw_change = fam[i].have ? fam[i].change : NAN;
            double ls = gb_cmp_shift_log(res->shifts, res->nshifts, ms[i].b->r->backend);
            if (ls != 0 && all[i].ok) { all[i].mean_c -= ls; ms[i].shift_log = ls; netted = 1; }
        }
        if (netted && family != (size_t)-1) family = gb_noise_family_with(all, want, nm, thr, alp, &prior, fam);
        for (size_t s = 0; s < res->nshifts; s++)
            res->summary.shift_regressions += res->shifts[s].status == GB_SHIFT_UNEXPLAINED && res->shifts[s].ratio > 1;
    }
    int rc = family == (size_t)-1 ? -1 : 0;
    for (size_t i = 0; i < nm && rc == 0; i++) {
        matched *m = &ms[i];
        if (!m->noise.ok || m->verdict == GB_V_FAILED) continue;
        if (!fam[i].have) {
            m->verdict = GB_V_UNSURE;
            snprintf(m->reason, sizeof m->reason,
                     "between-process noise unknown: one run a side and fewer than 8 cases to learn it from; give a "
                     "baseline of two or more runs (compare BASE1 BASE2 -- CURRENT)");
            continue;
        }
        m->have_ch = 1;
        m->ch = fam[i].ch;
    }
    for (size_t i = 0; i < nm && rc == 0; i++) {
        matched *m = &ms[i];
        m->change = m->lo = m->hi = NAN;
        if (!m->have_ch) continue;
        m->p = fam[i].p;
        m->p_holm = fam[i].p_holm;
        m->change = fam[i].change;
        m->lo = fam[i].lo;
        m->hi = fam[i].hi;
        gb_cmp_judge(m, m->lo, m->hi, family);
        m->family = family;
        if (o->confirm_runs > 0) m->suspect = is_suspect(m, o->confirm_unsure);
    }
    if (rc == 0 && o->confirm_runs > 0) {
        gb_noise_prior prior;
        gb_noise_priors(all, nm, &prior);
        gb_noise_priors_guard(&prior);
        rc = gb_cmp_confirm_stage(ms, nm, &prior, o, k->by_machine, &res->summary.confirm, res->error,
                                  sizeof res->error);
    }
    free(all), free(want), free(thr), free(alp), free(fam);
    return rc;
}

/* ---- record --------------------------------------------------------------- */

static void record_side(gb_cmp_side *s, const gb_result *r, const char *desc, int files, int runs, double median,
                        double round_spread, double proc_spread) {
    s->status = gb_result_status_name(r->status);
    snprintf(s->desc, sizeof s->desc, "%s", desc);
    s->n = (double)r->nsamples;
    s->files = files;
    s->runs = runs;
    s->median_s = median;
    s->round_spread = round_spread;
    s->process_spread = proc_spread;
}

static void record_item(const matched *m, size_t nconfirm, gb_cmp_item *it) {
    const gb_case_result *c = m->b->c;
    memset(it, 0, sizeof *it);
    gb_result_name(c, m->b->r, m->b->machine, it->name, sizeof it->name);
    it->c = c;
    it->backend = m->b->r->backend;
    it->timing = m->b->r->timing;
    it->machine = m->b->machine;
    it->rule = m->rule;
    int ok = m->noise.ok;
    record_side(&it->baseline, m->b->r, m->db, m->nb_seen, m->kb, ok ? exp(m->noise.mean_b) : NAN,
                ok ? m->noise.round_spread : NAN, ok ? m->noise.proc_spread_b : NAN);
    record_side(&it->current, m->cp[0] ? m->cp[0] : m->b->r, m->dc, m->nc_seen, m->kc,
                ok ? exp(m->noise.mean_c) : NAN, ok ? m->noise.round_spread : NAN, ok ? m->noise.proc_spread_c : NAN);
    it->change = m->change;
    it->raw_change = m->have_ch ? m->raw_change : NAN;
    it->ci_low = m->lo;
    it->ci_high = m->hi;
    it->p_value = m->have_ch ? m->p : NAN;
    it->p_holm = m->have_ch ? m->p_holm : NAN;
    it->df = m->have_ch && isfinite(m->ch.df) ? m->ch.df : NAN;
    it->has_noise = m->have_ch;
    if (m->have_ch) {
        it->process_sd = sqrt(m->ch.proc_var);
        it->process_from_case = m->ch.proc_measured;
        it->round_sd = sqrt(m->ch.round_var);
        it->sampling_sd = sqrt(m->noise.vw);
    }
    it->baseline_plans = m->plans_b;
    it->plan_changed = m->plan_changed;
    it->verdict = m->verdict;
    it->suspect = m->suspect;
    if (m->confirmed_have)
        it->confirm = (gb_cmp_confirmed){1, nconfirm, m->confirm_verdict, m->c_change, m->c_lo, m->c_hi, m->c_p_holm};
    snprintf(it->reason, sizeof it->reason, "%s", m->reason);
    gb_cmp_decide(m, m->family, &it->decide);
    /* a case that moves a lot between processes says so whatever its verdict */
    double ps = m->noise.proc_spread_b;
    if (ok && isfinite(ps) && ps > m->rule.threshold) {
        char plans[48] = "";
        if (m->plans_b > 1) snprintf(plans, sizeof plans, " (%d plans)", m->plans_b);
        char full[sizeof m->reason + 128];
        snprintf(full, sizeof full, "process spread %.0f%% over %d baseline runs%s%s%s", 100 * ps, m->kb, plans,
                 *m->reason ? "; " : "", m->reason);
        size_t l = strlen(full); /* the head first: the tail may be cut */
        if (l >= sizeof it->reason) l = sizeof it->reason - 1;
        memcpy(it->reason, full, l);
        it->reason[l] = '\0';
    }
}

/* The items, the results only in the current run, the summary and the exit
 * code. -1 out of memory. */
static int record(comparison *k, const gb_compare_options *o, gb_compare_result *res) {
    size_t nm = k->nm;
    gb_cmp_summary *sum = &res->summary;
    res->items = calloc(nm ? nm : 1, sizeof *res->items);
    if (!res->items) return -1;
    res->nitems = nm;
    for (size_t i = 0; i < nm; i++) {
        sum->count[k->ms[i].verdict]++;
        record_item(&k->ms[i], o->nconfirm, &res->items[i]);
    }
    char name[400];
    for (size_t f = 0; f < k->ncur; f++)
        for (size_t j = 0; j < k->ec[f].n; j++) {
            entry *x = &k->ec[f].e[j];
            if (x->matched) continue;
            x->matched = 1; /* the same result in a later current file is listed once */
            for (size_t g = f + 1; g < k->ncur; g++) gb_cmp_match_in(&k->ec[g], &k->mc[g], x);
            gb_result_name(x->c, x->r, x->machine, name, sizeof name);
            char line[800];
            snprintf(line, sizeof line, "%s", name);
            if (gb_cmp_current_failed(x->r)) {
                sum->failed_only_in_current++;
                char dc[120];
                gb_cmp_result_ok(x->r, dc, sizeof dc);
                snprintf(line, sizeof line, "%s (%s)", name, dc);
            }
            if (gb_cmp_strs_add(&res->only_in_current, line) != 0) return -1;
        }
    sum->compared = sum->count[GB_V_SAME] + sum->count[GB_V_IMPROVEMENT] + sum->count[GB_V_UNSURE] +
                    sum->count[GB_V_REGRESSION];
    size_t nb = k->eb[0].n;
    /* a skipped current result ran nothing: present means measured (defect:
     * skips counted as present, so an all-skipped run passed the gate) */
    sum->present = k->usable_b ? (double)k->present / (double)k->usable_b : 0;
    int bad = sum->count[GB_V_REGRESSION] + sum->count[GB_V_FAILED] + sum->failed_only_in_current +
              sum->shift_regressions;
    res->exit_code = bad ? 1 : 0;
    if (sum->confirm.present) {
        int nsus = 0, conf = 0;
        for (size_t i = 0; i < nm; i++) {
            nsus += k->ms[i].suspect;
            conf += k->ms[i].suspect && k->ms[i].verdict == GB_V_REGRESSION;
        }
        sum->confirm.suspects = nsus;
        sum->confirm.confirmed = o->nconfirm ? conf : 0;
        sum->confirm.not_confirmed = o->nconfirm ? nsus - conf : 0;
    }
    char *err = res->error;
    size_t errlen = sizeof res->error;
    if (*err) {
        /* stage 2 could not judge a suspect: an error, never a silent verdict */
    } else if (nm == 0)
        snprintf(err, errlen, "no result of the baseline matched one of the current run (%zu only in the baseline, "
                 "%zu only in the current run): nothing was compared", nb, res->only_in_current.n);
    else if (sum->compared == 0 && bad == 0)
        snprintf(err, errlen, "nothing was compared: none of the %zu matched results has samples on both sides "
                 "(%d not compared: skipped or without samples)", nm, sum->count[GB_V_NOT_COMPARED]);
    else if (sum->present + 1e-12 < o->require_present)
        snprintf(err, errlen, "only %zu of the baseline's %zu measured results (%.1f%%) were measured in the "
                 "current run (a skip is not a measurement); at least %.4g%% must be (--require-present)",
                 k->present, k->usable_b, 100 * sum->present, 100 * o->require_present);
    sum->all_unsure = sum->compared > 0 && sum->count[GB_V_UNSURE] == sum->compared;
    if (sum->all_unsure && o->fail_on_unsure && res->exit_code == 0) res->exit_code = 1;
    res->fail_on_unsure = o->fail_on_unsure;
    sum->budget_s = o->budget_s > 0 ? o->budget_s : GB_DEFAULT_DECIDE_BUDGET_S;
    sum->decidable = gb_cmp_decidable_within(res->items, nm, sum->budget_s, &sum->decidable_s);
    if (*err) res->exit_code = 2;
    return 0;
}

/* ---- the comparison ------------------------------------------------------- */

/* The files, the method and the warnings: what the comparison is of. */
static int describe(gb_compare_result *res, const gb_results *const *base, const char *const *base_names,
                    size_t nbase, const gb_results *const *cur, const char *const *cur_names, size_t ncur,
                    int by_machine, const gb_compare_options *o) {
    res->nbase = nbase;
    res->ncur = ncur;
    res->baseline_files = calloc(nbase, sizeof *res->baseline_files);
    res->current_files = calloc(ncur, sizeof *res->current_files);
    if (!res->baseline_files || !res->current_files || describe_doc(base[0], base_names[0], &res->baseline) ||
        describe_doc(cur[0], cur_names[0], &res->current))
        return -1;
    for (size_t i = 0; i < nbase; i++)
        if (describe_doc(base[i], base_names[i], &res->baseline_files[i])) return -1;
    for (size_t i = 0; i < ncur; i++)
        if (describe_doc(cur[i], cur_names[i], &res->current_files[i])) return -1;
    res->threshold = o->rule.threshold;
    res->alpha = o->rule.alpha;
    res->min_change_s = o->rule.min_change_s;
    res->require_present = o->require_present;
    res->policy = o->policy_path;
    res->by_machine = by_machine;
    res->confirm_on = o->confirm_runs > 0;
    gb_cmp_strs *warnings = &res->warnings;
    if (!by_machine) {
        gb_cmp_check_files(base, base_names, nbase, cur, cur_names, ncur, warnings, res->build_note,
                           sizeof res->build_note);
        gb_cmp_compare_peaks(&base[0]->runs[0].peaks, &cur[0]->runs[0].peaks, NULL, warnings);
    } else {
        for (size_t i = 0; i < base[0]->nruns; i++)
            for (size_t j = 0; j < cur[0]->nruns; j++) {
                const char *na = gb_results_run_name(base[0], (int)i);
                if (strcmp(na, gb_results_run_name(cur[0], (int)j)) != 0) continue;
                gb_cmp_check_pair(&base[0]->runs[i].context, &cur[0]->runs[j].context, na, warnings);
                gb_cmp_compare_peaks(&base[0]->runs[i].peaks, &cur[0]->runs[j].peaks, na, warnings);
            }
    }
    for (size_t i = 0; i < nbase; i++) warn_incomplete(base[i], "baseline", warnings);
    for (size_t i = 0; i < ncur; i++) warn_incomplete(cur[i], "current", warnings);
    if (o->ci && nbase < GB_CI_BASELINE_RUNS) {
        char line[300];
        snprintf(line, sizeof line, "--ci: the baseline has %zu run%s; detecting +10%% at 5-100 us needs %d "
                 "(docs/regression-statistics.md, \"Power\"): keep %d runs, or use history check", nbase,
                 nbase == 1 ? "" : "s", GB_CI_BASELINE_RUNS, GB_CI_BASELINE_RUNS);
        gb_cmp_strs_add(warnings, line);
    }
    if (nbase == 1 && ncur == 1)
        gb_cmp_strs_add(warnings,
            "one run a side: how much each case moves between processes cannot be measured, so every case is "
            "judged by the suite's typical between-process spread; a baseline of two or more runs "
            "(compare BASE1 BASE2 ... -- CURRENT) measures it per case");
    return 0;
}

gb_compare_result *gb_compare_judge_runs(const gb_results *const *base, const char *const *base_names, size_t nbase,
                                         const gb_results *const *cur, const char *const *cur_names, size_t ncur,
                                         const gb_compare_options *o) {
    if (nbase == 0 || ncur == 0 || nbase > GB_MAX_PROCS || ncur > GB_MAX_PROCS) return NULL;
    comparison *k = calloc(1, sizeof *k);
    gb_compare_result *res = calloc(1, sizeof *res);
    int ok = k && res && collect(k, base, nbase, cur, ncur) == 0 &&
             describe(res, base, base_names, nbase, cur, cur_names, ncur, k->by_machine, o) == 0 &&
             match(k, o, res) == 0 && judge(k, o, res) == 0 && record(k, o, res) == 0;
    if (k) comparison_free(k);
    free(k);
    if (!ok) {
        gb_compare_result_free(res);
        return NULL;
    }
    return res;
}

cJSON *gb_compare_runs(const gb_results *const *base, const char *const *base_names, size_t nbase,
                       const gb_results *const *cur, const char *const *cur_names, size_t ncur,
                       const gb_compare_options *o) {
    gb_compare_result *res = gb_compare_judge_runs(base, base_names, nbase, cur, cur_names, ncur, o);
    cJSON *doc = res ? gb_compare_result_json(res) : NULL;
    gb_compare_result_free(res);
    return doc;
}

cJSON *gb_compare_docs(const gb_results *base, const char *base_name, const gb_results *cur, const char *cur_name,
                       const gb_compare_options *o) {
    return gb_compare_runs(&base, &base_name, 1, &cur, &cur_name, 1, o);
}
