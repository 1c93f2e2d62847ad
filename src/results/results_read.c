/* results_model.c — loading (with every field checked), writing, copying and
 * freeing the results model; the built-in table of backends.
 *
 * Loading walks the JSON once. Each parse_* function checks one object of the
 * schema and fills its struct; the first problem stops the load with the file
 * and the JSON path of the field. Each object also keeps a template of its
 * keys as loaded (gb_keyorder): known keys as placeholders, unknown keys with
 * their values. The writer starts from that template, so keys keep their
 * order and unknown keys survive; an object the model made itself (no
 * template) is written in the schema's order. */
#include "results_model.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "results_io.h"

struct gb_keyorder {
    cJSON *tmpl;
};

/* ---- small helpers ------------------------------------------------------- */

static char *xstrdup(const char *s) { return strdup(s ? s : ""); }

/* The path of key inside path ("cases[2]" + "op" = "cases[2].op"). */
static void join(char *buf, size_t len, const char *path, const char *key) {
    int n = path && *path ? snprintf(buf, len, "%s.%s", path, key) : snprintf(buf, len, "%s", key);
    if (n < 0 || (size_t)n >= len) buf[len - 1] = '\0'; /* a path that long is cut, not lost */
}

/* The path of element i of the array at key ("cases[2]" + "results", 1). */
static void at(char *buf, size_t len, const char *path, const char *key, size_t i) {
    int n = path && *path ? snprintf(buf, len, "%s.%s[%zu]", path, key, i) : snprintf(buf, len, "%s[%zu]", key, i);
    if (n < 0 || (size_t)n >= len) buf[len - 1] = '\0';
}

static const char *type_name(const cJSON *v) {
    if (!v) return "nothing";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsBool(v)) return cJSON_IsTrue(v) ? "true" : "false";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "raw JSON";
}

/* The checker: the file's name (what messages start with) and the message. */
typedef struct {
    const char *file;
    gb_err *e;
} chk;

