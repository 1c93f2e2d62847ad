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
 * The samples-only Mann-Whitney test (gb_compare_samples) is not used: it
 * treats every sample as independent, so drift between rounds and shifts
 * between processes look to it like changes. */
#include "compare.h"

#include "case_index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "compare_stats.h"
#include "mannwhitney.h"
#include "results_model.h"
#include "stats.h"

const char *gb_verdict_name(gb_cmp_verdict v) {
    switch (v) {
    case GB_V_SAME: return "same";
    case GB_V_IMPROVEMENT: return "improvement";
    case GB_V_UNSURE: return "unsure";
    case GB_V_REGRESSION: return "regression";
    case GB_V_FAILED: return "failed";
    case GB_V_NOT_COMPARED: return "not_compared";
    }
    return "?";
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median of an already sorted array */
static double sorted_median(const double *s, size_t n) {
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

int gb_compare_samples(const double *base, size_t nb, const double *cur, size_t nc, gb_rule rule,
                       gb_sample_verdict *out) {
    memset(out, 0, sizeof *out);
    out->n_base = nb;
    out->n_cur = nc;
    out->change = out->ci_low = out->ci_high = out->p = NAN;
    out->base_median = out->cur_median = NAN;
    out->verdict = GB_V_NOT_COMPARED;
    if (nb == 0 || nc == 0) {
        snprintf(out->reason, sizeof out->reason, "no samples on the %s side", nb == 0 ? "baseline" : "current");
        return 0;
    }
    double *lb = malloc(nb * sizeof *lb), *lc = malloc(nc * sizeof *lc);
    if (!lb || !lc) { free(lb); free(lc); return -1; }
    for (size_t i = 0; i < nb + nc; i++) {
        double v = i < nb ? base[i] : cur[i - nb];
        if (!(v > 0) || !isfinite(v)) {
            snprintf(out->reason, sizeof out->reason, "%s sample %zu is %g, not a positive time",
                     i < nb ? "baseline" : "current", i < nb ? i : i - nb, v);
            free(lb); free(lc);
            return 0;
        }
        /* times compare by ratio: work on logs, so a shift is a ratio */
        if (i < nb) lb[i] = log(v);
        else lc[i - nb] = log(v);
    }
    /* medians of the raw samples, as the results file states them */
    double *s = malloc((nb > nc ? nb : nc) * sizeof *s);
    if (!s) { free(lb); free(lc); return -1; }
    memcpy(s, base, nb * sizeof *s);
    qsort(s, nb, sizeof *s, cmp_d);
    out->base_median = sorted_median(s, nb);
    memcpy(s, cur, nc * sizeof *s);
    qsort(s, nc, sizeof *s, cmp_d);
    out->cur_median = sorted_median(s, nc);
    free(s);
    gb_mw_result mw;
    double est, lo, hi;
    if (gb_mannwhitney(lb, nb, lc, nc, &mw) != 0 ||
        gb_hodges_lehmann(lb, nb, lc, nc, rule.alpha, &est, &lo, &hi) != 0) {
        free(lb); free(lc);
        return -1;
    }
    free(lb);
    free(lc);
    out->p = mw.p;
    out->exact = mw.exact;
    out->change = exp(est) - 1.0;
    out->ci_low = isinf(lo) ? -INFINITY : exp(lo) - 1.0;
    out->ci_high = isinf(hi) ? INFINITY : exp(hi) - 1.0;
    double t = rule.threshold;
    int significant = mw.p <= rule.alpha;
    if (isinf(lo) || isinf(hi)) {
        out->verdict = GB_V_UNSURE;
        snprintf(out->reason, sizeof out->reason,
                 "too few samples (%zu vs %zu) for any conclusion at alpha %g", nb, nc, rule.alpha);
    } else if (fabs(out->change) <= t) {
        out->verdict = GB_V_SAME;
    } else {
        int up = out->change > 0;
        int clear = up ? out->ci_low > t : out->ci_high < -t;
        if (significant && clear) {
            out->verdict = up ? GB_V_REGRESSION : GB_V_IMPROVEMENT;
        } else {
            out->verdict = GB_V_UNSURE;
            if (!significant)
                snprintf(out->reason, sizeof out->reason, "not significant: p = %.3g > alpha %g", mw.p,
                         rule.alpha);
            else
                snprintf(out->reason, sizeof out->reason, "interval reaches %+.1f%%, inside the %.1f%% threshold",
                         100.0 * (up ? out->ci_low : out->ci_high), 100.0 * t);
        }
    }
    return 0;
}

/* ---- names and keys --------------------------------------------------- */

void gb_result_device_tag(const gb_result *r, char *buf, size_t len) {
    buf[0] = '\0';
    if (r->device.present && (r->device.index != 0 || r->concurrent.present))
        snprintf(buf, len, "/gpu%ld%s", r->device.index, r->concurrent.present ? "/concurrent" : "");
}

void gb_result_case_name(const gb_case_result *c, char *buf, size_t len) {
    char label[96] = "";
    if (*c->label) {
        snprintf(label, sizeof label, "%s", c->label);
    } else { /* shape as AxBxC when no label */
        size_t n = 0;
        for (size_t i = 0; i < c->rank && n < sizeof label - 24; i++)
            n += (size_t)snprintf(label + n, sizeof label - n, "%s%.0f", n ? "x" : "", c->shape[i]);
    }
    char params[160] = "";
    size_t n = 0;
    for (size_t i = 0; i < c->params.n && n < sizeof params - 1; i++) {
        const gb_kv *p = &c->params.item[i];
        char v[48];
        if (p->v.kind == GB_VAL_STRING) snprintf(v, sizeof v, "%s", p->v.text);
        else if (p->v.kind == GB_VAL_NUMBER) snprintf(v, sizeof v, "%g", p->v.num);
        else if (p->v.kind == GB_VAL_BOOL) snprintf(v, sizeof v, "%s", p->v.b ? "true" : "false");
        else snprintf(v, sizeof v, "?");
        n += (size_t)snprintf(params + n, sizeof params - n, "%s%s=%s", n ? "," : "", p->key, v);
    }
    if (n >= sizeof params) n = sizeof params - 1;
    snprintf(buf, len, "%s/%s/%s%s%s", c->op, c->dtype, label, n ? "/" : "", params);
}

void gb_result_name(const gb_case_result *c, const gb_result *r, const char *machine, char *buf, size_t len) {
    char cname[320], dev[24];
    gb_result_case_name(c, cname, sizeof cname);
    gb_result_device_tag(r, dev, sizeof dev);
    snprintf(buf, len, "%s/%s/%s%s%s%s", cname, r->backend, r->timing, dev, machine ? "@" : "",
             machine ? machine : "");
}


static int distinct_run_names(const gb_results *doc) {
    int distinct = 0;
    for (size_t i = 0; i < doc->nruns; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            if (strcmp(gb_results_run_name(doc, (int)i), gb_results_run_name(doc, (int)j)) == 0) seen = 1;
        distinct += !seen;
    }
    return distinct;
}

int gb_cmp_collect(const gb_results *doc, int by_machine, entries *out) {
    for (size_t i = 0; i < doc->ncases; i++) {
        const gb_case_result *c = &doc->cases[i];
        for (size_t j = 0; j < c->nresults; j++) {
            if (out->n == out->cap) {
                size_t cap = out->cap ? out->cap * 2 : 64;
                entry *e = realloc(out->e, cap * sizeof *e);
                if (!e) return -1;
                out->e = e;
                out->cap = cap;
            }
            out->e[out->n++] = (entry){c, &c->results[j], by_machine ? gb_results_run_name(doc, c->run) : NULL, c->run, 0};
        }
    }
    return 0;
}

static int same_key(const entry *a, const entry *b) {
    if (strcmp(a->c->op, b->c->op) != 0 || strcmp(a->c->dtype, b->c->dtype) != 0) return 0;
    if (strcmp(a->r->backend, b->r->backend) != 0) return 0;
    if (strcmp(a->r->timing, b->r->timing) != 0) return 0;
    if (!gb_result_same_series(a->r, b->r)) return 0;
    if (a->machine && b->machine && strcmp(a->machine, b->machine) != 0) return 0;
    if (!gb_shape_equal(a->c, b->c)) return 0;
    const gb_kvlist *pa = &a->c->params, *pb = &b->c->params;
    /* a missing params object means "no params" */
    if (pa->n == 0 && pb->n == 0) return 1;
    return pa->present && pb->present && gb_kvlist_equal(pa, pb);
}


static uint64_t entry_hash(const entry *x) {
    uint64_t h = gb_case_hash(GB_HASH_START, x->c, 1);
    h = gb_hash_str(gb_hash_str(h, x->r->backend), x->r->timing);
    return x->machine ? gb_hash_str(h, x->machine) : h;
}

static int same_as_probe(const void *ctx, size_t i) {
    const matcher *m = ctx;
    return same_key(m->probe, &m->ec->e[i]);
}

int gb_cmp_matcher_init(matcher *m, const entries *ec) {
    memset(m, 0, sizeof *m);
    m->ec = ec;
    m->next = malloc((ec->n ? ec->n : 1) * sizeof *m->next);
    m->head = malloc((ec->n ? ec->n : 1) * sizeof *m->head);
    if (!m->next || !m->head || gb_index_init(&m->index, ec->n) != GB_OK) return -1;
    size_t *last = malloc((ec->n ? ec->n : 1) * sizeof *last); /* last[first]: the chain's tail */
    if (!last) return -1;
    for (size_t i = 0; i < ec->n; i++) {
        m->next[i] = SIZE_MAX;
        m->probe = &ec->e[i];
        uint64_t h = entry_hash(&ec->e[i]);
        long f = gb_index_find(&m->index, h, same_as_probe, m);
        if (f < 0) {
            m->head[i] = last[i] = i;
            if (gb_index_add(&m->index, h, i) != GB_OK) {
                free(last);
                return -1;
            }
        } else {
            m->next[last[f]] = i;
            last[f] = i;
        }
    }
    free(last);
    return 0;
}

/* The first unmatched current entry with b's key, or NULL. */
entry *gb_cmp_matcher_take(matcher *m, entries *ec, const entry *b) {
    m->probe = b;
    long f = gb_index_find(&m->index, entry_hash(b), same_as_probe, m);
    if (f < 0) return NULL;
    size_t i = m->head[f];
    while (i != SIZE_MAX && ec->e[i].matched) i = m->next[i];
    m->head[f] = i;
    return i == SIZE_MAX ? NULL : &ec->e[i];
}

void gb_cmp_matcher_free(matcher *m) {
    gb_index_free(&m->index);
    free(m->next);
    free(m->head);
}

static int verification_failed(const gb_result *r) {
    return r->verification.present && r->verification.status == GB_VS_FAILED;
}

/* ok, or the status with its reason ("skipped: too big for GPU memory") */
int gb_cmp_result_ok(const gb_result *r, char *desc, size_t len) {
    if (r->status == GB_RS_OK && !verification_failed(r)) {
        snprintf(desc, len, "ok");
        return 1;
    }
    const char *why = r->reason;
    if (r->status == GB_RS_OK) why = "verification failed";
    snprintf(desc, len, "%s%s%s", r->status == GB_RS_OK ? "failed" : gb_result_status_name(r->status), *why ? ": " : "",
             why);
    return 0;
}

static int current_failed(const gb_result *r) {
    return r->status == GB_RS_FAILED || r->status == GB_RS_ERROR || verification_failed(r);
}

static void add_num_or_null(cJSON *o, const char *k, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

/* ---- provenance ------------------------------------------------------- */

static void warn_diff(cJSON *warnings, const char *label, const char *what, const gb_value *a, const gb_value *b) {
    if (gb_value_equal(a, b)) return;
    char *sa = gb_value_json(a), *sb = gb_value_json(b);
    char line[600];
    snprintf(line, sizeof line, "machines differ%s%s: %s is %s in the baseline, %s in the current run",
             label ? " for " : "", label ? label : "", what, sa ? sa : "absent", sb ? sb : "absent");
    cJSON_AddItemToArray(warnings, cJSON_CreateString(line));
    free(sa);
    free(sb);
}

/* What makes two runs' numbers incomparable: another CPU or GPU, driver,
 * library versions, thread count, cache mode. */
static void compare_contexts(const gb_context *ca, const gb_context *cb, const char *label, cJSON *warnings) {
    const struct { const char *what; const gb_value *a, *b; } facts[] = {
        {"cpu.model", &ca->f_cpu_model, &cb->f_cpu_model},
        {"gpu.name", &ca->f_gpu_name, &cb->f_gpu_name},
        {"gpu.nvidia_driver", &ca->f_nvidia_driver, &cb->f_nvidia_driver},
        {"gpu.cuda_driver_api_version", &ca->f_gpu_driver, &cb->f_gpu_driver},
        {"cpu_threads_used", &ca->f_threads, &cb->f_threads},
        {"cache_mode", &ca->f_cache_mode, &cb->f_cache_mode}};
    for (size_t i = 0; i < sizeof facts / sizeof *facts; i++) warn_diff(warnings, label, facts[i].what, facts[i].a, facts[i].b);
    static const gb_value absent;
    char what[160];
    for (size_t i = 0; i < ca->libraries.n; i++) {
        const gb_kv *x = &ca->libraries.item[i];
        const gb_value *y = gb_kv_find(&cb->libraries, x->key);
        snprintf(what, sizeof what, "libraries.%s", x->key);
        warn_diff(warnings, label, what, &x->v, y ? y : &absent);
    }
    for (size_t i = 0; i < cb->libraries.n; i++) {
        const gb_kv *x = &cb->libraries.item[i];
        if (!gb_kv_find(&ca->libraries, x->key)) {
            snprintf(what, sizeof what, "libraries.%s", x->key);
            warn_diff(warnings, label, what, &absent, &x->v);
        }
    }
}

/* The ceilings each run measured (peaks): the same model of CPU or GPU can
 * still be a slower machine (a busier host, another VM placement). Seen on
 * the H100 host: a fresh VM measured 14% less CPU triad bandwidth and 16%
 * less SGEMM than the previous one, and its CPU results were slower by as
 * much. A difference above this is worth a warning. */
#define GB_PEAK_WARN 0.10

static const gb_kvlist *peak_set(const gb_peaks *p, const char *backend) {
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->set[i].backend, backend)) return &p->set[i].values;
    return NULL;
}

static void compare_peaks(const gb_peaks *pa, const gb_peaks *pb, const char *label, cJSON *warnings) {
    for (size_t b = 0; b < pa->n; b++) {
        const char *backend = pa->set[b].backend;
        const gb_kvlist *mine = &pa->set[b].values, *other = peak_set(pb, backend);
        for (size_t i = 0; other && i < mine->n; i++) {
            const char *key = mine->item[i].key;
            size_t len = strlen(key);
            int rate = (len > 4 && !strcmp(key + len - 4, "_gbs")) || (len > 7 && !strcmp(key + len - 7, "_gflops"));
            const gb_value *x = &mine->item[i].v, *y = gb_kv_find(other, key);
            if (!rate || x->kind != GB_VAL_NUMBER || !y || y->kind != GB_VAL_NUMBER || !(x->num > 0)) continue;
            double change = y->num / x->num - 1.0;
            if (fabs(change) <= GB_PEAK_WARN) continue;
            char line[400];
            snprintf(line, sizeof line,
                     "measured ceilings differ%s%s: %s.%s is %.4g in the baseline, %.4g in the current run "
                     "(%+.0f%%): the machine itself was %s, so %s changes of that size may not be the code's",
                     label ? " for " : "", label ? label : "", backend, key, x->num, y->num, 100.0 * change,
                     change < 0 ? "slower" : "faster", backend);
            cJSON_AddItemToArray(warnings, cJSON_CreateString(line));
        }
    }
}

/* Everything that says whether two runs can be compared. */
static void compare_runs(const gb_run *ra, const gb_run *rb, const char *label, cJSON *warnings) {
    compare_contexts(&ra->context, &rb->context, label, warnings);
    compare_peaks(&ra->peaks, &rb->peaks, label, warnings);
}

static cJSON *describe_doc(const gb_results *doc, const char *name) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "path", name);
    cJSON *runs = cJSON_AddArrayToObject(d, "runs");
    for (size_t i = 0; i < doc->nruns; i++) {
        const gb_context *ctx = &doc->runs[i].context;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", gb_results_run_name(doc, (int)i));
        cJSON_AddStringToObject(o, "date", ctx->date);
        cJSON_AddStringToObject(o, "gpu", ctx->gpu_name);
        cJSON_AddStringToObject(o, "cpu", ctx->cpu_model);
        cJSON_AddItemToArray(runs, o);
    }
    return d;
}

