/* export.c — Google Benchmark and github-action-benchmark JSON. */
#include "export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_index.h"
#include "compare.h"
#include "results_io.h"
#include "results_model.h"
#include "stats.h"

/* The summary of an ok result's samples, from src/core/stats.h: the same
 * statistics the run stored, recomputed from the samples listed so an export
 * always matches them. 0 when the result is not exported (not ok, or no
 * samples). */
typedef struct { size_t n; double mean, median, stddev, lo95, hi95; } summ;

static int summarise(const gb_result *r, summ *s) {
    if (r->nsamples == 0 || r->status != GB_RS_OK) return 0;
    gb_stats st;
    gb_stats_compute(r->samples, r->nsamples, &st);
    s->n = st.n;
    s->mean = st.mean;
    s->median = st.median;
    s->stddev = st.stddev;
    /* the run's own median interval (widened to its rounds) when stored */
    s->lo95 = isnan(r->stats.ci95_low) ? st.min : r->stats.ci95_low;
    s->hi95 = isnan(r->stats.ci95_high) ? st.max : r->stats.ci95_high;
    return 1;
}

/* machine suffix for names only when the file holds several machines */
static const char *machine_of(const gb_results *doc, const gb_case_result *c) {
    if (doc->nruns < 2) return NULL;
    return gb_results_run_name(doc, c->run);
}

static cJSON *gbench_entry(const char *name, const char *run_name, int fam, int inst, const char *run_type,
                           size_t reps) {
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "name", name);
    cJSON_AddNumberToObject(b, "family_index", fam);
    cJSON_AddNumberToObject(b, "per_family_instance_index", inst);
    cJSON_AddStringToObject(b, "run_name", run_name);
    cJSON_AddStringToObject(b, "run_type", run_type);
    cJSON_AddNumberToObject(b, "repetitions", (double)reps);
    return b;
}

/* Families by name in constant time (a scan of every family made an export
 * of 20,000 cases quadratic). */
typedef struct {
    char (*names)[256];
    const char *probe;
} family_probe;

/* Energy and clocks as Google Benchmark user counters (docs/energy.md):
 * keys beside real_time, as benchmark::State::counters writes them; only
 * what was measured (a counter of 0 would read as a measurement). */
static void energy_counters(cJSON *b, const gb_result *r) {
    const gb_result_energy *e = &r->energy;
    if (e->present && e->measured) {
        const char *key[] = {"joules_per_op", "above_idle_joules_per_op", "watts", "energy_bound", "gflop_per_joule",
                             "gb_per_joule", "energy_ratio"};
        const double v[] = {e->j_per_op, e->above_idle_j_per_op, e->power_w, e->bound, e->gflop_per_j, e->gb_per_j,
                            e->energy_ratio};
        for (int i = 0; i < 7; i++)
            if (isfinite(v[i])) cJSON_AddNumberToObject(b, key[i], v[i]);
    }
    if (r->clocks.present && isfinite(r->clocks.sm_mhz)) {
        cJSON_AddNumberToObject(b, "sm_mhz", r->clocks.sm_mhz);
        if (isfinite(r->clocks.mem_mhz)) cJSON_AddNumberToObject(b, "mem_mhz", r->clocks.mem_mhz);
        cJSON_AddNumberToObject(b, "power_limited", r->clocks.power_limited == 1);
        cJSON_AddNumberToObject(b, "thermal_limited", r->clocks.thermal_limited == 1);
    }
}

static int same_family(const void *ctx, size_t f) {
    const family_probe *q = ctx;
    return strcmp(q->names[f], q->probe) == 0;
}

/* The threads a result ran on, as Google Benchmark's "threads" says: what
 * the backend recorded (extra.threads: the CPU side's pool), else the run's
 * CPU threads for the host backend, else 1 (a GPU result: one host thread
 * drives the device). */
static double threads_of(const gb_results *doc, const gb_case_result *c, const gb_result *r) {
    const gb_value *t = gb_kv_find(&r->extra, "threads");
    if (t && t->kind == GB_VAL_NUMBER && t->num >= 1) return t->num;
    const gb_run *run = c->run >= 0 && (size_t)c->run < doc->nruns ? &doc->runs[c->run] : NULL;
    if (run && !strcmp(r->backend, "cpu") && run->context.cpu_threads_used >= 1) return run->context.cpu_threads_used;
    return 1;
}

/* One result in Google Benchmark's shape: a row per repetition and the
 * mean, median, stddev and cv aggregates over them, as
 * --benchmark_repetitions=N writes them. A repetition is one of gpubench's
 * rounds (a separate pass over the suite: what Google Benchmark's
 * repetitions are for); its "iterations" are the round's timed
 * repetitions and its time their median (gpubench's per-round value; Google
 * Benchmark's is their mean, which one stalled repetition can move).
 * A result without its rounds recorded is one repetition of all samples. */