static int bad(chk *k, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(chk *k, const char *path, const char *fmt, ...) {
    char what[GB_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    gb_errf(k->e, GB_FAIL, "%s: %s: %s", k->file, path, what);
    return -1;
}

static int oom(chk *k) {
    gb_errf(k->e, GB_FAIL, "%s: out of memory", k->file);
    return -1;
}

static const cJSON *item(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

/* Flags for numbers. */
enum { N_REQ = 1, N_NULL = 2, N_NONNEG = 4, N_POS = 8, N_WHOLE = 16, N_COUNT = 32 };
/* N_COUNT: a count of CPUs or threads, whole and at most this many (readers
 * print it as an int; 1e300 threads would overflow the conversion). */
#define GB_MAX_CPU_COUNT 1e6

/* A number at key: 1 present (NAN when null and N_NULL allows it), 0 absent
 * (*out = NAN), -1 wrong. */
static int get_num(chk *k, const cJSON *o, const char *path, const char *key, int flags, double *out) {
    char p[512];
    const cJSON *v = item(o, key);
    *out = NAN;
    if (!v) {
        if (!(flags & N_REQ)) return 0;
        join(p, sizeof p, path, key);
        return bad(k, p, "missing (expected a number)");
    }
    join(p, sizeof p, path, key);
    if (cJSON_IsNull(v) && (flags & N_NULL)) return 1;
    if (!cJSON_IsNumber(v))
        return bad(k, p, "expected %sa number, got %s", (flags & N_NULL) ? "null or " : "", type_name(v));
    double x = v->valuedouble;
    if (!isfinite(x)) return bad(k, p, "expected a finite number, got %g", x);
    if ((flags & N_POS) && !(x > 0)) return bad(k, p, "expected a positive number, got %g", x);
    if ((flags & N_NONNEG) && x < 0) return bad(k, p, "expected a non-negative number, got %g", x);
    if ((flags & N_WHOLE) && (x != floor(x) || fabs(x) > 9007199254740992.0))
        return bad(k, p, "expected a whole number, got %g", x);
    if ((flags & N_COUNT) && (x != floor(x) || x < 0 || x > GB_MAX_CPU_COUNT))
        return bad(k, p, "expected a whole number from 0 to %g, got %g", GB_MAX_CPU_COUNT, x);
    *out = x;
    return 1;
}

/* The string getters REPLACE *out: the new string is made first, then the old
 * one freed and *out set, in one step; on a failure *out is left as it was.
 * So a field of a struct being loaded always owns what it points to (or is
 * NULL), whatever step fails, and the struct's free function is the only
 * thing that frees it. (parse_context once freed two fields ahead of their
 * getters; the first getter failed, the second field still pointed at freed
 * memory, and context_free freed it again: a SIGABRT on `context.date: 5`.)
 * Every *out passed here starts NULL or owned (calloc, memset, or the
 * *_empty functions). */
static void replace_str(char **out, char *s) {
    free(*out);
    *out = s;
}

/* A string at key into *out (malloc'd; "" when absent): 1, 0 absent, -1. */
static int get_str(chk *k, const cJSON *o, const char *path, const char *key, int required, char **out) {
    char p[512], *s;
    const cJSON *v = item(o, key);
    join(p, sizeof p, path, key);
    if (!v) {
        if (required) return bad(k, p, "missing (expected a string)");
        if (!(s = xstrdup(""))) return oom(k);
        replace_str(out, s);
        return 0;
    }
    if (!cJSON_IsString(v)) return bad(k, p, "expected a string, got %s", type_name(v));
    if (!(s = xstrdup(v->valuestring))) return oom(k);
    replace_str(out, s);
    return 1;
}

/* A string or null (*out NULL when null or absent). */
static int get_str_or_null(chk *k, const cJSON *o, const char *path, const char *key, char **out) {
    char p[512], *s;
    const cJSON *v = item(o, key);
    if (!v || cJSON_IsNull(v)) {
        replace_str(out, NULL);
        return v ? 1 : 0;
    }
    join(p, sizeof p, path, key);
    if (!cJSON_IsString(v)) return bad(k, p, "expected a string or null, got %s", type_name(v));
    if (!(s = xstrdup(v->valuestring))) return oom(k);
    replace_str(out, s);
    return 1;
}

/* true/false at key: *out 1/0, -1 when absent. */
static int get_bool(chk *k, const cJSON *o, const char *path, const char *key, int *out) {
    char p[512];
    const cJSON *v = item(o, key);
    *out = -1;
    if (!v) return 0;
    join(p, sizeof p, path, key);
    if (!cJSON_IsBool(v)) return bad(k, p, "expected true or false, got %s", type_name(v));
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return 1;
}

/* An object or array (what: "an object", "an array"; is: its cJSON test)
 * at key: *out NULL when absent. */
static int get_container(chk *k, const cJSON *o, const char *path, const char *key, int required,
                         const char *what, cJSON_bool (*is)(const cJSON *), const cJSON **out) {
    char p[512];
    const cJSON *v = item(o, key);
    *out = NULL;
    join(p, sizeof p, path, key);
    if (!v) return required ? bad(k, p, "missing (expected %s)", what) : 0;
    if (!is(v)) return bad(k, p, "expected %s, got %s", what, type_name(v));
    *out = v;
    return 1;
}

static int get_obj(chk *k, const cJSON *o, const char *path, const char *key, int required, const cJSON **out) {
    return get_container(k, o, path, key, required, "an object", cJSON_IsObject, out);
}

static int get_arr(chk *k, const cJSON *o, const char *path, const char *key, int required, const cJSON **out) {
    return get_container(k, o, path, key, required, "an array", cJSON_IsArray, out);
}

/* The text of an object (unformatted) at key, NULL when absent. */
static int get_json_obj(chk *k, const cJSON *o, const char *path, const char *key, char **out) {
    const cJSON *v;
    *out = NULL;
    if (get_obj(k, o, path, key, 0, &v) < 0) return -1;
    if (!v) return 0;
    if (!(*out = cJSON_PrintUnformatted(v))) return oom(k);
    return 1;
}

/* ---- key order ----------------------------------------------------------- */

static int is_known(const char *key, const char *const *known) {
    for (int i = 0; known[i]; i++)
        if (!strcmp(known[i], key)) return 1;
    return 0;
}

/* The template of obj: its keys in order, known ones as null placeholders,
 * unknown ones with a copy of their values. */
static int order_from(chk *k, const cJSON *obj, const char *const *known, gb_keyorder **out) {
    *out = NULL;
    gb_keyorder *o = calloc(1, sizeof *o);
    if (!o || !(o->tmpl = cJSON_CreateObject())) {
        free(o);
        return oom(k);
    }
    for (const cJSON *c = obj->child; c; c = c->next) {
        cJSON *v = is_known(c->string, known) ? cJSON_CreateNull() : cJSON_Duplicate(c, 1);
        if (!v) {
            cJSON_Delete(o->tmpl);
            free(o);
            return oom(k);
        }
        cJSON_AddItemToObject(o->tmpl, c->string, v);
    }
    *out = o;
    return 0;
}

static void order_free(gb_keyorder **o) {
    if (!*o) return;
    cJSON_Delete((*o)->tmpl);
    free(*o);
    *o = NULL;
}

static int order_copy(gb_keyorder **dst, const gb_keyorder *src) {
    *dst = NULL;
    if (!src) return 0;
    gb_keyorder *o = calloc(1, sizeof *o);
    if (!o || !(o->tmpl = cJSON_Duplicate(src->tmpl, 1))) {
        free(o);
        return -1;
    }
    *dst = o;
    return 0;
}

/* Known keys of each object, as the schema orders them. */
static const char *const K_TOP[] = {"schema", "schema_version", "gpubench_version", "complete", "interrupted",
                                    "suite", "context", "peaks", "warnings", "health", "runs", "cases",
                                    "summary", "interrupted_by", "crossover", "time_breakdown", NULL};
static const char *const K_RUN[] = {"name", "source", "context", "peaks", "warnings", "suite", "health",
                                    "complete", "interrupted", "summary", "gpubench_version", NULL};
static const char *const K_SUMMARY[] = {"cases", "results", "ok", "skipped", "failed", "errors", NULL};
static const char *const K_CASE[] = {"op", "dtype", "shape", "label", "params", "flops", "bytes",
                                     "rate_kind", "results", "speedup", "run", NULL};
static const char *const K_RESULT[] = {"backend", "timing", "status", "reason", "setup_s", "verify_s", "warmup_reps",
                                       "round_sizes", "samples_s", "stats", "gflops", "gbs", "pct_of_peak",
                                       "peak", "verification", "extra", "device", "concurrent", NULL};
static const char *const K_DEVICE[] = {"index", "name", "uuid", "pci_bus_id", NULL};
static const char *const K_CONCURRENT[] = {"devices", "aggregate_gflops", "aggregate_gbs", NULL};
static const char *const K_STATS[] = {"n", "min", "max", "median", "mean", "stddev", "cv", "ci95_low",
                                      "ci95_high", NULL};
static const char *const K_VERIF[] = {"status", "against", "metric", "error", "tolerance", "detail", NULL};
static const char *const K_CROSS[] = {"op", "dtype", "params", "timing", "run", "size", "between", "status",
                                      "size_measure", "tested_min", "tested_max", "points", "sign_changes",
                                      "changes", "device", NULL};
static const char *const K_STEP[] = {"size", "lo", "hi", "to", NULL};

/* ---- values -------------------------------------------------------------- */

static void value_free(gb_value *v) {
    free(v->text);
    memset(v, 0, sizeof *v);
}

static int value_from(const cJSON *j, gb_value *v) {
    memset(v, 0, sizeof *v);
    if (!j) return 0;
    if (cJSON_IsNull(j)) v->kind = GB_VAL_NULL;
    else if (cJSON_IsBool(j)) v->kind = GB_VAL_BOOL, v->b = cJSON_IsTrue(j);
    else if (cJSON_IsNumber(j)) v->kind = GB_VAL_NUMBER, v->num = j->valuedouble;
    else if (cJSON_IsString(j)) {
        v->kind = GB_VAL_STRING;
        if (!(v->text = xstrdup(j->valuestring))) return -1;
    } else {
        v->kind = GB_VAL_JSON;
        if (!(v->text = cJSON_PrintUnformatted(j))) return -1;
    }
    return 0;
}

static int value_copy(gb_value *dst, const gb_value *src) {
    *dst = *src;
    dst->text = NULL;
    if (src->text && !(dst->text = xstrdup(src->text))) return -1;
    return 0;
}

static cJSON *value_to_cjson(const gb_value *v) {
    switch (v->kind) {
    case GB_VAL_NULL: return cJSON_CreateNull();
    case GB_VAL_BOOL: return cJSON_CreateBool(v->b);
    case GB_VAL_NUMBER: return cJSON_CreateNumber(v->num);
    case GB_VAL_STRING: return cJSON_CreateString(v->text);
    case GB_VAL_JSON: return cJSON_Parse(v->text);
    case GB_VAL_ABSENT: break;
    }
    return NULL;
}

void gb_kvlist_free(gb_kvlist *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->item[i].key);
        value_free(&l->item[i].v);
    }
    free(l->item);
    memset(l, 0, sizeof *l);
}

/* An object of plain values (any JSON) at key. */
static int get_kvlist(chk *k, const cJSON *o, const char *path, const char *key, gb_kvlist *l) {
    const cJSON *obj;
    memset(l, 0, sizeof *l);
    if (get_obj(k, o, path, key, 0, &obj) < 0) return -1;
    if (!obj) return 0;
    l->present = 1;
    size_t n = (size_t)cJSON_GetArraySize(obj);
    if (n && !(l->item = calloc(n, sizeof *l->item))) return oom(k);
    for (const cJSON *c = obj->child; c; c = c->next) {
        gb_kv *kv = &l->item[l->n++];
        if (!(kv->key = xstrdup(c->string)) || value_from(c, &kv->v) != 0) return oom(k);
    }
    return 1;
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

cJSON *gb_kvlist_to_cjson(const gb_kvlist *l) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    for (size_t i = 0; i < l->n; i++) {
        cJSON *v = value_to_cjson(&l->item[i].v);
        if (!v) {
            cJSON_Delete(o);
            return NULL;
        }
        cJSON_AddItemToObject(o, l->item[i].key, v);
    }
    return o;
}

static void strlist_free(gb_strlist *l) {
    for (size_t i = 0; i < l->n; i++) free(l->item[i]);
    free(l->item);
    memset(l, 0, sizeof *l);
}

static int get_strlist(chk *k, const cJSON *o, const char *path, const char *key, gb_strlist *l) {
    const cJSON *arr;
    char p[512];
    memset(l, 0, sizeof *l);
    if (get_arr(k, o, path, key, 0, &arr) < 0) return -1;
    if (!arr) return 0;
    l->present = 1;
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n && !(l->item = calloc(n, sizeof *l->item))) return oom(k);
    for (const cJSON *c = arr->child; c; c = c->next) {
        if (!cJSON_IsString(c)) {
            at(p, sizeof p, path, key, l->n);
            return bad(k, p, "expected a string, got %s", type_name(c));
        }
        if (!(l->item[l->n++] = xstrdup(c->valuestring))) return oom(k);
    }
    return 1;
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

static const gb_backend_desc *builtin_desc(const char *name) {
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

static int timings_copy(gb_backend_desc *dst, const gb_timing_desc *t, size_t n) {
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
    return timings_copy(dst, src->timings, src->ntimings);
}

/* context.backends.<name>: {available, selected, reason, role, timings}. */
static int parse_backend(chk *k, const cJSON *o, const char *path, gb_backend_desc *b) {
    char p[512];
    if (!cJSON_IsObject(o)) return bad(k, path, "expected an object, got %s", type_name(o));
    if (!(b->name = xstrdup(o->string))) return oom(k);
    if (get_bool(k, o, path, "available", &b->available) < 0 || get_bool(k, o, path, "selected", &b->selected) < 0 ||
        get_str(k, o, path, "reason", 0, &b->reason) < 0)
        return -1;
    const gb_backend_desc *dflt = builtin_desc(b->name);
    char *role = NULL;
    int has_role = get_str(k, o, path, "role", 0, &role);
    if (has_role < 0) return -1;
    b->role = dflt->role;
    if (has_role) {
        if (!strcmp(role, "host")) b->role = GB_ROLE_HOST;
        else if (!strcmp(role, "accelerator")) b->role = GB_ROLE_ACCELERATOR;
        else {
            join(p, sizeof p, path, "role");
            bad(k, p, "expected \"host\" or \"accelerator\", got \"%s\"", role);
            free(role);
            return -1;
        }
        b->described = 1;
    }
    free(role);
    const cJSON *ts;
    if (get_arr(k, o, path, "timings", 0, &ts) < 0) return -1;
    if (!ts) return timings_copy(b, dflt->timings, dflt->ntimings) == 0 ? 0 : oom(k);
    b->described = 1;
    size_t n = (size_t)cJSON_GetArraySize(ts);
    if (n && !(b->timings = calloc(n, sizeof *b->timings))) return oom(k);
    for (const cJSON *t = ts->child; t; t = t->next) {
        at(p, sizeof p, path, "timings", b->ntimings);
        if (!cJSON_IsObject(t)) return bad(k, p, "expected an object, got %s", type_name(t));
        gb_timing_desc *d = &b->timings[b->ntimings++];
        if (get_str(k, t, p, "name", 1, &d->name) < 0) return -1;
        int has_label = get_str(k, t, p, "label", 0, &d->label);
        if (has_label < 0) return -1;
        if (!has_label) { /* the label is the name */
            char *s = xstrdup(d->name);
            if (!s) return oom(k);
            replace_str(&d->label, s);
        }
    }
    return 0;
}

/* ---- context, peaks, summary --------------------------------------------- */

static void context_free(gb_context *c) {
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
    for (size_t i = 0; i < c->nbackends; i++) backend_free(&c->backends[i]);
    free(c->backends);
    memset(c, 0, sizeof *c);
}

static int context_empty(gb_context *c) {
    memset(c, 0, sizeof *c);
    c->cpu_logical_cpus = c->cpu_threads_used = NAN;
    if (!(c->date = xstrdup("")) || !(c->hostname = xstrdup("")) || !(c->cpu_model = xstrdup("")) ||
        !(c->gpu_name = xstrdup("")))
        return -1;
    return 0;
}

/* The context at key of o (a run, or the top level of a single-run file). */
static int parse_context(chk *k, const cJSON *o, const char *path, gb_context *c) {
    char p[512], pp[512];
    const cJSON *ctx;
    if (context_empty(c) != 0) return oom(k);
    if (get_obj(k, o, path, "context", 0, &ctx) < 0) return -1;
    if (!ctx) return 0;
    join(p, sizeof p, path, "context");
    if (!(c->json = cJSON_PrintUnformatted(ctx))) return oom(k);
    if (get_str(k, ctx, p, "date", 0, &c->date) < 0 || get_str(k, ctx, p, "hostname", 0, &c->hostname) < 0)
        return -1;
    char *cache = NULL;
    int has_cache = get_str(k, ctx, p, "cache_mode", 0, &cache);
    free(cache);
    if (has_cache < 0 || get_num(k, ctx, p, "cpu_threads_used", N_COUNT, &c->cpu_threads_used) < 0) return -1;
    const cJSON *cpu, *gpu = item(ctx, "gpu");
    if (get_obj(k, ctx, p, "cpu", 0, &cpu) < 0) return -1;
    join(pp, sizeof pp, p, "cpu");
    if (cpu) {
        if (get_str(k, cpu, pp, "model", 0, &c->cpu_model) < 0 ||
            get_num(k, cpu, pp, "logical_cpus", N_COUNT, &c->cpu_logical_cpus) < 0)
            return -1;
    }
    join(pp, sizeof pp, p, "gpu");
    if (gpu && !cJSON_IsNull(gpu)) {
        if (!cJSON_IsObject(gpu)) return bad(k, pp, "expected an object or null, got %s", type_name(gpu));
        if (get_str(k, gpu, pp, "name", 0, &c->gpu_name) < 0) return -1;
        const cJSON *drv = item(gpu, "driver_version");
        if (drv && !cJSON_IsString(drv) && !cJSON_IsNumber(drv)) {
            join(p, sizeof p, pp, "driver_version");
            return bad(k, p, "expected a string or a number, got %s", type_name(drv));
        }
    } else {
        gpu = NULL;
    }
    /* The facts compare names, as the file has them. */
    if (value_from(cpu ? item(cpu, "model") : NULL, &c->f_cpu_model) != 0 ||
        value_from(gpu ? item(gpu, "name") : NULL, &c->f_gpu_name) != 0 ||
        value_from(gpu ? (item(gpu, "cuda_driver_api_version") ? item(gpu, "cuda_driver_api_version")
                                                                : item(gpu, "driver_version")) : NULL,
                   &c->f_gpu_driver) != 0 ||
        value_from(gpu && cJSON_IsString(item(gpu, "nvidia_driver")) &&
                   gb_is_driver_version(item(gpu, "nvidia_driver")->valuestring) ? item(gpu, "nvidia_driver") : NULL,
                   &c->f_nvidia_driver) != 0 ||
        value_from(item(ctx, "cpu_threads_used"), &c->f_threads) != 0 ||
        value_from(item(ctx, "cache_mode"), &c->f_cache_mode) != 0)
        return oom(k);
    join(p, sizeof p, path, "context");
    if (get_kvlist(k, ctx, p, "libraries", &c->libraries) < 0) return -1;
    const cJSON *bs;
    if (get_obj(k, ctx, p, "backends", 0, &bs) < 0) return -1;
    if (bs) {
        size_t n = (size_t)cJSON_GetArraySize(bs);
        if (n && !(c->backends = calloc(n, sizeof *c->backends))) return oom(k);
        for (const cJSON *b = bs->child; b; b = b->next) {
            char pb[512];
            join(pb, sizeof pb, p, "backends");
            join(pp, sizeof pp, pb, b->string);
            if (parse_backend(k, b, pp, &c->backends[c->nbackends++]) < 0) return -1;
        }
    }
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
    if (src->nbackends && !(dst->backends = calloc(src->nbackends, sizeof *dst->backends))) return -1;
    for (size_t i = 0; i < src->nbackends; i++, dst->nbackends++)
        if (backend_copy(&dst->backends[i], &src->backends[i]) != 0) return -1;
    return 0;
}

static void peaks_free(gb_peaks *p) {
    for (size_t i = 0; i < p->n; i++) {
        free(p->set[i].backend);
        gb_kvlist_free(&p->set[i].values);
    }
    free(p->set);
    memset(p, 0, sizeof *p);
}

static int parse_peaks(chk *k, const cJSON *o, const char *path, gb_peaks *pk) {
    char p[512];
    const cJSON *obj;
    memset(pk, 0, sizeof *pk);
    if (get_obj(k, o, path, "peaks", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    pk->present = 1;
    join(p, sizeof p, path, "peaks");
    size_t n = (size_t)cJSON_GetArraySize(obj);
    if (n && !(pk->set = calloc(n, sizeof *pk->set))) return oom(k);
    for (const cJSON *b = obj->child; b; b = b->next) {
        gb_peak_set *s = &pk->set[pk->n++];
        if (!(s->backend = xstrdup(b->string))) return oom(k);
        if (get_kvlist(k, obj, p, b->string, &s->values) < 0) return -1;
    }
    return 0;
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
    order_free(&s->order);
    memset(s, 0, sizeof *s);
}

static int parse_summary(chk *k, const cJSON *o, const char *path, gb_summary *s) {
    char p[512];
    const cJSON *obj;
    memset(s, 0, sizeof *s);
    s->cases = s->results = s->ok = s->skipped = s->failed = s->errors = -1;
    if (get_obj(k, o, path, "summary", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    s->present = 1;
    join(p, sizeof p, path, "summary");
    long *field[] = {&s->cases, &s->results, &s->ok, &s->skipped, &s->failed, &s->errors};
    for (int i = 0; K_SUMMARY[i]; i++) {
        double v;
        int got = get_num(k, obj, p, K_SUMMARY[i], N_NONNEG | N_WHOLE, &v);
        if (got < 0) return -1;
        *field[i] = got ? (long)v : -1;
    }
    return order_from(k, obj, K_SUMMARY, &s->order);
}

static int summary_copy(gb_summary *dst, const gb_summary *src) {
    *dst = *src;
    return order_copy(&dst->order, src->order);
}

/* ---- runs ---------------------------------------------------------------- */

void gb_run_free(gb_run *run) {
    free(run->name);
    free(run->source);
    context_free(&run->context);
    peaks_free(&run->peaks);
    strlist_free(&run->warnings);
    free(run->suite_json);
    free(run->suite_name);
    free(run->health_json);
    summary_free(&run->summary);
    free(run->gpubench_version);
    order_free(&run->order);
    memset(run, 0, sizeof *run);
}

/* What a run has wherever it lives: context, peaks, warnings, suite, health. */
static int parse_provenance(chk *k, const cJSON *o, const char *path, gb_run *run) {
    char p[512];
    if (parse_context(k, o, path, &run->context) < 0 || parse_peaks(k, o, path, &run->peaks) < 0 ||
        get_strlist(k, o, path, "warnings", &run->warnings) < 0 ||
        get_json_obj(k, o, path, "health", &run->health_json) < 0)
        return -1;
    const cJSON *suite;
    if (get_obj(k, o, path, "suite", 0, &suite) < 0) return -1;
    join(p, sizeof p, path, "suite");
    if (get_str(k, suite, p, "name", 0, &run->suite_name) < 0) return -1;
    if (suite && !(run->suite_json = cJSON_PrintUnformatted(suite))) return oom(k);
    return 0;
}

int gb_run_set_provenance(gb_run *run, const cJSON *obj, const char *name, gb_err *e) {
    chk k = {name, e};
    gb_run tmp;
    memset(&tmp, 0, sizeof tmp);
    if (!cJSON_IsObject(obj)) {
        gb_errf(e, GB_FAIL, "%s: expected an object, got %s", name, type_name(obj));
        return GB_FAIL;
    }
    if (parse_provenance(&k, obj, "", &tmp) != 0) {
        gb_run_free(&tmp);
        return GB_FAIL;
    }
    context_free(&run->context);
    peaks_free(&run->peaks);
    strlist_free(&run->warnings);
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
static int parse_run(chk *k, const cJSON *o, const char *path, gb_run *run) {
    if (!cJSON_IsObject(o)) return bad(k, path, "expected an object, got %s", type_name(o));
    if (get_str_or_null(k, o, path, "name", &run->name) < 0 || get_str_or_null(k, o, path, "source", &run->source) < 0 ||
        parse_provenance(k, o, path, run) < 0 || get_bool(k, o, path, "complete", &run->complete) < 0 ||
        get_bool(k, o, path, "interrupted", &run->interrupted) < 0 || parse_summary(k, o, path, &run->summary) < 0 ||
        get_str_or_null(k, o, path, "gpubench_version", &run->gpubench_version) < 0)
        return -1;
    return order_from(k, o, K_RUN, &run->order);
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
        summary_copy(&dst->summary, &src->summary) != 0 ||
        (src->gpubench_version && !(dst->gpubench_version = xstrdup(src->gpubench_version)))) {
        gb_run_free(dst);
        return GB_FAIL;
    }
    /* Not the key order: a copied run is written in the schema's order,
     * without keys this gpubench does not know (what merge has always done). */
    return GB_OK;
}

/* ---- results ------------------------------------------------------------- */

const char *gb_result_status_name(gb_result_status s) {
    switch (s) {
    case GB_RS_OK: return "ok";
    case GB_RS_SKIPPED: return "skipped";
    case GB_RS_FAILED: return "failed";
    case GB_RS_ERROR: return "error";
    }
    return "?";
}

const char *gb_verify_status_name(gb_verification_status s) {
    switch (s) {
    case GB_VS_PASSED: return "passed";
    case GB_VS_FAILED: return "failed";
    case GB_VS_NOT_CHECKED: return "not_checked";
    }
    return "?";
}

static void stats_init(gb_result_stats *s) {
    memset(s, 0, sizeof *s);
    s->min = s->max = s->median = s->mean = s->stddev = s->cv = s->ci95_low = s->ci95_high = NAN;
}

static int parse_stats(chk *k, const cJSON *o, const char *path, size_t nsamples, int has_samples,
                       gb_result_stats *s) {
    char p[512];
    const cJSON *obj;
    stats_init(s);
    if (get_obj(k, o, path, "stats", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    s->present = 1;
    join(p, sizeof p, path, "stats");
    double n;
    if (get_num(k, obj, p, "n", N_REQ | N_NONNEG | N_WHOLE, &n) < 0) return -1;
    s->n = (size_t)n;
    if (has_samples && s->n != nsamples) {
        char pn[520];
        join(pn, sizeof pn, p, "n");
        return bad(k, pn, "%zu, but samples_s has %zu sample%s", s->n, nsamples, nsamples == 1 ? "" : "s");
    }
    double *field[] = {&s->min, &s->max, &s->median, &s->mean, &s->stddev, &s->cv, &s->ci95_low, &s->ci95_high};
    /* Times are positive (a speedup divides by them); spreads may be 0. */
    static const int flags[] = {N_POS, N_POS, N_POS, N_POS, N_NONNEG, N_NONNEG, N_NONNEG, N_NONNEG};
    for (int i = 1; K_STATS[i]; i++)
        if (get_num(k, obj, p, K_STATS[i], flags[i - 1], field[i - 1]) < 0) return -1;
    if (s->min > s->median || s->median > s->max) {
        char pm[520];
        join(pm, sizeof pm, p, "median");
        return bad(k, pm, "%g is outside [min, max] = [%g, %g]", s->median, s->min, s->max);
    }
    if (s->ci95_low > s->ci95_high) {
        char pl[520];
        join(pl, sizeof pl, p, "ci95_low");
        return bad(k, pl, "%g is above ci95_high %g", s->ci95_low, s->ci95_high);
    }
    return order_from(k, obj, K_STATS, &s->order);
}

static void verification_free(gb_verification *v) {
    free(v->against);
    free(v->metric);
    free(v->detail);
    order_free(&v->order);
    memset(v, 0, sizeof *v);
}

static int verification_empty(gb_verification *v) {
    memset(v, 0, sizeof *v);
    v->status = GB_VS_NOT_CHECKED;
    v->error = v->tolerance = NAN;
    if (!(v->against = xstrdup("")) || !(v->metric = xstrdup("")) || !(v->detail = xstrdup(""))) return -1;
    return 0;
}

static int parse_verification(chk *k, const cJSON *o, const char *path, gb_verification *v) {
    char p[512], ps[520];
    const cJSON *obj;
    if (verification_empty(v) != 0) return oom(k);
    if (get_obj(k, o, path, "verification", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    v->present = 1;
    join(p, sizeof p, path, "verification");
    char *st = NULL;
    if (get_str(k, obj, p, "status", 1, &st) < 0) return -1;
    if (!strcmp(st, "passed")) v->status = GB_VS_PASSED;
    else if (!strcmp(st, "failed")) v->status = GB_VS_FAILED;
    else if (!strcmp(st, "not_checked")) v->status = GB_VS_NOT_CHECKED;
    else {
        join(ps, sizeof ps, p, "status");
        bad(k, ps, "expected passed, failed or not_checked, got \"%s\"", st);
        free(st);
        return -1;
    }
    free(st);
    int a = get_str(k, obj, p, "against", 0, &v->against), m = a < 0 ? -1 : get_str(k, obj, p, "metric", 0, &v->metric);
    int d = m < 0 ? -1 : get_str(k, obj, p, "detail", 0, &v->detail);
    if (a < 0 || m < 0 || d < 0) return -1;
    int er = get_num(k, obj, p, "error", N_NULL, &v->error);
    int to = er < 0 ? -1 : get_num(k, obj, p, "tolerance", N_NULL, &v->tolerance);
    if (er < 0 || to < 0) return -1;
    v->has = (a ? GB_V_HAS_AGAINST : 0) | (m ? GB_V_HAS_METRIC : 0) | (d ? GB_V_HAS_DETAIL : 0) |
             (er ? GB_V_HAS_ERROR : 0) | (to ? GB_V_HAS_TOLERANCE : 0);
    return order_from(k, obj, K_VERIF, &v->order);
}

/* samples_s: an array of non-negative finite numbers, or the runner's raw
 * text of one. */
static int parse_samples(chk *k, const cJSON *o, const char *path, gb_result *r) {
    char p[512], pi[512];
    const cJSON *v = item(o, "samples_s");
    if (!v) return 0;
    join(p, sizeof p, path, "samples_s");
    cJSON *parsed = NULL;
    if (cJSON_IsRaw(v)) {
        if (!(parsed = cJSON_Parse(v->valuestring))) return bad(k, p, "raw text is not JSON");
        v = parsed;
    }
    int rc = 0;
    if (!cJSON_IsArray(v)) {
        rc = bad(k, p, "expected an array of times, got %s", type_name(v));
        goto out;
    }
    size_t n = (size_t)cJSON_GetArraySize(v);
    r->has |= GB_R_HAS_SAMPLES;
    if (n && !(r->samples = malloc(n * sizeof *r->samples))) {
        rc = oom(k);
        goto out;
    }
    for (const cJSON *x = v->child; x; x = x->next) {
        at(pi, sizeof pi, path, "samples_s", r->nsamples);
        if (!cJSON_IsNumber(x)) {
            rc = bad(k, pi, "expected a time in seconds, got %s", type_name(x));
            goto out;
        }
        if (!isfinite(x->valuedouble) || !(x->valuedouble > 0)) {
            rc = bad(k, pi, "expected a time in seconds (finite, positive), got %g", x->valuedouble);
            goto out;
        }
        r->samples[r->nsamples++] = x->valuedouble;
    }
out:
    cJSON_Delete(parsed);
    return rc;
}

static int parse_round_sizes(chk *k, const cJSON *o, const char *path, gb_result *r) {
    char p[512], pi[512];
    const cJSON *arr;
    if (get_arr(k, o, path, "round_sizes", 0, &arr) < 0) return -1;
    if (!arr) return 0;
    join(p, sizeof p, path, "round_sizes");
    r->has |= GB_R_HAS_ROUNDS;
    size_t n = (size_t)cJSON_GetArraySize(arr), sum = 0;
    if (n && !(r->round_sizes = malloc(n * sizeof *r->round_sizes))) return oom(k);
    for (const cJSON *x = arr->child; x; x = x->next) {
        at(pi, sizeof pi, path, "round_sizes", r->nrounds);
        double v = cJSON_IsNumber(x) ? x->valuedouble : NAN;
        if (!cJSON_IsNumber(x) || !(v >= 0) || v != floor(v) || v > 1e15)
            return cJSON_IsNumber(x) ? bad(k, pi, "expected a count of samples, got %g", v)
                                     : bad(k, pi, "expected a count of samples, got %s", type_name(x));
        r->round_sizes[r->nrounds++] = (size_t)v;
        /* Checked as it grows: the sum never passes nsamples, so it never
         * overflows, and no reader indexes past the samples. */
        if ((size_t)v > r->nsamples - sum)
            return bad(k, p, "the rounds add up to more than the %zu sample%s of samples_s", r->nsamples,
                       r->nsamples == 1 ? "" : "s");
        sum += (size_t)v;
    }
    if (sum != r->nsamples)
        return bad(k, p, "the rounds add up to %zu samples, but samples_s has %zu", sum, r->nsamples);
    return 0;
}

static void device_free(gb_device_id *d);

static void result_free(gb_result *r) {
    free(r->backend);
    free(r->timing);
    free(r->reason);
    free(r->round_sizes);
    free(r->samples);
    order_free(&r->stats.order);
    free(r->peak);
    verification_free(&r->verification);
    gb_kvlist_free(&r->extra);
    device_free(&r->device);
    order_free(&r->concurrent.order);
    order_free(&r->order);
    memset(r, 0, sizeof *r);
}

static int parse_device(chk *k, const cJSON *o, const char *path, gb_device_id *d) {
    char p[512];
    const cJSON *obj;
    if (get_obj(k, o, path, "device", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    d->present = 1;
    join(p, sizeof p, path, "device");
    double index;
    if (get_num(k, obj, p, "index", N_REQ | N_NONNEG | N_WHOLE, &index) < 0) return -1;
    d->index = (long)index;
    if (get_str(k, obj, p, "name", 0, &d->name) < 0 || get_str(k, obj, p, "uuid", 0, &d->uuid) < 0 ||
        get_str(k, obj, p, "pci_bus_id", 0, &d->pci_bus_id) < 0)
        return -1;
    return order_from(k, obj, K_DEVICE, &d->order);
}

static int parse_concurrent(chk *k, const cJSON *o, const char *path, gb_concurrency *x) {
    char p[512];
    const cJSON *obj;
    if (get_obj(k, o, path, "concurrent", 0, &obj) < 0) return -1;
    if (!obj) return 0;
    x->present = 1;
    join(p, sizeof p, path, "concurrent");
    double n;
    x->aggregate_gflops = x->aggregate_gbs = NAN;
    if (get_num(k, obj, p, "devices", N_REQ | N_POS | N_WHOLE, &n) < 0 ||
        get_num(k, obj, p, "aggregate_gflops", N_NULL | N_NONNEG, &x->aggregate_gflops) < 0 ||
        get_num(k, obj, p, "aggregate_gbs", N_NULL | N_NONNEG, &x->aggregate_gbs) < 0)
        return -1;
    x->devices = (long)n;
    return order_from(k, obj, K_CONCURRENT, &x->order);
}

static void device_free(gb_device_id *d) {
    free(d->name);
    free(d->uuid);
    free(d->pci_bus_id);
    order_free(&d->order);
    memset(d, 0, sizeof *d);
}

static int device_copy(gb_device_id *dst, const gb_device_id *src) {
    memset(dst, 0, sizeof *dst);
    if (!src->present) return 0;
    dst->present = 1;
    dst->index = src->index;
    if (!(dst->name = xstrdup(src->name)) || !(dst->uuid = xstrdup(src->uuid)) ||
        !(dst->pci_bus_id = xstrdup(src->pci_bus_id)) || order_copy(&dst->order, src->order) != 0)
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

static int parse_result(chk *k, const cJSON *o, const char *path, gb_result *r) {
    char p[512];
    r->setup_s = r->verify_s = r->gflops = r->gbs = r->pct_of_peak = NAN;
    r->warmup_reps = -1;
    stats_init(&r->stats);
    if (!cJSON_IsObject(o)) return bad(k, path, "expected an object, got %s", type_name(o));
    char *st = NULL;
    if (get_str(k, o, path, "backend", 1, &r->backend) < 0 || get_str(k, o, path, "timing", 1, &r->timing) < 0)
        return -1;
    join(p, sizeof p, path, "status");
    const cJSON *sv = item(o, "status");
    if (!sv) return bad(k, p, "missing (expected ok, skipped, failed or error)");
    if (get_str(k, o, path, "status", 1, &st) < 0) return -1;
    if (!strcmp(st, "ok")) r->status = GB_RS_OK;
    else if (!strcmp(st, "skipped")) r->status = GB_RS_SKIPPED;
    else if (!strcmp(st, "failed")) r->status = GB_RS_FAILED;
    else if (!strcmp(st, "error")) r->status = GB_RS_ERROR;
    else {
        bad(k, p, "expected ok, skipped, failed or error, got \"%s\"", st);
        free(st);
        return -1;
    }
    free(st);
    int got = get_str(k, o, path, "reason", 0, &r->reason);
    if (got < 0) return -1;
    if (got) r->has |= GB_R_HAS_REASON;
    if ((got = get_num(k, o, path, "setup_s", N_NONNEG, &r->setup_s)) < 0) return -1;
    if (got) r->has |= GB_R_HAS_SETUP;
    if ((got = get_num(k, o, path, "verify_s", N_NONNEG, &r->verify_s)) < 0) return -1;
    if (got) r->has |= GB_R_HAS_VERIFY;
    double w;
    if ((got = get_num(k, o, path, "warmup_reps", N_NONNEG | N_WHOLE, &w)) < 0) return -1;
    if (got) r->has |= GB_R_HAS_WARMUP, r->warmup_reps = (long)w;
    if (parse_samples(k, o, path, r) < 0 || parse_round_sizes(k, o, path, r) < 0 ||
        parse_stats(k, o, path, r->nsamples, (r->has & GB_R_HAS_SAMPLES) != 0, &r->stats) < 0)
        return -1;
    static const struct { const char *key; unsigned bit; int flags; } rates[] = {
        {"gflops", GB_R_HAS_GFLOPS, N_NULL | N_NONNEG}, {"gbs", GB_R_HAS_GBS, N_NULL | N_NONNEG},
        {"pct_of_peak", GB_R_HAS_PCT, N_NULL | N_NONNEG}};
    double *rate[] = {&r->gflops, &r->gbs, &r->pct_of_peak};
    for (int i = 0; i < 3; i++) {
        if ((got = get_num(k, o, path, rates[i].key, rates[i].flags, rate[i])) < 0) return -1;
        if (got) r->has |= rates[i].bit;
    }
    if ((got = get_str_or_null(k, o, path, "peak", &r->peak)) < 0) return -1;
    if (got) r->has |= GB_R_HAS_PEAK;
    if (parse_verification(k, o, path, &r->verification) < 0 || get_kvlist(k, o, path, "extra", &r->extra) < 0 ||
        parse_device(k, o, path, &r->device) < 0 || parse_concurrent(k, o, path, &r->concurrent) < 0)
        return -1;
    return order_from(k, o, K_RESULT, &r->order);
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
    if (device_copy(&dst->device, &src->device) != 0) return -1;
    if (order_copy(&dst->concurrent.order, src->concurrent.order) != 0) return -1;
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
        order_copy(&dst->verification.order, src->verification.order) != 0 ||
        order_copy(&dst->stats.order, src->stats.order) != 0 || gb_kvlist_copy(&dst->extra, &src->extra) != 0 ||
        order_copy(&dst->order, src->order) != 0)
        return -1;
    return 0;
}

/* ---- cases --------------------------------------------------------------- */

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
    order_free(&c->order);
    memset(c, 0, sizeof *c);
}

/* nruns < 0: a case alone (no document: "run" is not checked). */
static int parse_case(chk *k, const cJSON *o, const char *path, int nruns, gb_case_result *c) {
    char p[512], pi[530];
    c->flops = c->bytes = NAN;
    if (!cJSON_IsObject(o)) return bad(k, path, "expected an object, got %s", type_name(o));
    /* The run first: a case of a run that does not exist is read as nothing else. */
    const cJSON *run = item(o, "run");
    if (run) {
        join(p, sizeof p, path, "run");
        if (!cJSON_IsNumber(run) || run->valuedouble < 0 || run->valuedouble != floor(run->valuedouble) ||
            (nruns >= 0 && run->valuedouble >= nruns))
            return cJSON_IsNumber(run) ? bad(k, p, "%g does not index \"runs\" (%d run%s)", run->valuedouble, nruns,
                                             nruns == 1 ? "" : "s")
                                       : bad(k, p, "expected an index into \"runs\", got %s", type_name(run));
        c->run = (int)run->valuedouble;
    }
    if (get_str(k, o, path, "op", 1, &c->op) < 0 || get_str(k, o, path, "dtype", 1, &c->dtype) < 0) return -1;
    const cJSON *shape;
    if (get_arr(k, o, path, "shape", 1, &shape) < 0) return -1;
    join(p, sizeof p, path, "shape");
    size_t rank = (size_t)cJSON_GetArraySize(shape);
    if (rank == 0) return bad(k, p, "expected at least one dimension, got an empty array");
    if (!(c->shape = malloc(rank * sizeof *c->shape))) return oom(k);
    for (const cJSON *d = shape->child; d; d = d->next) {
        at(pi, sizeof pi, path, "shape", c->rank);
        if (!cJSON_IsNumber(d)) return bad(k, pi, "expected a positive whole number, got %s", type_name(d));
        if (!(d->valuedouble >= 1) || d->valuedouble != floor(d->valuedouble) || !isfinite(d->valuedouble))
            return bad(k, pi, "expected a positive whole number, got %g", d->valuedouble);
        c->shape[c->rank++] = d->valuedouble;
    }
    int got;
    if ((got = get_str(k, o, path, "label", 0, &c->label)) < 0) return -1;
    if (got) c->has |= GB_C_HAS_LABEL;
    if (get_kvlist(k, o, path, "params", &c->params) < 0) return -1;
    if ((got = get_num(k, o, path, "flops", N_NONNEG, &c->flops)) < 0) return -1;
    if (got) c->has |= GB_C_HAS_FLOPS;
    if ((got = get_num(k, o, path, "bytes", N_NONNEG, &c->bytes)) < 0) return -1;
    if (got) c->has |= GB_C_HAS_BYTES;
    if ((got = get_str(k, o, path, "rate_kind", 0, &c->rate_kind)) < 0) return -1;
    if (got) c->has |= GB_C_HAS_RATE_KIND;
    const cJSON *rs;
    if (get_arr(k, o, path, "results", 1, &rs) < 0) return -1;
    size_t n = (size_t)cJSON_GetArraySize(rs);
    if (n && !(c->results = calloc(n, sizeof *c->results))) return oom(k);
    for (const cJSON *r = rs->child; r; r = r->next) {
        at(pi, sizeof pi, path, "results", c->nresults);
        if (parse_result(k, r, pi, &c->results[c->nresults++]) < 0) return -1;
    }
    const cJSON *sp;
    if (get_obj(k, o, path, "speedup", 0, &sp) < 0) return -1;
    if (sp) {
        c->has |= GB_C_HAS_SPEEDUP;
        join(p, sizeof p, path, "speedup");
        n = (size_t)cJSON_GetArraySize(sp);
        if (n && !(c->speedups = calloc(n, sizeof *c->speedups))) return oom(k);
        for (const cJSON *x = sp->child; x; x = x->next) {
            gb_speedup *s = &c->speedups[c->nspeedups++];
            if (!(s->timing = xstrdup(x->string))) return oom(k);
            if (get_num(k, sp, p, x->string, N_POS, &s->value) < 0) return -1;
        }
    }
    return order_from(k, o, K_CASE, &c->order);
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
        order_copy(&dst->order, src->order) != 0)
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

/* ---- crossover entries --------------------------------------------------- */

void gb_crossover_entry_free(gb_crossover_entry *x) {
    free(x->op);
    free(x->dtype);
    gb_kvlist_free(&x->params);
    free(x->timing);
    free(x->status);
    free(x->size_measure);
    for (size_t i = 0; i < x->nchanges; i++) {
        free(x->changes[i].to);
        order_free(&x->changes[i].order);
    }
    free(x->changes);
    order_free(&x->order);
    memset(x, 0, sizeof *x);
}

static int parse_crossover_entry(chk *k, const cJSON *o, const char *path, const gb_results *doc,
                                 gb_crossover_entry *x) {
    char p[512], pi[530];
    x->size = x->tested_min = x->tested_max = NAN;
    x->between[0] = x->between[1] = NAN;
    if (!cJSON_IsObject(o)) return bad(k, path, "expected an object, got %s", type_name(o));
    const cJSON *run = item(o, "run");
    if (run) {
        join(p, sizeof p, path, "run");
        if (!cJSON_IsNumber(run) || run->valuedouble < 0 || run->valuedouble != floor(run->valuedouble) ||
            run->valuedouble >= (double)doc->nruns)
            return bad(k, p, "expected an index into \"runs\", got %s", type_name(run));
        x->run = (int)run->valuedouble;
    }
    if (get_str(k, o, path, "op", 1, &x->op) < 0 || get_str(k, o, path, "dtype", 1, &x->dtype) < 0 ||
        get_kvlist(k, o, path, "params", &x->params) < 0 || get_str(k, o, path, "timing", 1, &x->timing) < 0 ||
        get_num(k, o, path, "size", N_REQ | N_NULL | N_NONNEG, &x->size) < 0 ||
        get_str(k, o, path, "status", 1, &x->status) < 0 || get_str(k, o, path, "size_measure", 1, &x->size_measure) < 0 ||
        get_num(k, o, path, "tested_min", N_REQ | N_NONNEG, &x->tested_min) < 0 ||
        get_num(k, o, path, "tested_max", N_REQ | N_NONNEG, &x->tested_max) < 0)
        return -1;
    double v;
    if (get_num(k, o, path, "points", N_REQ | N_NONNEG | N_WHOLE, &v) < 0) return -1;
    x->points = (long)v;
    if (get_num(k, o, path, "sign_changes", N_REQ | N_NONNEG | N_WHOLE, &v) < 0) return -1;
    x->sign_changes = (long)v;
    const cJSON *between, *changes;
    if (get_arr(k, o, path, "between", 0, &between) < 0) return -1;
    if (between) {
        join(p, sizeof p, path, "between");
        if (cJSON_GetArraySize(between) != 2 || !cJSON_IsNumber(between->child) ||
            !cJSON_IsNumber(between->child->next) || !isfinite(between->child->valuedouble) ||
            !isfinite(between->child->next->valuedouble))
            return bad(k, p, "expected two sizes");
        x->has_between = 1;
        x->between[0] = between->child->valuedouble;
        x->between[1] = between->child->next->valuedouble;
    }
    double dev = NAN;
    if (get_num(k, o, path, "device", N_NONNEG | N_WHOLE, &dev) < 0) return -1;
    x->device = isnan(dev) ? -1 : (long)dev;
    if (get_arr(k, o, path, "changes", 0, &changes) < 0) return -1;
    if (changes) {
        x->has_changes = 1;
        size_t n = (size_t)cJSON_GetArraySize(changes);
        if (n && !(x->changes = calloc(n, sizeof *x->changes))) return oom(k);
        for (const cJSON *c = changes->child; c; c = c->next) {
            at(pi, sizeof pi, path, "changes", x->nchanges);
            gb_crossover_step *s = &x->changes[x->nchanges++];
            if (!cJSON_IsObject(c)) return bad(k, pi, "expected an object, got %s", type_name(c));
            if (get_num(k, c, pi, "size", N_REQ | N_NONNEG, &s->size) < 0 ||
                get_num(k, c, pi, "lo", N_REQ | N_NONNEG, &s->lo) < 0 ||
                get_num(k, c, pi, "hi", N_REQ | N_NONNEG, &s->hi) < 0 || get_str(k, c, pi, "to", 1, &s->to) < 0 ||
                order_from(k, c, K_STEP, &s->order) < 0)
                return -1;
            s->to_accelerator = gb_results_backend(doc, x->run, s->to)->role != GB_ROLE_HOST;
        }
    }
    return order_from(k, o, K_CROSS, &x->order);
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
        gb_kvlist_copy(&dst->params, &src->params) != 0 || order_copy(&dst->order, src->order) != 0)
        goto fail;
    if (src->nchanges && !(dst->changes = calloc(src->nchanges, sizeof *dst->changes))) goto fail;
    for (size_t i = 0; i < src->nchanges; i++, dst->nchanges++) {
        dst->changes[i] = src->changes[i];
        dst->changes[i].to = NULL;
        dst->changes[i].order = NULL;
        if (!(dst->changes[i].to = xstrdup(src->changes[i].to)) ||
            order_copy(&dst->changes[i].order, src->changes[i].order) != 0) {
            dst->nchanges++;
            goto fail;
        }
    }
    return GB_OK;
fail:
    gb_crossover_entry_free(dst);
    return GB_FAIL;
}

/* ---- the document -------------------------------------------------------- */

void gb_results_free(gb_results *r) {
    free(r->name);
    free(r->gpubench_version);
    free(r->interrupted_by);
    for (size_t i = 0; i < r->nruns; i++) gb_run_free(&r->runs[i]);
    free(r->runs);
    strlist_free(&r->warnings);
    for (size_t i = 0; i < r->ncases; i++) gb_case_result_free(&r->cases[i]);
    free(r->cases);
    for (size_t i = 0; i < r->ncrossover; i++) gb_crossover_entry_free(&r->crossover[i]);
    free(r->crossover);
    summary_free(&r->summary);
    free(r->time_breakdown_json);
    order_free(&r->order);
    memset(r, 0, sizeof *r);
}

static int parse_doc(chk *k, const cJSON *doc, gb_results *r) {
    const char *name = k->file;
    const cJSON *schema = item(doc, "schema");
    if (!cJSON_IsObject(doc) || !schema)
        return gb_errf(k->e, GB_FAIL, "%s: not a gpubench results file (no \"schema\")", name), -1;
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, GB_RESULTS_SCHEMA) != 0)
        return gb_errf(k->e, GB_FAIL, "%s: not a gpubench results file (schema \"%s\")", name,
                       cJSON_IsString(schema) ? schema->valuestring : "?"), -1;
    const cJSON *ver = item(doc, "schema_version");
    if (!cJSON_IsNumber(ver))
        return gb_errf(k->e, GB_FAIL, "%s: no numeric \"schema_version\", this gpubench reads %d", name,
                       GB_RESULTS_SCHEMA_VERSION), -1;
    if (ver->valuedouble != GB_RESULTS_SCHEMA_VERSION)
        return gb_errf(k->e, GB_FAIL, "%s: schema_version %g, this gpubench reads %d", name, ver->valuedouble,
                       GB_RESULTS_SCHEMA_VERSION), -1;
    const cJSON *cases = item(doc, "cases");
    if (!cJSON_IsArray(cases))
        return gb_errf(k->e, GB_FAIL, "%s: not a valid results file (no \"cases\" array)", name), -1;
    const cJSON *runs = item(doc, "runs");
    if (runs && (!cJSON_IsArray(runs) || cJSON_GetArraySize(runs) == 0))
        return gb_errf(k->e, GB_FAIL, "%s: \"runs\" must be a non-empty array of run objects", name), -1;

    char p[64];
    if (get_str_or_null(k, doc, "", "gpubench_version", &r->gpubench_version) < 0 ||
        get_bool(k, doc, "", "complete", &r->complete) < 0 || get_bool(k, doc, "", "interrupted", &r->interrupted) < 0 ||
        get_str_or_null(k, doc, "", "interrupted_by", &r->interrupted_by) < 0 ||
        parse_summary(k, doc, "", &r->summary) < 0 || get_json_obj(k, doc, "", "time_breakdown", &r->time_breakdown_json) < 0)
        return -1;
    r->merged = runs != NULL;
    size_t nruns = runs ? (size_t)cJSON_GetArraySize(runs) : 1;
    if (!(r->runs = calloc(nruns, sizeof *r->runs))) return oom(k);
    if (runs) {
        if (get_strlist(k, doc, "", "warnings", &r->warnings) < 0) return -1;
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
        if (summary_copy(&run->summary, &r->summary) != 0 ||
            (r->gpubench_version && !(run->gpubench_version = xstrdup(r->gpubench_version))))
            return oom(k);
    }
    size_t n = (size_t)cJSON_GetArraySize(cases);
    if (n && !(r->cases = calloc(n, sizeof *r->cases))) return oom(k);
    for (const cJSON *c = cases->child; c; c = c->next) {
        snprintf(p, sizeof p, "cases[%zu]", r->ncases);
        if (parse_case(k, c, p, (int)r->nruns, &r->cases[r->ncases++]) < 0) return -1;
    }
    const cJSON *xs;
    if (get_arr(k, doc, "", "crossover", 0, &xs) < 0) return -1;
    if (xs) {
        r->has_crossover = 1;
        n = (size_t)cJSON_GetArraySize(xs);
        if (n && !(r->crossover = calloc(n, sizeof *r->crossover))) return oom(k);
        for (const cJSON *x = xs->child; x; x = x->next) {
            snprintf(p, sizeof p, "crossover[%zu]", r->ncrossover);
            if (parse_crossover_entry(k, x, p, r, &r->crossover[r->ncrossover++]) < 0) return -1;
        }
    }
    return order_from(k, doc, K_TOP, &r->order);
}

int gb_results_from_json(const cJSON *doc, const char *name, gb_results *out, gb_err *e) {
    memset(out, 0, sizeof *out);
    chk k = {name, e};
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

/* ---- building ------------------------------------------------------------ */

int gb_kvlist_from_cjson(gb_kvlist *l, const cJSON *obj, const char *name, gb_err *e) {
    chk k = {name, e};
    gb_kvlist tmp;
    if (!cJSON_IsObject(obj)) return gb_errf(e, GB_FAIL, "%s: expected an object, got %s", name, type_name(obj));
    /* get_kvlist reads an object at a key: hand it obj under one */
    cJSON *holder = cJSON_CreateObject();
    if (!holder || !cJSON_AddItemReferenceToObject(holder, "extra", (cJSON *)obj)) {
        cJSON_Delete(holder);
        return gb_errf(e, GB_FAIL, "%s: out of memory", name);
    }
    int got = get_kvlist(&k, holder, "", "extra", &tmp);
    cJSON_Delete(holder); /* a reference: obj itself is not freed */
    if (got < 0) {
        gb_kvlist_free(&tmp);
        return GB_FAIL;
    }
    gb_kvlist_free(l);
    *l = tmp;
    return GB_OK;
}

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
        run->summary.errors = -1;
    if (context_empty(&run->context) != 0 || !(run->suite_name = xstrdup(""))) {
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
    stats_init(&r->stats);
    if (!(r->backend = xstrdup("")) || !(r->timing = xstrdup("")) || !(r->reason = xstrdup("")) ||
        verification_empty(&r->verification) != 0) {
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
        r->summary.errors = -1;
    if (!(r->name = xstrdup(name)) || (!merged && !gb_results_add_run(r))) {
        gb_results_free(r);
        return gb_errf(e, GB_FAIL, "%s: out of memory", name);
    }
    return GB_OK;
}

/* ---- writing ------------------------------------------------------------- */

/* Builds one object: from its template when it was loaded (keys keep their
 * places, unknown keys stay), else empty (keys in the order they are put). */
typedef struct {
    cJSON *o;
    const char *const *known;
    unsigned long long put;
    int oom;
} emitter;

static void em_begin(emitter *m, const gb_keyorder *ord, const char *const *known) {
    m->known = known;
    m->put = 0;
    m->o = ord ? cJSON_Duplicate(ord->tmpl, 1) : cJSON_CreateObject();
    m->oom = m->o == NULL;
}

static void em_put(emitter *m, const char *key, cJSON *v) {
    if (!m->o || !v) {
        m->oom = 1;
        cJSON_Delete(v);
        return;
    }
    for (int i = 0; m->known[i]; i++)
        if (!strcmp(m->known[i], key)) m->put |= 1ull << i;
    if (cJSON_GetObjectItemCaseSensitive(m->o, key)) cJSON_ReplaceItemInObjectCaseSensitive(m->o, key, v);
    else cJSON_AddItemToObject(m->o, key, v);
}

/* Forget a key's place: put next, it goes last. */
static void em_unplace(emitter *m, const char *key) {
    if (m->o) cJSON_DeleteItemFromObjectCaseSensitive(m->o, key);
}

static cJSON *em_end(emitter *m) {
    if (m->oom) {
        cJSON_Delete(m->o);
        return NULL;
    }
    for (int i = 0; m->known[i]; i++)
        if (!(m->put & (1ull << i))) cJSON_DeleteItemFromObjectCaseSensitive(m->o, m->known[i]);
    return m->o;
}

static cJSON *num_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

/* cJSON_CreateDoubleArray refuses an empty array. */
static cJSON *double_array(const double *v, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *x = cJSON_CreateNumber(v[i]);
        if (!x) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, x);
    }
    return a;
}

static cJSON *parse_text(const char *json) { return json ? cJSON_Parse(json) : NULL; }

static cJSON *strlist_json(const gb_strlist *l) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < l->n; i++) {
        cJSON *s = cJSON_CreateString(l->item[i]);
        if (!s) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, s);
    }
    return a;
}

static cJSON *peaks_json(const gb_peaks *p) {
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

static cJSON *summary_json(const gb_summary *s) {
    emitter m;
    em_begin(&m, s->order, K_SUMMARY);
    const long field[] = {s->cases, s->results, s->ok, s->skipped, s->failed, s->errors};
    for (int i = 0; K_SUMMARY[i]; i++)
        if (field[i] >= 0) em_put(&m, K_SUMMARY[i], cJSON_CreateNumber((double)field[i]));
    return em_end(&m);
}

/* The runner's form: 6 significant digits, as raw text. */
static cJSON *samples_6g(const double *v, size_t n) {
    size_t cap = 16 * n + 3, len = 0;
    char *text = malloc(cap);
    if (!text) return NULL;
    text[len++] = '[';
    for (size_t i = 0; i < n; i++) len += (size_t)snprintf(text + len, cap - len, "%s%.6g", i ? "," : "", v[i]);
    text[len++] = ']';
    text[len] = '\0';
    cJSON *raw = cJSON_CreateRaw(text);
    free(text);
    return raw;
}

static cJSON *stats_json(const gb_result_stats *s) {
    emitter m;
    em_begin(&m, s->order, K_STATS);
    em_put(&m, "n", cJSON_CreateNumber((double)s->n));
    const double field[] = {s->min, s->max, s->median, s->mean, s->stddev, s->cv, s->ci95_low, s->ci95_high};
    for (int i = 1; K_STATS[i]; i++)
        if (isfinite(field[i - 1])) em_put(&m, K_STATS[i], cJSON_CreateNumber(field[i - 1]));
    return em_end(&m);
}

static cJSON *verification_json(const gb_verification *v) {
    emitter m;
    em_begin(&m, v->order, K_VERIF);
    em_put(&m, "status", cJSON_CreateString(gb_verify_status_name(v->status)));
    if (v->has & GB_V_HAS_AGAINST) em_put(&m, "against", cJSON_CreateString(v->against));
    if (v->has & GB_V_HAS_METRIC) em_put(&m, "metric", cJSON_CreateString(v->metric));
    if (v->has & GB_V_HAS_ERROR) em_put(&m, "error", num_or_null(v->error));
    if (v->has & GB_V_HAS_TOLERANCE) em_put(&m, "tolerance", num_or_null(v->tolerance));
    if (v->has & GB_V_HAS_DETAIL) em_put(&m, "detail", cJSON_CreateString(v->detail));
    return em_end(&m);
}

static cJSON *device_json(const gb_device_id *d) {
    emitter m;
    em_begin(&m, d->order, K_DEVICE);
    em_put(&m, "index", cJSON_CreateNumber((double)d->index));
    em_put(&m, "name", cJSON_CreateString(d->name ? d->name : ""));
    em_put(&m, "uuid", cJSON_CreateString(d->uuid ? d->uuid : ""));
    em_put(&m, "pci_bus_id", cJSON_CreateString(d->pci_bus_id ? d->pci_bus_id : ""));
    return em_end(&m);
}

static cJSON *concurrent_json(const gb_concurrency *x) {
    emitter m;
    em_begin(&m, x->order, K_CONCURRENT);
    em_put(&m, "devices", cJSON_CreateNumber((double)x->devices));
    em_put(&m, "aggregate_gflops", num_or_null(x->aggregate_gflops));
    em_put(&m, "aggregate_gbs", num_or_null(x->aggregate_gbs));
    return em_end(&m);
}

static cJSON *result_json(const gb_result *r, unsigned flags) {
    emitter m;
    em_begin(&m, r->order, K_RESULT);
    em_put(&m, "backend", cJSON_CreateString(r->backend));
    em_put(&m, "timing", cJSON_CreateString(r->timing));
    em_put(&m, "status", cJSON_CreateString(gb_result_status_name(r->status)));
    if (r->has & GB_R_HAS_REASON) em_put(&m, "reason", cJSON_CreateString(r->reason));
    if (r->has & GB_R_HAS_SETUP) em_put(&m, "setup_s", num_or_null(r->setup_s));
    if (r->has & GB_R_HAS_VERIFY) em_put(&m, "verify_s", num_or_null(r->verify_s));
    if (r->has & GB_R_HAS_WARMUP) em_put(&m, "warmup_reps", cJSON_CreateNumber((double)r->warmup_reps));
    if (r->has & GB_R_HAS_ROUNDS) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < r->nrounds; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)r->round_sizes[i]));
        em_put(&m, "round_sizes", a);
    }
    if (r->has & GB_R_HAS_SAMPLES)
        em_put(&m, "samples_s", (flags & GB_WRITE_SAMPLES_6G) ? samples_6g(r->samples, r->nsamples)
                                : double_array(r->samples, r->nsamples));
    if (r->stats.present) em_put(&m, "stats", stats_json(&r->stats));
    if (r->has & GB_R_HAS_GFLOPS) em_put(&m, "gflops", num_or_null(r->gflops));
    if (r->has & GB_R_HAS_GBS) em_put(&m, "gbs", num_or_null(r->gbs));
    if (r->has & GB_R_HAS_PCT) em_put(&m, "pct_of_peak", num_or_null(r->pct_of_peak));
    if (r->has & GB_R_HAS_PEAK) em_put(&m, "peak", r->peak ? cJSON_CreateString(r->peak) : cJSON_CreateNull());
    if (r->verification.present) em_put(&m, "verification", verification_json(&r->verification));
    if (r->extra.present) em_put(&m, "extra", gb_kvlist_to_cjson(&r->extra));
    if (r->device.present) em_put(&m, "device", device_json(&r->device));
    if (r->concurrent.present) em_put(&m, "concurrent", concurrent_json(&r->concurrent));
    return em_end(&m);
}

cJSON *gb_case_shape_to_cjson(const gb_case_result *c) { return double_array(c->shape, c->rank); }

static cJSON *case_json(const gb_case_result *c, int merged, unsigned flags) {
    emitter m;
    em_begin(&m, c->order, K_CASE);
    em_put(&m, "op", cJSON_CreateString(c->op));
    em_put(&m, "dtype", cJSON_CreateString(c->dtype));
    em_put(&m, "shape", gb_case_shape_to_cjson(c));
    if (c->has & GB_C_HAS_LABEL) em_put(&m, "label", cJSON_CreateString(c->label));
    if (c->params.present) em_put(&m, "params", gb_kvlist_to_cjson(&c->params));
    if (c->has & GB_C_HAS_FLOPS) em_put(&m, "flops", num_or_null(c->flops));
    if (c->has & GB_C_HAS_BYTES) em_put(&m, "bytes", num_or_null(c->bytes));
    if (c->has & GB_C_HAS_RATE_KIND) em_put(&m, "rate_kind", cJSON_CreateString(c->rate_kind));
    cJSON *rs = cJSON_CreateArray();
    for (size_t i = 0; rs && i < c->nresults; i++) {
        cJSON *r = result_json(&c->results[i], flags);
        if (!r) {
            cJSON_Delete(rs);
            rs = NULL;
            break;
        }
        cJSON_AddItemToArray(rs, r);
    }
    em_put(&m, "results", rs);
    if (c->has & GB_C_HAS_SPEEDUP) {
        cJSON *sp = cJSON_CreateObject();
        for (size_t i = 0; sp && i < c->nspeedups; i++)
            cJSON_AddItemToObject(sp, c->speedups[i].timing, cJSON_CreateNumber(c->speedups[i].value));
        em_put(&m, "speedup", sp);
    }
    /* A merged file's cases name their run, last (where merge puts it). */
    em_unplace(&m, "run");
    if (merged) em_put(&m, "run", cJSON_CreateNumber(c->run));
    return em_end(&m);
}

static cJSON *crossover_entry_json(const gb_crossover_entry *x, int merged) {
    emitter m;
    em_begin(&m, x->order, K_CROSS);
    em_put(&m, "op", cJSON_CreateString(x->op));
    em_put(&m, "dtype", cJSON_CreateString(x->dtype));
    if (x->params.present) em_put(&m, "params", gb_kvlist_to_cjson(&x->params));
    em_put(&m, "timing", cJSON_CreateString(x->timing));
    em_put(&m, "size", num_or_null(x->size));
    if (x->has_between) em_put(&m, "between", double_array(x->between, 2));
    em_put(&m, "status", cJSON_CreateString(x->status));
    em_put(&m, "size_measure", cJSON_CreateString(x->size_measure));
    em_put(&m, "tested_min", num_or_null(x->tested_min));
    em_put(&m, "tested_max", num_or_null(x->tested_max));
    em_put(&m, "points", cJSON_CreateNumber((double)x->points));
    em_put(&m, "sign_changes", cJSON_CreateNumber((double)x->sign_changes));
    if (x->device >= 0) em_put(&m, "device", cJSON_CreateNumber((double)x->device));
    if (x->has_changes) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < x->nchanges; i++) {
            const gb_crossover_step *s = &x->changes[i];
            emitter c;
            em_begin(&c, s->order, K_STEP);
            em_put(&c, "size", num_or_null(s->size));
            em_put(&c, "lo", num_or_null(s->lo));
            em_put(&c, "hi", num_or_null(s->hi));
            em_put(&c, "to", cJSON_CreateString(s->to));
            cJSON *o = em_end(&c);
            if (!o) {
                cJSON_Delete(a);
                a = NULL;
                break;
            }
            cJSON_AddItemToArray(a, o);
        }
        em_put(&m, "changes", a);
    }
    em_unplace(&m, "run");
    if (merged) em_put(&m, "run", cJSON_CreateNumber(x->run));
    return em_end(&m);
}

