/* results_read.c — loading a results document, with every field checked
 * (the document, runs, context, backends, peaks, summary; cases and
 * crossover entries are results_read_case.c's).
 *
 * Loading walks the JSON once. Each parse_* function checks one object of the
 * schema and fills its struct; the first problem stops the load with the file
 * and the JSON path of the field. Each object also keeps a template of its
 * keys as loaded (gb_keyorder, results_keyorder.c): known keys as
 * placeholders, unknown keys with their values. The writer (results_write.c)
 * starts from that template, so keys keep their order and unknown keys
 * survive; an object the model made itself (no template) is written in the
 * schema's order. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "results_io.h"
#include "results_model_internal.h"

/* The text of an object (unformatted) at key, NULL when absent. */
static int get_json_obj(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, char **out) {
    const cJSON *v;
    *out = NULL;
    if (gb_rm_get_obj(k, o, path, key, 0, &v) < 0) return -1;
    if (!v) return 0;
    if (!(*out = cJSON_PrintUnformatted(v))) return gb_rm_oom(k);
    return 1;
}


/* ---- the built-in table of backends ------------------------------------------ */

/* context.backends.<name>: {available, selected, reason, role, timings}. */
static int parse_backend(gb_rm_chk *k, const cJSON *o, const char *path, gb_backend_desc *b) {
    char p[512];
    if (!cJSON_IsObject(o)) return gb_rm_bad(k, path, "expected an object, got %s", gb_rm_type_name(o));
    if (!(b->name = xstrdup(o->string))) return gb_rm_oom(k);
    if (gb_rm_get_bool(k, o, path, "available", &b->available) < 0 || gb_rm_get_bool(k, o, path, "selected", &b->selected) < 0 ||
        gb_rm_get_str(k, o, path, "reason", 0, &b->reason) < 0)
        return -1;
    const gb_backend_desc *dflt = gb_rm_builtin_desc(b->name);
    char *role = NULL;
    int has_role = gb_rm_get_str(k, o, path, "role", 0, &role);
    if (has_role < 0) return -1;
    b->role = dflt->role;
    if (has_role) {
        if (!strcmp(role, "host")) b->role = GB_ROLE_HOST;
        else if (!strcmp(role, "accelerator")) b->role = GB_ROLE_ACCELERATOR;
        else {
            gb_rm_join(p, sizeof p, path, "role");
            gb_rm_bad(k, p, "expected \"host\" or \"accelerator\", got \"%s\"", role);
            free(role);
            return -1;
        }
        b->described = 1;
    }
    free(role);
    const cJSON *ts;
    if (gb_rm_get_arr(k, o, path, "timings", 0, &ts) < 0) return -1;
    if (!ts) return gb_rm_timings_copy(b, dflt->timings, dflt->ntimings) == 0 ? 0 : gb_rm_oom(k);
    b->described = 1;
    size_t n = (size_t)cJSON_GetArraySize(ts);
    if (n && !(b->timings = calloc(n, sizeof *b->timings))) return gb_rm_oom(k);
    for (const cJSON *t = ts->child; t; t = t->next) {
        gb_rm_at(p, sizeof p, path, "timings", b->ntimings);
        if (!cJSON_IsObject(t)) return gb_rm_bad(k, p, "expected an object, got %s", gb_rm_type_name(t));
        gb_timing_desc *d = &b->timings[b->ntimings++];
        if (gb_rm_get_str(k, t, p, "name", 1, &d->name) < 0) return -1;
        int has_label = gb_rm_get_str(k, t, p, "label", 0, &d->label);
        if (has_label < 0) return -1;
        if (!has_label) { /* the label is the name */
            char *s = xstrdup(d->name);
            if (!s) return gb_rm_oom(k);
            gb_rm_replace_str(&d->label, s);
        }
    }
    return 0;
}

/* ---- context, peaks, summary ------------------------------------------------- */

