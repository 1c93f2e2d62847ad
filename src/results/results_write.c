/* results_write.c — writing the results model as JSON. Each object starts
 * from the template of its keys as loaded (results_keyorder.c), so a file
 * loaded and written keeps its key order and the keys this gpubench does not
 * know; an object the model made itself is written in the schema's order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "results_io.h"
#include "results_model_internal.h"

/* ---- values ------------------------------------------------------------------ */

cJSON *gb_rm_value_to_cjson(const gb_value *v) {
    switch (v->kind) {
    case GB_VAL_NULL: return cJSON_CreateNull();
    case GB_VAL_BOOL: return cJSON_CreateBool(v->b);
    case GB_VAL_NUMBER: return cJSON_CreateNumber(v->num);
    case GB_VAL_STRING: return cJSON_CreateString(v->text);
    case GB_VAL_JSON: return cJSON_Parse(v->text);
    case GB_VAL_ABSENT: break;
    }
    return NULL;
}

cJSON *gb_kvlist_to_cjson(const gb_kvlist *l) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    for (size_t i = 0; i < l->n; i++) {
        cJSON *v = gb_rm_value_to_cjson(&l->item[i].v);
        if (!v) {
            cJSON_Delete(o);
            return NULL;
        }
        cJSON_AddItemToObject(o, l->item[i].key, v);
    }
    return o;
}

/* ---- writing ----------------------------------------------------------------- */

/* Builds one object: from its template when it was loaded (keys keep their
 * places, unknown keys stay), else empty (keys in the order they are put). */
typedef struct {
    cJSON *o;
    const char *const *known;
    unsigned long long put;
    int oom;
} emitter;

static void em_begin(emitter *m, const gb_keyorder *ord, const char *const *known) {
    m->known = known;
    m->put = 0;
    m->o = ord ? cJSON_Duplicate(ord->tmpl, 1) : cJSON_CreateObject();
    m->oom = m->o == NULL;
}

static void em_put(emitter *m, const char *key, cJSON *v) {
    if (!m->o || !v) {
        m->oom = 1;
        cJSON_Delete(v);
        return;
    }
    for (int i = 0; m->known[i]; i++)
        if (!strcmp(m->known[i], key)) m->put |= 1ull << i;
    if (cJSON_GetObjectItemCaseSensitive(m->o, key)) cJSON_ReplaceItemInObjectCaseSensitive(m->o, key, v);
    else cJSON_AddItemToObject(m->o, key, v);
}

/* Forget a key's place: put next, it goes last. */
static void em_unplace(emitter *m, const char *key) {
    if (m->o) cJSON_DeleteItemFromObjectCaseSensitive(m->o, key);
}

static cJSON *em_end(emitter *m) {
    if (m->oom) {
        cJSON_Delete(m->o);
        return NULL;
    }
    for (int i = 0; m->known[i]; i++)
        if (!(m->put & (1ull << i))) cJSON_DeleteItemFromObjectCaseSensitive(m->o, m->known[i]);
    return m->o;
}


/* cJSON_CreateDoubleArray refuses an empty array. */
static cJSON *double_array(const double *v, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *x = cJSON_CreateNumber(v[i]);
        if (!x) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, x);
    }
    return a;
}

static cJSON *parse_text(const char *json) { return json ? cJSON_Parse(json) : NULL; }

static cJSON *strlist_json(const gb_strlist *l) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < l->n; i++) {
        cJSON *s = cJSON_CreateString(l->item[i]);
        if (!s) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, s);
    }
    return a;
}

static cJSON *peaks_json(const gb_peaks *p) {
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o && i < p->n; i++) {
        cJSON *s = gb_kvlist_to_cjson(&p->set[i].values);
        if (!s) {
            cJSON_Delete(o);
            return NULL;
        }
        cJSON_AddItemToObject(o, p->set[i].backend, s);
    }
    return o;
}

static cJSON *summary_json(const gb_summary *s) {
    emitter m;
    em_begin(&m, s->order, gb_rm_keys_summary);
    const long field[] = {s->cases, s->results, s->ok, s->skipped, s->failed, s->errors, s->not_reached};
    for (int i = 0; gb_rm_keys_summary[i]; i++)
        if (field[i] >= 0) em_put(&m, gb_rm_keys_summary[i], cJSON_CreateNumber((double)field[i]));
    return em_end(&m);
}

