/* compare_machine.c — whether the compared runs can be compared: every
 * file's machine and build against the others (not only the first file of
 * each side: a 3-run baseline whose third file came from another CPU must
 * say so, and name that file), the measured ceilings, and how far the
 * ceilings moved (what explains a machine-wide shift, compare_shift.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "compare_internal.h"
#include "stats.h"

/* The ceilings each run measured (peaks): the same model of CPU or GPU can
 * still be a slower machine (a busier host, another VM placement). Seen on
 * the H100 host: a fresh VM measured 14% less CPU triad bandwidth and 16%
 * less SGEMM than the previous one, and its CPU results were slower by as
 * much. A difference above this is worth a warning. */
#define GB_PEAK_WARN 0.10

/* One fact of one file, as text ("absent" when the file lacks it). */
typedef struct {
    char *text[2 * GB_MAX_PROCS];
} fact_row;

/* A string field of context.build, as JSON text (NULL: absent). */
static char *build_field(const gb_context *c, const char *key) {
    if (!c->json) return NULL;
    cJSON *doc = cJSON_Parse(c->json);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(doc, "build");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(b, key);
    char *s = cJSON_IsString(v) ? cJSON_PrintUnformatted(v) : NULL;
    cJSON_Delete(doc);
    return s;
}

/* The same, the bare string (NULL: absent). */
static char *build_string(const gb_context *c, const char *key) {
    if (!c->json) return NULL;
    cJSON *doc = cJSON_Parse(c->json);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "build"), key);
    char *s = cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
    cJSON_Delete(doc);
    return s;
}

static char *value_text(const gb_value *v) { return v && v->kind != GB_VAL_ABSENT ? gb_value_json(v) : NULL; }

/* The fact `what` of context c as text (NULL: absent). */
static char *fact_of(const gb_context *c, const char *what) {
    if (!strncmp(what, "build.", 6)) return build_field(c, what + 6);
    if (!strncmp(what, "libraries.", 10)) return value_text(gb_kv_find(&c->libraries, what + 10));
    const struct { const char *what; const gb_value *v; } facts[] = {
        {"cpu.model", &c->f_cpu_model}, {"gpu.name", &c->f_gpu_name}, {"gpu.nvidia_driver", &c->f_nvidia_driver},
        {"gpu.cuda_driver_api_version", &c->f_gpu_driver}, {"cpu_threads_used", &c->f_threads},
        {"cache_mode", &c->f_cache_mode}};
    for (size_t i = 0; i < sizeof facts / sizeof *facts; i++)
        if (!strcmp(what, facts[i].what)) return value_text(facts[i].v);
    return NULL;
}

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* The baseline's most common value of a row (ties: the earliest file). */
static size_t reference_of(const fact_row *row, size_t nb) {
    size_t ref = 0, best = 0;
    for (size_t i = 0; i < nb; i++) {
        size_t votes = 0;
        for (size_t j = 0; j < nb; j++) votes += same_text(row->text[i], row->text[j]);
        if (votes > best) { best = votes; ref = i; }
    }
    return ref;
}

/* One fact over every file: the baseline's most common value is the
 * reference (ties: the earliest file), and each file that differs from it is
 * named. The first baseline file is no longer the reference by position: if
 * it is the odd one, it is the one named. */
static void check_fact(const char *what, const gb_context *const *ctx, const char *const *names, size_t nb, size_t nc,
                       const char *label, gb_cmp_strs *warnings) {
    size_t n = nb + nc;
    fact_row row = {{0}};
    for (size_t i = 0; i < n; i++) row.text[i] = fact_of(ctx[i], what);
    size_t ref = reference_of(&row, nb);
    int build = !strncmp(what, "build.", 6);
    char kind[300];
    snprintf(kind, sizeof kind, "%s differ%s%s", build ? "builds" : "machines", label ? " for " : "", label ? label : "");
    const char *ref_text = row.text[ref] ? row.text[ref] : "absent";
    char line[900];
    for (size_t i = 0; i < n; i++) {
        if (same_text(row.text[i], row.text[ref])) continue;
        const char *mine = row.text[i] ? row.text[i] : "absent";
        if (i < nb)
            snprintf(line, sizeof line, "%s within the baseline: %s is %s in %s, %s in the other baseline run%s", kind,
                     what, mine, names[i], ref_text, nb > 2 ? "s" : "");
        else if (nb == 1 && nc == 1)
            snprintf(line, sizeof line, "%s: %s is %s in the baseline, %s in the current run", kind, what, ref_text, mine);
        else
            snprintf(line, sizeof line, "%s: %s is %s in the baseline, %s in the current run %s", kind, what, ref_text,
                     mine, names[i]);
        if (build)
            snprintf(line + strlen(line), sizeof line - strlen(line),
                     ": a change common to every case may be the build's, not the code's");
        gb_cmp_strs_add(warnings, line);
    }
    for (size_t i = 0; i < n; i++) free(row.text[i]);
}

