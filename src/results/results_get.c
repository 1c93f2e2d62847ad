/* results_get.c — the checked getters every results reader uses: JSON paths
 * for messages, a field of each JSON type, plain values and key/value lists.
 * Apart from results_read.c so that results_read_case.c (cases) and
 * results_keyorder.c (templates) use them without depending on the document's
 * reader, which calls them both (src/LAYERS: no two files depend on each
 * other). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "results_model_internal.h"

/* ---- small helpers ----------------------------------------------------------- */

/* The path of key inside path ("cases[2]" + "op" = "cases[2].op"). */
void gb_rm_join(char *buf, size_t len, const char *path, const char *key) {
    int n = path && *path ? snprintf(buf, len, "%s.%s", path, key) : snprintf(buf, len, "%s", key);
    if (n < 0 || (size_t)n >= len) buf[len - 1] = '\0'; /* a path that long is cut, not lost */
}

/* The path of element i of the array at key ("cases[2]" + "results", 1). */
void gb_rm_at(char *buf, size_t len, const char *path, const char *key, size_t i) {
    int n = path && *path ? snprintf(buf, len, "%s.%s[%zu]", path, key, i) : snprintf(buf, len, "%s[%zu]", key, i);
    if (n < 0 || (size_t)n >= len) buf[len - 1] = '\0';
}

const char *gb_rm_type_name(const cJSON *v) {
    if (!v) return "nothing";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsBool(v)) return cJSON_IsTrue(v) ? "true" : "false";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "raw JSON";
}