/* The runner's form: 6 significant digits, as raw text. */
static cJSON *samples_6g(const double *v, size_t n) {
    size_t cap = 16 * n + 3, len = 0;
    char *text = malloc(cap);
    if (!text) return NULL;
    text[len++] = '[';
    for (size_t i = 0; i < n; i++) len += (size_t)snprintf(text + len, cap - len, "%s%.6g", i ? "," : "", v[i]);
    text[len++] = ']';
    text[len] = '\0';
    cJSON *raw = cJSON_CreateRaw(text);
    free(text);
    return raw;
}

static cJSON *stats_json(const gb_result_stats *s) {
    emitter m;
    em_begin(&m, s->order, gb_rm_keys_stats);
    em_put(&m, "n", cJSON_CreateNumber((double)s->n));
    const double field[] = {s->min, s->max, s->median, s->mean, s->stddev, s->cv, s->ci95_low, s->ci95_high};
    for (int i = 1; gb_rm_keys_stats[i]; i++)
        if (isfinite(field[i - 1])) em_put(&m, gb_rm_keys_stats[i], cJSON_CreateNumber(field[i - 1]));
    return em_end(&m);
}

static cJSON *verification_json(const gb_verification *v) {
    emitter m;
    em_begin(&m, v->order, gb_rm_keys_verif);
    em_put(&m, "status", cJSON_CreateString(gb_verify_status_name(v->status)));
    if (v->has & GB_V_HAS_AGAINST) em_put(&m, "against", cJSON_CreateString(v->against));
    if (v->has & GB_V_HAS_METRIC) em_put(&m, "metric", cJSON_CreateString(v->metric));
    if (v->has & GB_V_HAS_ERROR) em_put(&m, "error", gb_json_num_or_null(v->error));
    if (v->has & GB_V_HAS_TOLERANCE) em_put(&m, "tolerance", gb_json_num_or_null(v->tolerance));
    if (v->has & GB_V_HAS_DETAIL) em_put(&m, "detail", cJSON_CreateString(v->detail));
    return em_end(&m);
}

static cJSON *device_json(const gb_device_id *d) {
    emitter m;
    em_begin(&m, d->order, gb_rm_keys_device);
    em_put(&m, "index", cJSON_CreateNumber((double)d->index));
    em_put(&m, "name", cJSON_CreateString(d->name ? d->name : ""));
    em_put(&m, "uuid", cJSON_CreateString(d->uuid ? d->uuid : ""));
    em_put(&m, "pci_bus_id", cJSON_CreateString(d->pci_bus_id ? d->pci_bus_id : ""));
    return em_end(&m);
}

static cJSON *concurrent_json(const gb_concurrency *x) {
    emitter m;
    em_begin(&m, x->order, gb_rm_keys_concurrent);
    em_put(&m, "devices", cJSON_CreateNumber((double)x->devices));
    em_put(&m, "aggregate_gflops", gb_json_num_or_null(x->aggregate_gflops));
    em_put(&m, "aggregate_gbs", gb_json_num_or_null(x->aggregate_gbs));
    return em_end(&m);
}

static cJSON *energy_json(const gb_result_energy *x) {
    emitter m;
    em_begin(&m, x->order, gb_rm_keys_energy);
    em_put(&m, "status", cJSON_CreateString(x->measured ? "measured" : "not_measured"));
    if (!x->measured) em_put(&m, "reason", cJSON_CreateString(x->reason ? x->reason : ""));
    const double field[] = {x->j_per_op, x->above_idle_j_per_op, x->power_w, x->above_idle_w, x->idle_w, x->bound,
                            x->gflop_per_j, x->gb_per_j, x->energy_ratio, x->seconds, x->power_limit_w,
                            x->spread};
    /* gb_rm_keys_energy: status, reason, then the numbers in this order */
    for (int i = 0; i < 12; i++)
        if (x->measured || isfinite(field[i])) em_put(&m, gb_rm_keys_energy[i + 2], gb_json_num_or_null(field[i]));
    if (x->counter && x->counter[0]) em_put(&m, "counter", cJSON_CreateString(x->counter));
    if (x->boundary && x->boundary[0]) em_put(&m, "boundary", cJSON_CreateString(x->boundary));
    if (x->phase && x->phase[0]) em_put(&m, "phase", cJSON_CreateString(x->phase));
    return em_end(&m);
}