static void warn_incomplete(const gb_results *doc, const char *which, cJSON *warnings) {
    for (size_t i = 0; i < doc->nruns; i++) {
        const gb_run *run = &doc->runs[i];
        if (run->complete == 0) {
            char line[300];
            snprintf(line, sizeof line, "the %s run%s%s is incomplete (%s): cases missing from it are listed "
                     "as present on one side only", which, doc->merged ? " " : "",
                     doc->merged ? gb_results_run_name(doc, (int)i) : "",
                     run->interrupted == 1 ? "interrupted" : "not finished");
            cJSON_AddItemToArray(warnings, cJSON_CreateString(line));
        }
    }
}

/* ---- the comparison document ----------------------------------------- */



/* --confirm re-measures a case judged a regression, and an unsure one whose
 * estimate is itself beyond +threshold: on a noisy host that is where a real
 * slowdown lands when one current process cannot show its own shift. */
static int is_suspect(const matched *m) {
    return m->have_ch && m->change > m->rule.threshold &&
           (m->verdict == GB_V_REGRESSION || m->verdict == GB_V_UNSURE);
}

/* The plan a library chose for a result, when its backend records one
 * (extra.plan: FFTW's, with planner=measure picked per process). */
static const char *plan_of(const gb_result *r) {
    const gb_value *v = gb_kv_find(&r->extra, "plan");
    return v && v->kind == GB_VAL_STRING ? v->text : NULL;
}