/* context.job (p: the context's path). */
static int parse_job(gb_rm_chk *k, const cJSON *ctx, const char *p, gb_job_info *j) {
    const cJSON *job;
    char pj[512];
    if (gb_rm_get_obj(k, ctx, p, "job", 0, &job) < 0) return -1;
    j->array_task_id = j->attempt = NAN;
    if (!job) return 0;
    j->present = 1;
    gb_rm_join(pj, sizeof pj, p, "job");
    if (gb_rm_get_str(k, job, pj, "scheduler", 1, &j->scheduler) < 0 ||
        gb_rm_get_str_or_null(k, job, pj, "job_id", &j->job_id) < 0 ||
        gb_rm_get_str_or_null(k, job, pj, "array_job_id", &j->array_job_id) < 0 ||
        gb_rm_get_str_or_null(k, job, pj, "partition", &j->partition) < 0 ||
        gb_rm_get_str_or_null(k, job, pj, "nodelist", &j->nodelist) < 0 ||
        gb_rm_get_num(k, job, pj, "array_task_id", N_NULL | N_NONNEG | N_WHOLE, &j->array_task_id) < 0 ||
        gb_rm_get_num(k, job, pj, "attempt", N_NULL | N_POS | N_WHOLE, &j->attempt) < 0)
        return -1;
    return 0;
}

/* The context at key of o (a run, or the top level of a single-run file). */
static int parse_context(gb_rm_chk *k, const cJSON *o, const char *path, gb_context *c) {
    char p[512], pp[512];
    const cJSON *ctx;
    if (gb_rm_context_empty(c) != 0) return gb_rm_oom(k);
    if (gb_rm_get_obj(k, o, path, "context", 0, &ctx) < 0) return -1;
    if (!ctx) return 0;
    gb_rm_join(p, sizeof p, path, "context");
    if (!(c->json = cJSON_PrintUnformatted(ctx))) return gb_rm_oom(k);
    if (gb_rm_get_str(k, ctx, p, "date", 0, &c->date) < 0 || gb_rm_get_str(k, ctx, p, "hostname", 0, &c->hostname) < 0)
        return -1;
    char *cache = NULL;
    int has_cache = gb_rm_get_str(k, ctx, p, "cache_mode", 0, &cache);
    free(cache);
    if (has_cache < 0 || gb_rm_get_num(k, ctx, p, "cpu_threads_used", N_COUNT, &c->cpu_threads_used) < 0) return -1;
    const cJSON *cpu, *gpu = gb_rm_item(ctx, "gpu");
    if (gb_rm_get_obj(k, ctx, p, "cpu", 0, &cpu) < 0) return -1;
    gb_rm_join(pp, sizeof pp, p, "cpu");
    if (cpu) {
        if (gb_rm_get_str(k, cpu, pp, "model", 0, &c->cpu_model) < 0 ||
            gb_rm_get_num(k, cpu, pp, "logical_cpus", N_COUNT, &c->cpu_logical_cpus) < 0)
            return -1;
    }
    gb_rm_join(pp, sizeof pp, p, "gpu");
    if (gpu && !cJSON_IsNull(gpu)) {
        if (!cJSON_IsObject(gpu)) return gb_rm_bad(k, pp, "expected an object or null, got %s", gb_rm_type_name(gpu));
        if (gb_rm_get_str(k, gpu, pp, "name", 0, &c->gpu_name) < 0) return -1;
        const cJSON *drv = gb_rm_item(gpu, "driver_version");
        if (drv && !cJSON_IsString(drv) && !cJSON_IsNumber(drv)) {
            gb_rm_join(p, sizeof p, pp, "driver_version");
            return gb_rm_bad(k, p, "expected a string or a number, got %s", gb_rm_type_name(drv));
        }
    } else {
        gpu = NULL;
    }
    /* The facts compare names, as the file has them. */
    if (gb_rm_value_from(cpu ? gb_rm_item(cpu, "model") : NULL, &c->f_cpu_model) != 0 ||
        gb_rm_value_from(gpu ? gb_rm_item(gpu, "name") : NULL, &c->f_gpu_name) != 0 ||
        gb_rm_value_from(gpu ? (gb_rm_item(gpu, "cuda_driver_api_version") ? gb_rm_item(gpu, "cuda_driver_api_version")
                                                                : gb_rm_item(gpu, "driver_version")) : NULL,
                   &c->f_gpu_driver) != 0 ||
        gb_rm_value_from(gpu && cJSON_IsString(gb_rm_item(gpu, "nvidia_driver")) &&
                   gb_is_driver_version(gb_rm_item(gpu, "nvidia_driver")->valuestring) ? gb_rm_item(gpu, "nvidia_driver") : NULL,
                   &c->f_nvidia_driver) != 0 ||
        gb_rm_value_from(gb_rm_item(ctx, "cpu_threads_used"), &c->f_threads) != 0 ||
        gb_rm_value_from(gb_rm_item(ctx, "cache_mode"), &c->f_cache_mode) != 0)
        return gb_rm_oom(k);
    gb_rm_join(p, sizeof p, path, "context");
    if (gb_rm_get_kvlist(k, ctx, p, "libraries", &c->libraries) < 0 || parse_job(k, ctx, p, &c->job) < 0) return -1;
    const cJSON *bs;
    if (gb_rm_get_obj(k, ctx, p, "backends", 0, &bs) < 0) return -1;
    if (bs) {
        size_t n = (size_t)cJSON_GetArraySize(bs);
        if (n && !(c->backends = calloc(n, sizeof *c->backends))) return gb_rm_oom(k);
        for (const cJSON *b = bs->child; b; b = b->next) {
            char pb[512];
            gb_rm_join(pb, sizeof pb, p, "backends");
            gb_rm_join(pp, sizeof pp, pb, b->string);
            if (parse_backend(k, b, pp, &c->backends[c->nbackends++]) < 0) return -1;
        }
    }
    return 0;
}