static cJSON *clocks_json(const gb_result_clocks *x) {
    emitter m;
    em_begin(&m, x->order, gb_rm_keys_clocks);
    em_put(&m, "sm_mhz", gb_json_num_or_null(x->sm_mhz));
    em_put(&m, "mem_mhz", gb_json_num_or_null(x->mem_mhz));
    em_put(&m, "samples", cJSON_CreateNumber((double)x->samples));
    em_put(&m, "reasons", strlist_json(&x->reasons));
    if (x->power_limited >= 0) em_put(&m, "power_limited", cJSON_CreateBool(x->power_limited));
    if (x->thermal_limited >= 0) em_put(&m, "thermal_limited", cJSON_CreateBool(x->thermal_limited));
    return em_end(&m);
}

static cJSON *result_json(const gb_result *r, unsigned flags) {
    emitter m;
    em_begin(&m, r->order, gb_rm_keys_result);
    em_put(&m, "backend", cJSON_CreateString(r->backend));
    em_put(&m, "timing", cJSON_CreateString(r->timing));
    em_put(&m, "status", cJSON_CreateString(gb_result_status_name(r->status)));
    if (r->has & GB_R_HAS_REASON) em_put(&m, "reason", cJSON_CreateString(r->reason));
    if (r->has & GB_R_HAS_SETUP) em_put(&m, "setup_s", gb_json_num_or_null(r->setup_s));
    if (r->has & GB_R_HAS_VERIFY) em_put(&m, "verify_s", gb_json_num_or_null(r->verify_s));
    if (r->has & GB_R_HAS_WARMUP) em_put(&m, "warmup_reps", cJSON_CreateNumber((double)r->warmup_reps));
    if (r->has & GB_R_HAS_ROUNDS) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < r->nrounds; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)r->round_sizes[i]));
        em_put(&m, "round_sizes", a);
    }
    if (r->has & GB_R_HAS_SAMPLES)
        em_put(&m, "samples_s", (flags & GB_WRITE_SAMPLES_6G) ? samples_6g(r->samples, r->nsamples)
                                : double_array(r->samples, r->nsamples));
    if (r->stats.present) em_put(&m, "stats", stats_json(&r->stats));
    if (r->has & GB_R_HAS_GFLOPS) em_put(&m, "gflops", gb_json_num_or_null(r->gflops));
    if (r->has & GB_R_HAS_GBS) em_put(&m, "gbs", gb_json_num_or_null(r->gbs));
    if (r->has & GB_R_HAS_PCT) em_put(&m, "pct_of_peak", gb_json_num_or_null(r->pct_of_peak));
    if (r->has & GB_R_HAS_PEAK) em_put(&m, "peak", r->peak ? cJSON_CreateString(r->peak) : cJSON_CreateNull());
    if (r->verification.present) em_put(&m, "verification", verification_json(&r->verification));
    if (r->extra.present) em_put(&m, "extra", gb_kvlist_to_cjson(&r->extra));
    if (r->device.present) em_put(&m, "device", device_json(&r->device));
    if (r->concurrent.present) em_put(&m, "concurrent", concurrent_json(&r->concurrent));
    if (r->energy.present) em_put(&m, "energy", energy_json(&r->energy));
    if (r->clocks.present) em_put(&m, "clocks", clocks_json(&r->clocks));
    return em_end(&m);
}

cJSON *gb_case_shape_to_cjson(const gb_case_result *c) { return double_array(c->shape, c->rank); }