static int gbench_result(cJSON *benches, const gb_results *doc, const gb_case_result *c, const gb_result *r,
                         const char *name, int fam, int inst) {
    size_t reps = 1;
    size_t total = 0;
    for (size_t k = 0; k < r->nrounds; k++) total += r->round_sizes[k];
    if (r->nrounds > 1 && total == r->nsamples) reps = r->nrounds;
    double *value = malloc(reps * sizeof *value);
    if (!value) return GB_FAIL;
    double threads = threads_of(doc, c, r);
    /* the result's unit, as Google Benchmark's --benchmark_time_unit: the
     * one its median reads between 1 and 1000 in (compare.py prints whole
     * units: 3 us in ms reads 0) */
    double scale = 1e9;
    const char *unit = "ns";
    gb_stats all;
    gb_stats_compute(r->samples, r->nsamples, &all);
    const double whole = all.median;
    if (whole >= 1.0) scale = 1, unit = "s";
    else if (whole >= 1e-3) scale = 1e3, unit = "ms";
    else if (whole >= 1e-6) scale = 1e6, unit = "us";
    for (size_t k = 0, at = 0; k < reps; k++) {
        size_t n = reps == 1 ? r->nsamples : r->round_sizes[k];
        gb_stats st;
        gb_stats_compute(r->samples + at, n, &st);
        at += n;
        value[k] = st.median;
        cJSON *b = gbench_entry(name, name, fam, inst, "iteration", reps);
        cJSON_AddNumberToObject(b, "repetition_index", (double)k);
        cJSON_AddNumberToObject(b, "threads", threads);
        cJSON_AddNumberToObject(b, "iterations", (double)n);
        /* gpubench measures wall (or device) time only: cpu_time repeats it */
        cJSON_AddNumberToObject(b, "real_time", st.median * scale);
        cJSON_AddNumberToObject(b, "cpu_time", st.median * scale);
        cJSON_AddStringToObject(b, "time_unit", unit);
        energy_counters(b, r);
        cJSON_AddItemToArray(benches, b);
    }
    gb_stats over;
    gb_stats_compute(value, reps, &over);
    free(value);
    static const char *const agg[] = {"mean", "median", "stddev", "cv"};
    double stddev = reps > 1 ? over.stddev : 0;
    double val[] = {over.mean, over.median, stddev, over.mean > 0 ? stddev / over.mean : 0};
    for (int a = 0; a < 4; a++) {
        char an[420];
        snprintf(an, sizeof an, "%s_%s", name, agg[a]);
        cJSON *b = gbench_entry(an, name, fam, inst, "aggregate", reps);
        cJSON_AddNumberToObject(b, "threads", threads);
        cJSON_AddStringToObject(b, "aggregate_name", agg[a]);
        cJSON_AddStringToObject(b, "aggregate_unit", a == 3 ? "percentage" : "time");
        cJSON_AddNumberToObject(b, "iterations", (double)reps); /* as Google Benchmark: the repetitions aggregated */
        double x = a == 3 ? val[a] : val[a] * scale;
        cJSON_AddNumberToObject(b, "real_time", x);
        cJSON_AddNumberToObject(b, "cpu_time", x);
        cJSON_AddStringToObject(b, "time_unit", unit);
        if (a < 2) energy_counters(b, r); /* mean and median: not on stddev and cv */
        cJSON_AddItemToArray(benches, b);
    }
    return GB_OK;
}

