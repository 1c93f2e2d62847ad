/* results_query.c — what readers ask the results model: the backends a run
 * describes (or the built-in table), status names, speedups, summaries, run
 * names and plain values. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results_model_internal.h"

/* ---- values ------------------------------------------------------------------ */

/* ---- the built-in table of backends -----------------------------------------
 * What every file written before backends described themselves means: the CPU
 * is the host, timed on the host clock; CUDA — and any other backend, as every
 * reader assumed — is an accelerator timed resident on the device and end to
 * end. The one place in the driver that names backends and timings. */

/* ---- the built-in table of backends -----------------------------------------
 * What every file written before backends described themselves means: the CPU
 * is the host, timed on the host clock; CUDA — and any other backend, as every
 * reader assumed — is an accelerator timed resident on the device and end to
 * end. The one place in the driver that names backends and timings. */

static gb_timing_desc builtin_host_timings[] = {{(char *)"host", (char *)"cpu"}};
static gb_timing_desc builtin_accel_timings[] = {{(char *)"device", (char *)"gpu dev"},
                                                 {(char *)"end_to_end", (char *)"gpu e2e"}};
static gb_backend_desc builtin_backends[] = {
    {(char *)"cpu", -1, -1, (char *)"", GB_ROLE_HOST, 1, builtin_host_timings, 0},
    {(char *)"cuda", -1, -1, (char *)"", GB_ROLE_ACCELERATOR, 2, builtin_accel_timings, 0},
};
enum { NBUILTIN = sizeof builtin_backends / sizeof builtin_backends[0] };
static gb_backend_desc builtin_other = {(char *)"", -1, -1, (char *)"", GB_ROLE_ACCELERATOR, 2,
                                        builtin_accel_timings, 0};

const gb_backend_desc *gb_rm_builtin_desc(const char *name) {
    for (int i = 0; i < NBUILTIN; i++)
        if (!strcmp(builtin_backends[i].name, name)) return &builtin_backends[i];
    return &builtin_other;
}

int gb_backend_builtin(const char *name) {
    for (int i = 0; i < NBUILTIN; i++)
        if (!strcmp(builtin_backends[i].name, name)) return 1;
    return 0;
}

const char *gb_backend_builtin_names(void) {
    static char names[128];
    if (!names[0]) {
        size_t off = 0;
        for (int i = 0; i < NBUILTIN && off < sizeof names; i++)
            off += (size_t)snprintf(names + off, sizeof names - off, "%s%s", i == 0 ? "" : i + 1 == NBUILTIN ? " or " : ", ",
                                    builtin_backends[i].name);
    }
    return names;
}

/* ---- results ----------------------------------------------------------------- */

int gb_result_same_series(const gb_result *a, const gb_result *b) {
    return gb_device_same(&a->device, &b->device) && a->concurrent.present == b->concurrent.present;
}

double gb_result_speedup(const gb_result *host, const gb_result *accel) {
    if (!host || !accel || host->status != GB_RS_OK || accel->status != GB_RS_OK) return NAN;
    double a = host->stats.present ? host->stats.median : NAN, m = accel->stats.present ? accel->stats.median : NAN;
    return a > 0 && m > 0 ? a / m : NAN;
}

int gb_device_same(const gb_device_id *a, const gb_device_id *b) {
    return !a->present || !b->present || a->index == b->index;
}

/* ---- summary, runs, backends ------------------------------------------------- */

int gb_case_not_reached(const gb_case_result *c) {
    for (size_t j = 0; j < c->nresults; j++)
        if (c->results[j].status != GB_RS_SKIPPED || !c->results[j].reason ||
            strcmp(c->results[j].reason, GB_REASON_NOT_REACHED))
            return 0;
    return c->nresults > 0;
}

int gb_results_summarize(gb_results *r) {
    long cases = 0, total = 0, count[4] = {0}, not_reached = 0;
    for (size_t i = 0; i < r->ncases; i++, cases++) {
        for (size_t j = 0; j < r->cases[i].nresults; j++, total++) count[r->cases[i].results[j].status]++;
        not_reached += gb_case_not_reached(&r->cases[i]);
    }
    gb_summary *s = &r->summary;
    s->not_reached = not_reached > 0 ? not_reached : -1;
    s->present = 1;
    s->cases = cases;
    s->results = total;
    s->ok = count[GB_RS_OK];
    s->skipped = count[GB_RS_SKIPPED];
    s->failed = count[GB_RS_FAILED];
    s->errors = count[GB_RS_ERROR];
    return (int)(s->failed + s->errors);
}

const char *gb_results_run_name(const gb_results *r, int i) {
    if (i < 0 || (size_t)i >= r->nruns) return "?";
    gb_run *run = &r->runs[i];
    if (run->name && run->name[0]) return run->name;
    if (run->context.hostname && run->context.hostname[0]) return run->context.hostname;
    snprintf(run->fallback_name, sizeof run->fallback_name, "run%d", i);
    return run->fallback_name;
}

const gb_strlist *gb_results_warnings(const gb_results *r) {
    return r->merged || r->nruns == 0 ? &r->warnings : &r->runs[0].warnings;
}

