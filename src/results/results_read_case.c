/* results_read_case.c — loading the cases of a results document: each
 * case, its results (samples, rounds, stats, verification, device,
 * concurrency) and the crossover entries, every field checked with the
 * checker of results_read.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results_model_internal.h"

/* ---- results ----------------------------------------------------------------- */

static int parse_stats(gb_rm_chk *k, const cJSON *o, const char *path, size_t nsamples, int has_samples,
                       gb_result_stats *s) {
    char p[512];
    const cJSON *obj;
    gb_rm_stats_init(s);
    if (gb_rm_get_obj(k, o, path, "stats", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    s->present = 1;
    gb_rm_join(p, sizeof p, path, "stats");
    double n;
    if (gb_rm_get_num(k, obj, p, "n", N_REQ | N_NONNEG | N_WHOLE, &n) < 0) return -1;
    s->n = (size_t)n;
    if (has_samples && s->n != nsamples) {
        char pn[520];
        gb_rm_join(pn, sizeof pn, p, "n");
        return gb_rm_bad(k, pn, "%zu, but samples_s has %zu sample%s", s->n, nsamples, nsamples == 1 ? "" : "s");
    }
    double *field[] = {&s->min, &s->max, &s->median, &s->mean, &s->stddev, &s->cv, &s->ci95_low, &s->ci95_high};
    /* Times are positive (a speedup divides by them); spreads may be 0. */
    static const int flags[] = {N_POS, N_POS, N_POS, N_POS, N_NONNEG, N_NONNEG, N_NONNEG, N_NONNEG};
    for (int i = 1; gb_rm_keys_stats[i]; i++)
        if (gb_rm_get_num(k, obj, p, gb_rm_keys_stats[i], flags[i - 1], field[i - 1]) < 0) return -1;
    if (s->min > s->median || s->median > s->max) {
        char pm[520];
        gb_rm_join(pm, sizeof pm, p, "median");
        return gb_rm_bad(k, pm, "%g is outside [min, max] = [%g, %g]", s->median, s->min, s->max);
    }
    if (s->ci95_low > s->ci95_high) {
        char pl[520];
        gb_rm_join(pl, sizeof pl, p, "ci95_low");
        return gb_rm_bad(k, pl, "%g is above ci95_high %g", s->ci95_low, s->ci95_high);
    }
    return gb_rm_order_from(k, obj, gb_rm_keys_stats, &s->order);
}

static int parse_verification(gb_rm_chk *k, const cJSON *o, const char *path, gb_verification *v) {
    char p[512], ps[520];
    const cJSON *obj;
    if (gb_rm_verification_empty(v) != 0) return gb_rm_oom(k);
    if (gb_rm_get_obj(k, o, path, "verification", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    v->present = 1;
    gb_rm_join(p, sizeof p, path, "verification");
    char *st = NULL;
    if (gb_rm_get_str(k, obj, p, "status", 1, &st) < 0) return -1;
    if (!strcmp(st, "passed")) v->status = GB_VS_PASSED;
    else if (!strcmp(st, "failed")) v->status = GB_VS_FAILED;
    else if (!strcmp(st, "not_checked")) v->status = GB_VS_NOT_CHECKED;
    else {
        gb_rm_join(ps, sizeof ps, p, "status");
        gb_rm_bad(k, ps, "expected passed, failed or not_checked, got \"%s\"", st);
        free(st);
        return -1;
    }
    free(st);
    int a = gb_rm_get_str(k, obj, p, "against", 0, &v->against), m = a < 0 ? -1 : gb_rm_get_str(k, obj, p, "metric", 0, &v->metric);
    int d = m < 0 ? -1 : gb_rm_get_str(k, obj, p, "detail", 0, &v->detail);
    if (a < 0 || m < 0 || d < 0) return -1;
    int er = gb_rm_get_num(k, obj, p, "error", N_NULL, &v->error);
    int to = er < 0 ? -1 : gb_rm_get_num(k, obj, p, "tolerance", N_NULL, &v->tolerance);
    if (er < 0 || to < 0) return -1;
    v->has = (a ? GB_V_HAS_AGAINST : 0) | (m ? GB_V_HAS_METRIC : 0) | (d ? GB_V_HAS_DETAIL : 0) |
             (er ? GB_V_HAS_ERROR : 0) | (to ? GB_V_HAS_TOLERANCE : 0);
    return gb_rm_order_from(k, obj, gb_rm_keys_verif, &v->order);
}

/* samples_s: an array of non-negative finite numbers, or the runner's raw
 * text of one. */
static int parse_samples(gb_rm_chk *k, const cJSON *o, const char *path, gb_result *r) {
    char p[512], pi[512];
    const cJSON *v = gb_rm_item(o, "samples_s");
    if (!v) return 0;
    gb_rm_join(p, sizeof p, path, "samples_s");
    cJSON *parsed = NULL;
    if (cJSON_IsRaw(v)) {
        if (!(parsed = cJSON_Parse(v->valuestring))) return gb_rm_bad(k, p, "raw text is not JSON");
        v = parsed;
    }
    int rc = 0;
    if (!cJSON_IsArray(v)) {
        rc = gb_rm_bad(k, p, "expected an array of times, got %s", gb_rm_type_name(v));
        goto out;
    }
    size_t n = (size_t)cJSON_GetArraySize(v);
    r->has |= GB_R_HAS_SAMPLES;
    if (n && !(r->samples = malloc(n * sizeof *r->samples))) {
        rc = gb_rm_oom(k);
        goto out;
    }
    for (const cJSON *x = v->child; x; x = x->next) {
        gb_rm_at(pi, sizeof pi, path, "samples_s", r->nsamples);
        if (!cJSON_IsNumber(x)) {
            rc = gb_rm_bad(k, pi, "expected a time in seconds, got %s", gb_rm_type_name(x));
            goto out;
        }
        if (!isfinite(x->valuedouble) || !(x->valuedouble > 0)) {
            rc = gb_rm_bad(k, pi, "expected a time in seconds (finite, positive), got %g", x->valuedouble);
            goto out;
        }
        r->samples[r->nsamples++] = x->valuedouble;
    }
out:
    cJSON_Delete(parsed);
    return rc;
}

static int parse_round_sizes(gb_rm_chk *k, const cJSON *o, const char *path, gb_result *r) {
    char p[512], pi[512];
    const cJSON *arr;
    if (gb_rm_get_arr(k, o, path, "round_sizes", 0, &arr) < 0) return -1;
    if (!arr) return 0;
    gb_rm_join(p, sizeof p, path, "round_sizes");
    r->has |= GB_R_HAS_ROUNDS;
    size_t n = (size_t)cJSON_GetArraySize(arr), sum = 0;
    if (n && !(r->round_sizes = malloc(n * sizeof *r->round_sizes))) return gb_rm_oom(k);
    for (const cJSON *x = arr->child; x; x = x->next) {
        gb_rm_at(pi, sizeof pi, path, "round_sizes", r->nrounds);
        double v = cJSON_IsNumber(x) ? x->valuedouble : NAN;
        if (!cJSON_IsNumber(x) || !(v >= 0) || v != floor(v) || v > 1e15)
            return cJSON_IsNumber(x) ? gb_rm_bad(k, pi, "expected a count of samples, got %g", v)
                                     : gb_rm_bad(k, pi, "expected a count of samples, got %s", gb_rm_type_name(x));
        r->round_sizes[r->nrounds++] = (size_t)v;
        /* Checked as it grows: the sum never passes nsamples, so it never
         * overflows, and no reader indexes past the samples. */
        if ((size_t)v > r->nsamples - sum)
            return gb_rm_bad(k, p, "the rounds add up to more than the %zu sample%s of samples_s", r->nsamples,
                       r->nsamples == 1 ? "" : "s");
        sum += (size_t)v;
    }
    if (sum != r->nsamples)
        return gb_rm_bad(k, p, "the rounds add up to %zu samples, but samples_s has %zu", sum, r->nsamples);
    return 0;
}

static int parse_device(gb_rm_chk *k, const cJSON *o, const char *path, gb_device_id *d) {
    char p[512];
    const cJSON *obj;
    if (gb_rm_get_obj(k, o, path, "device", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    d->present = 1;
    gb_rm_join(p, sizeof p, path, "device");
    double index;
    if (gb_rm_get_num(k, obj, p, "index", N_REQ | N_NONNEG | N_WHOLE, &index) < 0) return -1;
    d->index = (long)index;
    if (gb_rm_get_str(k, obj, p, "name", 0, &d->name) < 0 || gb_rm_get_str(k, obj, p, "uuid", 0, &d->uuid) < 0 ||
        gb_rm_get_str(k, obj, p, "pci_bus_id", 0, &d->pci_bus_id) < 0)
        return -1;
    return gb_rm_order_from(k, obj, gb_rm_keys_device, &d->order);
}

static int parse_concurrent(gb_rm_chk *k, const cJSON *o, const char *path, gb_concurrency *x) {
    char p[512];
    const cJSON *obj;
    if (gb_rm_get_obj(k, o, path, "concurrent", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    x->present = 1;
    gb_rm_join(p, sizeof p, path, "concurrent");
    double n;
    x->aggregate_gflops = x->aggregate_gbs = NAN;
    if (gb_rm_get_num(k, obj, p, "devices", N_REQ | N_POS | N_WHOLE, &n) < 0 ||
        gb_rm_get_num(k, obj, p, "aggregate_gflops", N_NULL | N_NONNEG, &x->aggregate_gflops) < 0 ||
        gb_rm_get_num(k, obj, p, "aggregate_gbs", N_NULL | N_NONNEG, &x->aggregate_gbs) < 0)
        return -1;
    x->devices = (long)n;
    return gb_rm_order_from(k, obj, gb_rm_keys_concurrent, &x->order);
}

/* energy: {status, reason | j_per_op, ...} (docs/energy.md) */
static int parse_energy(gb_rm_chk *k, const cJSON *o, const char *path, gb_result_energy *x) {
    char p[512], *st = NULL;
    const cJSON *obj;
    x->j_per_op = x->above_idle_j_per_op = x->power_w = x->above_idle_w = x->idle_w = x->bound = NAN;
    x->gflop_per_j = x->gb_per_j = x->energy_ratio = x->seconds = x->power_limit_w = x->spread = NAN;
    if (gb_rm_get_obj(k, o, path, "energy", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    x->present = 1;
    gb_rm_join(p, sizeof p, path, "energy");
    if (gb_rm_get_str(k, obj, p, "status", 1, &st) < 0) return -1;
    x->measured = !strcmp(st, "measured");
    int known = x->measured || !strcmp(st, "not_measured");
    free(st);
    if (!known) {
        char ps[530];
        gb_rm_join(ps, sizeof ps, p, "status");
        return gb_rm_bad(k, ps, "expected measured or not_measured");
    }
    static const char *const keys[] = {"j_per_op", "above_idle_j_per_op", "power_w", "above_idle_w", "idle_w",
                                       "bound", "gflop_per_j", "gb_per_j", "energy_ratio", "seconds",
                                       "power_limit_w", "spread"};
    double *field[] = {&x->j_per_op, &x->above_idle_j_per_op, &x->power_w, &x->above_idle_w, &x->idle_w, &x->bound,
                       &x->gflop_per_j, &x->gb_per_j, &x->energy_ratio, &x->seconds, &x->power_limit_w, &x->spread};
    for (int i = 0; i < 12; i++) /* above idle may be negative: within the bound of an idle-like load */
        if (gb_rm_get_num(k, obj, p, keys[i], N_NULL | (i == 1 || i == 3 ? 0 : N_NONNEG), field[i]) < 0) return -1;
    if (gb_rm_get_str(k, obj, p, "reason", 0, &x->reason) < 0 || gb_rm_get_str(k, obj, p, "counter", 0, &x->counter) < 0 ||
        gb_rm_get_str(k, obj, p, "boundary", 0, &x->boundary) < 0 || gb_rm_get_str(k, obj, p, "phase", 0, &x->phase) < 0)
        return -1;
    if (!x->reason) x->reason = xstrdup("");
    if (!x->counter) x->counter = xstrdup("");
    if (!x->boundary) x->boundary = xstrdup("");
    if (!x->phase) x->phase = xstrdup("");
    if (!x->reason || !x->counter || !x->boundary || !x->phase) return gb_rm_oom(k);
    return gb_rm_order_from(k, obj, gb_rm_keys_energy, &x->order);
}

/* clocks: {sm_mhz, mem_mhz, samples, reasons[], power_limited, thermal_limited} */
static int parse_clocks(gb_rm_chk *k, const cJSON *o, const char *path, gb_result_clocks *x) {
    char p[512];
    const cJSON *obj;
    x->sm_mhz = x->mem_mhz = NAN;
    if (gb_rm_get_obj(k, o, path, "clocks", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    x->present = 1;
    gb_rm_join(p, sizeof p, path, "clocks");
    double n = 0;
    if (gb_rm_get_num(k, obj, p, "sm_mhz", N_NULL | N_NONNEG, &x->sm_mhz) < 0 ||
        gb_rm_get_num(k, obj, p, "mem_mhz", N_NULL | N_NONNEG, &x->mem_mhz) < 0 ||
        gb_rm_get_num(k, obj, p, "samples", N_REQ | N_NONNEG | N_WHOLE, &n) < 0 ||
        gb_rm_get_strlist(k, obj, p, "reasons", &x->reasons) < 0 ||
        gb_rm_get_bool(k, obj, p, "power_limited", &x->power_limited) < 0 ||
        gb_rm_get_bool(k, obj, p, "thermal_limited", &x->thermal_limited) < 0)
        return -1;
    x->samples = (long)n;
    return gb_rm_order_from(k, obj, gb_rm_keys_clocks, &x->order);
}

static int parse_result(gb_rm_chk *k, const cJSON *o, const char *path, gb_result *r) {
    char p[512];
    r->setup_s = r->verify_s = r->gflops = r->gbs = r->pct_of_peak = NAN;
    r->warmup_reps = -1;
    gb_rm_stats_init(&r->stats);
    if (!cJSON_IsObject(o)) return gb_rm_bad(k, path, "expected an object, got %s", gb_rm_type_name(o));
    char *st = NULL;
    if (gb_rm_get_str(k, o, path, "backend", 1, &r->backend) < 0 || gb_rm_get_str(k, o, path, "timing", 1, &r->timing) < 0)
        return -1;
    gb_rm_join(p, sizeof p, path, "status");
    const cJSON *sv = gb_rm_item(o, "status");
    if (!sv) return gb_rm_bad(k, p, "missing (expected ok, skipped, failed or error)");
    if (gb_rm_get_str(k, o, path, "status", 1, &st) < 0) return -1;
    if (!strcmp(st, "ok")) r->status = GB_RS_OK;
    else if (!strcmp(st, "skipped")) r->status = GB_RS_SKIPPED;
    else if (!strcmp(st, "failed")) r->status = GB_RS_FAILED;
    else if (!strcmp(st, "error")) r->status = GB_RS_ERROR;
    else {
        gb_rm_bad(k, p, "expected ok, skipped, failed or error, got \"%s\"", st);
        free(st);
        return -1;
    }
    free(st);
    int got = gb_rm_get_str(k, o, path, "reason", 0, &r->reason);
    if (got < 0) return -1;
    if (got) r->has |= GB_R_HAS_REASON;
    if ((got = gb_rm_get_num(k, o, path, "setup_s", N_NONNEG, &r->setup_s)) < 0) return -1;
    if (got) r->has |= GB_R_HAS_SETUP;
    if ((got = gb_rm_get_num(k, o, path, "verify_s", N_NONNEG, &r->verify_s)) < 0) return -1;
    if (got) r->has |= GB_R_HAS_VERIFY;
    double w;
    if ((got = gb_rm_get_num(k, o, path, "warmup_reps", N_NONNEG | N_WHOLE, &w)) < 0) return -1;
    if (got) r->has |= GB_R_HAS_WARMUP, r->warmup_reps = (long)w;
    if (parse_samples(k, o, path, r) < 0 || parse_round_sizes(k, o, path, r) < 0 ||
        parse_stats(k, o, path, r->nsamples, (r->has & GB_R_HAS_SAMPLES) != 0, &r->stats) < 0)
        return -1;
    static const struct { const char *key; unsigned bit; int flags; } rates[] = {
        {"gflops", GB_R_HAS_GFLOPS, N_NULL | N_NONNEG}, {"gbs", GB_R_HAS_GBS, N_NULL | N_NONNEG},
        {"pct_of_peak", GB_R_HAS_PCT, N_NULL | N_NONNEG}};
    double *rate[] = {&r->gflops, &r->gbs, &r->pct_of_peak};
    for (int i = 0; i < 3; i++) {
        if ((got = gb_rm_get_num(k, o, path, rates[i].key, rates[i].flags, rate[i])) < 0) return -1;
        if (got) r->has |= rates[i].bit;
    }
    if ((got = gb_rm_get_str_or_null(k, o, path, "peak", &r->peak)) < 0) return -1;
    if (got) r->has |= GB_R_HAS_PEAK;
    if (parse_verification(k, o, path, &r->verification) < 0 || gb_rm_get_kvlist(k, o, path, "extra", &r->extra) < 0 ||
        parse_device(k, o, path, &r->device) < 0 || parse_concurrent(k, o, path, &r->concurrent) < 0 ||
        parse_energy(k, o, path, &r->energy) < 0 || parse_clocks(k, o, path, &r->clocks) < 0)
        return -1;
    return gb_rm_order_from(k, o, gb_rm_keys_result, &r->order);
}

/* ---- cases ------------------------------------------------------------------- */

/* nruns < 0: a case alone (no document: "run" is not checked). */
int gb_rm_parse_case(gb_rm_chk *k, const cJSON *o, const char *path, int nruns, gb_case_result *c) {
    char p[512], pi[530];
    c->flops = c->bytes = NAN;
    if (!cJSON_IsObject(o)) return gb_rm_bad(k, path, "expected an object, got %s", gb_rm_type_name(o));
    /* The run first: a case of a run that does not exist is read as nothing else. */
    const cJSON *run = gb_rm_item(o, "run");
    if (run) {
        gb_rm_join(p, sizeof p, path, "run");
        if (!cJSON_IsNumber(run) || run->valuedouble < 0 || run->valuedouble != floor(run->valuedouble) ||
            (nruns >= 0 && run->valuedouble >= nruns))
            return cJSON_IsNumber(run) ? gb_rm_bad(k, p, "%g does not index \"runs\" (%d run%s)", run->valuedouble, nruns,
                                             nruns == 1 ? "" : "s")
                                       : gb_rm_bad(k, p, "expected an index into \"runs\", got %s", gb_rm_type_name(run));
        c->run = (int)run->valuedouble;
    }
    if (gb_rm_get_str(k, o, path, "op", 1, &c->op) < 0 || gb_rm_get_str(k, o, path, "dtype", 1, &c->dtype) < 0) return -1;
    const cJSON *shape;
    if (gb_rm_get_arr(k, o, path, "shape", 1, &shape) < 0) return -1;
    gb_rm_join(p, sizeof p, path, "shape");
    size_t rank = (size_t)cJSON_GetArraySize(shape);
    if (rank == 0) return gb_rm_bad(k, p, "expected at least one dimension, got an empty array");
    if (!(c->shape = malloc(rank * sizeof *c->shape))) return gb_rm_oom(k);
    for (const cJSON *d = shape->child; d; d = d->next) {
        gb_rm_at(pi, sizeof pi, path, "shape", c->rank);
        if (!cJSON_IsNumber(d)) return gb_rm_bad(k, pi, "expected a positive whole number, got %s", gb_rm_type_name(d));
        if (!(d->valuedouble >= 1) || d->valuedouble != floor(d->valuedouble) || !isfinite(d->valuedouble))
            return gb_rm_bad(k, pi, "expected a positive whole number, got %g", d->valuedouble);
        c->shape[c->rank++] = d->valuedouble;
    }
    int got;
    if ((got = gb_rm_get_str(k, o, path, "label", 0, &c->label)) < 0) return -1;
    if (got) c->has |= GB_C_HAS_LABEL;
    if (gb_rm_get_kvlist(k, o, path, "params", &c->params) < 0) return -1;
    if ((got = gb_rm_get_num(k, o, path, "flops", N_NONNEG, &c->flops)) < 0) return -1;
    if (got) c->has |= GB_C_HAS_FLOPS;
    if ((got = gb_rm_get_num(k, o, path, "bytes", N_NONNEG, &c->bytes)) < 0) return -1;
    if (got) c->has |= GB_C_HAS_BYTES;
    if ((got = gb_rm_get_str(k, o, path, "rate_kind", 0, &c->rate_kind)) < 0) return -1;
    if (got) c->has |= GB_C_HAS_RATE_KIND;
    const cJSON *rs;
    if (gb_rm_get_arr(k, o, path, "results", 1, &rs) < 0) return -1;
    size_t n = (size_t)cJSON_GetArraySize(rs);
    if (n && !(c->results = calloc(n, sizeof *c->results))) return gb_rm_oom(k);
    for (const cJSON *r = rs->child; r; r = r->next) {
        gb_rm_at(pi, sizeof pi, path, "results", c->nresults);
        if (parse_result(k, r, pi, &c->results[c->nresults++]) < 0) return -1;
    }
    const cJSON *sp;
    if (gb_rm_get_obj(k, o, path, "speedup", 0, &sp) < 0) return -1;
    if (sp) {
        c->has |= GB_C_HAS_SPEEDUP;
        gb_rm_join(p, sizeof p, path, "speedup");
        n = (size_t)cJSON_GetArraySize(sp);
        if (n && !(c->speedups = calloc(n, sizeof *c->speedups))) return gb_rm_oom(k);
        for (const cJSON *x = sp->child; x; x = x->next) {
            gb_speedup *s = &c->speedups[c->nspeedups++];
            if (!(s->timing = xstrdup(x->string))) return gb_rm_oom(k);
            if (gb_rm_get_num(k, sp, p, x->string, N_POS, &s->value) < 0) return -1;
        }
    }
    return gb_rm_order_from(k, o, gb_rm_keys_case, &c->order);
}

/* ---- crossover entries ------------------------------------------------------- */

int gb_rm_parse_crossover_entry(gb_rm_chk *k, const cJSON *o, const char *path, const gb_results *doc,
                                 gb_crossover_entry *x) {
    char p[512], pi[530];
    x->size = x->tested_min = x->tested_max = NAN;
    x->between[0] = x->between[1] = NAN;
    if (!cJSON_IsObject(o)) return gb_rm_bad(k, path, "expected an object, got %s", gb_rm_type_name(o));
    const cJSON *run = gb_rm_item(o, "run");
    if (run) {
        gb_rm_join(p, sizeof p, path, "run");
        if (!cJSON_IsNumber(run) || run->valuedouble < 0 || run->valuedouble != floor(run->valuedouble) ||
            run->valuedouble >= (double)doc->nruns)
            return gb_rm_bad(k, p, "expected an index into \"runs\", got %s", gb_rm_type_name(run));
        x->run = (int)run->valuedouble;
    }
    if (gb_rm_get_str(k, o, path, "op", 1, &x->op) < 0 || gb_rm_get_str(k, o, path, "dtype", 1, &x->dtype) < 0 ||
        gb_rm_get_kvlist(k, o, path, "params", &x->params) < 0 || gb_rm_get_str(k, o, path, "timing", 1, &x->timing) < 0 ||
        gb_rm_get_num(k, o, path, "size", N_REQ | N_NULL | N_NONNEG, &x->size) < 0 ||
        gb_rm_get_str(k, o, path, "status", 1, &x->status) < 0 || gb_rm_get_str(k, o, path, "size_measure", 1, &x->size_measure) < 0 ||
        gb_rm_get_num(k, o, path, "tested_min", N_REQ | N_NONNEG, &x->tested_min) < 0 ||
        gb_rm_get_num(k, o, path, "tested_max", N_REQ | N_NONNEG, &x->tested_max) < 0)
        return -1;
    double v;
    if (gb_rm_get_num(k, o, path, "points", N_REQ | N_NONNEG | N_WHOLE, &v) < 0) return -1;
    x->points = (long)v;
    if (gb_rm_get_num(k, o, path, "sign_changes", N_REQ | N_NONNEG | N_WHOLE, &v) < 0) return -1;
    x->sign_changes = (long)v;
    const cJSON *between, *changes;
    if (gb_rm_get_arr(k, o, path, "between", 0, &between) < 0) return -1;
    if (between) {
        gb_rm_join(p, sizeof p, path, "between");
        if (cJSON_GetArraySize(between) != 2 || !cJSON_IsNumber(between->child) ||
            !cJSON_IsNumber(between->child->next) || !isfinite(between->child->valuedouble) ||
            !isfinite(between->child->next->valuedouble))
            return gb_rm_bad(k, p, "expected two sizes");
        x->has_between = 1;
        x->between[0] = between->child->valuedouble;
        x->between[1] = between->child->next->valuedouble;
    }
    double dev = NAN;
    if (gb_rm_get_num(k, o, path, "device", N_NONNEG | N_WHOLE, &dev) < 0) return -1;
    x->device = isnan(dev) ? -1 : (long)dev;
    if (gb_rm_get_arr(k, o, path, "changes", 0, &changes) < 0) return -1;
    if (changes) {
        x->has_changes = 1;
        size_t n = (size_t)cJSON_GetArraySize(changes);
        if (n && !(x->changes = calloc(n, sizeof *x->changes))) return gb_rm_oom(k);
        for (const cJSON *c = changes->child; c; c = c->next) {
            gb_rm_at(pi, sizeof pi, path, "changes", x->nchanges);
            gb_crossover_step *s = &x->changes[x->nchanges++];
            if (!cJSON_IsObject(c)) return gb_rm_bad(k, pi, "expected an object, got %s", gb_rm_type_name(c));
            if (gb_rm_get_num(k, c, pi, "size", N_REQ | N_NONNEG, &s->size) < 0 ||
                gb_rm_get_num(k, c, pi, "lo", N_REQ | N_NONNEG, &s->lo) < 0 ||
                gb_rm_get_num(k, c, pi, "hi", N_REQ | N_NONNEG, &s->hi) < 0 || gb_rm_get_str(k, c, pi, "to", 1, &s->to) < 0 ||
                gb_rm_order_from(k, c, gb_rm_keys_step, &s->order) < 0)
                return -1;
            s->to_accelerator = gb_results_backend(doc, x->run, s->to)->role != GB_ROLE_HOST;
        }
    }
    return gb_rm_order_from(k, o, gb_rm_keys_cross, &x->order);
}
