/* export.c — Google Benchmark and github-action-benchmark JSON. */
#include "export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "results_io.h"

static const char *str_of(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num_of(const cJSON *o, const char *k, double dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Summary of the samples, computed here rather than read from "stats" so an
 * export always matches the samples it lists. */
typedef struct { size_t n; double mean, median, stddev, lo95, hi95; } summ;

static int summarise(const cJSON *r, double **out, summ *s) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(r, "samples_s");
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    if (n <= 0 || strcmp(str_of(r, "status"), "ok") != 0) return 0;
    double *v = malloc((size_t)n * sizeof *v);
    if (!v) return -1;
    size_t k = 0;
    for (const cJSON *x = arr->child; x; x = x->next)
        if (cJSON_IsNumber(x) && isfinite(x->valuedouble)) v[k++] = x->valuedouble;
    if (k == 0) { free(v); return 0; }
    double *sorted = malloc(k * sizeof *sorted);
    if (!sorted) { free(v); return -1; }
    memcpy(sorted, v, k * sizeof *v);
    qsort(sorted, k, sizeof *sorted, cmp_d);
    double sum = 0, ss = 0;
    for (size_t i = 0; i < k; i++) sum += v[i];
    s->n = k;
    s->mean = sum / (double)k;
    for (size_t i = 0; i < k; i++) ss += (v[i] - s->mean) * (v[i] - s->mean);
    s->stddev = k > 1 ? sqrt(ss / (double)(k - 1)) : 0.0;
    s->median = k % 2 ? sorted[k / 2] : 0.5 * (sorted[k / 2 - 1] + sorted[k / 2]);
    /* the run's own distribution-free median interval when present */
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(r, "stats");
    s->lo95 = num_of(st, "ci95_low", sorted[0]);
    s->hi95 = num_of(st, "ci95_high", sorted[k - 1]);
    free(sorted);
    *out = v;
    return 1;
}

/* machine suffix for names only when the file holds several machines */
static const char *machine_of(const cJSON *doc, const cJSON *c) {
    if (gb_results_run_count(doc) < 2) return NULL;
    return gb_results_run_name_json(doc, gb_results_case_run(c));
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

cJSON *gb_export_gbench_doc(const cJSON *results) {
    cJSON *doc = cJSON_CreateObject();
    const cJSON *run0 = gb_results_run(results, 0);
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(run0, "context");
    const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(ctx, "cpu");
    cJSON *gc = cJSON_AddObjectToObject(doc, "context");
    cJSON_AddStringToObject(gc, "date", str_of(ctx, "date"));
    cJSON_AddStringToObject(gc, "host_name", str_of(ctx, "hostname"));
    cJSON_AddStringToObject(gc, "executable", "gpubench");
    cJSON_AddNumberToObject(gc, "num_cpus", num_of(cpu, "logical_cpus", 0));
    cJSON_AddNumberToObject(gc, "mhz_per_cpu", 0); /* not measured by gpubench */
    cJSON_AddBoolToObject(gc, "cpu_scaling_enabled", 0);
    cJSON_AddArrayToObject(gc, "caches");
    cJSON_AddArrayToObject(gc, "load_avg");
    cJSON_AddStringToObject(gc, "library_build_type", "release");
    /* extra keys are allowed in Google Benchmark's context (custom context) */
    cJSON_AddStringToObject(gc, "gpubench_version", str_of(results, "gpubench_version"));
    cJSON_AddStringToObject(gc, "gpu", str_of(cJSON_GetObjectItemCaseSensitive(ctx, "gpu"), "name"));
    cJSON_AddStringToObject(gc, "cpu", str_of(cpu, "model"));
    cJSON *benches = cJSON_AddArrayToObject(doc, "benchmarks");

    /* A family is what Google Benchmark calls one benchmark function with
     * several argument sets: here op/dtype/params/backend/timing(/machine);
     * its instances are the shapes. */
    char (*families)[256] = NULL;
    int *instances = NULL, nfam = 0;
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(results, "cases");
    for (const cJSON *c = cases ? cases->child : NULL; c; c = c->next) {
        const cJSON *rs = cJSON_GetObjectItemCaseSensitive(c, "results");
        for (const cJSON *r = rs ? rs->child : NULL; r; r = r->next) {
            double *v = NULL;
            summ s;
            int got = summarise(r, &v, &s);
            if (got < 0) goto oom;
            if (got == 0) continue;
            const char *machine = machine_of(results, c);
            char name[400], fam[256];
            gb_result_name(c, r, machine, name, sizeof name);
            snprintf(fam, sizeof fam, "%s/%s/%s/%s/%s", str_of(c, "op"), str_of(c, "dtype"), str_of(r, "backend"),
                     str_of(r, "timing"), machine ? machine : "");
            char *pj = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(c, "params"));
            if (pj) { strncat(fam, pj, sizeof fam - strlen(fam) - 1); free(pj); }
            int f = 0;
            while (f < nfam && strcmp(families[f], fam) != 0) f++;
            if (f == nfam) {
                void *nf = realloc(families, (size_t)(nfam + 1) * sizeof *families);
                if (!nf) { free(v); goto oom; }
                families = nf;
                int *ni = realloc(instances, (size_t)(nfam + 1) * sizeof *ni);
                if (!ni) { free(v); goto oom; }
                instances = ni;
                snprintf(families[nfam], sizeof families[nfam], "%s", fam);
                instances[nfam++] = 0;
            }
            int inst = instances[f]++;
            for (size_t i = 0; i < s.n; i++) {
                cJSON *b = gbench_entry(name, name, f, inst, "iteration", s.n);
                cJSON_AddNumberToObject(b, "repetition_index", (double)i);
                cJSON_AddNumberToObject(b, "threads", 1);
                cJSON_AddNumberToObject(b, "iterations", 1);
                /* one sample = one iteration; gpubench measures wall (or
                 * device) time only, so cpu_time repeats it */
                cJSON_AddNumberToObject(b, "real_time", v[i] * 1e3);
                cJSON_AddNumberToObject(b, "cpu_time", v[i] * 1e3);
                cJSON_AddStringToObject(b, "time_unit", "ms");
                cJSON_AddItemToArray(benches, b);
            }
            static const char *const agg[] = {"mean", "median", "stddev", "cv"};
            double val[] = {s.mean, s.median, s.stddev, s.mean > 0 ? s.stddev / s.mean : 0};
            for (int a = 0; a < 4; a++) {
                char an[420];
                snprintf(an, sizeof an, "%s_%s", name, agg[a]);
                cJSON *b = gbench_entry(an, name, f, inst, "aggregate", s.n);
                cJSON_AddNumberToObject(b, "threads", 1);
                cJSON_AddStringToObject(b, "aggregate_name", agg[a]);
                cJSON_AddStringToObject(b, "aggregate_unit", a == 3 ? "percentage" : "time");
                cJSON_AddNumberToObject(b, "iterations", (double)s.n);
                double x = a == 3 ? val[a] : val[a] * 1e3;
                cJSON_AddNumberToObject(b, "real_time", x);
                cJSON_AddNumberToObject(b, "cpu_time", x);
                cJSON_AddStringToObject(b, "time_unit", "ms");
                cJSON_AddItemToArray(benches, b);
            }
            free(v);
        }
    }
    free(families);
    free(instances);
    return doc;
oom:
    free(families);
    free(instances);
    cJSON_Delete(doc);
    return NULL;
}

cJSON *gb_export_benchmark_action_doc(const cJSON *results) {
    cJSON *arr = cJSON_CreateArray();
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(results, "cases");
    for (const cJSON *c = cases ? cases->child : NULL; c; c = c->next) {
        const cJSON *rs = cJSON_GetObjectItemCaseSensitive(c, "results");
        for (const cJSON *r = rs ? rs->child : NULL; r; r = r->next) {
            double *v = NULL;
            summ s;
            int got = summarise(r, &v, &s);
            if (got < 0) { cJSON_Delete(arr); return NULL; }
            if (got == 0) continue;
            free(v);
            const char *machine = machine_of(results, c);
            char name[400], range[64], extra[300];
            gb_result_name(c, r, machine, name, sizeof name);
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "name", name);
            cJSON_AddStringToObject(e, "unit", "ms");
            cJSON_AddNumberToObject(e, "value", s.median * 1e3);
            snprintf(range, sizeof range, "± %.4g", 0.5 * (s.hi95 - s.lo95) * 1e3);
            cJSON_AddStringToObject(e, "range", range);
            const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(gb_results_run(results, gb_results_case_run(c)), "context");
            int n = snprintf(extra, sizeof extra, "median of %zu samples; 95%% CI [%.4g, %.4g] ms", s.n,
                             s.lo95 * 1e3, s.hi95 * 1e3);
            double gf = num_of(r, "gflops", NAN), gb = num_of(r, "gbs", NAN);
            if (isfinite(gf) && n < (int)sizeof extra) n += snprintf(extra + n, sizeof extra - (size_t)n, "; %.4g GFLOP/s", gf);
            if (isfinite(gb) && n < (int)sizeof extra) n += snprintf(extra + n, sizeof extra - (size_t)n, "; %.4g GB/s", gb);
            const char *gpu = str_of(cJSON_GetObjectItemCaseSensitive(ctx, "gpu"), "name");
            if (*gpu && n < (int)sizeof extra) snprintf(extra + n, sizeof extra - (size_t)n, "; %s", gpu);
            cJSON_AddStringToObject(e, "extra", extra);
            cJSON_AddItemToArray(arr, e);
        }
    }
    return arr;
}

static int emit(cJSON *doc, const char *path, char *why, unsigned long why_len) {
    if (!doc) {
        snprintf(why, why_len, "%s: out of memory", path);
        return -1;
    }
    int rc = gb_results_write_atomic(doc, path, why, why_len);
    cJSON_Delete(doc);
    return rc;
}

int gb_export_gbench(const cJSON *results, const char *path, char *why, unsigned long why_len) {
    return emit(gb_export_gbench_doc(results), path, why, why_len);
}

int gb_export_benchmark_action(const cJSON *results, const char *path, char *why, unsigned long why_len) {
    return emit(gb_export_benchmark_action_doc(results), path, why, why_len);
}

int gb_export_file(const char *results_path, gb_export_format f, const char *path, char *why,
                   unsigned long why_len) {
    cJSON *doc = gb_results_load_json(results_path, why, why_len);
    if (!doc) return -1;
    int rc = f == GB_EXPORT_GBENCH ? gb_export_gbench(doc, path, why, why_len)
                                   : gb_export_benchmark_action(doc, path, why, why_len);
    cJSON_Delete(doc);
    return rc;
}
