/* results_format.c — the results format, declared once (docs/results-schema.md).
 *
 * Every object of a results file is one table below: its keys in the order
 * the schema writes them, each with how the struct holds it, how a file's
 * value is checked and when it is written. results_walk.c loads, writes,
 * copies, frees and empties every object from these tables; the JSON Schema
 * (docs/results.schema.json, `gpubench schema`-free: tests/results/
 * test_schema_doc.c writes it) and the schema document are checked against
 * them. A new field of a result is one row here plus the code that computes
 * it. What a table cannot say (a check across fields, a value with its own
 * shape) is a hook beside it. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "results_model_internal.h"

#define OFF(T, m) offsetof(T, m)
#define P1(T, m) (offsetof(T, m) + 1)
#define NF(a) (sizeof(a) / sizeof(a)[0])
#define NUMS N_NULL | N_NONNEG

/* ---- hooks: results ------------------------------------------------------------- */

/* samples_s: an array of positive finite times, or the runner's raw text of one. */
static int load_samples(gb_rm_ctx *c, const cJSON *o, const char *path, void *self) {
    gb_result *r = self;
    gb_rm_chk *k = c->k;
    char p[512], pi[512];
    const cJSON *v = gb_rm_item(o, "samples_s");
    if (!v) return 0;
    gb_rm_join(p, sizeof p, path, "samples_s");
    cJSON *parsed = NULL;
    if (cJSON_IsRaw(v)) {
        if (!(parsed = cJSON_Parse(v->valuestring))) return gb_rm_bad(k, p, "raw text is not JSON");
        v = parsed;
    }
    int rc = 1;
    if (!cJSON_IsArray(v)) {
        rc = gb_rm_bad(k, p, "expected an array of times, got %s", gb_rm_type_name(v));
        goto out;
    }
    size_t n = (size_t)cJSON_GetArraySize(v);
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

/* The runner's form: 6 significant digits, as raw text; else every digit. */
static cJSON *put_samples(const gb_rm_ctx *c, const void *self, int *skip) {
    const gb_result *r = self;
    if (!(r->has & GB_R_HAS_SAMPLES)) return *skip = 1, NULL;
    if (!(c->flags & GB_WRITE_SAMPLES_6G)) return gb_rm_double_array(r->samples, r->nsamples);
    size_t cap = 16 * r->nsamples + 3, len = 0;
    char *text = malloc(cap);
    if (!text) return NULL;
    text[len++] = '[';
    for (size_t i = 0; i < r->nsamples; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s%.6g", i ? "," : "", r->samples[i]);
    text[len++] = ']';
    text[len] = '\0';
    cJSON *raw = cJSON_CreateRaw(text);
    free(text);
    return raw;
}

/* round_sizes: counts that add up to no more than the samples (read first). */
static int load_rounds(gb_rm_ctx *c, const cJSON *o, const char *path, void *self) {
    gb_result *r = self;
    char p[512], pi[512];
    const cJSON *arr;
    if (gb_rm_get_arr(c->k, o, path, "round_sizes", 0, &arr) < 0) return -1;
    if (!arr) return 0;
    gb_rm_join(p, sizeof p, path, "round_sizes");
    size_t n = (size_t)cJSON_GetArraySize(arr), sum = 0;
    if (n && !(r->round_sizes = malloc(n * sizeof *r->round_sizes))) return gb_rm_oom(c->k);
    for (const cJSON *x = arr->child; x; x = x->next) {
        gb_rm_at(pi, sizeof pi, path, "round_sizes", r->nrounds);
        double v = cJSON_IsNumber(x) ? x->valuedouble : NAN;
        if (!cJSON_IsNumber(x) || !(v >= 0) || v != floor(v) || v > 1e15)
            return cJSON_IsNumber(x) ? gb_rm_bad(c->k, pi, "expected a count of samples, got %g", v)
                                     : gb_rm_bad(c->k, pi, "expected a count of samples, got %s", gb_rm_type_name(x));
        r->round_sizes[r->nrounds++] = (size_t)v;
        /* Checked as it grows: the sum never passes nsamples, so it never
         * overflows, and no reader indexes past the samples. */
        if ((size_t)v > r->nsamples - sum)
            return gb_rm_bad(c->k, p, "the rounds add up to more than the %zu sample%s of samples_s", r->nsamples,
                             r->nsamples == 1 ? "" : "s");
        sum += (size_t)v;
    }
    if (sum != r->nsamples)
        return gb_rm_bad(c->k, p, "the rounds add up to %zu samples, but samples_s has %zu", sum, r->nsamples);
    return 1;
}

static cJSON *put_rounds(const gb_rm_ctx *c, const void *self, int *skip) {
    (void)c;
    const gb_result *r = self;
    if (!(r->has & GB_R_HAS_ROUNDS)) return *skip = 1, NULL;
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < r->nrounds; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)r->round_sizes[i]));
    return a;
}

/* Times are positive (a speedup divides by them); spreads may be 0. n counts
 * the samples when the result has them. */
