/* compare_confirm.c — the second stage of `compare --confirm`
 * (docs/regression-statistics.md, "Confirming in fresh processes"): each
 * suspect judged again on the confirmation processes alone. The first stage
 * and the matching are compare.c (compare_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"

/* The priors of the second stage. Stage 1's are learnt from every compared
 * case, a family large enough for a median to mean something. But the
 * suspects were chosen for looking slow, so they are the cases that move
 * most between rounds and processes (on the H100 host the tiny ones): a
 * noisy case shrunk toward the suite's typical would look surer than it is,
 * and the simulation flagged such cases. Their own rounds and processes
 * (the baseline's and the N fresh ones) are measured, so each prior is the
 * larger of stage 1's and what the suspects themselves show (gb_noise_priors
 * over them): it can only widen an interval. */
static void confirm_priors(const gb_noise_prior *stage1, const gb_case_noise *n2, size_t k, gb_noise_prior *pr) {
    gb_noise_prior own;
    gb_noise_priors(n2, k, &own);
    *pr = *stage1;
    if (own.round_var > pr->round_var) pr->round_var = own.round_var;
    if (isfinite(own.proc_var) && !own.proc_from_spread && !own.proc_assumed &&
        (!isfinite(pr->proc_var) || own.proc_var > pr->proc_var)) {
        pr->proc_var = own.proc_var;
        pr->proc_from_spread = 0;
    }
    /* the suspects' own rounds and processes are well measured (the
     * baseline's and N fresh ones): where they differ among themselves far
     * beyond what that explains, the prior weighs less, so a quiet suspect
     * keeps its own (small) variance (gb_noise_priors_weigh) */
    gb_noise_priors_weigh(n2, k, pr);
}

/* One suspect's results in the confirmation runs, or an error in err. */
static int confirm_results(matched *m, entries *ef, matcher *mf, const gb_compare_options *o, int by_machine,
                           const gb_result **out, char *err, size_t len) {
    char name[400];
    gb_result_name(m->b->c, m->b->r, m->b->machine, name, sizeof name);
    for (size_t f = 0; f < o->nconfirm; f++) {
        entry *x = gb_cmp_match_in(&ef[f], &mf[f], m->b);
        char d[120];
        if (!x) {
            snprintf(err, len, "--confirm: suspect %.300s is missing from confirmation run %zu (%s)%s", name, f + 1,
                     o->confirm_names[f],
                     by_machine ? ": the confirmation runs ran on this host, and these files hold several machines"
                                : ": was the current run made with other run options (--devices, --sizes)?");
            return -1;
        }
        if (!gb_cmp_result_ok(x->r, d, sizeof d)) {
            snprintf(err, len, "--confirm: suspect %.300s is %s in confirmation run %zu (%s)", name, d, f + 1,
                     o->confirm_names[f]);
            return -1;
        }
        out[f] = x->r;
    }
    return 0;
}

/* Stage 2 (docs/regression-statistics.md, "Confirming in fresh processes"):
 * every suspect judged again on the confirmation processes alone, against
 * the same baseline, Holm over the suspects. A suspect stays a regression
 * only when stage 2 says so; otherwise it takes stage 2's verdict. Fills cs
 * (the summary's "confirm"); 0, or -1 out of memory; err set when a suspect
 * could not be judged (exit 2). */
