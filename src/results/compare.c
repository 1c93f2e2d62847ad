/* compare.c — matching results across two documents and judging each pair.
 *
 * Verdict rules (docs/ci.md has the why):
 *   change  = Hodges–Lehmann estimate of the time ratio current/baseline − 1
 *             (median of all pairwise log-time differences, exponentiated)
 *   CI      = its distribution-free (1 − alpha) interval from the U distribution
 *   p       = two-sided Mann–Whitney U p-value
 *   unsure      when no interval exists at this alpha (too few samples)
 *   same        when |change| <= threshold
 *   regression  when change > threshold, p <= alpha and CI low > threshold
 *   improvement when change < −threshold, p <= alpha and CI high < −threshold
 *   unsure      otherwise (beyond the threshold but not established)
 * then two floors, each turning a regression or improvement into unsure:
 *   noise floor  its CI does not also clear the larger spread of round
 *                medians of the two results (drift within a run)
 *   time floor   its medians differ by less than min_change_s (fixed
 *                per-process costs of launch-bound calls) */
#include "compare.h"

#include "case_index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

double gb_round_spread(const double *samples, size_t n, const size_t *round_n, int rounds) {
    double lo = 0, hi = 0;
    int counted = gb_stats_round_median_range(samples, n, round_n, rounds, &lo, &hi);
    return counted >= 2 && lo > 0 ? hi / lo - 1.0 : 0;
}

void gb_apply_noise_floor(gb_sample_verdict *v, double floor) {
    if (!(floor > 0)) return;
    if (v->verdict == GB_V_REGRESSION && !(v->ci_low > floor)) {
        v->verdict = GB_V_UNSURE;
        snprintf(v->reason, sizeof v->reason,
                 "interval reaches %+.1f%%, within the %.1f%% the runs varied between their own rounds",
                 100.0 * v->ci_low, 100.0 * floor);
    } else if (v->verdict == GB_V_IMPROVEMENT && !(v->ci_high < -floor)) {
        v->verdict = GB_V_UNSURE;
        snprintf(v->reason, sizeof v->reason,
                 "interval reaches %+.1f%%, within the %.1f%% the runs varied between their own rounds",
                 100.0 * v->ci_high, 100.0 * floor);
    }
}

void gb_apply_time_floor(gb_sample_verdict *v, double min_change_s) {
    if (v->verdict != GB_V_REGRESSION && v->verdict != GB_V_IMPROVEMENT) return;
    double shift = v->cur_median - v->base_median;
    if (!(fabs(shift) < min_change_s)) return;
    v->verdict = GB_V_UNSURE;
    snprintf(v->reason, sizeof v->reason,
             "medians differ by %.2g us, under the %.2g us a launch-bound call varies between processes",
             fabs(shift) * 1e6, min_change_s * 1e6);
}

/* ---- names and keys --------------------------------------------------- */

void gb_result_name(const gb_case_result *c, const gb_result *r, const char *machine, char *buf, size_t len) {
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
    snprintf(buf, len, "%s/%s/%s%s%s/%s/%s%s%s", c->op, c->dtype, label, n ? "/" : "", params, r->backend, r->timing,
             machine ? "@" : "", machine ? machine : "");
}

typedef struct {
    const gb_case_result *c;
    const gb_result *r;
    const char *machine; /* NULL unless matching by machine */
    int run;
    int matched;
} entry;

typedef struct {
    entry *e;
    size_t n, cap;
} entries;

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

static int collect(const gb_results *doc, int by_machine, entries *out) {
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
    if (a->machine && b->machine && strcmp(a->machine, b->machine) != 0) return 0;
    if (!gb_shape_equal(a->c, b->c)) return 0;
    const gb_kvlist *pa = &a->c->params, *pb = &b->c->params;
    /* a missing params object means "no params" */
    if (pa->n == 0 && pb->n == 0) return 1;
    return pa->present && pb->present && gb_kvlist_equal(pa, pb);
}

/* Current entries by key, so each baseline entry finds its match in constant
 * time (a scan of every entry made 20,000 cases take minutes): the index
 * holds the first entry of each key; next[] chains the others in order, and
 * head[] skips those already matched. */
typedef struct {
    gb_index index;
    size_t *next, *head; /* next[i]: the next entry with i's key (SIZE_MAX: none); head[first]: the first unmatched */
    const entries *ec;
    const entry *probe;
} matcher;

static uint64_t entry_hash(const entry *x) {
    uint64_t h = gb_case_hash(GB_HASH_START, x->c, 1);
    h = gb_hash_str(gb_hash_str(h, x->r->backend), x->r->timing);
    return x->machine ? gb_hash_str(h, x->machine) : h;
}