static int check_stats(gb_rm_ctx *c, const char *p, void *self, const void *parent) {
    gb_result_stats *s = self;
    const gb_result *r = parent;
    char pn[530];
    if (r && (r->has & GB_R_HAS_SAMPLES) && s->n != r->nsamples) {
        gb_rm_join(pn, sizeof pn, p, "n");
        return gb_rm_bad(c->k, pn, "%zu, but samples_s has %zu sample%s", s->n, r->nsamples, r->nsamples == 1 ? "" : "s");
    }
    if (s->min > s->median || s->median > s->max) {
        gb_rm_join(pn, sizeof pn, p, "median");
        return gb_rm_bad(c->k, pn, "%g is outside [min, max] = [%g, %g]", s->median, s->min, s->max);
    }
    if (s->ci95_low > s->ci95_high) {
        gb_rm_join(pn, sizeof pn, p, "ci95_low");
        return gb_rm_bad(c->k, pn, "%g is above ci95_high %g", s->ci95_low, s->ci95_high);
    }
    return 0;
}

static int energy_not_measured(const void *self, const void *value) {
    (void)value;
    return !((const gb_result_energy *)self)->measured;
}

/* ---- hooks: cases and crossover entries ----------------------------------------- */

/* The run first: a case of a run that does not exist is read as nothing else. */
static int load_case_run(gb_rm_ctx *c, const cJSON *o, const char *path, void *self) {
    gb_case_result *cs = self;
    char p[512];
    const cJSON *run = gb_rm_item(o, "run");
    int nruns = c->nruns;
    if (!run) return 0;
    gb_rm_join(p, sizeof p, path, "run");
    if (!cJSON_IsNumber(run) || run->valuedouble < 0 || run->valuedouble != floor(run->valuedouble) ||
        (nruns >= 0 && run->valuedouble >= nruns))
        return cJSON_IsNumber(run) ? gb_rm_bad(c->k, p, "%g does not index \"runs\" (%d run%s)", run->valuedouble, nruns,
                                               nruns == 1 ? "" : "s")
                                   : gb_rm_bad(c->k, p, "expected an index into \"runs\", got %s", gb_rm_type_name(run));
    cs->run = (int)run->valuedouble;
    return 1;
}

static int load_cross_run(gb_rm_ctx *c, const cJSON *o, const char *path, void *self) {
    gb_crossover_entry *x = self;
    char p[512];
    const cJSON *run = gb_rm_item(o, "run");
    if (!run) return 0;
    gb_rm_join(p, sizeof p, path, "run");
    if (!cJSON_IsNumber(run) || run->valuedouble < 0 || run->valuedouble != floor(run->valuedouble) ||
        run->valuedouble >= (double)c->doc->nruns)
        return gb_rm_bad(c->k, p, "expected an index into \"runs\", got %s", gb_rm_type_name(run));
    x->run = (int)run->valuedouble;
    return 1;
}

/* A merged file's cases and crossover entries name their run, last. */
static cJSON *put_case_run(const gb_rm_ctx *c, const void *self, int *skip) {
    if (!c->merged) return *skip = 1, NULL;
    return cJSON_CreateNumber(((const gb_case_result *)self)->run);
}
static cJSON *put_cross_run(const gb_rm_ctx *c, const void *self, int *skip) {
    if (!c->merged) return *skip = 1, NULL;
    return cJSON_CreateNumber(((const gb_crossover_entry *)self)->run);
}

static int load_shape(gb_rm_ctx *c, const cJSON *o, const char *path, void *self) {
    gb_case_result *cs = self;
    char p[512], pi[530];
    const cJSON *shape;
    if (gb_rm_get_arr(c->k, o, path, "shape", 1, &shape) < 0) return -1;
    gb_rm_join(p, sizeof p, path, "shape");
    size_t rank = (size_t)cJSON_GetArraySize(shape);
    if (rank == 0) return gb_rm_bad(c->k, p, "expected at least one dimension, got an empty array");
    if (!(cs->shape = malloc(rank * sizeof *cs->shape))) return gb_rm_oom(c->k);
    for (const cJSON *d = shape->child; d; d = d->next) {
        gb_rm_at(pi, sizeof pi, path, "shape", cs->rank);
        if (!cJSON_IsNumber(d)) return gb_rm_bad(c->k, pi, "expected a positive whole number, got %s", gb_rm_type_name(d));
        if (!(d->valuedouble >= 1) || d->valuedouble != floor(d->valuedouble) || !isfinite(d->valuedouble))
            return gb_rm_bad(c->k, pi, "expected a positive whole number, got %g", d->valuedouble);
        cs->shape[cs->rank++] = d->valuedouble;
    }
    return 1;
}

static cJSON *put_shape(const gb_rm_ctx *c, const void *self, int *skip) {
    (void)c, (void)skip;
    return gb_case_shape_to_cjson(self);
}

