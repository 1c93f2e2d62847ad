/* results_context.c — a run's context (the machine, its libraries, the
 * backends and how each is timed, the scheduler's job) and its peaks: loaded
 * with every field checked, copied and freed. The context is kept as its
 * text beside the typed fields readers use, so it is written as it was read;
 * the format's table (results_format.c) names these two as fields of a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "results_io.h"
#include "results_model_internal.h"

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
int gb_rm_context_load(gb_rm_ctx *cx, const cJSON *o, const char *path, void *self) {
    gb_rm_chk *k = cx->k;
    gb_context *c = self;
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

int gb_rm_peaks_load(gb_rm_ctx *cx, const cJSON *o, const char *path, void *self) {
    gb_rm_chk *k = cx->k;
    gb_peaks *pk = self;
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

/* ---- the built-in table of backends ------------------------------------------ */

static void backend_free(gb_backend_desc *b) {
    free(b->name);
    free(b->reason);
    for (size_t i = 0; i < b->ntimings; i++) {
        free(b->timings[i].name);
        free(b->timings[i].label);
    }
    free(b->timings);
    memset(b, 0, sizeof *b);
}

int gb_rm_timings_copy(gb_backend_desc *dst, const gb_timing_desc *t, size_t n) {
    dst->ntimings = 0;
    if (!n) return 0;
    if (!(dst->timings = calloc(n, sizeof *dst->timings))) return -1;
    for (size_t i = 0; i < n; i++, dst->ntimings++)
        if (!(dst->timings[i].name = xstrdup(t[i].name)) || !(dst->timings[i].label = xstrdup(t[i].label)))
            return -1;
    return 0;
}

static int backend_copy(gb_backend_desc *dst, const gb_backend_desc *src) {
    *dst = *src;
    dst->name = dst->reason = NULL;
    dst->timings = NULL;
    dst->ntimings = 0;
    if (!(dst->name = xstrdup(src->name)) || !(dst->reason = xstrdup(src->reason))) return -1;
    return gb_rm_timings_copy(dst, src->timings, src->ntimings);
}

/* ---- context, peaks, summary ------------------------------------------------- */

void gb_rm_context_free(gb_context *c) {
    free(c->json);
    free(c->date);
    free(c->hostname);
    free(c->cpu_model);
    free(c->gpu_name);
    gb_rm_value_free(&c->f_cpu_model);
    gb_rm_value_free(&c->f_gpu_name);
    gb_rm_value_free(&c->f_gpu_driver);
    gb_rm_value_free(&c->f_nvidia_driver);
    gb_rm_value_free(&c->f_threads);
    gb_rm_value_free(&c->f_cache_mode);
    gb_kvlist_free(&c->libraries);
    free(c->job.scheduler);
    free(c->job.job_id);
    free(c->job.array_job_id);
    free(c->job.partition);
    free(c->job.nodelist);
    for (size_t i = 0; i < c->nbackends; i++) backend_free(&c->backends[i]);
    free(c->backends);
    memset(c, 0, sizeof *c);
}

int gb_rm_context_empty(gb_context *c) {
    memset(c, 0, sizeof *c);
    c->cpu_logical_cpus = c->cpu_threads_used = NAN;
    c->job.array_task_id = c->job.attempt = NAN;
    if (!(c->date = xstrdup("")) || !(c->hostname = xstrdup("")) || !(c->cpu_model = xstrdup("")) ||
        !(c->gpu_name = xstrdup("")))
        return -1;
    return 0;
}

int gb_rm_context_copy(gb_context *dst, const gb_context *src) {
    memset(dst, 0, sizeof *dst);
    dst->cpu_logical_cpus = src->cpu_logical_cpus;
    dst->cpu_threads_used = src->cpu_threads_used;
    if ((src->json && !(dst->json = xstrdup(src->json))) || !(dst->date = xstrdup(src->date)) ||
        !(dst->hostname = xstrdup(src->hostname)) || !(dst->cpu_model = xstrdup(src->cpu_model)) ||
        !(dst->gpu_name = xstrdup(src->gpu_name)) || gb_rm_value_copy(&dst->f_cpu_model, &src->f_cpu_model) ||
        gb_rm_value_copy(&dst->f_gpu_name, &src->f_gpu_name) || gb_rm_value_copy(&dst->f_gpu_driver, &src->f_gpu_driver) ||
        gb_rm_value_copy(&dst->f_nvidia_driver, &src->f_nvidia_driver) ||
        gb_rm_value_copy(&dst->f_threads, &src->f_threads) || gb_rm_value_copy(&dst->f_cache_mode, &src->f_cache_mode) ||
        gb_kvlist_copy(&dst->libraries, &src->libraries))
        return -1;
    const gb_job_info *sj = &src->job;
    gb_job_info *dj = &dst->job;
    *dj = (gb_job_info){sj->present, NULL, NULL, NULL, NULL, NULL, sj->array_task_id, sj->attempt};
    if ((sj->scheduler && !(dj->scheduler = xstrdup(sj->scheduler))) || (sj->job_id && !(dj->job_id = xstrdup(sj->job_id))) ||
        (sj->array_job_id && !(dj->array_job_id = xstrdup(sj->array_job_id))) ||
        (sj->partition && !(dj->partition = xstrdup(sj->partition))) ||
        (sj->nodelist && !(dj->nodelist = xstrdup(sj->nodelist))))
        return -1;
    if (src->nbackends && !(dst->backends = calloc(src->nbackends, sizeof *dst->backends))) return -1;
    for (size_t i = 0; i < src->nbackends; i++, dst->nbackends++)
        if (backend_copy(&dst->backends[i], &src->backends[i]) != 0) return -1;
    return 0;
}

void gb_rm_peaks_free(gb_peaks *p) {
    for (size_t i = 0; i < p->n; i++) {
        free(p->set[i].backend);
        gb_kvlist_free(&p->set[i].values);
    }
    free(p->set);
    memset(p, 0, sizeof *p);
}

int gb_rm_peaks_copy(gb_peaks *dst, const gb_peaks *src) {
    memset(dst, 0, sizeof *dst);
    dst->present = src->present;
    if (!src->n) return 0;
    if (!(dst->set = calloc(src->n, sizeof *dst->set))) return -1;
    for (size_t i = 0; i < src->n; i++, dst->n++)
        if (!(dst->set[i].backend = xstrdup(src->set[i].backend)) ||
            gb_kvlist_copy(&dst->set[i].values, &src->set[i].values) != 0)
            return -1;
    return 0;
}


cJSON *gb_rm_peaks_json(const gb_peaks *p) {
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

/* The public name (results_model.h) of the same object, for the history's
 * store of each run's own ceilings. */
cJSON *gb_peaks_to_cjson(const gb_peaks *p) { return gb_rm_peaks_json(p); }
