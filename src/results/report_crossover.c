/* report_crossover.c — the size at which the GPU starts to win.
 *
 * Cases are grouped by (op, dtype, params); each group is a size sweep. For
 * each timing (device-resident, end-to-end) the speedups along the sweep are
 * handed to gb_crossover_find, which interpolates in log-log space: speedup
 * curves are close to power laws in the size, so a straight line between two
 * neighbouring points in log-log is the natural model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "results_io.h"

const char *gb_crossover_status_name(gb_crossover_status s) {
    switch (s) {
    case GB_CROSS_INTERPOLATED: return "interpolated";
    case GB_CROSS_BELOW_SMALLEST: return "below_smallest";
    case GB_CROSS_NOT_REACHED: return "not_reached";
    default: return "no_data";
    }
}

typedef struct {
    double logsize, logspeed;
} pt;

static int pt_cmp(const void *a, const void *b) {
    double x = ((const pt *)a)->logsize, y = ((const pt *)b)->logsize;
    return (x > y) - (x < y);
}

gb_crossover_status gb_crossover_find(const double *size, const double *speedup, size_t n,
                                      gb_crossover *x) {
    memset(x, 0, sizeof *x);
    x->status = GB_CROSS_NO_DATA;
    x->size = x->lo = x->hi = x->tested_min = x->tested_max = NAN;
    pt *p = n ? malloc(n * sizeof *p) : NULL;
    if (!p) return x->status;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(size[i]) && size[i] > 0 && isfinite(speedup[i]) && speedup[i] > 0)) continue;
        p[m].logsize = log(size[i]);
        p[m].logspeed = log(speedup[i]);
        m++;
    }
    qsort(p, m, sizeof *p, pt_cmp);
    /* Merge repeated sizes: the mean of log-speedups is the geometric mean. */
    size_t k = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        double sum = 0;
        while (j < m && p[j].logsize == p[i].logsize) sum += p[j++].logspeed;
        p[k].logsize = p[i].logsize;
        p[k].logspeed = sum / (double)(j - i);
        k++;
        i = j;
    }
    if (k == 0) {
        free(p);
        return x->status;
    }
    x->points = (int)k;
    x->tested_min = exp(p[0].logsize);
    x->tested_max = exp(p[k - 1].logsize);
    for (size_t i = 1; i < k; i++)
        if ((p[i].logspeed >= 0) != (p[i - 1].logspeed >= 0)) x->sign_changes++;
    if (p[0].logspeed >= 0) {
        x->status = GB_CROSS_BELOW_SMALLEST;
    } else {
        x->status = GB_CROSS_NOT_REACHED;
        for (size_t i = 1; i < k; i++) {
            if (p[i].logspeed < 0) continue;
            /* p[i-1] loses (log < 0), p[i] wins (log >= 0): the zero of the
             * line through them. The denominator is > 0. */
            double t = -p[i - 1].logspeed / (p[i].logspeed - p[i - 1].logspeed);
            x->size = exp(p[i - 1].logsize + t * (p[i].logsize - p[i - 1].logsize));
            x->lo = exp(p[i - 1].logsize);
            x->hi = exp(p[i].logsize);
            x->status = GB_CROSS_INTERPOLATED;
            break;
        }
    }
    free(p);
    return x->status;
}

double gb_case_scalar_size(const cJSON *case_obj, int *square) {
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(case_obj, "shape");
    if (square) *square = 0;
    int n = cJSON_GetArraySize(shape);
    if (!cJSON_IsArray(shape) || n == 0) return 0;
    double sumlog = 0, first = 0;
    int eq = 1;
    for (int i = 0; i < n; i++) {
        const cJSON *d = cJSON_GetArrayItem(shape, i);
        if (!cJSON_IsNumber(d) || d->valuedouble <= 0) return 0;
        if (i == 0) first = d->valuedouble;
        if (d->valuedouble != first) eq = 0;
        sumlog += log(d->valuedouble);
    }
    if (square) *square = eq;
    return eq ? first : exp(sumlog / n);
}

static const char *str_of(const cJSON *o, const char *key) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(s) ? s->valuestring : "";
}