static cJSON *case_json(const gb_case_result *c, int merged, unsigned flags) {
    emitter m;
    em_begin(&m, c->order, gb_rm_keys_case);
    em_put(&m, "op", cJSON_CreateString(c->op));
    em_put(&m, "dtype", cJSON_CreateString(c->dtype));
    em_put(&m, "shape", gb_case_shape_to_cjson(c));
    if (c->has & GB_C_HAS_LABEL) em_put(&m, "label", cJSON_CreateString(c->label));
    if (c->params.present) em_put(&m, "params", gb_kvlist_to_cjson(&c->params));
    if (c->has & GB_C_HAS_FLOPS) em_put(&m, "flops", gb_json_num_or_null(c->flops));
    if (c->has & GB_C_HAS_BYTES) em_put(&m, "bytes", gb_json_num_or_null(c->bytes));
    if (c->has & GB_C_HAS_RATE_KIND) em_put(&m, "rate_kind", cJSON_CreateString(c->rate_kind));
    cJSON *rs = cJSON_CreateArray();
    for (size_t i = 0; rs && i < c->nresults; i++) {
        cJSON *r = result_json(&c->results[i], flags);
        if (!r) {
            cJSON_Delete(rs);
            rs = NULL;
            break;
        }
        cJSON_AddItemToArray(rs, r);
    }
    em_put(&m, "results", rs);
    if (c->has & GB_C_HAS_SPEEDUP) {
        cJSON *sp = cJSON_CreateObject();
        for (size_t i = 0; sp && i < c->nspeedups; i++)
            cJSON_AddItemToObject(sp, c->speedups[i].timing, cJSON_CreateNumber(c->speedups[i].value));
        em_put(&m, "speedup", sp);
    }
    /* A merged file's cases name their run, last (where merge puts it). */
    em_unplace(&m, "run");
    if (merged) em_put(&m, "run", cJSON_CreateNumber(c->run));
    return em_end(&m);
}

static cJSON *crossover_entry_json(const gb_crossover_entry *x, int merged) {
    emitter m;
    em_begin(&m, x->order, gb_rm_keys_cross);
    em_put(&m, "op", cJSON_CreateString(x->op));
    em_put(&m, "dtype", cJSON_CreateString(x->dtype));
    if (x->params.present) em_put(&m, "params", gb_kvlist_to_cjson(&x->params));
    em_put(&m, "timing", cJSON_CreateString(x->timing));
    em_put(&m, "size", gb_json_num_or_null(x->size));
    if (x->has_between) em_put(&m, "between", double_array(x->between, 2));
    em_put(&m, "status", cJSON_CreateString(x->status));
    em_put(&m, "size_measure", cJSON_CreateString(x->size_measure));
    em_put(&m, "tested_min", gb_json_num_or_null(x->tested_min));
    em_put(&m, "tested_max", gb_json_num_or_null(x->tested_max));
    em_put(&m, "points", cJSON_CreateNumber((double)x->points));
    em_put(&m, "sign_changes", cJSON_CreateNumber((double)x->sign_changes));
    if (x->device >= 0) em_put(&m, "device", cJSON_CreateNumber((double)x->device));
    if (x->has_changes) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < x->nchanges; i++) {
            const gb_crossover_step *s = &x->changes[i];
            emitter c;
            em_begin(&c, s->order, gb_rm_keys_step);
            em_put(&c, "size", gb_json_num_or_null(s->size));
            em_put(&c, "lo", gb_json_num_or_null(s->lo));
            em_put(&c, "hi", gb_json_num_or_null(s->hi));
            em_put(&c, "to", cJSON_CreateString(s->to));
            cJSON *o = em_end(&c);
            if (!o) {
                cJSON_Delete(a);
                a = NULL;
                break;
            }
            cJSON_AddItemToArray(a, o);
        }
        em_put(&m, "changes", a);
    }
    em_unplace(&m, "run");
    if (merged) em_put(&m, "run", cJSON_CreateNumber(x->run));
    return em_end(&m);
}

/* context, peaks, warnings, suite, health of a run, onto m. */
static void provenance_json(emitter *m, const gb_run *run, const char *which) {
    if (!strcmp(which, "context") && run->context.json) em_put(m, "context", parse_text(run->context.json));
    if (!strcmp(which, "peaks") && run->peaks.present) em_put(m, "peaks", peaks_json(&run->peaks));
    if (!strcmp(which, "warnings") && run->warnings.present) em_put(m, "warnings", strlist_json(&run->warnings));
    if (!strcmp(which, "suite") && run->suite_json) em_put(m, "suite", parse_text(run->suite_json));
    if (!strcmp(which, "health") && run->health_json) em_put(m, "health", parse_text(run->health_json));
}

static cJSON *run_json(const gb_run *run) {
    emitter m;
    em_begin(&m, run->order, gb_rm_keys_run);
    if (run->name) em_put(&m, "name", cJSON_CreateString(run->name));
    if (run->source) em_put(&m, "source", cJSON_CreateString(run->source));
    static const char *const prov[] = {"context", "peaks", "warnings", "suite", "health"};
    for (int i = 0; i < 5; i++) provenance_json(&m, run, prov[i]);
    if (run->complete >= 0) em_put(&m, "complete", cJSON_CreateBool(run->complete));
    if (run->interrupted >= 0) em_put(&m, "interrupted", cJSON_CreateBool(run->interrupted));
    if (run->summary.present) em_put(&m, "summary", summary_json(&run->summary));
    if (run->gpubench_version) em_put(&m, "gpubench_version", cJSON_CreateString(run->gpubench_version));
    return em_end(&m);
}