/* How many distinct plans the baseline's runs chose, and whether a current
 * run chose one none of them did. */
void gb_cmp_compare_plans(matched *m) {
    const char *seen[GB_MAX_PROCS];
    int n = 0;
    for (int k = 0; k < m->kb; k++) {
        const char *p = plan_of(m->bp[k]);
        int dup = !p;
        for (int j = 0; j < n && !dup; j++) dup = !strcmp(seen[j], p);
        if (!dup) seen[n++] = p;
    }
    m->plans_b = n;
    for (int k = 0; k < m->kc; k++) {
        const char *p = plan_of(m->cp[k]);
        int known = !p || n == 0;
        for (int j = 0; j < n && !known; j++) known = !strcmp(seen[j], p);
        if (!known) m->plan_changed = 1;
    }
}

void gb_cmp_views_of(const gb_result *const *r, int k, gb_proc_view *v) {
    for (int i = 0; i < k; i++)
        v[i] = (gb_proc_view){r[i]->samples, r[i]->nsamples, r[i]->round_sizes, r[i]->nrounds};
}

/* The first unmatched entry of es with b's key, marked matched; NULL when none. */
entry *gb_cmp_match_in(entries *es, matcher *m, const entry *b) {
    entry *x = gb_cmp_matcher_take(m, es, b);
    if (x) x->matched = 1;
    return x;
}