int gb_rm_bad(gb_rm_chk *k, const char *path, const char *fmt, ...) {
    char what[GB_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    gb_errf(k->e, GB_FAIL, "%s: %s: %s", k->file, path, what);
    return -1;
}

int gb_rm_oom(gb_rm_chk *k) {
    gb_errf(k->e, GB_FAIL, "%s: out of memory", k->file);
    return -1;
}

const cJSON *gb_rm_item(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

/* A number at key: 1 present (NAN when null and N_NULL allows it), 0 absent
 * (*out = NAN), -1 wrong. */
int gb_rm_get_num(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int flags, double *out) {
    char p[512];
    const cJSON *v = gb_rm_item(o, key);
    *out = NAN;
    if (!v) {
        if (!(flags & N_REQ)) return 0;
        gb_rm_join(p, sizeof p, path, key);
        return gb_rm_bad(k, p, "missing (expected a number)");
    }
    gb_rm_join(p, sizeof p, path, key);
    if (cJSON_IsNull(v) && (flags & N_NULL)) return 1;
    if (!cJSON_IsNumber(v))
        return gb_rm_bad(k, p, "expected %sa number, got %s", (flags & N_NULL) ? "null or " : "", gb_rm_type_name(v));
    double x = v->valuedouble;
    if (!isfinite(x)) return gb_rm_bad(k, p, "expected a finite number, got %g", x);
    if ((flags & N_POS) && !(x > 0)) return gb_rm_bad(k, p, "expected a positive number, got %g", x);
    if ((flags & N_NONNEG) && x < 0) return gb_rm_bad(k, p, "expected a non-negative number, got %g", x);
    if ((flags & N_WHOLE) && (x != floor(x) || fabs(x) > 9007199254740992.0))
        return gb_rm_bad(k, p, "expected a whole number, got %g", x);
    if ((flags & N_COUNT) && (x != floor(x) || x < 0 || x > GB_MAX_CPU_COUNT))
        return gb_rm_bad(k, p, "expected a whole number from 0 to %g, got %g", GB_MAX_CPU_COUNT, x);
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
void gb_rm_replace_str(char **out, char *s) {
    free(*out);
    *out = s;
}

/* A string at key into *out (malloc'd; "" when absent): 1, 0 absent, -1. */
int gb_rm_get_str(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int required, char **out) {
    char p[512], *s;
    const cJSON *v = gb_rm_item(o, key);
    gb_rm_join(p, sizeof p, path, key);
    if (!v) {
        if (required) return gb_rm_bad(k, p, "missing (expected a string)");
        if (!(s = xstrdup(""))) return gb_rm_oom(k);
        gb_rm_replace_str(out, s);
        return 0;
    }
    if (!cJSON_IsString(v)) return gb_rm_bad(k, p, "expected a string, got %s", gb_rm_type_name(v));
    if (!(s = xstrdup(v->valuestring))) return gb_rm_oom(k);
    gb_rm_replace_str(out, s);
    return 1;
}

/* A string or null (*out NULL when null or absent). */
int gb_rm_get_str_or_null(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, char **out) {
    char p[512], *s;
    const cJSON *v = gb_rm_item(o, key);
    if (!v || cJSON_IsNull(v)) {
        gb_rm_replace_str(out, NULL);
        return v ? 1 : 0;
    }
    gb_rm_join(p, sizeof p, path, key);
    if (!cJSON_IsString(v)) return gb_rm_bad(k, p, "expected a string or null, got %s", gb_rm_type_name(v));
    if (!(s = xstrdup(v->valuestring))) return gb_rm_oom(k);
    gb_rm_replace_str(out, s);
    return 1;
}

/* true/false at key: *out 1/0, -1 when absent. */
int gb_rm_get_bool(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int *out) {
    char p[512];
    const cJSON *v = gb_rm_item(o, key);
    *out = -1;
    if (!v) return 0;
    gb_rm_join(p, sizeof p, path, key);
    if (!cJSON_IsBool(v)) return gb_rm_bad(k, p, "expected true or false, got %s", gb_rm_type_name(v));
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return 1;
}

/* An object or array (what: "an object", "an array"; is: its cJSON test)
 * at key: *out NULL when absent. */
static int get_container(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int required,
                         const char *what, cJSON_bool (*is)(const cJSON *), const cJSON **out) {
    char p[512];
    const cJSON *v = gb_rm_item(o, key);
    *out = NULL;
    gb_rm_join(p, sizeof p, path, key);
    if (!v) return required ? gb_rm_bad(k, p, "missing (expected %s)", what) : 0;
    if (!is(v)) return gb_rm_bad(k, p, "expected %s, got %s", what, gb_rm_type_name(v));
    *out = v;
    return 1;
}

int gb_rm_get_obj(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int required, const cJSON **out) {
    return get_container(k, o, path, key, required, "an object", cJSON_IsObject, out);
}

int gb_rm_get_arr(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int required, const cJSON **out) {
    return get_container(k, o, path, key, required, "an array", cJSON_IsArray, out);
}

/* ---- values ------------------------------------------------------------------ */

int gb_rm_value_from(const cJSON *j, gb_value *v) {
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

/* An object of plain values (any JSON) at key. */
int gb_rm_get_kvlist(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, gb_kvlist *l) {
    const cJSON *obj;
    memset(l, 0, sizeof *l);
    if (gb_rm_get_obj(k, o, path, key, 0, &obj) < 0) return -1;
    if (!obj) return 0;
    l->present = 1;
    size_t n = (size_t)cJSON_GetArraySize(obj);
    if (n && !(l->item = calloc(n, sizeof *l->item))) return gb_rm_oom(k);
    for (const cJSON *c = obj->child; c; c = c->next) {
        gb_kv *kv = &l->item[l->n++];
        if (!(kv->key = xstrdup(c->string)) || gb_rm_value_from(c, &kv->v) != 0) return gb_rm_oom(k);
    }
    return 1;
}

/* An array of strings at key: 1 present, 0 absent, -1 bad (message in k). */
int gb_rm_get_strlist(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, gb_strlist *l) {
    const cJSON *arr;
    char p[512];
    memset(l, 0, sizeof *l);
    if (gb_rm_get_arr(k, o, path, key, 0, &arr) < 0) return -1;
    if (!arr) return 0;
    l->present = 1;
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n && !(l->item = calloc(n, sizeof *l->item))) return gb_rm_oom(k);
    for (const cJSON *c = arr->child; c; c = c->next) {
        if (!cJSON_IsString(c)) {
            gb_rm_at(p, sizeof p, path, key, l->n);
            return gb_rm_bad(k, p, "expected a string, got %s", gb_rm_type_name(c));
        }
        if (!(l->item[l->n++] = xstrdup(c->valuestring))) return gb_rm_oom(k);
    }
    return 1;
}