int gb_cmp_confirm_stage(matched *ms, size_t nm, const gb_noise_prior *prior1, const gb_compare_options *o,
                         int by_machine, gb_cmp_confirm_summary *cs, char *err, size_t errlen) {
    cs->present = 1;
    cs->suite = o->confirm_suite;
    cs->runs = o->confirm_runs;
    cs->processes = o->nconfirm;
    cs->seconds = o->confirm_seconds;
    size_t nsus = 0;
    for (size_t i = 0; i < nm; i++) {
        if (!ms[i].suspect) continue;
        nsus++;
        char cname[320];
        gb_result_case_name(ms[i].b->c, cname, sizeof cname);
        if (!gb_cmp_strs_has(&cs->cases, cname) && gb_cmp_strs_add(&cs->cases, cname) != 0) return -1;
    }
    if (o->nconfirm == 0 || nsus == 0) return 0;
    if (o->nconfirm > GB_MAX_PROCS) {
        snprintf(err, errlen, "--confirm: %zu confirmation runs, at most %d", o->nconfirm, GB_MAX_PROCS);
        return 0;
    }
    entries ef[GB_MAX_PROCS];
    matcher mf[GB_MAX_PROCS];
    memset(ef, 0, sizeof ef);
    memset(mf, 0, sizeof mf);
    size_t *idx = calloc(nsus, sizeof *idx);
    gb_case_noise *n2 = calloc(nsus, sizeof *n2);
    double *thr = calloc(nsus, sizeof *thr), *alp = calloc(nsus, sizeof *alp);
    gb_family_change *f2 = calloc(nsus, sizeof *f2);
    const gb_result **got = calloc(nsus * o->nconfirm, sizeof *got);
    int bad = !idx || !n2 || !thr || !alp || !f2 || !got;
    for (size_t f = 0; f < o->nconfirm && !bad; f++)
        bad = gb_cmp_collect(o->confirm[f], by_machine, &ef[f]) != 0 || gb_cmp_matcher_init(&mf[f], &ef[f]) != 0;
    size_t k = 0;
    for (size_t i = 0; i < nm && !bad && !*err; i++) {
        matched *m = &ms[i];
        if (!m->suspect) continue;
        if (confirm_results(m, ef, mf, o, by_machine, got + k * o->nconfirm, err, errlen) != 0) break;
        gb_proc_view vb[GB_MAX_PROCS], vc[GB_MAX_PROCS];
        gb_cmp_views_of(m->bp, m->kb, vb);
        gb_cmp_views_of(got + k * o->nconfirm, (int)o->nconfirm, vc);
        gb_noise_summarize(vb, m->kb, vc, (int)o->nconfirm, &n2[k]);
        thr[k] = m->rule.threshold;
        alp[k] = m->rule.alpha;
        idx[k++] = i;
    }
    size_t family = 0;
    if (!bad && !*err) {
        gb_noise_prior pr;
        confirm_priors(prior1, n2, k, &pr);
        family = gb_noise_family_with(n2, NULL, k, thr, alp, &pr, f2);
        bad = family == (size_t)-1;
    }
    /* the selection-free test of each suspect (gb_confirm_conditional), Holm over them */
    double *pc = calloc(k ? k : 1, sizeof *pc), *pch = calloc(k ? k : 1, sizeof *pch);
    bad |= !pc || !pch;
    for (size_t j = 0; j < k && !bad; j++) {
        const matched *m = &ms[idx[j]];
        pc[j] = NAN;
        if (!f2[j].have) continue;
        gb_confirm_test ct;
        /* stage 1's raw change: the confirmation runs are judged raw against the same baseline */
        gb_confirm_conditional(&n2[j], &f2[j].ch, m->ch.d + m->shift_log, m->noise.kc, m->noise.rc, m->rule.threshold, &ct);
        pc[j] = ct.p;
    }
    if (!bad) gb_holm(pc, k, pch);
    for (size_t j = 0; j < k && !bad && !*err; j++) {
        matched *m = &ms[idx[j]];
        matched *t = malloc(sizeof *t); /* stage 2's view of the case, judged by the same rule */
        if (!t) { bad = 1; break; }
        *t = *m;
        t->noise = n2[j];
        t->kc = (int)o->nconfirm;
        for (int p = 0; p < t->kc; p++) t->cp[p] = got[j * o->nconfirm + p];
        gb_cmp_compare_plans(t);
        t->reason[0] = '\0';
        m->confirmed_have = 1;
        m->c_change = m->c_lo = m->c_hi = m->c_p_holm = NAN;
        if (!n2[j].ok || !f2[j].have) {
            t->verdict = GB_V_UNSURE;
            snprintf(t->reason, sizeof t->reason, "%s", n2[j].ok ? "its noise could not be estimated" : n2[j].reason);
        } else {
            t->ch = f2[j].ch;
            t->have_ch = 1;
            t->p = f2[j].p;
            t->p_holm = f2[j].p_holm;
            gb_cmp_judge(t, f2[j].lo, f2[j].hi, family);
            m->c_change = f2[j].change;
            m->c_lo = f2[j].lo;
            m->c_hi = f2[j].hi;
            m->c_p_holm = pch[j];
            if (t->verdict == GB_V_REGRESSION && !(pch[j] <= m->rule.alpha)) {
                t->verdict = GB_V_UNSURE;
                snprintf(t->reason, sizeof t->reason,
                         "slower, but not once the baseline's part in choosing it is taken out (p = %.2g after Holm "
                         "over %zu suspect%s > alpha %g)", pch[j], family, family == 1 ? "" : "s", m->rule.alpha);
            }
        }
        m->confirm_verdict = t->verdict;
        char was[80];
        snprintf(was, sizeof was, "stage 1 (%s): %+.1f%% [%+.1f%%, %+.1f%%]", gb_verdict_name(m->verdict),
                 100 * m->change, 100 * m->lo, 100 * m->hi);
        char p[32];
        if (m->c_p_holm < 1e-12) snprintf(p, sizeof p, "p < 1e-12");
        else snprintf(p, sizeof p, "p = %.2g", m->c_p_holm);
        /* a case re-measured only to be decided (--confirm-unsure) was
         * never suspected of a slowdown: nothing to "not confirm" */
        const char *how = m->verdict == GB_V_UNSURE && !(m->change > m->rule.threshold) ? "re-measured"
                                                                                          : "not confirmed";
        if (t->verdict == GB_V_REGRESSION)
            snprintf(m->reason, sizeof m->reason,
                     "confirmed in %zu fresh processes: %+.1f%% [%+.1f%%, %+.1f%%], %s (free of the selection) after "
                     "Holm over %zu suspect%s; %s", o->nconfirm, 100 * m->c_change, 100 * m->c_lo, 100 * m->c_hi, p,
                     family, family == 1 ? "" : "s", was);
        else if (isfinite(m->c_change))
            snprintf(m->reason, sizeof m->reason, "%s in %zu fresh processes: %s, %+.1f%% [%+.1f%%, "
                     "%+.1f%%]%s%.200s; %s", how, o->nconfirm, gb_verdict_name(t->verdict), 100 * m->c_change,
                     100 * m->c_lo, 100 * m->c_hi, *t->reason ? ": " : "", t->reason, was);
        else
            snprintf(m->reason, sizeof m->reason, "%s in %zu fresh processes: %s: %.200s; %s",
                     how, o->nconfirm, gb_verdict_name(t->verdict), t->reason, was);
        m->verdict = t->verdict;
        free(t);
    }
    for (size_t f = 0; f < o->nconfirm; f++) gb_cmp_matcher_free(&mf[f]), free(ef[f].e);
    free(idx), free(n2), free(thr), free(alp), free(f2), free(got), free(pc), free(pch);
    return bad ? -1 : 0;
}

