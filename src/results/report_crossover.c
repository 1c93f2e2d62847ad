/* report_crossover.c — where the GPU wins along a size sweep, and the words
 * that say so.
 *
 * Cases are grouped by (op, dtype, params); each group is a size sweep. For
 * each timing (device-resident, end-to-end) the speedups along the sweep are
 * handed to gb_crossover_find, which finds every change of winner and
 * interpolates each in log-log space: speedup curves are close to power laws
 * in the size, so a straight line between two neighbouring points in log-log
 * is the natural model. The sentences are built from the stored entry, so
 * every report format and the end of `gpubench run` say the same thing. */
#include <math.h>
#include <stdio.h>
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
    double size, logsize, logspeed;  /* size as given, so tested sizes are stored exactly */
} pt;

static int pt_cmp(const void *a, const void *b) {
    double x = ((const pt *)a)->logsize, y = ((const pt *)b)->logsize;
    return (x > y) - (x < y);
}

/* The usable points of a sweep, sorted by size, repeated sizes merged; *k
 * of them in a malloc'd array (NULL with *k = 0 when none or out of memory). */
static pt *sweep_points(const double *size, const double *speedup, size_t n, size_t *k_out) {
    *k_out = 0;
    pt *p = n ? malloc(n * sizeof *p) : NULL;
    if (!p) return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(size[i]) && size[i] > 0 && isfinite(speedup[i]) && speedup[i] > 0)) continue;
        p[m].size = size[i];
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
        p[k].size = p[i].size;
        p[k].logsize = p[i].logsize;
        p[k].logspeed = sum / (double)(j - i);
        k++;
        i = j;
    }
    if (k == 0) {
        free(p);
        return NULL;
    }
    *k_out = k;
    return p;
}

/* The GPU wins where it is strictly faster: a speedup of exactly 1× is not a
 * GPU win, so "the GPU wins" is never said of a tie. */
static int gpu_wins(const pt *q) { return q->logspeed > 0; }

gb_crossover_status gb_crossover_find(const double *size, const double *speedup, size_t n,
                                      gb_crossover *x) {
    memset(x, 0, sizeof *x);
    x->status = GB_CROSS_NO_DATA;
    x->size = x->lo = x->hi = x->tested_min = x->tested_max = NAN;
    size_t k;
    pt *p = sweep_points(size, speedup, n, &k);
    if (!p) return x->status;
    x->points = (int)k;
    x->tested_min = p[0].size;
    x->tested_max = p[k - 1].size;
    /* Every change of winner, each interpolated on the log-log line through
     * the two tested sizes around it. Its two ends have log-speedups of
     * opposite signs (one > 0, the other <= 0), so the line's zero lies
     * between them and the denominator is never 0. */
    if (k > 1 && !(x->changes = malloc((k - 1) * sizeof *x->changes))) {
        free(p);  /* out of memory: nothing said rather than half of it */
        x->points = 0;
        x->tested_min = x->tested_max = NAN;
        return x->status;
    }
    for (size_t i = 1; i < k; i++) {
        if (gpu_wins(&p[i]) == gpu_wins(&p[i - 1])) continue;
        double t = -p[i - 1].logspeed / (p[i].logspeed - p[i - 1].logspeed);
        gb_crossover_change c = {.size = exp(p[i - 1].logsize + t * (p[i].logsize - p[i - 1].logsize)),
                                 .lo = p[i - 1].size, .hi = p[i].size,
                                 .to_gpu = gpu_wins(&p[i])};
        x->changes[x->sign_changes++] = c;
    }
    if (gpu_wins(&p[0])) {
        x->status = GB_CROSS_BELOW_SMALLEST;
    } else if (x->sign_changes > 0) {
        /* The first change is the first size where the GPU wins. */
        x->status = GB_CROSS_INTERPOLATED;
        x->size = x->changes[0].size;
        x->lo = x->changes[0].lo;
        x->hi = x->changes[0].hi;
    } else {
        x->status = GB_CROSS_NOT_REACHED;
    }
    free(p);
    return x->status;
}

void gb_crossover_free(gb_crossover *x) {
    free(x->changes);
    x->changes = NULL;
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

/* The backend of the case's result for this GPU timing (the one that is
 * not the CPU's), or NULL: read from the data, so no backend is named here. */
static const char *gpu_backend(const cJSON *c, const char *timing) {
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(c, "results")) {
        const char *b = str_of(r, "backend");
        if (*b && strcmp(b, "cpu") && !strcmp(str_of(r, "timing"), timing)) return b;
    }
    return NULL;
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

/* gpu_name: the backend that the GPU side of this sweep ran on, for "to". */
static cJSON *entry(const cJSON *first, const char *timing, const gb_crossover *x, int all_square,
                    const char *gpu_name) {
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
    /* Every change of winner: what a sentence about the sweep needs, and
     * what status alone cannot say (whether the GPU keeps winning). */
    cJSON *changes = cJSON_AddArrayToObject(e, "changes");
    for (int i = 0; i < x->sign_changes; i++) {
        const gb_crossover_change *c = &x->changes[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "size", c->size);
        cJSON_AddNumberToObject(o, "lo", c->lo);
        cJSON_AddNumberToObject(o, "hi", c->hi);
        cJSON_AddStringToObject(o, "to", c->to_gpu ? gpu_name : "cpu");
        cJSON_AddItemToArray(changes, o);
    }
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
            const char *gpu_name = NULL;
            for (int j = i; j < n; j++) {
                const cJSON *c = cJSON_GetArrayItem(cases, j);
                if (!same_group(first, c)) continue;
                done[j] = 1;
                if (!gpu_name) gpu_name = gpu_backend(c, timings[t]);
                int sq;
                size[m] = gb_case_scalar_size(c, &sq);
                sp[m] = case_speedup(c, timings[t]);
                if (size[m] > 0 && sp[m] > 0 && !sq) all_square = 0;
                m++;
            }
            gb_crossover x;
            if (gb_crossover_find(size, sp, m, &x) != GB_CROSS_NO_DATA)
                cJSON_AddItemToArray(out, entry(first, timings[t], &x, all_square, gpu_name ? gpu_name : "gpu"));
            gb_crossover_free(&x);
        }
    }