/* speedup: {timing: host median / this timing's median}, each positive. */
static int load_speedup(gb_rm_ctx *c, const cJSON *o, const char *path, void *self) {
    gb_case_result *cs = self;
    char p[512];
    const cJSON *sp;
    int got = gb_rm_get_obj(c->k, o, path, "speedup", 0, &sp);
    if (got <= 0) return got;
    gb_rm_join(p, sizeof p, path, "speedup");
    size_t n = (size_t)cJSON_GetArraySize(sp);
    if (n && !(cs->speedups = calloc(n, sizeof *cs->speedups))) return gb_rm_oom(c->k);
    for (const cJSON *x = sp->child; x; x = x->next) {
        gb_speedup *s = &cs->speedups[cs->nspeedups++];
        if (!(s->timing = xstrdup(x->string))) return gb_rm_oom(c->k);
        if (gb_rm_get_num(c->k, sp, p, x->string, N_POS, &s->value) < 0) return -1;
    }
    return 1;
}

static cJSON *put_speedup(const gb_rm_ctx *c, const void *self, int *skip) {
    (void)c;
    const gb_case_result *cs = self;
    if (!(cs->has & GB_C_HAS_SPEEDUP)) return *skip = 1, NULL;
    cJSON *sp = cJSON_CreateObject();
    for (size_t i = 0; sp && i < cs->nspeedups; i++)
        cJSON_AddItemToObject(sp, cs->speedups[i].timing, cJSON_CreateNumber(cs->speedups[i].value));
    return sp;
}

static int load_between(gb_rm_ctx *c, const cJSON *o, const char *path, void *self) {
    gb_crossover_entry *x = self;
    char p[512];
    const cJSON *between;
    if (gb_rm_get_arr(c->k, o, path, "between", 0, &between) < 0) return -1;
    if (!between) return 0;
    gb_rm_join(p, sizeof p, path, "between");
    if (cJSON_GetArraySize(between) != 2 || !cJSON_IsNumber(between->child) || !cJSON_IsNumber(between->child->next) ||
        !isfinite(between->child->valuedouble) || !isfinite(between->child->next->valuedouble))
        return gb_rm_bad(c->k, p, "expected two sizes");
    x->has_between = 1;
    x->between[0] = between->child->valuedouble;
    x->between[1] = between->child->next->valuedouble;
    return 1;
}

static cJSON *put_between(const gb_rm_ctx *c, const void *self, int *skip) {
    (void)c;
    const gb_crossover_entry *x = self;
    if (!x->has_between) return *skip = 1, NULL;
    return gb_rm_double_array(x->between, 2);
}

/* A step's backend is resolved against the document (the entry's run). */
static int check_step(gb_rm_ctx *c, const char *path, void *self, const void *parent) {
    (void)path;
    gb_crossover_step *s = self;
    const gb_crossover_entry *x = parent;
    s->to_accelerator = gb_results_backend(c->doc, x ? x->run : 0, s->to)->role != GB_ROLE_HOST;
    return 0;
}

/* suite: kept as text, its name read. */
static int load_suite(gb_rm_ctx *c, const cJSON *o, const char *path, void *self) {
    gb_run *run = self;
    char p[512];
    const cJSON *suite;
    if (gb_rm_get_obj(c->k, o, path, "suite", 0, &suite) < 0) return -1;
    gb_rm_join(p, sizeof p, path, "suite");
    if (gb_rm_get_str(c->k, suite, p, "name", 0, &run->suite_name) < 0) return -1;
    if (suite && !(run->suite_json = cJSON_PrintUnformatted(suite))) return gb_rm_oom(c->k);
    return suite != NULL;
}

/* ---- the tables ----------------------------------------------------------------- */

static const char *const result_status[] = {"ok", "skipped", "failed", "error", NULL};
static const gb_rm_enum en_result = {result_status, "ok, skipped, failed or error", 1, 0, GB_RS_OK};
static const char *const verify_status[] = {"passed", "failed", "not_checked", NULL};
static const gb_rm_enum en_verify = {verify_status, "passed, failed or not_checked", 0, 0, GB_VS_NOT_CHECKED};
static const char *const energy_status[] = {"not_measured", "measured", NULL};
static const gb_rm_enum en_energy = {energy_status, "measured or not_measured", 0, 1, 0};

const char *gb_result_status_name(gb_result_status s) { return (unsigned)s < 4 ? result_status[s] : "?"; }
const char *gb_verify_status_name(gb_verification_status s) { return (unsigned)s < 3 ? verify_status[s] : "?"; }

