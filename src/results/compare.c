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

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mannwhitney.h"
#include "results_io.h"
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

static const char *str_of(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

void gb_result_name(const cJSON *c, const cJSON *r, const char *machine, char *buf, size_t len) {
    char label[96] = "";
    const char *lab = str_of(c, "label");
    if (*lab) {
        snprintf(label, sizeof label, "%s", lab);
    } else { /* shape as AxBxC when no label */
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(c, "shape");
        size_t n = 0;
        for (const cJSON *d = shape ? shape->child : NULL; d && n < sizeof label - 24; d = d->next)
            n += (size_t)snprintf(label + n, sizeof label - n, "%s%.0f", n ? "x" : "", d->valuedouble);
    }
    char params[160] = "";
    size_t n = 0;
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(c, "params");
    for (const cJSON *p = ps ? ps->child : NULL; p && n < sizeof params - 1; p = p->next) {
        char v[48];
        if (cJSON_IsString(p)) snprintf(v, sizeof v, "%s", p->valuestring);
        else if (cJSON_IsNumber(p)) snprintf(v, sizeof v, "%g", p->valuedouble);
        else if (cJSON_IsBool(p)) snprintf(v, sizeof v, "%s", cJSON_IsTrue(p) ? "true" : "false");
        else snprintf(v, sizeof v, "?");
        n += (size_t)snprintf(params + n, sizeof params - n, "%s%s=%s", n ? "," : "", p->string, v);
    }
    if (n >= sizeof params) n = sizeof params - 1;
    snprintf(buf, len, "%s/%s/%s%s%s/%s/%s%s%s", str_of(c, "op"), str_of(c, "dtype"), label,
             n ? "/" : "", params, str_of(r, "backend"), str_of(r, "timing"), machine ? "@" : "",
             machine ? machine : "");
}

typedef struct {
    const cJSON *c, *r;
    const char *machine; /* NULL unless matching by machine */
    int run;
    int matched;
} entry;

typedef struct {
    entry *e;
    size_t n, cap;
} entries;

static int distinct_run_names(const cJSON *doc) {
    int runs = gb_results_run_count(doc), distinct = 0;
    for (int i = 0; i < runs; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            if (strcmp(gb_results_run_name_json(doc, i), gb_results_run_name_json(doc, j)) == 0) seen = 1;
        distinct += !seen;
    }
    return distinct;
}

static int collect(const cJSON *doc, int by_machine, entries *out) {
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
    for (const cJSON *c = cases ? cases->child : NULL; c; c = c->next) {
        const cJSON *results = cJSON_GetObjectItemCaseSensitive(c, "results");
        for (const cJSON *r = results ? results->child : NULL; r; r = r->next) {
            if (out->n == out->cap) {
                size_t cap = out->cap ? out->cap * 2 : 64;
                entry *e = realloc(out->e, cap * sizeof *e);
                if (!e) return -1;
                out->e = e;
                out->cap = cap;
            }
            int run = gb_results_case_run(c);
            out->e[out->n++] = (entry){c, r, by_machine ? gb_results_run_name_json(doc, run) : NULL, run, 0};
        }
    }
    return 0;
}

static int same_item(const cJSON *a, const cJSON *b) {
    if (!a && !b) return 1;
    if (!a || !b) return 0;
    return cJSON_Compare(a, b, 1);
}

static int same_key(const entry *a, const entry *b) {
    static const char *const ck[] = {"op", "dtype"};
    for (int i = 0; i < 2; i++)
        if (strcmp(str_of(a->c, ck[i]), str_of(b->c, ck[i])) != 0) return 0;
    if (strcmp(str_of(a->r, "backend"), str_of(b->r, "backend")) != 0) return 0;
    if (strcmp(str_of(a->r, "timing"), str_of(b->r, "timing")) != 0) return 0;
    if (a->machine && b->machine && strcmp(a->machine, b->machine) != 0) return 0;
    if (!same_item(cJSON_GetObjectItemCaseSensitive(a->c, "shape"), cJSON_GetObjectItemCaseSensitive(b->c, "shape")))
        return 0;
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(a->c, "params");
    const cJSON *pb = cJSON_GetObjectItemCaseSensitive(b->c, "params");
    /* a missing params object means "no params" */
    if ((!pa || !pa->child) && (!pb || !pb->child)) return 1;
    return same_item(pa, pb);
}

/* samples_s of a result into a new array; *n = 0 (and NULL) when absent */
static double *samples_of(const cJSON *r, size_t *n) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "samples_s");
    *n = 0;
    int k = cJSON_IsArray(s) ? cJSON_GetArraySize(s) : 0;
    if (k <= 0) return NULL;
    double *v = malloc((size_t)k * sizeof *v);
    if (!v) return NULL;
    for (const cJSON *x = s->child; x; x = x->next) v[(*n)++] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
    return v;
}

