/* report_crossover.c — where the GPU wins along a size sweep, and the words
 * that say so.
 *
 * Cases are grouped by (run, op, dtype, params); each group is a size sweep.
 * For each timing of the run's accelerator (for CUDA: device-resident,
 * end-to-end) the speedups along the sweep are
 * handed to gb_crossover_find, which finds every change of winner and
 * interpolates each in log-log space: speedup curves are close to power laws
 * in the size, so a straight line between two neighbouring points in log-log
 * is the natural model. The sentences are built from the stored entry, so
 * every report format and the end of `gpubench run` say the same thing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_index.h"
#include "op.h"
#include "report.h"
#include "results_model.h"

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

double gb_case_scalar_size(const gb_case_result *c, int *square) {
    if (square) *square = 0;
    if (c->rank == 0) return 0;
    double sumlog = 0, first = 0;
    int eq = 1;
    for (size_t i = 0; i < c->rank; i++) {
        double d = c->shape[i];
        if (!(d > 0)) return 0;
        if (i == 0) first = d;
        if (d != first) eq = 0;
        sumlog += log(d);
    }
    if (square) *square = eq;
    if (eq) return first;
    /* exp(mean log) of 16384x4096 is 8191.9999999999945: a whole number
     * within rounding error is that number, so files and reports say 8192. */
    double g = exp(sumlog / (double)c->rank), r = nearbyint(g);
    return fabs(g - r) <= 1e-9 * g ? r : g;
}

/* The speedup of a case for a timing, or 0 when it has none: the case's own
 * (its first device's), or with device >= 0 that device's (host median /
 * its median alone, as the report's row of that device). */
static double case_speedup(const gb_results *r, const gb_case_result *c, const char *timing, long device) {
    double v = NAN;
    if (device < 0) {
        v = gb_case_speedup(c, timing);
    } else {
        const gb_result *host = NULL, *acc = NULL;
        for (size_t i = 0; i < c->nresults; i++) {
            const gb_result *res = &c->results[i];
            int is_host = gb_results_backend(r, c->run, res->backend)->role == GB_ROLE_HOST;
            if (is_host && !host) host = res;
            if (!is_host && !acc && !res->concurrent.present && res->device.present && res->device.index == device &&
                !strcmp(res->timing, timing))
                acc = res;
        }
        v = gb_result_speedup(host, acc);
    }
    return isnan(v) ? 0 : v;
}

/* The backend of the case's result for this timing that is not the host
 * (the accelerator's), or NULL. */
static const char *accel_backend(const gb_results *r, const gb_case_result *c, const char *timing) {
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *res = &c->results[i];
        if (*res->backend && gb_results_backend(r, c->run, res->backend)->role != GB_ROLE_HOST &&
            !strcmp(res->timing, timing))
            return res->backend;
    }
    return NULL;
}

static int same_group(const gb_case_result *a, const gb_case_result *b) {
    if (a->run != b->run) return 0;
    if (strcmp(a->op, b->op) || strcmp(a->dtype, b->dtype)) return 0;
    if (!a->params.present && !b->params.present) return 1;
    return a->params.present && b->params.present && gb_kvlist_equal(&a->params, &b->params);
}

/* One entry: accel names the backend the accelerator side of this sweep ran
 * on and host the host's, for each change's "to". */
static int entry(const gb_case_result *first, const char *timing, const gb_crossover *x, int all_square,
                 const char *accel, const char *host, long device, gb_crossover_entry *e) {
    memset(e, 0, sizeof *e);
    e->run = first->run;
    e->device = device;
    e->size = e->tested_min = e->tested_max = NAN;
    e->between[0] = e->between[1] = NAN;
    if (!(e->op = strdup(first->op)) || !(e->dtype = strdup(first->dtype)) || !(e->timing = strdup(timing)) ||
        !(e->status = strdup(gb_crossover_status_name(x->status))) ||
        !(e->size_measure = strdup(all_square ? "n" : "geometric_mean_of_shape")))
        return GB_FAIL;
    gb_kvlist params = first->params;
    params.present = 1; /* an entry always has params, {} when its cases have none */
    if (gb_kvlist_copy(&e->params, &params) != GB_OK) return GB_FAIL;
    if (x->status == GB_CROSS_INTERPOLATED) {
        e->size = x->size;
        e->has_between = 1;
        e->between[0] = x->lo;
        e->between[1] = x->hi;
    }
    e->tested_min = x->tested_min;
    e->tested_max = x->tested_max;
    e->points = x->points;
    e->sign_changes = x->sign_changes;
    /* Every change of winner: what a sentence about the sweep needs, and
     * what status alone cannot say (whether the accelerator keeps winning). */
    e->has_changes = 1;
    if (x->sign_changes > 0 && !(e->changes = calloc((size_t)x->sign_changes, sizeof *e->changes))) return GB_FAIL;
    for (int i = 0; i < x->sign_changes; i++, e->nchanges++) {
        const gb_crossover_change *c = &x->changes[i];
        gb_crossover_step *s = &e->changes[i];
        s->size = c->size;
        s->lo = c->lo;
        s->hi = c->hi;
        s->to_accelerator = c->to_gpu;
        if (!(s->to = strdup(c->to_gpu ? accel : host))) return GB_FAIL;
    }
    return GB_OK;
}

