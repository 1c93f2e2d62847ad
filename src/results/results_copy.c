/* results_copy.c — copying, freeing and building the structs of the
 * results model (the loader and the writers of results — the runner, merge —
 * make their structs here). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results_model_internal.h"

/* ---- values ------------------------------------------------------------------ */

static void value_free(gb_value *v) {
    free(v->text);
    memset(v, 0, sizeof *v);
}

static int value_copy(gb_value *dst, const gb_value *src) {
    *dst = *src;
    dst->text = NULL;
    if (src->text && !(dst->text = xstrdup(src->text))) return -1;
    return 0;
}

void gb_kvlist_free(gb_kvlist *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->item[i].key);
        value_free(&l->item[i].v);
    }
    free(l->item);
    memset(l, 0, sizeof *l);
}

int gb_kvlist_copy(gb_kvlist *dst, const gb_kvlist *src) {
    memset(dst, 0, sizeof *dst);
    dst->present = src->present;
    if (!src->n) return GB_OK;
    if (!(dst->item = calloc(src->n, sizeof *dst->item))) return GB_FAIL;
    for (size_t i = 0; i < src->n; i++) {
        dst->n++;
        if (!(dst->item[i].key = xstrdup(src->item[i].key)) || value_copy(&dst->item[i].v, &src->item[i].v) != 0) {
            gb_kvlist_free(dst);
            return GB_FAIL;
        }
    }
    return GB_OK;
}

void gb_rm_strlist_free(gb_strlist *l) {
    for (size_t i = 0; i < l->n; i++) free(l->item[i]);
    free(l->item);
    memset(l, 0, sizeof *l);
}