static cJSON *array_of(size_t n, cJSON *(*one)(const void *, size_t, int, unsigned), const void *base, int merged,
                       unsigned flags) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *x = one(base, i, merged, flags);
        if (!x) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, x);
    }
    return a;
}
static cJSON *one_case(const void *base, size_t i, int merged, unsigned flags) {
    return case_json(&((const gb_case_result *)base)[i], merged, flags);
}
static cJSON *one_cross(const void *base, size_t i, int merged, unsigned flags) {
    (void)flags;
    return crossover_entry_json(&((const gb_crossover_entry *)base)[i], merged);
}
static cJSON *one_run(const void *base, size_t i, int merged, unsigned flags) {
    (void)merged;
    (void)flags;
    return run_json(&((const gb_run *)base)[i]);
}

cJSON *gb_results_to_json(const gb_results *r, unsigned flags) {
    emitter m;
    em_begin(&m, r->order, gb_rm_keys_top);
    em_put(&m, "schema", cJSON_CreateString(GB_RESULTS_SCHEMA));
    em_put(&m, "schema_version", cJSON_CreateNumber(GB_RESULTS_SCHEMA_VERSION));
    if (r->gpubench_version) em_put(&m, "gpubench_version", cJSON_CreateString(r->gpubench_version));
    if (r->complete >= 0) em_put(&m, "complete", cJSON_CreateBool(r->complete));
    if (r->interrupted >= 0) em_put(&m, "interrupted", cJSON_CreateBool(r->interrupted));
    if (r->merged) {
        em_put(&m, "runs", array_of(r->nruns, one_run, r->runs, 1, flags));
        if (r->warnings.present) em_put(&m, "warnings", strlist_json(&r->warnings));
    } else if (r->nruns > 0) {
        static const char *const prov[] = {"suite", "context", "peaks", "warnings", "health"};
        for (int i = 0; i < 5; i++) provenance_json(&m, &r->runs[0], prov[i]);
    }
    em_put(&m, "cases", array_of(r->ncases, one_case, r->cases, r->merged, flags));
    /* The runner's order: crossover after the summary; merge's: before it. */
    if (r->merged && r->has_crossover) em_put(&m, "crossover", array_of(r->ncrossover, one_cross, r->crossover, 1, flags));
    if (r->summary.present) em_put(&m, "summary", summary_json(&r->summary));
    if (r->interrupted_by) em_put(&m, "interrupted_by", cJSON_CreateString(r->interrupted_by));
    if (!r->merged && r->has_crossover)
        em_put(&m, "crossover", array_of(r->ncrossover, one_cross, r->crossover, 0, flags));
    if (r->time_breakdown_json) em_put(&m, "time_breakdown", parse_text(r->time_breakdown_json));
    return em_end(&m);
}

int gb_results_write(const gb_results *r, const char *path, unsigned flags, gb_err *e) {
    cJSON *doc = gb_results_to_json(r, flags);
    if (!doc) return gb_errf(e, GB_FAIL, "%s: out of memory", path);
    gb_json_scrub(doc); /* never write what the loader refuses */
    int rc = gb_json_write_atomic(doc, path, e);
    cJSON_Delete(doc);
    return rc;
}

/* The status names the file writes (and readers print): here, by the writer
 * that uses them, so that results_query.c, which uses the writer's value
 * conversions, and the writer do not depend on each other. */
const char *gb_result_status_name(gb_result_status s) {
    switch (s) {
    case GB_RS_OK: return "ok";
    case GB_RS_SKIPPED: return "skipped";
    case GB_RS_FAILED: return "failed";
    case GB_RS_ERROR: return "error";
    }
    return "?";
}

const char *gb_verify_status_name(gb_verification_status s) {
    switch (s) {
    case GB_VS_PASSED: return "passed";
    case GB_VS_FAILED: return "failed";
    case GB_VS_NOT_CHECKED: return "not_checked";
    }
    return "?";
}