/* Every fact of the contexts ctx (nb baseline files, then nc current). */
static void check_contexts(const gb_context *const *ctx, const char *const *names, size_t nb, size_t nc,
                           const char *label, gb_cmp_strs *warnings) {
    static const char *const fixed[] = {"cpu.model", "gpu.name", "gpu.nvidia_driver", "gpu.cuda_driver_api_version",
                                        "cpu_threads_used", "cache_mode", "build.compiler", "build.flags"};
    for (size_t f = 0; f < sizeof fixed / sizeof *fixed; f++) check_fact(fixed[f], ctx, names, nb, nc, label, warnings);
    /* every library any file names, once, in the order first seen */
    gb_cmp_strs seen = {0};
    char what[200];
    for (size_t i = 0; i < nb + nc; i++)
        for (size_t k = 0; k < ctx[i]->libraries.n; k++) {
            snprintf(what, sizeof what, "libraries.%s", ctx[i]->libraries.item[k].key);
            if (gb_cmp_strs_has(&seen, what)) continue;
            gb_cmp_strs_add(&seen, what);
            check_fact(what, ctx, names, nb, nc, label, warnings);
        }
    gb_cmp_strs_free(&seen);
}

/* Does a current file's `what` differ from the baseline's most common one? */
static int fact_differs(const char *what, const gb_context *const *ctx, size_t nb, size_t nc) {
    fact_row row = {{0}};
    for (size_t i = 0; i < nb + nc; i++) row.text[i] = fact_of(ctx[i], what);
    size_t ref = reference_of(&row, nb);
    int d = 0;
    for (size_t i = nb; i < nb + nc; i++) d |= !same_text(row.text[i], row.text[ref]);
    for (size_t i = 0; i < nb + nc; i++) free(row.text[i]);
    return d;
}

/* Appends "what" to the comma-separated list buf. */
static void add_name(char *buf, size_t len, const char *what) {
    size_t l = strlen(buf);
    if (l + 2 < len && snprintf(buf + l, len - l, "%s%s", l ? ", " : "", what) < 0) buf[l] = '\0';
}

void gb_cmp_differences(const gb_results *const *base, size_t nb, const gb_results *const *cur, size_t nc,
                        double ceiling, char *buf, size_t len) {
    const gb_context *ctx[2 * GB_MAX_PROCS];
    if (nb > GB_MAX_PROCS) nb = GB_MAX_PROCS;
    if (nc > GB_MAX_PROCS) nc = GB_MAX_PROCS;
    for (size_t i = 0; i < nb; i++) ctx[i] = &base[i]->runs[0].context;
    for (size_t i = 0; i < nc; i++) ctx[nb + i] = &cur[i]->runs[0].context;
    char build[120] = "", libs[160] = "", out[400] = "";
    static const char *const bfacts[] = {"build.compiler", "build.flags", "build.git_commit"};
    for (size_t f = 0; f < 3; f++)
        if (fact_differs(bfacts[f], ctx, nb, nc)) add_name(build, sizeof build, bfacts[f] + 6);
    gb_cmp_strs seen = {0};
    char what[200];
    for (size_t i = 0; i < nb + nc; i++)
        for (size_t k = 0; k < ctx[i]->libraries.n; k++) {
            snprintf(what, sizeof what, "libraries.%s", ctx[i]->libraries.item[k].key);
            if (gb_cmp_strs_has(&seen, what)) continue;
            gb_cmp_strs_add(&seen, what);
            if (fact_differs(what, ctx, nb, nc)) add_name(libs, sizeof libs, what + 10);
        }
    gb_cmp_strs_free(&seen);
    char part[200];
    if (*build) snprintf(part, sizeof part, "build (%s)", build), add_name(out, sizeof out, part);
    if (*libs) snprintf(part, sizeof part, "libraries (%s)", libs), add_name(out, sizeof out, part);
    if (isfinite(ceiling) && fabs(ceiling - 1) > GB_PEAK_WARN)
        snprintf(part, sizeof part, "ceilings (x%.3f)", ceiling), add_name(out, sizeof out, part);
    if (*out) snprintf(buf, len, "differ: %s", out);
    else snprintf(buf, len, "none of build, libraries, ceilings differ");
}

void gb_cmp_check_pair(const gb_context *a, const gb_context *b, const char *label, gb_cmp_strs *warnings) {
    const gb_context *ctx[2] = {a, b};
    const char *names[2] = {"the baseline", "the current run"};
    check_contexts(ctx, names, 1, 1, label, warnings);
}