/* context, peaks, warnings, suite, health of a run, onto m. */
static void provenance_json(emitter *m, const gb_run *run, const char *which) {
    if (!strcmp(which, "context") && run->context.json) em_put(m, "context", parse_text(run->context.json));
    if (!strcmp(which, "peaks") && run->peaks.present) em_put(m, "peaks", peaks_json(&run->peaks));
    if (!strcmp(which, "warnings") && run->warnings.present) em_put(m, "warnings", strlist_json(&run->warnings));
    if (!strcmp(which, "suite") && run->suite_json) em_put(m, "suite", parse_text(run->suite_json));
    if (!strcmp(which, "health") && run->health_json) em_put(m, "health", parse_text(run->health_json));
}

static cJSON *run_json(const gb_run *run) {
    emitter m;
    em_begin(&m, run->order, K_RUN);
    if (run->name) em_put(&m, "name", cJSON_CreateString(run->name));
    if (run->source) em_put(&m, "source", cJSON_CreateString(run->source));
    static const char *const prov[] = {"context", "peaks", "warnings", "suite", "health"};
    for (int i = 0; i < 5; i++) provenance_json(&m, run, prov[i]);
    if (run->complete >= 0) em_put(&m, "complete", cJSON_CreateBool(run->complete));
    if (run->interrupted >= 0) em_put(&m, "interrupted", cJSON_CreateBool(run->interrupted));
    if (run->summary.present) em_put(&m, "summary", summary_json(&run->summary));
    if (run->gpubench_version) em_put(&m, "gpubench_version", cJSON_CreateString(run->gpubench_version));
    return em_end(&m);
}