#define T gb_summary
static const gb_rm_field summary_f[] = {
    {.key = "cases", .kind = F_LONG, .flags = N_NONNEG | N_WHOLE, .off = OFF(T, cases), .write = W_SET, .doc = "cases in the file"},
    {.key = "results", .kind = F_LONG, .flags = N_NONNEG | N_WHOLE, .off = OFF(T, results), .write = W_SET, .doc = "results in the file"},
    {.key = "ok", .kind = F_LONG, .flags = N_NONNEG | N_WHOLE, .off = OFF(T, ok), .write = W_SET, .doc = "results measured"},
    {.key = "skipped", .kind = F_LONG, .flags = N_NONNEG | N_WHOLE, .off = OFF(T, skipped), .write = W_SET, .doc = "results skipped"},
    {.key = "failed", .kind = F_LONG, .flags = N_NONNEG | N_WHOLE, .off = OFF(T, failed), .write = W_SET, .doc = "results that failed verification"},
    {.key = "errors", .kind = F_LONG, .flags = N_NONNEG | N_WHOLE, .off = OFF(T, errors), .write = W_SET, .doc = "results that could not run"},
    {.key = "not_reached", .kind = F_LONG, .flags = N_NONNEG | N_WHOLE, .off = OFF(T, not_reached), .write = W_SET, .doc = "cases an interruption kept the run from"},
};
const gb_rm_type gb_rm_t_summary = {"summary", sizeof(T), summary_f, NF(summary_f), P1(T, present), 0, P1(T, order), 1, NULL};
#undef T

#define T gb_result_stats
static const gb_rm_field stats_f[] = {
    {.key = "n", .kind = F_SIZE, .flags = N_REQ | N_NONNEG | N_WHOLE, .off = OFF(T, n), .doc = "samples"},
    {.key = "min", .kind = F_NUM, .flags = N_POS, .off = OFF(T, min), .write = W_SET, .doc = "seconds"},
    {.key = "max", .kind = F_NUM, .flags = N_POS, .off = OFF(T, max), .write = W_SET, .doc = "seconds"},
    {.key = "median", .kind = F_NUM, .flags = N_POS, .off = OFF(T, median), .write = W_SET, .doc = "seconds, within [min, max]"},
    {.key = "mean", .kind = F_NUM, .flags = N_POS, .off = OFF(T, mean), .write = W_SET, .doc = "seconds"},
    {.key = "stddev", .kind = F_NUM, .flags = N_NONNEG, .off = OFF(T, stddev), .write = W_SET, .doc = "seconds"},
    {.key = "cv", .kind = F_NUM, .flags = N_NONNEG, .off = OFF(T, cv), .write = W_SET, .doc = "stddev / mean"},
    {.key = "ci95_low", .kind = F_NUM, .flags = N_NONNEG, .off = OFF(T, ci95_low), .write = W_SET, .doc = "the median's 95% interval, seconds"},
    {.key = "ci95_high", .kind = F_NUM, .flags = N_NONNEG, .off = OFF(T, ci95_high), .write = W_SET, .doc = "the median's 95% interval, seconds"},
};
const gb_rm_type gb_rm_t_stats = {"stats", sizeof(T), stats_f, NF(stats_f), P1(T, present), 0, P1(T, order), 1, check_stats};
#undef T

#define T gb_verification
static const gb_rm_field verif_f[] = {
    {.key = "status", .kind = F_ENUM, .off = OFF(T, status), .en = &en_verify, .doc = "passed, failed or not_checked"},
    {.key = "against", .kind = F_STR, .off = OFF(T, against), .has = GB_V_HAS_AGAINST, .write = W_HAS, .doc = "the backend or reference checked against"},
    {.key = "metric", .kind = F_STR, .off = OFF(T, metric), .has = GB_V_HAS_METRIC, .write = W_HAS, .doc = "how the answers were compared"},
    {.key = "error", .kind = F_NUM, .flags = N_NULL, .off = OFF(T, error), .has = GB_V_HAS_ERROR, .write = W_HAS, .doc = "the error found"},
    {.key = "tolerance", .kind = F_NUM, .flags = N_NULL, .off = OFF(T, tolerance), .has = GB_V_HAS_TOLERANCE, .write = W_HAS, .doc = "the error allowed"},
    {.key = "detail", .kind = F_STR, .off = OFF(T, detail), .has = GB_V_HAS_DETAIL, .write = W_HAS, .doc = "what was seen"},
};
const gb_rm_type gb_rm_t_verification = {"verification", sizeof(T), verif_f, NF(verif_f), P1(T, present), P1(T, has), P1(T, order), 1, NULL};
#undef T

#define T gb_device_id
static const gb_rm_field device_f[] = {
    {.key = "index", .kind = F_LONG, .flags = N_REQ | N_NONNEG | N_WHOLE, .off = OFF(T, index), .doc = "the backend's device ordinal"},
    {.key = "name", .kind = F_STR, .off = OFF(T, name), .doc = "the device's name"},
    {.key = "uuid", .kind = F_STR, .off = OFF(T, uuid), .doc = "the device's UUID"},
    {.key = "pci_bus_id", .kind = F_STR, .off = OFF(T, pci_bus_id), .doc = "its PCI bus id"},
};
const gb_rm_type gb_rm_t_device = {"device", sizeof(T), device_f, NF(device_f), P1(T, present), 0, P1(T, order), 1, NULL};
#undef T