static const gb_context *run_context(const gb_results *r, int run) {
    return r && run >= 0 && (size_t)run < r->nruns ? &r->runs[run].context : NULL;
}

const gb_backend_desc *gb_results_backend(const gb_results *r, int run, const char *name) {
    const gb_context *c = run_context(r, run);
    for (size_t i = 0; c && i < c->nbackends; i++)
        if (!strcmp(c->backends[i].name, name)) return &c->backends[i];
    return gb_rm_builtin_desc(name);
}

static const gb_backend_desc *first_of_role(const gb_results *r, int run, gb_backend_role role) {
    const gb_context *c = run_context(r, run);
    for (size_t i = 0; c && i < c->nbackends; i++)
        if (c->backends[i].role == role) return &c->backends[i];
    for (int i = 0; i < NBUILTIN; i++)
        if (builtin_backends[i].role == role) return &builtin_backends[i];
    return &builtin_other;
}

const gb_backend_desc *gb_results_host(const gb_results *r, int run) { return first_of_role(r, run, GB_ROLE_HOST); }
const gb_backend_desc *gb_results_accelerator(const gb_results *r, int run) {
    return first_of_role(r, run, GB_ROLE_ACCELERATOR);
}

int gb_backend_timing_index(const gb_backend_desc *b, const char *timing) {
    for (size_t i = 0; i < b->ntimings; i++)
        if (!strcmp(b->timings[i].name, timing)) return (int)i;
    return -1;
}

/* ---- values -------------------------------------------------------------- */

/* ---- values ------------------------------------------------------------------ */

const gb_value *gb_kv_find(const gb_kvlist *l, const char *key) {
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->item[i].key, key)) return &l->item[i].v;
    return NULL;
}

void gb_value_text(const gb_value *v, char *buf, size_t len) {
    switch (v->kind) {
    case GB_VAL_STRING: snprintf(buf, len, "%s", v->text); break;
    case GB_VAL_BOOL: snprintf(buf, len, "%s", v->b ? "true" : "false"); break;
    case GB_VAL_NUMBER: snprintf(buf, len, "%g", v->num); break;
    case GB_VAL_NULL: snprintf(buf, len, "null"); break;
    case GB_VAL_JSON: snprintf(buf, len, "%s", v->text); break;
    case GB_VAL_ABSENT: snprintf(buf, len, "?"); break;
    }
}

const char *gb_value_str(const gb_value *v) { return v && v->kind == GB_VAL_STRING ? v->text : ""; }
double gb_value_num(const gb_value *v) { return v && v->kind == GB_VAL_NUMBER ? v->num : NAN; }

char *gb_value_json(const gb_value *v) {
    if (!v || v->kind == GB_VAL_ABSENT) return NULL;
    cJSON *j = gb_rm_value_to_cjson(v);
    char *s = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    return s;
}

/* cJSON_Compare is the definition of "the same" for JSON values here; takes
 * both (either may be NULL: out of memory, never the same). */
static int same_json(cJSON *x, cJSON *y) {
    int same = x && y && cJSON_Compare(x, y, 1);
    cJSON_Delete(x);
    cJSON_Delete(y);
    return same;
}

int gb_value_equal(const gb_value *a, const gb_value *b) {
    if (a->kind == GB_VAL_ABSENT || b->kind == GB_VAL_ABSENT) return a->kind == b->kind;
    if (a->kind != b->kind) return 0;
    if (a->kind == GB_VAL_STRING) return strcmp(a->text, b->text) == 0;
    if (a->kind == GB_VAL_BOOL) return a->b == b->b;
    if (a->kind == GB_VAL_NULL) return 1;
    return same_json(gb_rm_value_to_cjson(a), gb_rm_value_to_cjson(b));
}

int gb_kvlist_equal(const gb_kvlist *a, const gb_kvlist *b) {
    return same_json(gb_kvlist_to_cjson(a), gb_kvlist_to_cjson(b));
}

int gb_shape_equal(const gb_case_result *a, const gb_case_result *b) {
    return same_json(gb_case_shape_to_cjson(a), gb_case_shape_to_cjson(b));
}

char *gb_kvlist_json(const gb_kvlist *l) {
    if (!l->present) return NULL;
    cJSON *j = gb_kvlist_to_cjson(l);
    char *s = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    return s;
}

double gb_case_speedup(const gb_case_result *c, const char *timing) {
    for (size_t i = 0; i < c->nspeedups; i++)
        if (!strcmp(c->speedups[i].timing, timing)) return c->speedups[i].value;
    return NAN;
}

void gb_case_shape_text(const gb_case_result *c, char *buf, size_t len) {
    cJSON *j = gb_case_shape_to_cjson(c);
    char *s = j ? cJSON_PrintUnformatted(j) : NULL;
    snprintf(buf, len, "%s", s ? s : "");
    free(s);
    cJSON_Delete(j);
}

double gb_result_energy_ratio(const gb_result *host, const gb_result *accel) {
    if (!host || !accel || !host->energy.present || !accel->energy.present || !host->energy.measured ||
        !accel->energy.measured || !(host->energy.j_per_op > 0) || !(accel->energy.j_per_op > 0))
        return NAN;
    return host->energy.j_per_op / accel->energy.j_per_op;
}