cJSON *gb_export_gbench_doc(const gb_results *results) {
    cJSON *doc = cJSON_CreateObject();
    const gb_context *ctx = &results->runs[0].context;
    cJSON *gc = cJSON_AddObjectToObject(doc, "context");
    cJSON_AddStringToObject(gc, "date", ctx->date);
    cJSON_AddStringToObject(gc, "host_name", ctx->hostname);
    cJSON_AddStringToObject(gc, "executable", "gpubench");
    cJSON_AddNumberToObject(gc, "num_cpus", isnan(ctx->cpu_logical_cpus) ? 0 : ctx->cpu_logical_cpus);
    cJSON_AddNumberToObject(gc, "mhz_per_cpu", 0); /* not measured by gpubench */
    cJSON_AddBoolToObject(gc, "cpu_scaling_enabled", 0);
    cJSON_AddArrayToObject(gc, "caches");
    cJSON_AddArrayToObject(gc, "load_avg");
    cJSON_AddStringToObject(gc, "library_build_type", "release");
    /* extra keys are allowed in Google Benchmark's context (custom context) */
    cJSON_AddStringToObject(gc, "gpubench_version", results->gpubench_version ? results->gpubench_version : "");
    cJSON_AddStringToObject(gc, "gpu", ctx->gpu_name);
    cJSON_AddStringToObject(gc, "cpu", ctx->cpu_model);
    cJSON *benches = cJSON_AddArrayToObject(doc, "benchmarks");

    /* A family is what Google Benchmark calls one benchmark function with
     * several argument sets: here op/dtype/params/backend/timing(/machine);
     * its instances are the shapes. */
    char (*families)[256] = NULL;
    int *instances = NULL, nfam = 0;
    gb_index index;
    if (gb_index_init(&index, results->ncases) != GB_OK) {
        cJSON_Delete(doc);
        return NULL;
    }
    for (size_t ci = 0; ci < results->ncases; ci++) {
        const gb_case_result *c = &results->cases[ci];
        for (size_t ri = 0; ri < c->nresults; ri++) {
            const gb_result *r = &c->results[ri];
            summ s;
            if (!summarise(r, &s)) continue;
            const char *machine = machine_of(results, c);
            char name[400], fam[256];
            gb_result_name(c, r, machine, name, sizeof name);
            char dev[24];
            gb_result_device_tag(r, dev, sizeof dev);
            snprintf(fam, sizeof fam, "%s/%s/%s/%s%s/%s", c->op, c->dtype, r->backend, r->timing, dev, machine ? machine : "");
            char *pj = gb_kvlist_json(&c->params);
            if (pj) { strncat(fam, pj, sizeof fam - strlen(fam) - 1); free(pj); }
            family_probe q = {families, fam};
            uint64_t h = gb_hash_str(GB_HASH_START, fam);
            long found = gb_index_find(&index, h, same_family, &q);
            int f = found < 0 ? nfam : (int)found;
            if (f == nfam) {
                void *nf = realloc(families, (size_t)(nfam + 1) * sizeof *families);
                if (!nf) goto oom;
                families = nf;
                int *ni = realloc(instances, (size_t)(nfam + 1) * sizeof *ni);
                if (!ni) goto oom;
                instances = ni;
                snprintf(families[nfam], sizeof families[nfam], "%s", fam);
                if (gb_index_add(&index, h, (size_t)nfam) != GB_OK) goto oom;
                instances[nfam++] = 0;
            }
            int inst = instances[f]++;
            if (gbench_result(benches, results, c, r, name, f, inst) != GB_OK) goto oom;
        }
    }
    free(families);
    free(instances);
    gb_index_free(&index);
    return doc;
oom:
    free(families);
    free(instances);
    gb_index_free(&index);
    cJSON_Delete(doc);
    return NULL;
}

cJSON *gb_export_benchmark_action_doc(const gb_results *results) {
    cJSON *arr = cJSON_CreateArray();
    for (size_t ci = 0; ci < results->ncases; ci++) {
        const gb_case_result *c = &results->cases[ci];
        for (size_t ri = 0; ri < c->nresults; ri++) {
            const gb_result *r = &c->results[ri];
            summ s;
            if (!summarise(r, &s)) continue;
            const char *machine = machine_of(results, c);
            char name[400], range[64], extra[300];
            gb_result_name(c, r, machine, name, sizeof name);
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "name", name);
            cJSON_AddStringToObject(e, "unit", "ms");
            cJSON_AddNumberToObject(e, "value", s.median * 1e3);
            snprintf(range, sizeof range, "± %.4g", 0.5 * (s.hi95 - s.lo95) * 1e3);
            cJSON_AddStringToObject(e, "range", range);
            const gb_context *ctx = &results->runs[c->run].context;
            int n = snprintf(extra, sizeof extra, "median of %zu samples; 95%% CI [%.4g, %.4g] ms", s.n,
                             s.lo95 * 1e3, s.hi95 * 1e3);
            if (isfinite(r->gflops) && n < (int)sizeof extra) n += snprintf(extra + n, sizeof extra - (size_t)n, "; %.4g GFLOP/s", r->gflops);
            if (isfinite(r->gbs) && n < (int)sizeof extra) n += snprintf(extra + n, sizeof extra - (size_t)n, "; %.4g GB/s", r->gbs);
            const char *gpu = ctx->gpu_name;
            if (*gpu && n < (int)sizeof extra) snprintf(extra + n, sizeof extra - (size_t)n, "; %s", gpu);
            cJSON_AddStringToObject(e, "extra", extra);
            cJSON_AddItemToArray(arr, e);
        }
    }
    return arr;
}

static int emit(cJSON *doc, const char *path, gb_err *e) {
    if (!doc) return gb_errf(e, GB_FAIL, "%s: out of memory", path);
    int rc = gb_json_write_atomic(doc, path, e);
    cJSON_Delete(doc);
    return rc;
}

int gb_export_gbench(const gb_results *results, const char *path, gb_err *e) {
    return emit(gb_export_gbench_doc(results), path, e);
}

int gb_export_benchmark_action(const gb_results *results, const char *path, gb_err *e) {
    return emit(gb_export_benchmark_action_doc(results), path, e);
}

int gb_export_file(const char *results_path, gb_export_format f, const char *path, gb_err *e) {
    gb_results doc;
    if (gb_results_load(results_path, &doc, e) != GB_OK) return GB_FAIL;
    int rc = f == GB_EXPORT_GBENCH ? gb_export_gbench(&doc, path, e) : gb_export_benchmark_action(&doc, path, e);
    gb_results_free(&doc);
    return rc;
}