/* The devices a sweep's cases (member[from .. to)) were measured on, in
 * the order first seen; concurrent results are their own section. */
static int group_devices(const gb_results *r, const size_t *member, size_t from, size_t to, long *devs, int cap) {
    int n = 0;
    for (size_t j = from; j < to; j++) {
        const gb_case_result *c = &r->cases[member[j]];
        for (size_t i = 0; i < c->nresults; i++) {
            const gb_result *res = &c->results[i];
            if (!res->device.present || res->concurrent.present) continue;
            int seen = 0;
            for (int k = 0; k < n; k++) seen |= devs[k] == res->device.index;
            if (!seen && n < cap) devs[n++] = res->device.index;
        }
    }
    return n;
}

/* Which sweep each case is in: group[i] for cases[i], numbered in the order
 * the groups first appear; their first cases in first[]. Linear time (a hash
 * of each case's group key, same_group on the few candidates). Returns the
 * number of groups, or -1 out of memory. */
typedef struct {
    const gb_results *r;
    const size_t *first;
    const gb_case_result *c;
} group_probe;

static int in_group(const void *ctx, size_t g) {
    const group_probe *q = ctx;
    return same_group(&q->r->cases[q->first[g]], q->c);
}

static uint64_t group_hash(const gb_case_result *c) {
    return gb_case_hash(gb_hash_num(GB_HASH_START, c->run), c, 0);
}

static long group_cases(const gb_results *results, size_t *group, size_t *first) {
    gb_index x;
    if (gb_index_init(&x, results->ncases) != GB_OK) return -1;
    size_t ng = 0;
    for (size_t i = 0; i < results->ncases; i++) {
        const gb_case_result *c = &results->cases[i];
        group_probe q = {results, first, c};
        uint64_t h = group_hash(c);
        long g = gb_index_find(&x, h, in_group, &q);
        if (g < 0) {
            g = (long)ng;
            first[ng] = i;
            if (gb_index_add(&x, h, ng++) != GB_OK) {
                gb_index_free(&x);
                return -1;
            }
        }
        group[i] = (size_t)g;
    }
    gb_index_free(&x);
    return (long)ng;
}

int gb_crossover_compute(const gb_results *results, gb_crossover_entry **out, size_t *nout, gb_err *e) {
    *out = NULL;
    *nout = 0;
    size_t n = results->ncases, cap = 0;
    if (n == 0) return GB_OK;
    int rc = GB_FAIL;
    /* Members of each group in the file's order: member[start[g] .. start[g+1]). */
    size_t *group = malloc(n * sizeof *group), *first = malloc(n * sizeof *first);
    size_t *start = calloc(n + 1, sizeof *start), *member = malloc(n * sizeof *member);
    double *size = malloc(n * sizeof *size), *sp = malloc(n * sizeof *sp);
    long ng = -1;
    if (!group || !first || !start || !member || !size || !sp || (ng = group_cases(results, group, first)) < 0)
        goto end;
    for (size_t i = 0; i < n; i++) start[group[i] + 1]++;
    for (long g = 0; g < ng; g++) start[g + 1] += start[g];
    /* first[] is done with: it becomes each group's next free place. */
    for (long g = 0; g < ng; g++) first[g] = start[g];
    for (size_t i = 0; i < n; i++) member[first[group[i]]++] = i;
    for (long g = 0; g < ng; g++) {
        const gb_case_result *lead = &results->cases[member[start[g]]];
        const gb_backend_desc *accel = gb_results_accelerator(results, lead->run);
        const gb_backend_desc *host = gb_results_host(results, lead->run);
        /* a sweep per device when its cases were measured on several */
        long devs[GB_MAX_DEVICES];
        int nd = group_devices(results, member, start[g], start[g + 1], devs, GB_MAX_DEVICES);
        for (size_t t = 0; t < accel->ntimings * (size_t)(nd > 1 ? nd : 1); t++) {
            const char *timing = accel->timings[t % accel->ntimings].name;
            long device = nd > 1 ? devs[t / accel->ntimings] : -1;
            size_t m = 0;
            int all_square = 1;
            const char *accel_name = NULL;
            for (size_t k = start[g]; k < start[g + 1]; k++) {
                const gb_case_result *c = &results->cases[member[k]];
                if (!accel_name) accel_name = accel_backend(results, c, timing);
                int sq;
                size[m] = gb_case_scalar_size(c, &sq);
                sp[m] = case_speedup(results, c, timing, device);
                if (size[m] > 0 && sp[m] > 0 && !sq) all_square = 0;
                m++;
            }
            gb_crossover x;
            if (gb_crossover_find(size, sp, m, &x) != GB_CROSS_NO_DATA) {
                if (*nout == cap) {
                    size_t bigger = cap ? 2 * cap : 16;
                    gb_crossover_entry *grown = realloc(*out, bigger * sizeof *grown);
                    if (!grown) {
                        gb_crossover_free(&x);
                        goto end;
                    }
                    *out = grown;
                    cap = bigger;
                }
                int st = entry(lead, timing, &x, all_square, accel_name ? accel_name : accel->name, host->name,
                               device, &(*out)[*nout]);
                (*nout)++;
                if (st != GB_OK) {
                    gb_crossover_free(&x);
                    goto end;
                }
            }
            gb_crossover_free(&x);
        }
    }
    rc = GB_OK;
end:
    if (rc != GB_OK) {
        gb_errf(e, GB_FAIL, "%s: out of memory computing the crossover", results->name ? results->name : "results");
        for (size_t i = 0; i < *nout; i++) gb_crossover_entry_free(&(*out)[i]);
        free(*out);
        *out = NULL;
        *nout = 0;
    }
    free(group);
    free(first);
    free(start);
    free(member);
    free(size);
    free(sp);
    return rc;
}