static cJSON *array_of(size_t n, cJSON *(*one)(const void *, size_t, int, unsigned), const void *base, int merged,
                       unsigned flags) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *x = one(base, i, merged, flags);
        if (!x) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, x);
    }
    return a;
}
static cJSON *one_case(const void *base, size_t i, int merged, unsigned flags) {
    return case_json(&((const gb_case_result *)base)[i], merged, flags);
}
static cJSON *one_cross(const void *base, size_t i, int merged, unsigned flags) {
    (void)flags;
    return crossover_entry_json(&((const gb_crossover_entry *)base)[i], merged);
}
static cJSON *one_run(const void *base, size_t i, int merged, unsigned flags) {
    (void)merged;
    (void)flags;
    return run_json(&((const gb_run *)base)[i]);
}

cJSON *gb_results_to_json(const gb_results *r, unsigned flags) {
    emitter m;
    em_begin(&m, r->order, K_TOP);
    em_put(&m, "schema", cJSON_CreateString(GB_RESULTS_SCHEMA));
    em_put(&m, "schema_version", cJSON_CreateNumber(GB_RESULTS_SCHEMA_VERSION));
    if (r->gpubench_version) em_put(&m, "gpubench_version", cJSON_CreateString(r->gpubench_version));
    if (r->complete >= 0) em_put(&m, "complete", cJSON_CreateBool(r->complete));
    if (r->interrupted >= 0) em_put(&m, "interrupted", cJSON_CreateBool(r->interrupted));
    if (r->merged) {
        em_put(&m, "runs", array_of(r->nruns, one_run, r->runs, 1, flags));
        if (r->warnings.present) em_put(&m, "warnings", strlist_json(&r->warnings));
    } else if (r->nruns > 0) {
        static const char *const prov[] = {"suite", "context", "peaks", "warnings", "health"};
        for (int i = 0; i < 5; i++) provenance_json(&m, &r->runs[0], prov[i]);
    }
    em_put(&m, "cases", array_of(r->ncases, one_case, r->cases, r->merged, flags));
    /* The runner's order: crossover after the summary; merge's: before it. */
    if (r->merged && r->has_crossover) em_put(&m, "crossover", array_of(r->ncrossover, one_cross, r->crossover, 1, flags));
    if (r->summary.present) em_put(&m, "summary", summary_json(&r->summary));
    if (r->interrupted_by) em_put(&m, "interrupted_by", cJSON_CreateString(r->interrupted_by));
    if (!r->merged && r->has_crossover)
        em_put(&m, "crossover", array_of(r->ncrossover, one_cross, r->crossover, 0, flags));
    if (r->time_breakdown_json) em_put(&m, "time_breakdown", parse_text(r->time_breakdown_json));
    return em_end(&m);
}

int gb_results_write(const gb_results *r, const char *path, unsigned flags, gb_err *e) {
    cJSON *doc = gb_results_to_json(r, flags);
    if (!doc) return gb_errf(e, GB_FAIL, "%s: out of memory", path);
    gb_json_scrub(doc); /* never write what the loader refuses */
    int rc = gb_json_write_atomic(doc, path, e);
    cJSON_Delete(doc);
    return rc;
}

/* ---- summary, runs, backends --------------------------------------------- */

int gb_results_summarize(gb_results *r) {
    long cases = 0, total = 0, count[4] = {0};
    for (size_t i = 0; i < r->ncases; i++, cases++)
        for (size_t j = 0; j < r->cases[i].nresults; j++, total++) count[r->cases[i].results[j].status]++;
    gb_summary *s = &r->summary;
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
    return builtin_desc(name);
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
    cJSON *j = value_to_cjson(v);
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
    return same_json(value_to_cjson(a), value_to_cjson(b));
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