#define T gb_concurrency
static const gb_rm_field concurrent_f[] = {
    {.key = "devices", .kind = F_LONG, .flags = N_REQ | N_POS | N_WHOLE, .off = OFF(T, devices), .doc = "devices that ran the case at once"},
    {.key = "aggregate_gflops", .kind = F_NUM, .flags = NUMS, .off = OFF(T, aggregate_gflops), .doc = "summed over the devices"},
    {.key = "aggregate_gbs", .kind = F_NUM, .flags = NUMS, .off = OFF(T, aggregate_gbs), .doc = "summed over the devices"},
};
const gb_rm_type gb_rm_t_concurrent = {"concurrent", sizeof(T), concurrent_f, NF(concurrent_f), P1(T, present), 0, P1(T, order), 1, NULL};
#undef T

#define T gb_result_energy
/* The numbers are written when measured, else when known. */
static int energy_num(const void *self, const void *value) {
    return ((const gb_result_energy *)self)->measured || isfinite(*(const double *)value);
}
#define ENUM_NUM(k, fl, m, d) {.key = k, .kind = F_NUM, .flags = fl, .off = OFF(T, m), .write = W_WHEN, .when = energy_num, .doc = d}
static const gb_rm_field energy_f[] = {
    {.key = "status", .kind = F_ENUM, .off = OFF(T, measured), .en = &en_energy, .doc = "measured or not_measured"},
    {.key = "reason", .kind = F_STR, .off = OFF(T, reason), .write = W_WHEN, .when = energy_not_measured, .doc = "why not measured"},
    ENUM_NUM("j_per_op", NUMS, j_per_op, "joules per repetition"),
    ENUM_NUM("above_idle_j_per_op", N_NULL, above_idle_j_per_op, "joules above the idle power (may be negative)"),
    ENUM_NUM("power_w", NUMS, power_w, "mean power"),
    ENUM_NUM("above_idle_w", N_NULL, above_idle_w, "mean power above idle (may be negative)"),
    ENUM_NUM("idle_w", NUMS, idle_w, "idle power measured before the run"),
    ENUM_NUM("bound", NUMS, bound, "relative error bound of j_per_op"),
    ENUM_NUM("gflop_per_j", NUMS, gflop_per_j, "GFLOP per joule"),
    ENUM_NUM("gb_per_j", NUMS, gb_per_j, "GB per joule"),
    ENUM_NUM("energy_ratio", NUMS, energy_ratio, "the host's j_per_op / this one's"),
    ENUM_NUM("seconds", NUMS, seconds, "time the counter's windows covered"),
    ENUM_NUM("power_limit_w", NUMS, power_limit_w, "the device's enforced limit"),
    ENUM_NUM("spread", NUMS, spread, "relative half-width of the timing interval"),
    {.key = "counter", .kind = F_STR, .off = OFF(T, counter), .write = W_SET, .doc = "what was read"},
    {.key = "boundary", .kind = F_STR, .off = OFF(T, boundary), .write = W_SET, .doc = "what the counter covers"},
    {.key = "phase", .kind = F_STR, .off = OFF(T, phase), .write = W_SET, .doc = "timed or timed+energy"},
};
const gb_rm_type gb_rm_t_energy = {"energy", sizeof(T), energy_f, NF(energy_f), P1(T, present), 0, P1(T, order), 1, NULL};
#undef ENUM_NUM
#undef T

#define T gb_result_clocks
static const gb_rm_field clocks_f[] = {
    {.key = "sm_mhz", .kind = F_NUM, .flags = NUMS, .off = OFF(T, sm_mhz), .doc = "mean SM clock"},
    {.key = "mem_mhz", .kind = F_NUM, .flags = NUMS, .off = OFF(T, mem_mhz), .doc = "mean memory clock"},
    {.key = "samples", .kind = F_LONG, .flags = N_REQ | N_NONNEG | N_WHOLE, .off = OFF(T, samples), .doc = "clock samples taken"},
    {.key = "reasons", .kind = F_STRLIST, .off = OFF(T, reasons), .doc = "clock-event reasons seen"},
    {.key = "power_limited", .kind = F_BOOL, .off = OFF(T, power_limited), .write = W_SET, .doc = "a power-cap reason was seen"},
    {.key = "thermal_limited", .kind = F_BOOL, .off = OFF(T, thermal_limited), .write = W_SET, .doc = "a thermal reason was seen"},
};
const gb_rm_type gb_rm_t_clocks = {"clocks", sizeof(T), clocks_f, NF(clocks_f), P1(T, present), 0, P1(T, order), 1, NULL};
#undef T