/* The speedup of a case for a timing, or 0 when absent / not a number. */
static double case_speedup(const cJSON *c, const char *timing) {
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(c, "speedup");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sp, timing);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int same_group(const cJSON *a, const cJSON *b) {
    if (gb_results_case_run(a) != gb_results_case_run(b)) return 0;
    if (strcmp(str_of(a, "op"), str_of(b, "op")) || strcmp(str_of(a, "dtype"), str_of(b, "dtype")))
        return 0;
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(a, "params");
    const cJSON *pb = cJSON_GetObjectItemCaseSensitive(b, "params");
    if (!pa && !pb) return 1;
    return pa && pb && cJSON_Compare(pa, pb, 1);
}

static cJSON *entry(const cJSON *first, const char *timing, const gb_crossover *x, int all_square) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "op", str_of(first, "op"));
    cJSON_AddStringToObject(e, "dtype", str_of(first, "dtype"));
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(first, "params");
    cJSON_AddItemToObject(e, "params", params ? cJSON_Duplicate(params, 1) : cJSON_CreateObject());
    cJSON_AddStringToObject(e, "timing", timing);
    if (cJSON_GetObjectItemCaseSensitive(first, "run")) cJSON_AddNumberToObject(e, "run", gb_results_case_run(first));
    if (x->status == GB_CROSS_INTERPOLATED) {
        cJSON_AddNumberToObject(e, "size", x->size);
        cJSON *between = cJSON_AddArrayToObject(e, "between");
        cJSON_AddItemToArray(between, cJSON_CreateNumber(x->lo));
        cJSON_AddItemToArray(between, cJSON_CreateNumber(x->hi));
    } else {
        cJSON_AddNullToObject(e, "size");
    }
    cJSON_AddStringToObject(e, "status", gb_crossover_status_name(x->status));
    cJSON_AddStringToObject(e, "size_measure", all_square ? "n" : "geometric_mean_of_shape");
    cJSON_AddNumberToObject(e, "tested_min", x->tested_min);
    cJSON_AddNumberToObject(e, "tested_max", x->tested_max);
    cJSON_AddNumberToObject(e, "points", x->points);
    cJSON_AddNumberToObject(e, "sign_changes", x->sign_changes);
    return e;
}

cJSON *gb_crossover_compute(const cJSON *results) {
    static const char *const timings[] = {"device", "end_to_end"};
    cJSON *out = cJSON_CreateArray();
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(results, "cases");
    int n = cJSON_GetArraySize(cases);
    if (n <= 0) return out;
    char *done = calloc((size_t)n, 1);
    double *size = malloc((size_t)n * sizeof *size), *sp = malloc((size_t)n * sizeof *sp);
    if (!done || !size || !sp) goto end;
    for (int i = 0; i < n; i++) {
        if (done[i]) continue;
        const cJSON *first = cJSON_GetArrayItem(cases, i);
        for (int t = 0; t < 2; t++) {
            size_t m = 0;
            int all_square = 1;
            for (int j = i; j < n; j++) {
                const cJSON *c = cJSON_GetArrayItem(cases, j);
                if (!same_group(first, c)) continue;
                done[j] = 1;
                int sq;
                size[m] = gb_case_scalar_size(c, &sq);
                sp[m] = case_speedup(c, timings[t]);
                if (size[m] > 0 && sp[m] > 0 && !sq) all_square = 0;
                m++;
            }
            gb_crossover x;
            if (gb_crossover_find(size, sp, m, &x) == GB_CROSS_NO_DATA) continue;
            cJSON_AddItemToArray(out, entry(first, timings[t], &x, all_square));
        }
    }
end:
    free(done);
    free(size);
    free(sp);
    return out;
}

void gb_report_crossover(cJSON *results) {
    if (!cJSON_IsObject(results)) return;
    cJSON *x = gb_crossover_compute(results);
    if (cJSON_HasObjectItem(results, "crossover"))
        cJSON_ReplaceItemInObjectCaseSensitive(results, "crossover", x);
    else
        cJSON_AddItemToObject(results, "crossover", x);
}