static int strlist_copy(gb_strlist *dst, const gb_strlist *src) {
    memset(dst, 0, sizeof *dst);
    dst->present = src->present;
    if (!src->n) return 0;
    if (!(dst->item = calloc(src->n, sizeof *dst->item))) return -1;
    for (size_t i = 0; i < src->n; i++, dst->n++)
        if (!(dst->item[i] = xstrdup(src->item[i]))) return -1;
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
    value_free(&c->f_cpu_model);
    value_free(&c->f_gpu_name);
    value_free(&c->f_gpu_driver);
    value_free(&c->f_nvidia_driver);
    value_free(&c->f_threads);
    value_free(&c->f_cache_mode);
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

static int context_copy(gb_context *dst, const gb_context *src) {
    memset(dst, 0, sizeof *dst);
    dst->cpu_logical_cpus = src->cpu_logical_cpus;
    dst->cpu_threads_used = src->cpu_threads_used;
    if ((src->json && !(dst->json = xstrdup(src->json))) || !(dst->date = xstrdup(src->date)) ||
        !(dst->hostname = xstrdup(src->hostname)) || !(dst->cpu_model = xstrdup(src->cpu_model)) ||
        !(dst->gpu_name = xstrdup(src->gpu_name)) || value_copy(&dst->f_cpu_model, &src->f_cpu_model) ||
        value_copy(&dst->f_gpu_name, &src->f_gpu_name) || value_copy(&dst->f_gpu_driver, &src->f_gpu_driver) ||
        value_copy(&dst->f_nvidia_driver, &src->f_nvidia_driver) ||
        value_copy(&dst->f_threads, &src->f_threads) || value_copy(&dst->f_cache_mode, &src->f_cache_mode) ||
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

static int peaks_copy(gb_peaks *dst, const gb_peaks *src) {
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

static void summary_free(gb_summary *s) {
    gb_rm_order_free(&s->order);
    memset(s, 0, sizeof *s);
}

int gb_rm_summary_copy(gb_summary *dst, const gb_summary *src) {
    *dst = *src;
    return gb_rm_order_copy(&dst->order, src->order);
}

/* ---- runs -------------------------------------------------------------------- */

void gb_run_free(gb_run *run) {
    free(run->name);
    free(run->source);
    gb_rm_context_free(&run->context);
    gb_rm_peaks_free(&run->peaks);
    gb_rm_strlist_free(&run->warnings);
    free(run->suite_json);
    free(run->suite_name);
    free(run->health_json);
    summary_free(&run->summary);
    free(run->gpubench_version);
    gb_rm_order_free(&run->order);
    memset(run, 0, sizeof *run);
}

int gb_run_copy(gb_run *dst, const gb_run *src) {
    memset(dst, 0, sizeof *dst);
    dst->complete = src->complete;
    dst->interrupted = src->interrupted;
    if ((src->name && !(dst->name = xstrdup(src->name))) || (src->source && !(dst->source = xstrdup(src->source))) ||
        context_copy(&dst->context, &src->context) != 0 || peaks_copy(&dst->peaks, &src->peaks) != 0 ||
        strlist_copy(&dst->warnings, &src->warnings) != 0 ||
        (src->suite_json && !(dst->suite_json = xstrdup(src->suite_json))) ||
        !(dst->suite_name = xstrdup(src->suite_name)) ||
        (src->health_json && !(dst->health_json = xstrdup(src->health_json))) ||
        gb_rm_summary_copy(&dst->summary, &src->summary) != 0 ||
        (src->gpubench_version && !(dst->gpubench_version = xstrdup(src->gpubench_version)))) {
        gb_run_free(dst);
        return GB_FAIL;
    }
    /* Not the key order: a copied run is written in the schema's order,
     * without keys this gpubench does not know (what merge has always done). */
    return GB_OK;
}

/* ---- results ----------------------------------------------------------------- */

void gb_rm_stats_init(gb_result_stats *s) {
    memset(s, 0, sizeof *s);
    s->min = s->max = s->median = s->mean = s->stddev = s->cv = s->ci95_low = s->ci95_high = NAN;
}

static void verification_free(gb_verification *v) {
    free(v->against);
    free(v->metric);
    free(v->detail);
    gb_rm_order_free(&v->order);
    memset(v, 0, sizeof *v);
}

int gb_rm_verification_empty(gb_verification *v) {
    memset(v, 0, sizeof *v);
    v->status = GB_VS_NOT_CHECKED;
    v->error = v->tolerance = NAN;
    if (!(v->against = xstrdup("")) || !(v->metric = xstrdup("")) || !(v->detail = xstrdup(""))) return -1;
    return 0;
}

static void device_free(gb_device_id *d);

void gb_result_energy_free(gb_result_energy *e) {
    free(e->reason);
    free(e->counter);
    free(e->boundary);
    free(e->phase);
    gb_rm_order_free(&e->order);
    memset(e, 0, sizeof *e);
}

void gb_result_clocks_free(gb_result_clocks *c) {
    gb_rm_strlist_free(&c->reasons);
    gb_rm_order_free(&c->order);
    memset(c, 0, sizeof *c);
}

/* dst's pointers are fresh (or NULL) on return, even on failure */
static int energy_clocks_copy(gb_result *dst, const gb_result *src) {
    gb_result_energy *e = &dst->energy;
    e->reason = e->counter = e->boundary = e->phase = NULL;
    e->order = NULL;
    memset(&dst->clocks.reasons, 0, sizeof dst->clocks.reasons);
    dst->clocks.order = NULL;
    if (src->energy.present &&
        (!(e->reason = xstrdup(src->energy.reason)) || !(e->counter = xstrdup(src->energy.counter)) ||
         !(e->boundary = xstrdup(src->energy.boundary)) || !(e->phase = xstrdup(src->energy.phase)) ||
         gb_rm_order_copy(&e->order, src->energy.order) != 0))
        return -1;
    if (strlist_copy(&dst->clocks.reasons, &src->clocks.reasons) != 0 ||
        gb_rm_order_copy(&dst->clocks.order, src->clocks.order) != 0)
        return -1;
    return 0;
}

static void result_free(gb_result *r) {
    free(r->backend);
    free(r->timing);
    free(r->reason);
    free(r->round_sizes);
    free(r->samples);
    gb_rm_order_free(&r->stats.order);
    free(r->peak);
    verification_free(&r->verification);
    gb_kvlist_free(&r->extra);
    device_free(&r->device);
    gb_rm_order_free(&r->concurrent.order);
    gb_result_energy_free(&r->energy);
    gb_result_clocks_free(&r->clocks);
    gb_rm_order_free(&r->order);
    memset(r, 0, sizeof *r);
}

static void device_free(gb_device_id *d) {
    free(d->name);
    free(d->uuid);
    free(d->pci_bus_id);
    gb_rm_order_free(&d->order);
    memset(d, 0, sizeof *d);
}

static int device_copy(gb_device_id *dst, const gb_device_id *src) {
    memset(dst, 0, sizeof *dst);
    if (!src->present) return 0;
    dst->present = 1;
    dst->index = src->index;
    if (!(dst->name = xstrdup(src->name)) || !(dst->uuid = xstrdup(src->uuid)) ||
        !(dst->pci_bus_id = xstrdup(src->pci_bus_id)) || gb_rm_order_copy(&dst->order, src->order) != 0)
        return -1;
    return 0;
}

int gb_device_id_set(gb_device_id *d, long index, const char *name, const char *uuid, const char *pci_bus_id) {
    device_free(d);
    d->present = 1;
    d->index = index;
    if (!(d->name = xstrdup(name ? name : "")) || !(d->uuid = xstrdup(uuid ? uuid : "")) ||
        !(d->pci_bus_id = xstrdup(pci_bus_id ? pci_bus_id : ""))) {
        device_free(d);
        return GB_FAIL;
    }
    return GB_OK;
}

static int result_copy(gb_result *dst, const gb_result *src) {
    *dst = *src;
    dst->backend = dst->timing = dst->reason = dst->peak = NULL;
    dst->round_sizes = NULL;
    dst->samples = NULL;
    dst->stats.order = NULL;
    dst->order = NULL;
    memset(&dst->verification, 0, sizeof dst->verification);
    memset(&dst->extra, 0, sizeof dst->extra);
    memset(&dst->device, 0, sizeof dst->device);
    dst->concurrent.order = NULL; /* before any failure: nothing of src's may be freed with dst */
    if (energy_clocks_copy(dst, src) != 0) return -1;
    if (device_copy(&dst->device, &src->device) != 0) return -1;
    if (gb_rm_order_copy(&dst->concurrent.order, src->concurrent.order) != 0) return -1;
    if (!(dst->backend = xstrdup(src->backend)) || !(dst->timing = xstrdup(src->timing)) ||
        !(dst->reason = xstrdup(src->reason)) || (src->peak && !(dst->peak = xstrdup(src->peak))))
        return -1;
    if (src->nrounds) {
        if (!(dst->round_sizes = malloc(src->nrounds * sizeof *dst->round_sizes))) return -1;
        memcpy(dst->round_sizes, src->round_sizes, src->nrounds * sizeof *dst->round_sizes);
    }
    if (src->nsamples) {
        if (!(dst->samples = malloc(src->nsamples * sizeof *dst->samples))) return -1;
        memcpy(dst->samples, src->samples, src->nsamples * sizeof *dst->samples);
    }
    dst->verification = src->verification;
    dst->verification.against = dst->verification.metric = dst->verification.detail = NULL;
    dst->verification.order = NULL;
    if (!(dst->verification.against = xstrdup(src->verification.against)) ||
        !(dst->verification.metric = xstrdup(src->verification.metric)) ||
        !(dst->verification.detail = xstrdup(src->verification.detail)) ||
        gb_rm_order_copy(&dst->verification.order, src->verification.order) != 0 ||
        gb_rm_order_copy(&dst->stats.order, src->stats.order) != 0 || gb_kvlist_copy(&dst->extra, &src->extra) != 0 ||
        gb_rm_order_copy(&dst->order, src->order) != 0)
        return -1;
    return 0;
}

/* ---- cases ------------------------------------------------------------------- */

void gb_case_result_free(gb_case_result *c) {
    free(c->op);
    free(c->dtype);
    free(c->label);
    free(c->shape);
    gb_kvlist_free(&c->params);
    free(c->rate_kind);
    for (size_t i = 0; i < c->nresults; i++) result_free(&c->results[i]);
    free(c->results);
    for (size_t i = 0; i < c->nspeedups; i++) free(c->speedups[i].timing);
    free(c->speedups);
    gb_rm_order_free(&c->order);
    memset(c, 0, sizeof *c);
}

int gb_result_copy(gb_result *dst, const gb_result *src) {
    gb_result tmp;
    if (result_copy(&tmp, src) != 0) {
        result_free(&tmp);
        return GB_FAIL;
    }
    result_free(dst);
    *dst = tmp;
    return GB_OK;
}

int gb_case_result_copy(gb_case_result *dst, const gb_case_result *src) {
    *dst = *src;
    dst->op = dst->dtype = dst->label = dst->rate_kind = NULL;
    dst->shape = NULL;
    memset(&dst->params, 0, sizeof dst->params);
    dst->results = NULL;
    dst->nresults = 0;
    dst->speedups = NULL;
    dst->nspeedups = 0;
    dst->order = NULL;
    if (!(dst->op = xstrdup(src->op)) || !(dst->dtype = xstrdup(src->dtype)) || !(dst->label = xstrdup(src->label)) ||
        !(dst->rate_kind = xstrdup(src->rate_kind)) || gb_kvlist_copy(&dst->params, &src->params) != 0 ||
        gb_rm_order_copy(&dst->order, src->order) != 0)
        goto fail;
    if (src->rank) {
        if (!(dst->shape = malloc(src->rank * sizeof *dst->shape))) goto fail;
        memcpy(dst->shape, src->shape, src->rank * sizeof *dst->shape);
    }
    if (src->nresults && !(dst->results = calloc(src->nresults, sizeof *dst->results))) goto fail;
    for (size_t i = 0; i < src->nresults; i++, dst->nresults++)
        if (result_copy(&dst->results[i], &src->results[i]) != 0) {
            dst->nresults++;
            goto fail;
        }
    if (src->nspeedups && !(dst->speedups = calloc(src->nspeedups, sizeof *dst->speedups))) goto fail;
    for (size_t i = 0; i < src->nspeedups; i++, dst->nspeedups++) {
        dst->speedups[i] = src->speedups[i];
        if (!(dst->speedups[i].timing = xstrdup(src->speedups[i].timing))) goto fail;
    }
    return GB_OK;
fail:
    gb_case_result_free(dst);
    return GB_FAIL;
}

/* ---- crossover entries ------------------------------------------------------- */

void gb_crossover_entry_free(gb_crossover_entry *x) {
    free(x->op);
    free(x->dtype);
    gb_kvlist_free(&x->params);
    free(x->timing);
    free(x->status);
    free(x->size_measure);
    for (size_t i = 0; i < x->nchanges; i++) {
        free(x->changes[i].to);
        gb_rm_order_free(&x->changes[i].order);
    }
    free(x->changes);
    gb_rm_order_free(&x->order);
    memset(x, 0, sizeof *x);
}

int gb_crossover_entry_copy(gb_crossover_entry *dst, const gb_crossover_entry *src) {
    *dst = *src;
    dst->op = dst->dtype = dst->timing = dst->status = dst->size_measure = NULL;
    memset(&dst->params, 0, sizeof dst->params);
    dst->changes = NULL;
    dst->nchanges = 0;
    dst->order = NULL;
    if (!(dst->op = xstrdup(src->op)) || !(dst->dtype = xstrdup(src->dtype)) || !(dst->timing = xstrdup(src->timing)) ||
        !(dst->status = xstrdup(src->status)) || !(dst->size_measure = xstrdup(src->size_measure)) ||
        gb_kvlist_copy(&dst->params, &src->params) != 0 || gb_rm_order_copy(&dst->order, src->order) != 0)
        goto fail;
    if (src->nchanges && !(dst->changes = calloc(src->nchanges, sizeof *dst->changes))) goto fail;
    for (size_t i = 0; i < src->nchanges; i++, dst->nchanges++) {
        dst->changes[i] = src->changes[i];
        dst->changes[i].to = NULL;
        dst->changes[i].order = NULL;
        if (!(dst->changes[i].to = xstrdup(src->changes[i].to)) ||
            gb_rm_order_copy(&dst->changes[i].order, src->changes[i].order) != 0) {
            dst->nchanges++;
            goto fail;
        }
    }
    return GB_OK;
fail:
    gb_crossover_entry_free(dst);
    return GB_FAIL;
}

/* ---- the document ------------------------------------------------------------ */

void gb_results_free(gb_results *r) {
    free(r->name);
    free(r->gpubench_version);
    free(r->interrupted_by);
    for (size_t i = 0; i < r->nruns; i++) gb_run_free(&r->runs[i]);
    free(r->runs);
    gb_rm_strlist_free(&r->warnings);
    for (size_t i = 0; i < r->ncases; i++) gb_case_result_free(&r->cases[i]);
    free(r->cases);
    for (size_t i = 0; i < r->ncrossover; i++) gb_crossover_entry_free(&r->crossover[i]);
    free(r->crossover);
    summary_free(&r->summary);
    free(r->time_breakdown_json);
    gb_rm_order_free(&r->order);
    memset(r, 0, sizeof *r);
}

/* ---- building ---------------------------------------------------------------- */

int gb_set_string(char **field, const char *value) {
    char *copy = xstrdup(value);
    if (!copy) return GB_FAIL;
    free(*field);
    *field = copy;
    return GB_OK;
}

static int run_empty(gb_run *run) {
    memset(run, 0, sizeof *run);
    run->complete = run->interrupted = -1;
    run->summary.cases = run->summary.results = run->summary.ok = run->summary.skipped = run->summary.failed =
        run->summary.errors = run->summary.not_reached = -1;
    if (gb_rm_context_empty(&run->context) != 0 || !(run->suite_name = xstrdup(""))) {
        gb_run_free(run);
        return -1;
    }
    return 0;
}

/* Grow an array of n elements of size sz by one, zeroed; NULL on out of memory. */
static void *grow_one(void **arr, size_t n, size_t sz) {
    char *bigger = realloc(*arr, (n + 1) * sz);
    if (!bigger) return NULL;
    *arr = bigger;
    memset(bigger + n * sz, 0, sz);
    return bigger + n * sz;
}

gb_run *gb_results_add_run(gb_results *r) {
    gb_run *run = grow_one((void **)&r->runs, r->nruns, sizeof *r->runs);
    if (!run || run_empty(run) != 0) return NULL;
    r->nruns++;
    return run;
}

gb_case_result *gb_results_add_case(gb_results *r) {
    gb_case_result *c = grow_one((void **)&r->cases, r->ncases, sizeof *r->cases);
    if (!c) return NULL;
    c->flops = c->bytes = NAN;
    if (!(c->op = xstrdup("")) || !(c->dtype = xstrdup("")) || !(c->label = xstrdup("")) ||
        !(c->rate_kind = xstrdup(""))) {
        gb_case_result_free(c);
        return NULL;
    }
    r->ncases++;
    return c;
}

gb_result *gb_case_add_result(gb_case_result *c) {
    gb_result *r = grow_one((void **)&c->results, c->nresults, sizeof *c->results);
    if (!r) return NULL;
    r->setup_s = r->verify_s = r->gflops = r->gbs = r->pct_of_peak = NAN;
    r->warmup_reps = -1;
    gb_rm_stats_init(&r->stats);
    if (!(r->backend = xstrdup("")) || !(r->timing = xstrdup("")) || !(r->reason = xstrdup("")) ||
        gb_rm_verification_empty(&r->verification) != 0) {
        result_free(r);
        return NULL;
    }
    c->nresults++;
    return r;
}

int gb_results_init(gb_results *r, const char *name, int merged, gb_err *e) {
    memset(r, 0, sizeof *r);
    r->merged = merged;
    r->complete = r->interrupted = -1;
    r->summary.cases = r->summary.results = r->summary.ok = r->summary.skipped = r->summary.failed =
        r->summary.errors = r->summary.not_reached = -1;
    if (!(r->name = xstrdup(name)) || (!merged && !gb_results_add_run(r))) {
        gb_results_free(r);
        return gb_errf(e, GB_FAIL, "%s: out of memory", name);
    }
    return GB_OK;
}