#define T gb_result
static const gb_rm_field result_f[] = {
    {.key = "backend", .kind = F_STR, .flags = REQ, .off = OFF(T, backend), .doc = "the backend that measured it"},
    {.key = "timing", .kind = F_STR, .flags = REQ, .off = OFF(T, timing), .doc = "which of its timings"},
    {.key = "status", .kind = F_ENUM, .off = OFF(T, status), .en = &en_result, .doc = "ok, skipped, failed or error"},
    {.key = "reason", .kind = F_STR, .off = OFF(T, reason), .has = GB_R_HAS_REASON, .write = W_HAS, .doc = "why not ok"},
    {.key = "setup_s", .kind = F_NUM, .flags = N_NONNEG, .off = OFF(T, setup_s), .has = GB_R_HAS_SETUP, .write = W_HAS, .doc = "prepare time, seconds"},
    {.key = "verify_s", .kind = F_NUM, .flags = N_NONNEG, .off = OFF(T, verify_s), .has = GB_R_HAS_VERIFY, .write = W_HAS, .doc = "fetch and check time, seconds"},
    {.key = "warmup_reps", .kind = F_LONG, .flags = N_NONNEG | N_WHOLE, .off = OFF(T, warmup_reps), .has = GB_R_HAS_WARMUP, .write = W_HAS, .doc = "untimed repetitions"},
    {.key = "round_sizes", .kind = F_SIZES, .flags = L_AFTER, .off = OFF(T, round_sizes), .cnt = OFF(T, nrounds), .has = GB_R_HAS_ROUNDS, .doc = "samples per round", .load = load_rounds, .put = put_rounds},
    {.key = "samples_s", .kind = F_DOUBLES, .off = OFF(T, samples), .cnt = OFF(T, nsamples), .has = GB_R_HAS_SAMPLES, .doc = "every timed sample, seconds", .load = load_samples, .put = put_samples},
    {.key = "stats", .kind = F_OBJ, .off = OFF(T, stats), .write = W_SET, .sub = &gb_rm_t_stats, .doc = "statistics of the samples"},
    {.key = "gflops", .kind = F_NUM, .flags = NUMS, .off = OFF(T, gflops), .has = GB_R_HAS_GFLOPS, .write = W_HAS, .doc = "achieved GFLOP/s"},
    {.key = "gbs", .kind = F_NUM, .flags = NUMS, .off = OFF(T, gbs), .has = GB_R_HAS_GBS, .write = W_HAS, .doc = "achieved GB/s"},
    {.key = "pct_of_peak", .kind = F_NUM, .flags = NUMS, .off = OFF(T, pct_of_peak), .has = GB_R_HAS_PCT, .write = W_HAS, .doc = "percent of the ceiling named by peak"},
    {.key = "peak", .kind = F_STR_NULL, .off = OFF(T, peak), .has = GB_R_HAS_PEAK, .write = W_HAS, .doc = "the ceiling, as backend.key of peaks"},
    {.key = "verification", .kind = F_OBJ, .off = OFF(T, verification), .write = W_SET, .sub = &gb_rm_t_verification, .doc = "the answer's check"},
    {.key = "extra", .kind = F_KVLIST, .off = OFF(T, extra), .write = W_SET, .doc = "facts the backend adds"},
    {.key = "device", .kind = F_OBJ, .off = OFF(T, device), .write = W_SET, .sub = &gb_rm_t_device, .doc = "the device that measured it"},
    {.key = "concurrent", .kind = F_OBJ, .off = OFF(T, concurrent), .write = W_SET, .sub = &gb_rm_t_concurrent, .doc = "measured with --devices-concurrent"},
    {.key = "energy", .kind = F_OBJ, .off = OFF(T, energy), .write = W_SET, .sub = &gb_rm_t_energy, .doc = "energy (docs/energy.md)"},
    {.key = "clocks", .kind = F_OBJ, .off = OFF(T, clocks), .write = W_SET, .sub = &gb_rm_t_clocks, .doc = "clocks during the timed repetitions"},
};
const gb_rm_type gb_rm_t_result = {"result", sizeof(T), result_f, NF(result_f), 0, P1(T, has), P1(T, order), 1, NULL};
#undef T

#define T gb_case_result
static const gb_rm_field case_f[] = {
    {.key = "op", .kind = F_STR, .flags = REQ, .off = OFF(T, op), .doc = "the operation"},
    {.key = "dtype", .kind = F_STR, .flags = REQ, .off = OFF(T, dtype), .doc = "the data type"},
    {.key = "shape", .kind = F_DOUBLES, .flags = REQ, .off = OFF(T, shape), .cnt = OFF(T, rank), .doc = "positive whole dimensions", .load = load_shape, .put = put_shape},
    {.key = "label", .kind = F_STR, .off = OFF(T, label), .has = GB_C_HAS_LABEL, .write = W_HAS, .doc = "the suite's label"},
    {.key = "params", .kind = F_KVLIST, .off = OFF(T, params), .write = W_SET, .doc = "the op's parameters"},
    {.key = "flops", .kind = F_NUM, .flags = N_NONNEG, .off = OFF(T, flops), .has = GB_C_HAS_FLOPS, .write = W_HAS, .doc = "floating-point operations of one repetition"},
    {.key = "bytes", .kind = F_NUM, .flags = N_NONNEG, .off = OFF(T, bytes), .has = GB_C_HAS_BYTES, .write = W_HAS, .doc = "minimum bytes moved"},
    {.key = "rate_kind", .kind = F_STR, .off = OFF(T, rate_kind), .has = GB_C_HAS_RATE_KIND, .write = W_HAS, .doc = "flops or bytes: the rate judged against a ceiling"},
    {.key = "results", .kind = F_ARR, .flags = REQ, .off = OFF(T, results), .cnt = OFF(T, nresults), .sub = &gb_rm_t_result, .doc = "one per backend and timing"},
    {.key = "speedup", .kind = F_SPEEDUPS, .off = OFF(T, speedups), .cnt = OFF(T, nspeedups), .has = GB_C_HAS_SPEEDUP, .doc = "host median / each timing's median", .load = load_speedup, .put = put_speedup},
    {.key = "run", .kind = F_INT, .flags = L_FIRST | UNPLACE, .off = OFF(T, run), .doc = "merged files: the index into runs", .load = load_case_run, .put = put_case_run},
};
const gb_rm_type gb_rm_t_case = {"case", sizeof(T), case_f, NF(case_f), 0, P1(T, has), P1(T, order), 1, NULL};
#undef T