/* The spread of a result's round medians (gb_round_spread), from its
 * samples and "round_sizes"; 0 when it has none (a one-round run, or a file
 * from before rounds). */
static double round_spread_of(const cJSON *r, const double *samples, size_t n) {
    const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(r, "round_sizes");
    size_t round_n[64];
    int rounds = 0;
    for (const cJSON *x = cJSON_IsArray(sizes) ? sizes->child : NULL; x && rounds < 64; x = x->next) {
        if (!cJSON_IsNumber(x) || x->valuedouble < 0) return 0;
        round_n[rounds++] = (size_t)x->valuedouble;
    }
    return gb_round_spread(samples, n, round_n, rounds);
}

/* ok, or the status with its reason ("skipped: too big for GPU memory") */
static int result_ok(const cJSON *r, char *desc, size_t len) {
    const char *st = str_of(r, "status");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(r, "verification");
    const char *vs = str_of(ver, "status");
    if (strcmp(st, "ok") == 0 && strcmp(vs, "failed") != 0) {
        snprintf(desc, len, "ok");
        return 1;
    }
    const char *why = str_of(r, "reason");
    if (strcmp(st, "ok") == 0) why = "verification failed";
    snprintf(desc, len, "%s%s%s", strcmp(st, "ok") == 0 ? "failed" : (*st ? st : "no status"), *why ? ": " : "", why);
    return 0;
}

static int current_failed(const cJSON *r) {
    const char *st = str_of(r, "status");
    const char *vs = str_of(cJSON_GetObjectItemCaseSensitive(r, "verification"), "status");
    return strcmp(st, "failed") == 0 || strcmp(st, "error") == 0 || strcmp(vs, "failed") == 0;
}

static void add_num_or_null(cJSON *o, const char *k, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

static cJSON *side_obj(const cJSON *r, const char *desc, size_t n, double median, double spread) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "status", str_of(r, "status"));
    if (strcmp(desc, "ok") != 0) cJSON_AddStringToObject(s, "detail", desc);
    cJSON_AddNumberToObject(s, "n", (double)n);
    add_num_or_null(s, "median_s", median);
    cJSON_AddNumberToObject(s, "round_spread", spread);
    return s;
}

/* ---- provenance ------------------------------------------------------- */

static const cJSON *at_path(const cJSON *o, const char *dotted) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", dotted);
    for (char *save = NULL, *tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save))
        o = cJSON_GetObjectItemCaseSensitive(o, tok);
    return o;
}

static void warn_diff(cJSON *warnings, const char *label, const char *what, const cJSON *a, const cJSON *b) {
    if (same_item(a, b)) return;
    char *sa = a ? cJSON_PrintUnformatted(a) : NULL, *sb = b ? cJSON_PrintUnformatted(b) : NULL;
    char line[600];
    snprintf(line, sizeof line, "machines differ%s%s: %s is %s in the baseline, %s in the current run",
             label ? " for " : "", label ? label : "", what, sa ? sa : "absent", sb ? sb : "absent");
    cJSON_AddItemToArray(warnings, cJSON_CreateString(line));
    free(sa);
    free(sb);
}

/* What makes two runs' numbers incomparable: another CPU or GPU, driver,
 * library versions, thread count, cache mode. */