static int parse_peaks(gb_rm_chk *k, const cJSON *o, const char *path, gb_peaks *pk) {
    char p[512];
    const cJSON *obj;
    memset(pk, 0, sizeof *pk);
    if (gb_rm_get_obj(k, o, path, "peaks", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    pk->present = 1;
    gb_rm_join(p, sizeof p, path, "peaks");
    size_t n = (size_t)cJSON_GetArraySize(obj);
    if (n && !(pk->set = calloc(n, sizeof *pk->set))) return gb_rm_oom(k);
    for (const cJSON *b = obj->child; b; b = b->next) {
        gb_peak_set *s = &pk->set[pk->n++];
        if (!(s->backend = xstrdup(b->string))) return gb_rm_oom(k);
        if (gb_rm_get_kvlist(k, obj, p, b->string, &s->values) < 0) return -1;
    }
    return 0;
}

static int parse_summary(gb_rm_chk *k, const cJSON *o, const char *path, gb_summary *s) {
    char p[512];
    const cJSON *obj;
    memset(s, 0, sizeof *s);
    s->cases = s->results = s->ok = s->skipped = s->failed = s->errors = s->not_reached = -1;
    if (gb_rm_get_obj(k, o, path, "summary", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    s->present = 1;
    gb_rm_join(p, sizeof p, path, "summary");
    long *field[] = {&s->cases, &s->results, &s->ok, &s->skipped, &s->failed, &s->errors, &s->not_reached};
    for (int i = 0; gb_rm_keys_summary[i]; i++) {
        double v;
        int got = gb_rm_get_num(k, obj, p, gb_rm_keys_summary[i], N_NONNEG | N_WHOLE, &v);
        if (got < 0) return -1;
        *field[i] = got ? (long)v : -1;
    }
    return gb_rm_order_from(k, obj, gb_rm_keys_summary, &s->order);
}

/* ---- runs -------------------------------------------------------------------- */

/* What a run has wherever it lives: context, peaks, warnings, suite, health. */
static int parse_provenance(gb_rm_chk *k, const cJSON *o, const char *path, gb_run *run) {
    char p[512];
    if (parse_context(k, o, path, &run->context) < 0 || parse_peaks(k, o, path, &run->peaks) < 0 ||
        gb_rm_get_strlist(k, o, path, "warnings", &run->warnings) < 0 ||
        get_json_obj(k, o, path, "health", &run->health_json) < 0)
        return -1;
    const cJSON *suite;
    if (gb_rm_get_obj(k, o, path, "suite", 0, &suite) < 0) return -1;
    gb_rm_join(p, sizeof p, path, "suite");
    if (gb_rm_get_str(k, suite, p, "name", 0, &run->suite_name) < 0) return -1;
    if (suite && !(run->suite_json = cJSON_PrintUnformatted(suite))) return gb_rm_oom(k);
    return 0;
}

int gb_run_set_provenance(gb_run *run, const cJSON *obj, const char *name, gb_err *e) {
    gb_rm_chk k = {name, e};
    gb_run tmp;
    memset(&tmp, 0, sizeof tmp);
    if (!cJSON_IsObject(obj)) {
        gb_errf(e, GB_FAIL, "%s: expected an object, got %s", name, gb_rm_type_name(obj));
        return GB_FAIL;
    }
    if (parse_provenance(&k, obj, "", &tmp) != 0) {
        gb_run_free(&tmp);
        return GB_FAIL;
    }
    gb_rm_context_free(&run->context);
    gb_rm_peaks_free(&run->peaks);
    gb_rm_strlist_free(&run->warnings);
    free(run->suite_json);
    free(run->suite_name);
    free(run->health_json);
    run->context = tmp.context;
    run->peaks = tmp.peaks;
    run->warnings = tmp.warnings;
    run->suite_json = tmp.suite_json;
    run->suite_name = tmp.suite_name;
    run->health_json = tmp.health_json;
    return GB_OK;
}

/* runs[i] of a merged file. */
static int parse_run(gb_rm_chk *k, const cJSON *o, const char *path, gb_run *run) {
    if (!cJSON_IsObject(o)) return gb_rm_bad(k, path, "expected an object, got %s", gb_rm_type_name(o));
    if (gb_rm_get_str_or_null(k, o, path, "name", &run->name) < 0 || gb_rm_get_str_or_null(k, o, path, "source", &run->source) < 0 ||
        parse_provenance(k, o, path, run) < 0 || gb_rm_get_bool(k, o, path, "complete", &run->complete) < 0 ||
        gb_rm_get_bool(k, o, path, "interrupted", &run->interrupted) < 0 || parse_summary(k, o, path, &run->summary) < 0 ||
        gb_rm_get_str_or_null(k, o, path, "gpubench_version", &run->gpubench_version) < 0)
        return -1;
    return gb_rm_order_from(k, o, gb_rm_keys_run, &run->order);
}

/* ---- the document ------------------------------------------------------------ */

static int parse_doc(gb_rm_chk *k, const cJSON *doc, gb_results *r) {
    const char *name = k->file;
    const cJSON *schema = gb_rm_item(doc, "schema");
    if (!cJSON_IsObject(doc) || !schema)
        return gb_errf(k->e, GB_FAIL, "%s: not a gpubench results file (no \"schema\")", name), -1;
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, GB_RESULTS_SCHEMA) != 0)
        return gb_errf(k->e, GB_FAIL, "%s: not a gpubench results file (schema \"%s\")", name,
                       cJSON_IsString(schema) ? schema->valuestring : "?"), -1;
    const cJSON *ver = gb_rm_item(doc, "schema_version");
    if (!cJSON_IsNumber(ver))
        return gb_errf(k->e, GB_FAIL, "%s: no numeric \"schema_version\", this gpubench reads %d", name,
                       GB_RESULTS_SCHEMA_VERSION), -1;
    /* The policy of docs/results-schema.md ("Versions"): every version up to
     * this one is read (fields added since are optional on read); a newer one
     * is refused, naming both, since its fields may mean something else. */
    if (!(ver->valuedouble >= 1) || ver->valuedouble != floor(ver->valuedouble))
        return gb_errf(k->e, GB_FAIL, "%s: schema_version %g is not a version (a whole number from 1), this gpubench "
                       "reads 1 to %d", name, ver->valuedouble, GB_RESULTS_SCHEMA_VERSION), -1;
    if (ver->valuedouble > GB_RESULTS_SCHEMA_VERSION)
        return gb_errf(k->e, GB_FAIL, "%s: schema_version %g, this gpubench reads %d", name, ver->valuedouble,
                       GB_RESULTS_SCHEMA_VERSION), -1;
    const cJSON *cases = gb_rm_item(doc, "cases");
    if (!cJSON_IsArray(cases))
        return gb_errf(k->e, GB_FAIL, "%s: not a valid results file (no \"cases\" array)", name), -1;
    const cJSON *runs = gb_rm_item(doc, "runs");
    if (runs && (!cJSON_IsArray(runs) || cJSON_GetArraySize(runs) == 0))
        return gb_errf(k->e, GB_FAIL, "%s: \"runs\" must be a non-empty array of run objects", name), -1;

    char p[64];
    if (gb_rm_get_str_or_null(k, doc, "", "gpubench_version", &r->gpubench_version) < 0 ||
        gb_rm_get_bool(k, doc, "", "complete", &r->complete) < 0 || gb_rm_get_bool(k, doc, "", "interrupted", &r->interrupted) < 0 ||
        gb_rm_get_str_or_null(k, doc, "", "interrupted_by", &r->interrupted_by) < 0 ||
        parse_summary(k, doc, "", &r->summary) < 0 || get_json_obj(k, doc, "", "time_breakdown", &r->time_breakdown_json) < 0)
        return -1;
    r->merged = runs != NULL;
    size_t nruns = runs ? (size_t)cJSON_GetArraySize(runs) : 1;
    if (!(r->runs = calloc(nruns, sizeof *r->runs))) return gb_rm_oom(k);
    if (runs) {
        if (gb_rm_get_strlist(k, doc, "", "warnings", &r->warnings) < 0) return -1;
        for (const cJSON *x = runs->child; x; x = x->next) {
            snprintf(p, sizeof p, "runs[%zu]", r->nruns);
            if (parse_run(k, x, p, &r->runs[r->nruns++]) < 0) return -1;
        }
    } else {
        /* A single-run file is its own run 0. */
        gb_run *run = &r->runs[r->nruns++];
        if (parse_provenance(k, doc, "", run) < 0) return -1;
        run->complete = r->complete;
        run->interrupted = r->interrupted;
        if (gb_rm_summary_copy(&run->summary, &r->summary) != 0 ||
            (r->gpubench_version && !(run->gpubench_version = xstrdup(r->gpubench_version))))
            return gb_rm_oom(k);
    }
    size_t n = (size_t)cJSON_GetArraySize(cases);
    if (n && !(r->cases = calloc(n, sizeof *r->cases))) return gb_rm_oom(k);
    for (const cJSON *c = cases->child; c; c = c->next) {
        snprintf(p, sizeof p, "cases[%zu]", r->ncases);
        if (gb_rm_parse_case(k, c, p, (int)r->nruns, &r->cases[r->ncases++]) < 0) return -1;
    }
    const cJSON *xs;
    if (gb_rm_get_arr(k, doc, "", "crossover", 0, &xs) < 0) return -1;
    if (xs) {
        r->has_crossover = 1;
        n = (size_t)cJSON_GetArraySize(xs);
        if (n && !(r->crossover = calloc(n, sizeof *r->crossover))) return gb_rm_oom(k);
        for (const cJSON *x = xs->child; x; x = x->next) {
            snprintf(p, sizeof p, "crossover[%zu]", r->ncrossover);
            if (gb_rm_parse_crossover_entry(k, x, p, r, &r->crossover[r->ncrossover++]) < 0) return -1;
        }
    }
    return gb_rm_order_from(k, doc, gb_rm_keys_top, &r->order);
}

int gb_results_from_json(const cJSON *doc, const char *name, gb_results *out, gb_err *e) {
    memset(out, 0, sizeof *out);
    gb_rm_chk k = {name, e};
    out->complete = out->interrupted = -1;
    if (!(out->name = xstrdup(name)) || parse_doc(&k, doc, out) != 0) {
        gb_results_free(out);
        return GB_FAIL;
    }
    return GB_OK;
}

int gb_results_load(const char *path, gb_results *out, gb_err *e) {
    memset(out, 0, sizeof *out);
    cJSON *doc = NULL;
    if (gb_json_read_file(path, &doc, e) != GB_OK) return GB_FAIL;
    int rc = gb_results_from_json(doc, strcmp(path, "-") == 0 ? "<stdin>" : path, out, e);
    cJSON_Delete(doc);
    return rc;
}

/* ---- building ---------------------------------------------------------------- */

int gb_kvlist_from_cjson(gb_kvlist *l, const cJSON *obj, const char *name, gb_err *e) {
    gb_rm_chk k = {name, e};
    gb_kvlist tmp;
    if (!cJSON_IsObject(obj)) return gb_errf(e, GB_FAIL, "%s: expected an object, got %s", name, gb_rm_type_name(obj));
    /* get_kvlist reads an object at a key: hand it obj under one */
    cJSON *holder = cJSON_CreateObject();
    if (!holder || !cJSON_AddItemReferenceToObject(holder, "extra", (cJSON *)obj)) {
        cJSON_Delete(holder);
        return gb_errf(e, GB_FAIL, "%s: out of memory", name);
    }
    int got = gb_rm_get_kvlist(&k, holder, "", "extra", &tmp);
    cJSON_Delete(holder); /* a reference: obj itself is not freed */
    if (got < 0) {
        gb_kvlist_free(&tmp);
        return GB_FAIL;
    }
    gb_kvlist_free(l);
    *l = tmp;
    return GB_OK;
}