#define T gb_crossover_step
static const gb_rm_field step_f[] = {
    {.key = "size", .kind = F_NUM, .flags = N_REQ | N_NONNEG, .off = OFF(T, size), .doc = "the interpolated crossing"},
    {.key = "lo", .kind = F_NUM, .flags = N_REQ | N_NONNEG, .off = OFF(T, lo), .doc = "the tested size below it"},
    {.key = "hi", .kind = F_NUM, .flags = N_REQ | N_NONNEG, .off = OFF(T, hi), .doc = "the tested size above it"},
    {.key = "to", .kind = F_STR, .flags = REQ, .off = OFF(T, to), .doc = "the backend that wins from hi on"},
};
const gb_rm_type gb_rm_t_step = {"crossover change", sizeof(T), step_f, NF(step_f), 0, 0, P1(T, order), 1, check_step};
#undef T

#define T gb_crossover_entry
static const gb_rm_field cross_f[] = {
    {.key = "op", .kind = F_STR, .flags = REQ, .off = OFF(T, op), .doc = "the operation"},
    {.key = "dtype", .kind = F_STR, .flags = REQ, .off = OFF(T, dtype), .doc = "the data type"},
    {.key = "params", .kind = F_KVLIST, .off = OFF(T, params), .write = W_SET, .doc = "the op's parameters"},
    {.key = "timing", .kind = F_STR, .flags = REQ, .off = OFF(T, timing), .doc = "the accelerator timing"},
    {.key = "size", .kind = F_NUM, .flags = N_REQ | N_NULL | N_NONNEG, .off = OFF(T, size), .doc = "the first crossing to the accelerator, or null"},
    {.key = "between", .kind = F_PAIR, .off = OFF(T, between), .doc = "the tested sizes around it", .load = load_between, .put = put_between},
    {.key = "status", .kind = F_STR, .flags = REQ, .off = OFF(T, status), .doc = "interpolated, below_smallest or not_reached"},
    {.key = "size_measure", .kind = F_STR, .flags = REQ, .off = OFF(T, size_measure), .doc = "n or geometric_mean_of_shape"},
    {.key = "tested_min", .kind = F_NUM, .flags = N_REQ | N_NONNEG, .off = OFF(T, tested_min), .doc = "the smallest size tested"},
    {.key = "tested_max", .kind = F_NUM, .flags = N_REQ | N_NONNEG, .off = OFF(T, tested_max), .doc = "the largest size tested"},
    {.key = "points", .kind = F_LONG, .flags = N_REQ | N_NONNEG | N_WHOLE, .off = OFF(T, points), .doc = "sizes tested"},
    {.key = "sign_changes", .kind = F_LONG, .flags = N_REQ | N_NONNEG | N_WHOLE, .off = OFF(T, sign_changes), .doc = "times the winner changed"},
    {.key = "device", .kind = F_LONG, .flags = N_NONNEG | N_WHOLE, .off = OFF(T, device), .write = W_SET, .doc = "the accelerator device of the sweep"},
    {.key = "changes", .kind = F_ARR, .off = OFF(T, changes), .cnt = OFF(T, nchanges), .present = P1(T, has_changes), .write = W_SET, .sub = &gb_rm_t_step, .doc = "every change of winner"},
    {.key = "run", .kind = F_INT, .flags = L_FIRST | UNPLACE, .off = OFF(T, run), .doc = "merged files: the index into runs", .load = load_cross_run, .put = put_cross_run},
};
const gb_rm_type gb_rm_t_cross = {"crossover entry", sizeof(T), cross_f, NF(cross_f), 0, 0, P1(T, order), 1, NULL};
#undef T