static void compare_contexts(const cJSON *ca, const cJSON *cb, const char *label, cJSON *warnings) {
    static const char *const fields[] = {"cpu.model", "gpu.name", "gpu.driver_version",
                                         "cpu_threads_used", "cache_mode"};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        warn_diff(warnings, label, fields[i], at_path(ca, fields[i]), at_path(cb, fields[i]));
    const cJSON *la = cJSON_GetObjectItemCaseSensitive(ca, "libraries");
    const cJSON *lb = cJSON_GetObjectItemCaseSensitive(cb, "libraries");
    char what[160];
    for (const cJSON *x = la ? la->child : NULL; x; x = x->next) {
        snprintf(what, sizeof what, "libraries.%s", x->string);
        warn_diff(warnings, label, what, x, cJSON_GetObjectItemCaseSensitive(lb, x->string));
    }
    for (const cJSON *x = lb ? lb->child : NULL; x; x = x->next)
        if (!cJSON_GetObjectItemCaseSensitive(la, x->string)) {
            snprintf(what, sizeof what, "libraries.%s", x->string);
            warn_diff(warnings, label, what, NULL, x);
        }
}

/* The ceilings each run measured (peaks): the same model of CPU or GPU can
 * still be a slower machine (a busier host, another VM placement). Seen on
 * the H100 host: a fresh VM measured 14% less CPU triad bandwidth and 16%
 * less SGEMM than the previous one, and its CPU results were slower by as
 * much. A difference above this is worth a warning. */
#define GB_PEAK_WARN 0.10

static void compare_peaks(const cJSON *pa, const cJSON *pb, const char *label, cJSON *warnings) {
    for (const cJSON *backend = pa ? pa->child : NULL; backend; backend = backend->next) {
        const cJSON *other = cJSON_GetObjectItemCaseSensitive(pb, backend->string);
        for (const cJSON *x = backend->child; x && other; x = x->next) {
            size_t len = strlen(x->string);
            int rate = (len > 4 && !strcmp(x->string + len - 4, "_gbs")) ||
                       (len > 7 && !strcmp(x->string + len - 7, "_gflops"));
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(other, x->string);
            if (!rate || !cJSON_IsNumber(x) || !cJSON_IsNumber(y) || !(x->valuedouble > 0)) continue;
            double change = y->valuedouble / x->valuedouble - 1.0;
            if (fabs(change) <= GB_PEAK_WARN) continue;
            char line[400];
            snprintf(line, sizeof line,
                     "measured ceilings differ%s%s: %s.%s is %.4g in the baseline, %.4g in the current run "
                     "(%+.0f%%): the machine itself was %s, so %s changes of that size may not be the code's",
                     label ? " for " : "", label ? label : "", backend->string, x->string, x->valuedouble,
                     y->valuedouble, 100.0 * change, change < 0 ? "slower" : "faster", backend->string);
            cJSON_AddItemToArray(warnings, cJSON_CreateString(line));
        }
    }
}

/* Everything that says whether two runs can be compared. */
static void compare_runs(const cJSON *ra, const cJSON *rb, const char *label, cJSON *warnings) {
    compare_contexts(cJSON_GetObjectItemCaseSensitive(ra, "context"), cJSON_GetObjectItemCaseSensitive(rb, "context"),
                     label, warnings);
    compare_peaks(cJSON_GetObjectItemCaseSensitive(ra, "peaks"), cJSON_GetObjectItemCaseSensitive(rb, "peaks"), label,
                  warnings);
}

static cJSON *describe_doc(const cJSON *doc, const char *name) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "path", name);
    cJSON *runs = cJSON_AddArrayToObject(d, "runs");
    for (int i = 0; i < gb_results_run_count(doc); i++) {
        const cJSON *run = gb_results_run(doc, i);
        const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(run, "context");
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", gb_results_run_name_json(doc, i));
        cJSON_AddStringToObject(o, "date", str_of(ctx, "date"));
        cJSON_AddStringToObject(o, "gpu", str_of(cJSON_GetObjectItemCaseSensitive(ctx, "gpu"), "name"));
        cJSON_AddStringToObject(o, "cpu", str_of(cJSON_GetObjectItemCaseSensitive(ctx, "cpu"), "model"));
        cJSON_AddItemToArray(runs, o);
    }
    return d;
}