static int same_as_probe(const void *ctx, size_t i) {
    const matcher *m = ctx;
    return same_key(m->probe, &m->ec->e[i]);
}

static int matcher_init(matcher *m, const entries *ec) {
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
static entry *matcher_take(matcher *m, entries *ec, const entry *b) {
    m->probe = b;
    long f = gb_index_find(&m->index, entry_hash(b), same_as_probe, m);
    if (f < 0) return NULL;
    size_t i = m->head[f];
    while (i != SIZE_MAX && ec->e[i].matched) i = m->next[i];
    m->head[f] = i;
    return i == SIZE_MAX ? NULL : &ec->e[i];
}

static void matcher_free(matcher *m) {
    gb_index_free(&m->index);
    free(m->next);
    free(m->head);
}

/* The spread of a result's round medians (gb_round_spread), from its
 * samples and round sizes; 0 when it has none (a one-round run, or a file
 * from before rounds). */
static double round_spread_of(const gb_result *r) {
    size_t round_n[64];
    int rounds = 0;
    for (size_t i = 0; i < r->nrounds && rounds < 64; i++) round_n[rounds++] = r->round_sizes[i];
    return gb_round_spread(r->samples, r->nsamples, round_n, rounds);
}

static int verification_failed(const gb_result *r) {
    return r->verification.present && r->verification.status == GB_VS_FAILED;
}

/* ok, or the status with its reason ("skipped: too big for GPU memory") */
static int result_ok(const gb_result *r, char *desc, size_t len) {
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

static cJSON *side_obj(const gb_result *r, const char *desc, size_t n, double median, double spread) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "status", gb_result_status_name(r->status));
    if (strcmp(desc, "ok") != 0) cJSON_AddStringToObject(s, "detail", desc);
    cJSON_AddNumberToObject(s, "n", (double)n);
    add_num_or_null(s, "median_s", median);
    cJSON_AddNumberToObject(s, "round_spread", spread);
    return s;
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
        {"gpu.driver_version", &ca->f_gpu_driver, &cb->f_gpu_driver},
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

cJSON *gb_compare_docs(const gb_results *base, const char *base_name, const gb_results *cur, const char *cur_name,
                       const gb_compare_options *o) {
    /* Machines are part of the key only when a merged file holds several:
     * single runs on CI runners with changing hostnames must still match. */
    int by_machine = distinct_run_names(base) > 1 || distinct_run_names(cur) > 1;
    entries eb = {0}, ec = {0};
    matcher match;
    memset(&match, 0, sizeof match);
    cJSON *doc = NULL;
    if (collect(base, by_machine, &eb) != 0 || collect(cur, by_machine, &ec) != 0 || matcher_init(&match, &ec) != 0)
        goto out;

    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", "gpubench-compare");
    cJSON_AddNumberToObject(doc, "schema_version", 1);
    cJSON_AddItemToObject(doc, "baseline", describe_doc(base, base_name));
    cJSON_AddItemToObject(doc, "current", describe_doc(cur, cur_name));
    cJSON *method = cJSON_AddObjectToObject(doc, "method");
    cJSON_AddStringToObject(method, "test", "Mann-Whitney U, two-sided");
    cJSON_AddStringToObject(method, "change", "Hodges-Lehmann estimate of the time ratio current/baseline, minus 1");
    cJSON_AddNumberToObject(method, "threshold", o->rule.threshold);
    cJSON_AddNumberToObject(method, "alpha", o->rule.alpha);
    cJSON_AddNumberToObject(method, "min_change_s", o->rule.min_change_s);
    if (o->policy_path) cJSON_AddStringToObject(method, "policy", o->policy_path);
    else cJSON_AddNullToObject(method, "policy");
    cJSON_AddBoolToObject(method, "by_machine", by_machine);

    cJSON *warnings = cJSON_AddArrayToObject(doc, "warnings");
    if (!by_machine) {
        compare_runs(&base->runs[0], &cur->runs[0], NULL, warnings);
    } else {
        for (size_t i = 0; i < base->nruns; i++)
            for (size_t j = 0; j < cur->nruns; j++) {
                const char *na = gb_results_run_name(base, (int)i);
                if (strcmp(na, gb_results_run_name(cur, (int)j)) != 0) continue;
                compare_runs(&base->runs[i], &cur->runs[j], na, warnings);
            }
    }
    warn_incomplete(base, "baseline", warnings);
    warn_incomplete(cur, "current", warnings);

    int counts[GB_V_NOT_COMPARED + 1] = {0};
    cJSON *list = cJSON_AddArrayToObject(doc, "comparisons");
    cJSON *only_b = cJSON_AddArrayToObject(doc, "only_in_baseline");
    cJSON *only_c = cJSON_AddArrayToObject(doc, "only_in_current");
    int failed_only_current = 0;
    char name[400], db[120], dc[120];

    for (size_t i = 0; i < eb.n; i++) {
        entry *b = &eb.e[i], *c = matcher_take(&match, &ec, b);
        gb_result_name(b->c, b->r, b->machine, name, sizeof name);
        if (!c) {
            cJSON_AddItemToArray(only_b, cJSON_CreateString(name));
            continue;
        }
        c->matched = b->matched = 1;
        gb_rule rule = gb_policy_rule(o->policy, b->c->op, b->r->backend, o->rule, o->cli_set);
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", name);
        cJSON_AddStringToObject(item, "op", b->c->op);
        cJSON_AddStringToObject(item, "dtype", b->c->dtype);
        cJSON_AddStringToObject(item, "label", b->c->label);
        cJSON_AddItemToObject(item, "shape", gb_case_shape_to_cjson(b->c));
        if (b->c->params.present) cJSON_AddItemToObject(item, "params", gb_kvlist_to_cjson(&b->c->params));
        cJSON_AddStringToObject(item, "backend", b->r->backend);
        cJSON_AddStringToObject(item, "timing", b->r->timing);
        if (b->machine) cJSON_AddStringToObject(item, "machine", b->machine);
        cJSON_AddNumberToObject(item, "threshold", rule.threshold);
        cJSON_AddNumberToObject(item, "alpha", rule.alpha);
        cJSON_AddNumberToObject(item, "min_change_s", rule.min_change_s);

        int okb = result_ok(b->r, db, sizeof db), okc = result_ok(c->r, dc, sizeof dc);
        size_t nb = b->r->nsamples, nc = c->r->nsamples;
        const double *sb = b->r->samples, *sc = c->r->samples;
        gb_sample_verdict v;
        memset(&v, 0, sizeof v);
        v.base_median = v.cur_median = v.change = v.ci_low = v.ci_high = v.p = NAN;
        v.n_base = nb;
        v.n_cur = nc;
        if (current_failed(c->r)) {
            v.verdict = GB_V_FAILED;
            snprintf(v.reason, sizeof v.reason, "current: %s", dc);
        } else if (!okb || !okc) {
            v.verdict = GB_V_NOT_COMPARED;
            snprintf(v.reason, sizeof v.reason, "%s%s%s%s", okb ? "" : "baseline: ", okb ? "" : db,
                     !okb && !okc ? "; " : "", okc ? "" : "current: ");
            if (!okc) strncat(v.reason, dc, sizeof v.reason - strlen(v.reason) - 1);
        } else if (gb_compare_samples(sb, nb, sc, nc, rule, &v) != 0) {
            v.verdict = GB_V_NOT_COMPARED;
            snprintf(v.reason, sizeof v.reason, "out of memory");
        }
        double spread_b = round_spread_of(b->r), spread_c = round_spread_of(c->r);
        double floor = spread_b > spread_c ? spread_b : spread_c;
        gb_apply_noise_floor(&v, floor);
        gb_apply_time_floor(&v, rule.min_change_s);
        counts[v.verdict]++;
        cJSON_AddItemToObject(item, "baseline", side_obj(b->r, db, v.n_base, v.base_median, spread_b));
        cJSON_AddItemToObject(item, "current", side_obj(c->r, dc, v.n_cur, v.cur_median, spread_c));
        cJSON_AddNumberToObject(item, "noise_floor", floor);
        add_num_or_null(item, "change", v.change);
        add_num_or_null(item, "ci_low", v.ci_low);
        add_num_or_null(item, "ci_high", v.ci_high);
        add_num_or_null(item, "p_value", v.p);
        if (isfinite(v.p)) cJSON_AddStringToObject(item, "test", v.exact ? "exact" : "normal");
        cJSON_AddStringToObject(item, "verdict", gb_verdict_name(v.verdict));
        cJSON_AddStringToObject(item, "reason", v.reason);
        cJSON_AddItemToArray(list, item);
    }
    for (size_t j = 0; j < ec.n; j++) {
        if (ec.e[j].matched) continue;
        gb_result_name(ec.e[j].c, ec.e[j].r, ec.e[j].machine, name, sizeof name);
        if (current_failed(ec.e[j].r)) {
            failed_only_current++;
            result_ok(ec.e[j].r, dc, sizeof dc);
            char line[800];
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
    int bad = counts[GB_V_REGRESSION] + counts[GB_V_FAILED] + failed_only_current;
    cJSON_AddNumberToObject(doc, "exit_code", bad ? 1 : 0);
out:
    matcher_free(&match);
    free(eb.e);
    free(ec.e);
    return doc;
}