end:
    free(done);
    free(size);
    free(sp);
    return out;
}

/* ---- the crossover in words ------------------------------------------------ */

/* As the report prints a size: whole numbers from 100 up. */
static void fmt_size(char *buf, size_t len, double v) {
    if (isnan(v)) snprintf(buf, len, "–");
    else if (v >= 100) snprintf(buf, len, "%.0f", v);
    else snprintf(buf, len, "%.3g", v);
}

static double num_of(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A run of neighbouring tested sizes won by one side, from a to b; cross is
 * the interpolated change that began it (NAN for the first). */
typedef struct {
    double a, b, cross;
    int gpu;
} segment;

/* The segments of an entry, in size order, into a malloc'd array; -1 when
 * the entry cannot say (out of memory, or changes counted but not listed, as
 * in files written before "changes" existed). */
static int segments(const cJSON *entry, segment **out) {
    *out = NULL;
    const cJSON *changes = cJSON_GetObjectItemCaseSensitive(entry, "changes");
    int nc = cJSON_IsArray(changes) ? cJSON_GetArraySize(changes) : 0;
    if (!cJSON_IsArray(changes) && num_of(entry, "sign_changes") > 0) return -1;
    segment *sg = malloc((size_t)(nc + 1) * sizeof *sg);
    if (!sg) return -1;
    sg[0].a = num_of(entry, "tested_min");
    sg[0].cross = NAN;
    sg[0].gpu = !strcmp(str_of(entry, "status"), "below_smallest");
    int k = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, changes) {
        sg[k].b = num_of(c, "lo");
        k++;
        sg[k].a = num_of(c, "hi");
        sg[k].cross = num_of(c, "size");
        sg[k].gpu = strcmp(str_of(c, "to"), "cpu") != 0;
    }
    sg[k].b = num_of(entry, "tested_max");
    *out = sg;
    return k + 1;
}

/* "at 512" for one size, "from 512 to 1024" for several. */
static void range_words(FILE *f, const segment *g) {
    char a[32], b[32];
    fmt_size(a, sizeof a, g->a);
    fmt_size(b, sizeof b, g->b);
    if (!strcmp(a, b)) fprintf(f, "at %s", a);
    else fprintf(f, "from %s to %s", a, b);
}

/* The text of a memory stream (open_memstream sets *buf only at fclose). */
static char *close_stream(FILE *f, char **buf) {
    if (fclose(f) != 0) {
        free(*buf);
        return NULL;
    }
    return *buf;
}

char *gb_crossover_text(const cJSON *entry) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    segment *sg;
    int ns = segments(entry, &sg);
    char a[32], b[32];
    if (ns < 0) {
        fprintf(f, "the winner changes %g times along the sweep; this entry does not list where "
                   "(`gpubench report` recomputes it)", num_of(entry, "sign_changes"));
    } else if (ns == 1) {
        /* One winner throughout: say so, with the sizes that back it. */
        fmt_size(a, sizeof a, sg[0].a);
        fmt_size(b, sizeof b, sg[0].b);
        const char *who = sg[0].gpu ? "GPU" : "CPU";
        if (num_of(entry, "points") == 1 || !strcmp(a, b))
            fprintf(f, "the %s wins at the only size tested, %s", who, a);
        else
            fprintf(f, "the %s wins at every size tested, from %s to %s", who, a, b);
    } else {
        int seen[2] = {0, 0};
        for (int i = 0; i < ns; i++) {
            fprintf(f, "%sthe %s wins%s ", i ? "; " : "", sg[i].gpu ? "GPU" : "CPU",
                    seen[sg[i].gpu] ? " again" : "");
            seen[sg[i].gpu] = 1;
            range_words(f, &sg[i]);
            if (i) {
                fmt_size(a, sizeof a, sg[i].cross);
                fprintf(f, " (crossing ≈ %s)", a);
            }
        }
    }
    free(sg);
    return close_stream(f, &buf);
}

char *gb_crossover_gpu_sizes(const cJSON *entry) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    segment *sg;
    int ns = segments(entry, &sg), any = 0;
    if (ns < 0) fputs("?", f);
    for (int i = 0; i < ns; i++) {
        if (!sg[i].gpu) continue;
        char a[32], b[32];
        fmt_size(a, sizeof a, sg[i].a);
        fmt_size(b, sizeof b, sg[i].b);
        if (!strcmp(a, b)) fprintf(f, "%s%s", any ? ", " : "", a);
        else fprintf(f, "%s%s–%s", any ? ", " : "", a, b);
        any = 1;
    }
    if (ns >= 0 && !any) fputs("none", f);
    free(sg);
    return close_stream(f, &buf);
}

void gb_report_crossover(cJSON *results) {
    if (!cJSON_IsObject(results)) return;
    cJSON *x = gb_crossover_compute(results);
    if (cJSON_HasObjectItem(results, "crossover"))
        cJSON_ReplaceItemInObjectCaseSensitive(results, "crossover", x);
    else
        cJSON_AddItemToObject(results, "crossover", x);
}