static cJSON *side_json(const gb_result *r, const char *desc, int files, int runs, double median, double round_spread,
                        double proc_spread) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "status", gb_result_status_name(r->status));
    if (strcmp(desc, "ok") != 0) cJSON_AddStringToObject(s, "detail", desc);
    cJSON_AddNumberToObject(s, "n", (double)r->nsamples);
    cJSON_AddNumberToObject(s, "files", files);
    cJSON_AddNumberToObject(s, "runs", runs);
    add_num_or_null(s, "median_s", median);
    add_num_or_null(s, "round_spread", round_spread);
    add_num_or_null(s, "process_spread", proc_spread);
    return s;
}

/* The verdict of one case from its change, interval and Holm-adjusted p
 * (of "the change is beyond half the threshold"). */
void gb_cmp_judge(matched *m, double lo, double hi, size_t family) {
    double t = m->rule.threshold, change = exp(m->ch.d) - 1;
    double shift = exp(m->noise.mean_c) - exp(m->noise.mean_b);
    int established = m->p_holm <= m->rule.alpha, beyond = fabs(change) > t;
    char noise[200];
    snprintf(noise, sizeof noise, "between processes %.2g%% (%s), between rounds %.2g%%",
             100 * sqrt(m->ch.proc_var),
             m->ch.proc_measured ? "this case's runs"
                                 : "typical of the suite: this case's cannot be measured from one run a side",
             100 * sqrt(m->ch.round_var));
    if (established && beyond && m->plan_changed) {
        /* recorded and shown, not hidden: the lottery is not the code */
        m->verdict = GB_V_UNSURE;
        snprintf(m->reason, sizeof m->reason,
                 "changed by %+.1f%%, but the current run's library chose a plan none of the baseline's runs did "
                 "(extra.plan; FFTW's planner=measure picks per process): re-run, or give the baseline more runs",
                 100 * change);
        return;
    }
    if (established && beyond && fabs(shift) >= m->rule.min_change_s) {
        m->verdict = change > 0 ? GB_V_REGRESSION : GB_V_IMPROVEMENT;
        return;
    }
    if (lo >= -t && hi <= t) {
        m->verdict = GB_V_SAME;
        return;
    }
    m->verdict = GB_V_UNSURE;
    if (established && beyond)
        snprintf(m->reason, sizeof m->reason, "medians differ by %.3g us, under --min-change %.3g us", fabs(shift) * 1e6,
                 m->rule.min_change_s * 1e6);
    else if (established)
        snprintf(m->reason, sizeof m->reason,
                 "changed by %+.1f%%, within the %.3g%% threshold, but the interval reaches %+.1f%%; %.150s",
                 100 * change, 100 * t, 100 * (change > 0 ? hi : lo), noise);
    else
        snprintf(m->reason, sizeof m->reason,
                 "interval [%+.1f%%, %+.1f%%] is not within +-%.3g%%, and a change of %.3g%% or more is not "
                 "established (p = %.2g, %.2g after Holm over %zu cases > alpha %g); %.150s",
                 100 * lo, 100 * hi, 100 * t, 50 * t, m->p, m->p_holm, family, m->rule.alpha, noise);
}