void gb_cmp_check_files(const gb_results *const *base, const char *const *bnames, size_t nb,
                        const gb_results *const *cur, const char *const *cnames, size_t nc, gb_cmp_strs *warnings,
                        char *build_note, size_t note_len) {
    const gb_context *ctx[2 * GB_MAX_PROCS];
    const char *names[2 * GB_MAX_PROCS];
    for (size_t i = 0; i < nb; i++) ctx[i] = &base[i]->runs[0].context, names[i] = bnames[i];
    for (size_t i = 0; i < nc; i++) ctx[nb + i] = &cur[i]->runs[0].context, names[nb + i] = cnames[i];
    check_contexts(ctx, names, nb, nc, NULL, warnings);
    /* the commit is expected to differ (that is what CI compares); it is
     * shown, so a verdict can be read against the code that made it */
    char *cb = build_string(ctx[0], "git_commit"), *cc = build_string(ctx[nb], "git_commit");
    if (note_len) *build_note = '\0';
    if (cb && cc && !strcmp(cb, cc))
        snprintf(build_note, note_len, "commit %s on both sides", cb);
    else if (cb || cc)
        snprintf(build_note, note_len, "commit %s in the baseline, %s in the current run", cb ? cb : "unknown",
                 cc ? cc : "unknown");
    free(cb);
    free(cc);
}

/* ---- ceilings ------------------------------------------------------------ */

static const gb_kvlist *peak_set(const gb_peaks *p, const char *backend) {
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->set[i].backend, backend)) return &p->set[i].values;
    return NULL;
}

static int is_rate(const char *key) {
    size_t len = strlen(key);
    return (len > 4 && !strcmp(key + len - 4, "_gbs")) || (len > 7 && !strcmp(key + len - 7, "_gflops"));
}

/* The median of one ceiling over a side's files (NAN: none measured it). */
static double side_ceiling(const gb_results *const *docs, size_t n, const char *backend, const char *key) {
    double v[GB_MAX_PROCS];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const gb_kvlist *s = peak_set(&docs[i]->runs[0].peaks, backend);
        /* ceilings kept from an earlier run (peaks_kept.h) say nothing of
         * how fast the machine was during this one */
        if (s && gb_kv_find(s, "kept_from")) continue;
        const gb_value *x = s ? gb_kv_find(s, key) : NULL;
        if (x && x->kind == GB_VAL_NUMBER && x->num > 0) v[k++] = x->num;
    }
    return k ? gb_median(v, k) : NAN;
}

double gb_cmp_ceiling_time_ratio(const gb_results *const *base, size_t nb, const gb_results *const *cur, size_t nc,
                                 const char *backend, size_t *nkeys) {
    const gb_kvlist *mine = peak_set(&base[0]->runs[0].peaks, backend);
    double r[256];
    size_t k = 0;
    for (size_t i = 0; mine && i < mine->n && k < 256; i++) {
        const char *key = mine->item[i].key;
        if (!is_rate(key)) continue;
        double b = side_ceiling(base, nb, backend, key), c = side_ceiling(cur, nc, backend, key);
        if (b > 0 && c > 0) r[k++] = b / c; /* a rate that fell is a time that rose */
    }
    *nkeys = k;
    return k ? gb_median(r, k) : NAN;
}


void gb_cmp_compare_peaks(const gb_peaks *pa, const gb_peaks *pb, const char *label, gb_cmp_strs *warnings) {
    for (size_t b = 0; b < pa->n; b++) {
        const char *backend = pa->set[b].backend;
        const gb_kvlist *mine = &pa->set[b].values, *other = peak_set(pb, backend);
        if (gb_kv_find(mine, "kept_from") || (other && gb_kv_find(other, "kept_from"))) continue; /* not measured then */
        for (size_t i = 0; other && i < mine->n; i++) {
            const char *key = mine->item[i].key;
            const gb_value *x = &mine->item[i].v, *y = gb_kv_find(other, key);
            if (!is_rate(key) || x->kind != GB_VAL_NUMBER || !y || y->kind != GB_VAL_NUMBER || !(x->num > 0)) continue;
            double change = y->num / x->num - 1.0;
            if (fabs(change) <= GB_PEAK_WARN) continue;
            char line[400];
            snprintf(line, sizeof line,
                     "measured ceilings differ%s%s: %s.%s is %.4g in the baseline, %.4g in the current run "
                     "(%+.0f%%): the machine itself was %s, so %s changes of that size may not be the code's",
                     label ? " for " : "", label ? label : "", backend, key, x->num, y->num, 100.0 * change,
                     change < 0 ? "slower" : "faster", backend);
            gb_cmp_strs_add(warnings, line);
        }
    }
}