int gb_crossover_update(gb_results *results, gb_err *e) {
    gb_crossover_entry *x;
    size_t n;
    if (gb_crossover_compute(results, &x, &n, e) != GB_OK) return GB_FAIL;
    for (size_t i = 0; i < results->ncrossover; i++) gb_crossover_entry_free(&results->crossover[i]);
    free(results->crossover);
    results->crossover = x;
    results->ncrossover = n;
    results->has_crossover = 1;
    return GB_OK;
}

/* ---- the crossover in words ------------------------------------------------ */

/* As the report prints a size: whole numbers from 100 up; a byte count
 * (the op's size_in_bytes: transfer) in binary units to three figures,
 * "476 KiB", never "crossing ≈ 487659". Set per entry by gb_crossover_text
 * and gb_crossover_gpu_sizes. */
static int size_in_bytes;

static void fmt_size(char *buf, size_t len, double v) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    if (isnan(v)) {
        snprintf(buf, len, "–");
    } else if (size_in_bytes) {
        while (u < 4 && v >= 1024) v /= 1024, u++;
        snprintf(buf, len, "%.3g %s", v, unit[u]);
    } else if (v >= 100) {
        snprintf(buf, len, "%.0f", v);
    } else {
        snprintf(buf, len, "%.3g", v);
    }
}

static void sizes_of(const gb_crossover_entry *entry) {
    const gb_op *op = entry->op ? gb_op_find(entry->op) : NULL;
    size_in_bytes = op && op->size_in_bytes;
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
static int segments(const gb_crossover_entry *entry, segment **out) {
    *out = NULL;
    size_t nc = entry->has_changes ? entry->nchanges : 0;
    if (!entry->has_changes && entry->sign_changes > 0) return -1;
    segment *sg = malloc((nc + 1) * sizeof *sg);
    if (!sg) return -1;
    sg[0].a = entry->tested_min;
    sg[0].cross = NAN;
    sg[0].gpu = !strcmp(entry->status, "below_smallest");
    int k = 0;
    for (size_t i = 0; i < nc; i++) {
        const gb_crossover_step *c = &entry->changes[i];
        sg[k].b = c->lo;
        k++;
        sg[k].a = c->hi;
        sg[k].cross = c->size;
        sg[k].gpu = c->to_accelerator;
    }
    sg[k].b = entry->tested_max;
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

char *gb_crossover_text(const gb_crossover_entry *entry) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    sizes_of(entry);
    segment *sg;
    int ns = segments(entry, &sg);
    char a[32], b[32];
    if (ns < 0) {
        fprintf(f, "the winner changes %g times along the sweep; this entry does not list where "
                   "(`gpubench report` recomputes it)", (double)entry->sign_changes);
    } else if (ns == 1) {
        /* One winner throughout: say so, with the sizes that back it. */
        fmt_size(a, sizeof a, sg[0].a);
        fmt_size(b, sizeof b, sg[0].b);
        const char *who = sg[0].gpu ? "GPU" : "CPU";
        if (entry->points == 1 || !strcmp(a, b))
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

char *gb_crossover_gpu_sizes(const gb_crossover_entry *entry) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    sizes_of(entry);
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