#define T gb_run
static const gb_rm_field run_f[] = {
    {.key = "name", .kind = F_STR_NULL, .off = OFF(T, name), .write = W_SET, .doc = "the run's name"},
    {.key = "source", .kind = F_STR_NULL, .off = OFF(T, source), .write = W_SET, .doc = "the file it came from"},
    {.key = "context", .kind = F_CONTEXT, .flags = PROV, .off = OFF(T, context), .write = W_SET, .doc = "the machine, libraries and backends"},
    {.key = "peaks", .kind = F_PEAKS, .flags = PROV, .off = OFF(T, peaks), .write = W_SET, .doc = "measured ceilings, per backend"},
    {.key = "warnings", .kind = F_STRLIST, .flags = PROV, .off = OFF(T, warnings), .write = W_SET, .doc = "what the run warned of"},
    {.key = "suite", .kind = F_JSON, .flags = PROV, .off = OFF(T, suite_json), .write = W_SET, .doc = "the suite as run", .load = load_suite},
    {.key = NULL, .kind = F_STR, .flags = PROV, .off = OFF(T, suite_name)},
    {.key = "health", .kind = F_JSON, .flags = PROV, .off = OFF(T, health_json), .write = W_SET, .doc = "the machine's health checks"},
    {.key = "complete", .kind = F_BOOL, .off = OFF(T, complete), .write = W_SET, .doc = "every case was reached"},
    {.key = "interrupted", .kind = F_BOOL, .off = OFF(T, interrupted), .write = W_SET, .doc = "a signal stopped the run"},
    {.key = "summary", .kind = F_OBJ, .off = OFF(T, summary), .write = W_SET, .sub = &gb_rm_t_summary, .doc = "counts by status"},
    {.key = "gpubench_version", .kind = F_STR_NULL, .off = OFF(T, gpubench_version), .write = W_SET, .doc = "the gpubench that wrote it"},
};
const gb_rm_type gb_rm_t_run = {"run", sizeof(T), run_f, NF(run_f), 0, 0, P1(T, order), 0, NULL};
#undef T

/* The document: its own keys are read and written by results_read.c and
 * results_write.c (a single-run file's provenance is its run 0's); the
 * table names them, in the order written, and frees and copies the rest. */
#define T gb_results
static const gb_rm_field doc_f[] = {
    {.key = "schema", .kind = F_NONE, .doc = "\"gpubench-results\""},
    {.key = "schema_version", .kind = F_NONE, .doc = "the format's version"},
    {.key = "gpubench_version", .kind = F_STR_NULL, .off = OFF(T, gpubench_version), .write = W_SET, .doc = "the gpubench that wrote it"},
    {.key = "complete", .kind = F_BOOL, .off = OFF(T, complete), .write = W_SET, .doc = "every case was reached"},
    {.key = "interrupted", .kind = F_BOOL, .off = OFF(T, interrupted), .write = W_SET, .doc = "a signal stopped the run"},
    {.key = "suite", .kind = F_NONE, .doc = "single-run files: the suite as run"},
    {.key = "context", .kind = F_NONE, .doc = "single-run files: the machine, libraries and backends"},
    {.key = "peaks", .kind = F_NONE, .doc = "single-run files: measured ceilings"},
    {.key = "warnings", .kind = F_STRLIST, .off = OFF(T, warnings), .write = W_SET, .doc = "the run's warnings, or a merge's notes"},
    {.key = "health", .kind = F_NONE, .doc = "single-run files: the machine's health checks"},
    {.key = "runs", .kind = F_ARR, .off = OFF(T, runs), .cnt = OFF(T, nruns), .write = W_ALWAYS, .sub = &gb_rm_t_run, .doc = "merged files: one per run"},
    {.key = "cases", .kind = F_ARR, .flags = REQ, .off = OFF(T, cases), .cnt = OFF(T, ncases), .sub = &gb_rm_t_case, .doc = "op x shape x dtype x params"},
    {.key = "summary", .kind = F_OBJ, .off = OFF(T, summary), .write = W_SET, .sub = &gb_rm_t_summary, .doc = "counts by status"},
    {.key = "interrupted_by", .kind = F_STR_NULL, .off = OFF(T, interrupted_by), .write = W_SET, .doc = "the signal"},
    {.key = "crossover", .kind = F_ARR, .off = OFF(T, crossover), .cnt = OFF(T, ncrossover), .present = P1(T, has_crossover), .write = W_SET, .sub = &gb_rm_t_cross, .doc = "where the accelerator starts to win"},
    {.key = "time_breakdown", .kind = F_JSON, .off = OFF(T, time_breakdown_json), .write = W_SET, .doc = "where the run's time went"},
    {.key = NULL, .kind = F_STR, .off = OFF(T, name)},
};
const gb_rm_type gb_rm_t_doc = {"document", sizeof(T), doc_f, NF(doc_f), 0, 0, P1(T, order), 1, NULL};
#undef T

const gb_rm_type *const gb_rm_types[] = {&gb_rm_t_doc, &gb_rm_t_run, &gb_rm_t_summary, &gb_rm_t_case,
                                         &gb_rm_t_result, &gb_rm_t_stats, &gb_rm_t_verification, &gb_rm_t_device,
                                         &gb_rm_t_concurrent, &gb_rm_t_energy, &gb_rm_t_clocks, &gb_rm_t_cross,
                                         &gb_rm_t_step, NULL};