static void warn_incomplete(const cJSON *doc, const char *which, cJSON *warnings) {
    for (int i = 0; i < gb_results_run_count(doc); i++) {
        const cJSON *run = gb_results_run(doc, i);
        const cJSON *complete = cJSON_GetObjectItemCaseSensitive(run, "complete");
        if (cJSON_IsFalse(complete)) {
            char line[300];
            snprintf(line, sizeof line, "the %s run%s%s is incomplete (%s): cases missing from it are listed "
                     "as present on one side only", which, gb_results_is_merged(doc) ? " " : "",
                     gb_results_is_merged(doc) ? gb_results_run_name_json(doc, i) : "",
                     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "interrupted")) ? "interrupted" : "not finished");
            cJSON_AddItemToArray(warnings, cJSON_CreateString(line));
        }
    }
}

/* ---- the comparison document ----------------------------------------- */

cJSON *gb_compare_docs(const cJSON *base, const char *base_name, const cJSON *cur, const char *cur_name,
                       const gb_compare_options *o) {
    /* Machines are part of the key only when a merged file holds several:
     * single runs on CI runners with changing hostnames must still match. */
    int by_machine = distinct_run_names(base) > 1 || distinct_run_names(cur) > 1;
    entries eb = {0}, ec = {0};
    cJSON *doc = NULL;
    if (collect(base, by_machine, &eb) != 0 || collect(cur, by_machine, &ec) != 0) goto out;

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
        compare_runs(gb_results_run(base, 0), gb_results_run(cur, 0), NULL, warnings);
    } else {
        for (int i = 0; i < gb_results_run_count(base); i++)
            for (int j = 0; j < gb_results_run_count(cur); j++) {
                const char *na = gb_results_run_name_json(base, i);
                if (strcmp(na, gb_results_run_name_json(cur, j)) != 0) continue;
                compare_runs(gb_results_run(base, i), gb_results_run(cur, j), na, warnings);
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
        entry *b = &eb.e[i], *c = NULL;
        for (size_t j = 0; j < ec.n && !c; j++)
            if (!ec.e[j].matched && same_key(b, &ec.e[j])) c = &ec.e[j];
        gb_result_name(b->c, b->r, b->machine, name, sizeof name);
        if (!c) {
            cJSON_AddItemToArray(only_b, cJSON_CreateString(name));
            continue;
        }
        c->matched = b->matched = 1;
        gb_rule rule = gb_policy_rule(o->policy, str_of(b->c, "op"), str_of(b->r, "backend"), o->rule,
                                      o->cli_set);
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "name", name);
        cJSON_AddStringToObject(item, "op", str_of(b->c, "op"));
        cJSON_AddStringToObject(item, "dtype", str_of(b->c, "dtype"));
        cJSON_AddStringToObject(item, "label", str_of(b->c, "label"));
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(b->c, "shape");
        if (shape) cJSON_AddItemToObject(item, "shape", cJSON_Duplicate(shape, 1));
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(b->c, "params");
        if (params) cJSON_AddItemToObject(item, "params", cJSON_Duplicate(params, 1));
        cJSON_AddStringToObject(item, "backend", str_of(b->r, "backend"));
        cJSON_AddStringToObject(item, "timing", str_of(b->r, "timing"));
        if (b->machine) cJSON_AddStringToObject(item, "machine", b->machine);
        cJSON_AddNumberToObject(item, "threshold", rule.threshold);
        cJSON_AddNumberToObject(item, "alpha", rule.alpha);
        cJSON_AddNumberToObject(item, "min_change_s", rule.min_change_s);

        int okb = result_ok(b->r, db, sizeof db), okc = result_ok(c->r, dc, sizeof dc);
        size_t nb = 0, nc = 0;
        double *sb = samples_of(b->r, &nb), *sc = samples_of(c->r, &nc);
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
        double spread_b = round_spread_of(b->r, sb, nb), spread_c = round_spread_of(c->r, sc, nc);
        double floor = spread_b > spread_c ? spread_b : spread_c;
        gb_apply_noise_floor(&v, floor);
        gb_apply_time_floor(&v, rule.min_change_s);
        free(sb);
        free(sc);
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
    free(eb.e);
    free(ec.e);
    return doc;
}