cJSON *gb_compare_runs(const gb_results *const *base, const char *const *base_names, size_t nbase,
                       const gb_results *const *cur, const char *const *cur_names, size_t ncur,
                       const gb_compare_options *o) {
    if (nbase == 0 || ncur == 0 || nbase > GB_MAX_PROCS || ncur > GB_MAX_PROCS) return NULL;
    /* Machines are part of the key only when a merged file holds several:
     * single runs on CI runners with changing hostnames must still match. */
    int by_machine = 0;
    for (size_t i = 0; i < nbase; i++) by_machine |= distinct_run_names(base[i]) > 1;
    for (size_t i = 0; i < ncur; i++) by_machine |= distinct_run_names(cur[i]) > 1;
    entries eb[GB_MAX_PROCS], ec[GB_MAX_PROCS];
    memset(eb, 0, sizeof eb);
    memset(ec, 0, sizeof ec);
    matched *ms = NULL;
    cJSON *doc = NULL;
    int failed = 0;
    for (size_t i = 0; i < nbase; i++) failed |= gb_cmp_collect(base[i], by_machine, &eb[i]) != 0;
    for (size_t i = 0; i < ncur; i++) failed |= gb_cmp_collect(cur[i], by_machine, &ec[i]) != 0;
    /* each file's entries by key: matching is linear in the cases (20,000 took minutes by scanning) */
    matcher mb[GB_MAX_PROCS], mc[GB_MAX_PROCS];
    memset(mb, 0, sizeof mb);
    memset(mc, 0, sizeof mc);
    for (size_t i = 0; i < nbase && !failed; i++) failed |= gb_cmp_matcher_init(&mb[i], &eb[i]) != 0;
    for (size_t i = 0; i < ncur && !failed; i++) failed |= gb_cmp_matcher_init(&mc[i], &ec[i]) != 0;
    if (failed || !(ms = calloc(eb[0].n ? eb[0].n : 1, sizeof *ms))) goto out;

    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", "gpubench-compare");
    cJSON_AddNumberToObject(doc, "schema_version", 2);
    cJSON_AddItemToObject(doc, "baseline", describe_doc(base[0], base_names[0]));
    cJSON_AddItemToObject(doc, "current", describe_doc(cur[0], cur_names[0]));
    cJSON *bl = cJSON_AddArrayToObject(doc, "baseline_files"), *cl = cJSON_AddArrayToObject(doc, "current_files");
    for (size_t i = 0; i < nbase; i++) cJSON_AddItemToArray(bl, describe_doc(base[i], base_names[i]));
    for (size_t i = 0; i < ncur; i++) cJSON_AddItemToArray(cl, describe_doc(cur[i], cur_names[i]));
    cJSON *method = cJSON_AddObjectToObject(doc, "method");
    cJSON_AddStringToObject(method, "test",
                            "t on the medians of rounds and runs (between-round and between-process variance, "
                            "each shrunk toward the suite's typical), Holm over the cases");
    cJSON_AddStringToObject(method, "change", "ratio of the runs' mean log round medians, current/baseline, minus 1");
    cJSON_AddNumberToObject(method, "threshold", o->rule.threshold);
    cJSON_AddNumberToObject(method, "alpha", o->rule.alpha);
    cJSON_AddNumberToObject(method, "min_change_s", o->rule.min_change_s);
    cJSON_AddNumberToObject(method, "require_present", o->require_present);
    cJSON_AddNumberToObject(method, "baseline_runs", (double)nbase);
    cJSON_AddNumberToObject(method, "current_runs", (double)ncur);
    if (o->policy_path) cJSON_AddStringToObject(method, "policy", o->policy_path);
    else cJSON_AddNullToObject(method, "policy");
    cJSON_AddBoolToObject(method, "by_machine", by_machine);

    cJSON *warnings = cJSON_AddArrayToObject(doc, "warnings");
    if (!by_machine) {
        compare_runs(&base[0]->runs[0], &cur[0]->runs[0], NULL, warnings);
    } else {
        for (size_t i = 0; i < base[0]->nruns; i++)
            for (size_t j = 0; j < cur[0]->nruns; j++) {
                const char *na = gb_results_run_name(base[0], (int)i);
                if (strcmp(na, gb_results_run_name(cur[0], (int)j)) != 0) continue;
                compare_runs(&base[0]->runs[i], &cur[0]->runs[j], na, warnings);
            }
    }
    for (size_t i = 0; i < nbase; i++) warn_incomplete(base[i], "baseline", warnings);
    for (size_t i = 0; i < ncur; i++) warn_incomplete(cur[i], "current", warnings);
    if (nbase == 1 && ncur == 1)
        cJSON_AddItemToArray(warnings, cJSON_CreateString(
            "one run a side: how much each case moves between processes cannot be measured, so every case is "
            "judged by the suite's typical between-process spread; a baseline of two or more runs "
            "(compare BASE1 BASE2 ... -- CURRENT) measures it per case"));

    cJSON *only_b = cJSON_AddArrayToObject(doc, "only_in_baseline");
    cJSON *only_c = cJSON_AddArrayToObject(doc, "only_in_current");
    size_t nm = 0;
    char name[400];
    /* match, and summarise every case's noise */
    for (size_t i = 0; i < eb[0].n; i++) {
        matched *m = &ms[nm];
        memset(m, 0, sizeof *m);
        m->b = &eb[0].e[i];
        const gb_result *br[GB_MAX_PROCS], *cr[GB_MAX_PROCS];
        br[m->nb_seen++] = m->b->r;
        for (size_t f = 1; f < nbase; f++) {
            entry *x = gb_cmp_match_in(&eb[f], &mb[f], m->b);
            if (x) br[m->nb_seen++] = x->r;
        }
        for (size_t f = 0; f < ncur; f++) {
            entry *x = gb_cmp_match_in(&ec[f], &mc[f], m->b);
            if (x) cr[m->nc_seen++] = x->r;
        }
        gb_result_name(m->b->c, m->b->r, m->b->machine, name, sizeof name);
        if (m->nc_seen == 0) {
            cJSON_AddItemToArray(only_b, cJSON_CreateString(name));
            continue;
        }
        nm++;
        m->rule = gb_policy_rule(o->policy, m->b->c->op, m->b->r->backend, o->rule, o->cli_set);
        int okb = gb_cmp_result_ok(br[0], m->db, sizeof m->db), okc = 0;
        for (int k = 0; k < m->nc_seen; k++) {
            if (current_failed(cr[k]) && !m->cfail) m->cfail = cr[k];
            char d[120];
            if (gb_cmp_result_ok(cr[k], d, sizeof d)) { m->cp[m->kc++] = cr[k]; okc = 1; }
            if (k == 0 || !okc) snprintf(m->dc, sizeof m->dc, "%s", d);
        }
        for (int k = 0; k < m->nb_seen; k++) {
            char d[120];
            if (gb_cmp_result_ok(br[k], d, sizeof d)) m->bp[m->kb++] = br[k];
        }
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
    /* the suite's typical noise, every case's change, Holm over the family */
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
        family = gb_noise_family(all, want, nm, thr, alp, fam);
    }
    if (family == (size_t)-1) {
        free(all), free(want), free(thr), free(alp), free(fam);
        cJSON_Delete(doc);
        doc = NULL;
        goto out;
    }
    for (size_t i = 0; i < nm; i++) {
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
    for (size_t i = 0; i < nm; i++) {
        matched *m = &ms[i];
        m->change = m->lo = m->hi = NAN;
        if (!m->have_ch) continue;
        m->p = fam[i].p;
        m->p_holm = fam[i].p_holm;
        m->change = fam[i].change;
        m->lo = fam[i].lo;
        m->hi = fam[i].hi;
        gb_cmp_judge(m, m->lo, m->hi, family);
        if (o->confirm_runs > 0) m->suspect = is_suspect(m);
    }
    char err[1200] = "";
    cJSON *confirm = NULL;
    if (o->confirm_runs > 0) {
        gb_noise_prior prior;
        gb_noise_priors(all, nm, &prior);
        confirm = gb_cmp_confirm_stage(ms, nm, &prior, o, by_machine, err, sizeof err);
        if (!confirm) {
            free(all), free(want), free(thr), free(alp), free(fam);
            cJSON_Delete(doc);
            doc = NULL;
            goto out;
        }
    }
    int counts[GB_V_NOT_COMPARED + 1] = {0};
    cJSON *list = cJSON_AddArrayToObject(doc, "comparisons");
    for (size_t i = 0; i < nm; i++) {
        matched *m = &ms[i];
        double lo = m->lo, hi = m->hi, change = m->change;
        counts[m->verdict]++;
        const gb_case_result *c = m->b->c;
        cJSON *item = cJSON_CreateObject();
        gb_result_name(c, m->b->r, m->b->machine, name, sizeof name);
        cJSON_AddStringToObject(item, "name", name);
        cJSON_AddStringToObject(item, "op", c->op);
        cJSON_AddStringToObject(item, "dtype", c->dtype);
        cJSON_AddStringToObject(item, "label", c->label);
        cJSON_AddItemToObject(item, "shape", gb_case_shape_to_cjson(c));
        if (c->params.present) cJSON_AddItemToObject(item, "params", gb_kvlist_to_cjson(&c->params));
        cJSON_AddStringToObject(item, "backend", m->b->r->backend);
        cJSON_AddStringToObject(item, "timing", m->b->r->timing);
        if (m->b->machine) cJSON_AddStringToObject(item, "machine", m->b->machine);
        cJSON_AddNumberToObject(item, "threshold", m->rule.threshold);
        cJSON_AddNumberToObject(item, "alpha", m->rule.alpha);
        cJSON_AddNumberToObject(item, "min_change_s", m->rule.min_change_s);
        int ok = m->noise.ok;
        cJSON_AddItemToObject(item, "baseline",
                              side_json(m->b->r, m->db, m->nb_seen, m->kb, ok ? exp(m->noise.mean_b) : NAN,
                                        ok ? m->noise.round_spread : NAN, ok ? m->noise.proc_spread_b : NAN));
        cJSON_AddItemToObject(item, "current",
                              side_json(m->cp[0] ? m->cp[0] : m->b->r, m->dc, m->nc_seen, m->kc,
                                        ok ? exp(m->noise.mean_c) : NAN, ok ? m->noise.round_spread : NAN,
                                        ok ? m->noise.proc_spread_c : NAN));
        add_num_or_null(item, "change", change);
        add_num_or_null(item, "ci_low", lo);
        add_num_or_null(item, "ci_high", hi);
        add_num_or_null(item, "p_value", m->have_ch ? m->p : NAN);
        add_num_or_null(item, "p_holm", m->have_ch ? m->p_holm : NAN);
        add_num_or_null(item, "df", m->have_ch && isfinite(m->ch.df) ? m->ch.df : NAN);
        if (m->have_ch) {
            cJSON *nz = cJSON_AddObjectToObject(item, "noise");
            cJSON_AddNumberToObject(nz, "process_sd", sqrt(m->ch.proc_var));
            cJSON_AddStringToObject(nz, "process_from", m->ch.proc_measured ? "case" : "suite");
            cJSON_AddNumberToObject(nz, "round_sd", sqrt(m->ch.round_var));
            cJSON_AddNumberToObject(nz, "sampling_sd", sqrt(m->noise.vw));
        }
        if (m->plans_b) {
            cJSON_AddNumberToObject(item, "baseline_plans", m->plans_b);
            cJSON_AddBoolToObject(item, "plan_changed", m->plan_changed);
        }
        cJSON_AddStringToObject(item, "verdict", gb_verdict_name(m->verdict));
        if (o->confirm_runs > 0) cJSON_AddBoolToObject(item, "suspect", m->suspect);
        if (m->confirmed_have) {
            cJSON *cf = cJSON_AddObjectToObject(item, "confirm");
            cJSON_AddNumberToObject(cf, "runs", (double)o->nconfirm);
            cJSON_AddStringToObject(cf, "verdict", gb_verdict_name(m->confirm_verdict));
            add_num_or_null(cf, "change", m->c_change);
            add_num_or_null(cf, "lo", m->c_lo);
            add_num_or_null(cf, "hi", m->c_hi);
            add_num_or_null(cf, "p_holm", m->c_p_holm);
        }
        /* a case that moves a lot between processes says so whatever its verdict */
        double ps = m->noise.proc_spread_b;
        if (ok && isfinite(ps) && ps > m->rule.threshold) {
            char tail[sizeof m->reason];
            memcpy(tail, m->reason, sizeof tail);
            char plans[48] = "";
            if (m->plans_b > 1) snprintf(plans, sizeof plans, " (%d plans)", m->plans_b);
            char full[sizeof m->reason + 128];
            snprintf(full, sizeof full, "process spread %.0f%% over %d baseline runs%s%s%s", 100 * ps, m->kb, plans,
                     *tail ? "; " : "", tail);
            size_t l = strlen(full); /* the head first: the tail may be cut */
            if (l >= sizeof m->reason) l = sizeof m->reason - 1;
            memcpy(m->reason, full, l);
            m->reason[l] = '\0';
        }
        cJSON_AddStringToObject(item, "reason", m->reason);
        cJSON_AddItemToArray(list, item);
    }
    free(all);
    free(want);
    free(thr);
    free(alp);
    free(fam);
    int failed_only_current = 0;
    for (size_t f = 0; f < ncur; f++)
        for (size_t j = 0; j < ec[f].n; j++) {
            entry *x = &ec[f].e[j];
            if (x->matched) continue;
            x->matched = 1; /* the same result in a later current file is listed once */
            for (size_t g = f + 1; g < ncur; g++) gb_cmp_match_in(&ec[g], &mc[g], x);
            gb_result_name(x->c, x->r, x->machine, name, sizeof name);
            if (current_failed(x->r)) {
                failed_only_current++;
                char dc[120], line[800];
                gb_cmp_result_ok(x->r, dc, sizeof dc);
                snprintf(line, sizeof line, "%s (%s)", name, dc);
                cJSON_AddItemToArray(only_c, cJSON_CreateString(line));
            } else {
                cJSON_AddItemToArray(only_c, cJSON_CreateString(name));
            }
        }

    cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
    cJSON_AddNumberToObject(sum, "compared", (double)(counts[GB_V_SAME] + counts[GB_V_IMPROVEMENT] +
                                                      counts[GB_V_UNSURE] + counts[GB_V_REGRESSION]));
    for (int k = 0; k <= GB_V_NOT_COMPARED; k++) cJSON_AddNumberToObject(sum, gb_verdict_name(k), counts[k]);
    cJSON_AddNumberToObject(sum, "failed_only_in_current", failed_only_current);
    cJSON_AddNumberToObject(sum, "only_in_baseline", cJSON_GetArraySize(only_b));
    cJSON_AddNumberToObject(sum, "only_in_current", cJSON_GetArraySize(only_c));
    double present = eb[0].n ? (double)nm / (double)eb[0].n : 0;
    cJSON_AddNumberToObject(sum, "present", present);
    int bad = counts[GB_V_REGRESSION] + counts[GB_V_FAILED] + failed_only_current;
    int code = bad ? 1 : 0;
    if (confirm) {
        int nsus = 0, conf = 0;
        for (size_t i = 0; i < nm; i++) {
            nsus += ms[i].suspect;
            conf += ms[i].suspect && ms[i].verdict == GB_V_REGRESSION;
        }
        cJSON_AddNumberToObject(confirm, "suspects", nsus);
        cJSON_AddNumberToObject(confirm, "confirmed", o->nconfirm ? conf : 0);
        cJSON_AddNumberToObject(confirm, "not_confirmed", o->nconfirm ? nsus - conf : 0);
        cJSON_AddItemToObject(sum, "confirm", confirm);
    }
    if (*err) {
        /* stage 2 could not judge a suspect: an error, never a silent verdict */
    } else if (nm == 0)
        snprintf(err, sizeof err, "no result of the baseline matched one of the current run (%zu only in the baseline, "
                 "%d only in the current run): nothing was compared", eb[0].n, cJSON_GetArraySize(only_c));
    else if (present + 1e-12 < o->require_present)
        snprintf(err, sizeof err, "only %zu of the baseline's %zu results (%.1f%%) are in the current run; at least "
                 "%.4g%% must be (--require-present)", nm, eb[0].n, 100 * present, 100 * o->require_present);
    if (*err) {
        code = 2;
        cJSON_AddStringToObject(doc, "error", err);
    }
    cJSON_AddNumberToObject(doc, "exit_code", code);
out:
    for (size_t i = 0; i < nbase; i++) gb_cmp_matcher_free(&mb[i]), free(eb[i].e);
    for (size_t i = 0; i < ncur; i++) gb_cmp_matcher_free(&mc[i]), free(ec[i].e);
    free(ms);
    return doc;
}

cJSON *gb_compare_docs(const gb_results *base, const char *base_name, const gb_results *cur, const char *cur_name,
                       const gb_compare_options *o) {
    return gb_compare_runs(&base, &base_name, 1, &cur, &cur_name, 1, o);
}
