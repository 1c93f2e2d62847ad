/* results_walk.c — the one walker over the format's table (results_format.c):
 * loading with the strict checks, writing in key order, copying, freeing and
 * emptying every object of a results document, and the key-order templates
 * that keep a loaded object's keys in the file's order (known keys as null
 * placeholders, unknown keys with their values), so a file loaded and
 * written gives the same bytes and keys from a newer gpubench survive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "results_model_internal.h"

#define AT(self, off) ((char *)(self) + (off))
#define CAT(self, off) ((const char *)(self) + (off))

const gb_rm_field *gb_rm_field_of(const gb_rm_type *t, const char *key) {
    for (size_t i = 0; i < t->nfields; i++)
        if (t->fields[i].key && !strcmp(t->fields[i].key, key)) return &t->fields[i];
    return NULL;
}

static gb_keyorder **order_of(const gb_rm_type *t, void *self) {
    return t->order_off ? (gb_keyorder **)AT(self, t->order_off - 1) : NULL;
}

static unsigned *has_of(const gb_rm_type *t, void *self) {
    return t->has_off ? (unsigned *)AT(self, t->has_off - 1) : NULL;
}

/* ---- key order ------------------------------------------------------------------ */

int gb_rm_order_from(gb_rm_chk *k, const cJSON *obj, const gb_rm_type *t, gb_keyorder **out) {
    *out = NULL;
    gb_keyorder *o = calloc(1, sizeof *o);
    if (!o || !(o->tmpl = cJSON_CreateObject())) {
        free(o);
        return gb_rm_oom(k);
    }
    for (const cJSON *c = obj->child; c; c = c->next) {
        cJSON *v = gb_rm_field_of(t, c->string) ? cJSON_CreateNull() : cJSON_Duplicate(c, 1);
        if (!v) {
            cJSON_Delete(o->tmpl);
            free(o);
            return gb_rm_oom(k);
        }
        cJSON_AddItemToObject(o->tmpl, c->string, v);
    }
    *out = o;
    return 0;
}

void gb_rm_order_free(gb_keyorder **o) {
    if (!*o) return;
    cJSON_Delete((*o)->tmpl);
    free(*o);
    *o = NULL;
}

int gb_rm_order_copy(gb_keyorder **dst, const gb_keyorder *src) {
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

/* ---- emptying and freeing ------------------------------------------------------- */

void gb_rm_init(const gb_rm_type *t, void *self) {
    memset(self, 0, t->size);
    for (size_t i = 0; i < t->nfields; i++) {
        const gb_rm_field *f = &t->fields[i];
        void *p = AT(self, f->off);
        switch (f->kind) {
        case F_NUM: *(double *)p = NAN; break;
        case F_LONG: *(long *)p = -1; break;
        case F_BOOL: *(int *)p = -1; break;
        case F_ENUM: *(int *)p = f->en->dflt; break;
        case F_PAIR: ((double *)p)[0] = ((double *)p)[1] = NAN; break;
        case F_OBJ: gb_rm_init(f->sub, p); break;
        default: break;
        }
    }
}

static void free_field(const gb_rm_field *f, void *self) {
    void *p = AT(self, f->off);
    switch (f->kind) {
    case F_STR: case F_STR_NULL: case F_JSON: case F_DOUBLES: case F_SIZES: free(*(void **)p); break;
    case F_KVLIST: gb_kvlist_free(p); break;
    case F_STRLIST: gb_rm_strlist_free(p); break;
    case F_OBJ: gb_rm_free(f->sub, p); break;
    case F_ARR: {
        char *a = *(char **)p;
        size_t n = *(size_t *)AT(self, f->cnt);
        for (size_t j = 0; a && j < n; j++) gb_rm_free(f->sub, a + j * f->sub->size);
        free(a);
        break;
    }
    case F_SPEEDUPS: {
        gb_speedup *s = *(gb_speedup **)p;
        size_t n = *(size_t *)AT(self, f->cnt);
        for (size_t j = 0; s && j < n; j++) free(s[j].timing);
        free(s);
        break;
    }
    case F_CONTEXT: gb_rm_context_free(p); break;
    case F_PEAKS: gb_rm_peaks_free(p); break;
    default: break;
    }
}

void gb_rm_free_mask(const gb_rm_type *t, void *self, int mask) {
    for (size_t i = 0; i < t->nfields; i++)
        if (!mask || (t->fields[i].flags & mask)) free_field(&t->fields[i], self);
    if (!mask && order_of(t, self)) gb_rm_order_free(order_of(t, self));
}

void gb_rm_free(const gb_rm_type *t, void *self) {
    gb_rm_free_mask(t, self, 0);
    memset(self, 0, t->size);
}

/* Defaults, with strings "" (what a struct the model builds starts from). */
int gb_rm_empty(const gb_rm_type *t, void *self) {
    gb_rm_init(t, self);
    for (size_t i = 0; i < t->nfields; i++) {
        const gb_rm_field *f = &t->fields[i];
        void *p = AT(self, f->off);
        if (f->kind == F_STR && !(*(char **)p = xstrdup(""))) return -1;
        if (f->kind == F_OBJ && gb_rm_empty(f->sub, p) != 0) return -1;
        if (f->kind == F_CONTEXT && gb_rm_context_empty(p) != 0) return -1;
    }
    return 0;
}

/* ---- copying -------------------------------------------------------------------- */

/* dst is a byte copy of src: forget what it shares with src (so that freeing
 * it on a failure frees nothing of src's). */
static void unshare(const gb_rm_type *t, void *dst) {
    for (size_t i = 0; i < t->nfields; i++) {
        const gb_rm_field *f = &t->fields[i];
        void *p = AT(dst, f->off);
        switch (f->kind) {
        case F_STR: case F_STR_NULL: case F_JSON: case F_DOUBLES: case F_SIZES: *(void **)p = NULL; break;
        case F_ARR: case F_SPEEDUPS: *(void **)p = NULL, *(size_t *)AT(dst, f->cnt) = 0; break;
        case F_KVLIST: memset(p, 0, sizeof(gb_kvlist)); break;
        case F_STRLIST: memset(p, 0, sizeof(gb_strlist)); break;
        case F_OBJ: unshare(f->sub, p); break;
        case F_CONTEXT: memset(p, 0, sizeof(gb_context)); break;
        case F_PEAKS: memset(p, 0, sizeof(gb_peaks)); break;
        default: break;
        }
    }
    if (order_of(t, dst)) *order_of(t, dst) = NULL;
}

static int dup_mem(void **dst, const void *src, size_t n) {
    if (!src) return 0;
    if (!n) n = 1;
    if (!(*dst = malloc(n))) return -1;
    memcpy(*dst, src, n);
    return 0;
}

static int copy_fields(const gb_rm_type *t, void *dst, const void *src) {
    for (size_t i = 0; i < t->nfields; i++) {
        const gb_rm_field *f = &t->fields[i];
        void *d = AT(dst, f->off);
        const void *s = CAT(src, f->off);
        size_t n = f->cnt ? *(const size_t *)CAT(src, f->cnt) : 0;
        int rc = 0;
        switch (f->kind) {
        case F_STR: case F_STR_NULL: case F_JSON:
            rc = *(char *const *)s && !(*(char **)d = xstrdup(*(char *const *)s)) ? -1 : 0;
            break;
        case F_DOUBLES: rc = dup_mem(d, *(void *const *)s, n * sizeof(double)); break;
        case F_SIZES: rc = dup_mem(d, *(void *const *)s, n * sizeof(size_t)); break;
        case F_KVLIST: rc = gb_kvlist_copy(d, s); break;
        case F_STRLIST: rc = gb_rm_strlist_copy(d, s); break;
        case F_OBJ: rc = copy_fields(f->sub, d, s); break;
        case F_CONTEXT: rc = gb_rm_context_copy(d, s); break;
        case F_PEAKS: rc = gb_rm_peaks_copy(d, s); break;
        case F_ARR: {
            const char *a = *(char *const *)s;
            if (!n) break;
            char *b = calloc(n, f->sub->size);
            if (!(*(char **)d = b)) return -1;
            for (size_t j = 0; j < n; j++) {
                memcpy(b + j * f->sub->size, a + j * f->sub->size, f->sub->size);
                unshare(f->sub, b + j * f->sub->size);
                (*(size_t *)AT(dst, f->cnt))++;
                if (copy_fields(f->sub, b + j * f->sub->size, a + j * f->sub->size) != 0) return -1;
            }
            break;
        }
        case F_SPEEDUPS: {
            const gb_speedup *a = *(gb_speedup *const *)s;
            if (!n) break;
            gb_speedup *b = calloc(n, sizeof *b);
            if (!(*(gb_speedup **)d = b)) return -1;
            for (size_t j = 0; j < n; j++, (*(size_t *)AT(dst, f->cnt))++) {
                b[j].value = a[j].value;
                if (!(b[j].timing = xstrdup(a[j].timing))) return -1;
            }
            break;
        }
        default: break;
        }
        if (rc != 0) return -1;
    }
    gb_keyorder *const *so = t->order_off ? (gb_keyorder *const *)CAT(src, t->order_off - 1) : NULL;
    if (so && t->copy_order && gb_rm_order_copy(order_of(t, dst), *so) != 0) return -1;
    return 0;
}

int gb_rm_copy(const gb_rm_type *t, void *dst, const void *src) {
    memcpy(dst, src, t->size);
    unshare(t, dst);
    if (copy_fields(t, dst, src) != 0) {
        gb_rm_free(t, dst);
        return -1;
    }
    return 0;
}

/* ---- loading -------------------------------------------------------------------- */

static int load_arr(gb_rm_ctx *c, const gb_rm_field *f, const cJSON *o, const char *path, void *self) {
    const cJSON *arr;
    char p[530];
    int got = gb_rm_get_arr(c->k, o, path, f->key, (f->flags & REQ) != 0, &arr);
    if (got <= 0) return got;
    size_t n = (size_t)cJSON_GetArraySize(arr), *cnt = (size_t *)AT(self, f->cnt);
    char **a = (char **)AT(self, f->off);
    if (f->present) *(int *)AT(self, f->present - 1) = 1;
    if (n && !(*a = calloc(n, f->sub->size))) return gb_rm_oom(c->k);
    for (const cJSON *x = arr->child; x; x = x->next) {
        gb_rm_at(p, sizeof p, path, f->key, *cnt);
        void *el = *a + (*cnt)++ * f->sub->size;
        gb_rm_init(f->sub, el);
        if (!cJSON_IsObject(x)) return gb_rm_bad(c->k, p, "expected an object, got %s", gb_rm_type_name(x));
        if (gb_rm_load(c, f->sub, x, p, el, self, 0) < 0) return -1;
    }
    return 1;
}

static int load_field(gb_rm_ctx *c, const gb_rm_field *f, const cJSON *o, const char *path, void *self) {
    void *p = AT(self, f->off);
    gb_rm_chk *k = c->k;
    double v;
    int got;
    if (f->load) return f->load(c, o, path, self);
    switch (f->kind) {
    case F_STR: return gb_rm_get_str(k, o, path, f->key, (f->flags & REQ) != 0, p);
    case F_STR_NULL: return gb_rm_get_str_or_null(k, o, path, f->key, p);
    case F_NUM: return gb_rm_get_num(k, o, path, f->key, f->flags & 0xff, p);
    case F_LONG: case F_SIZE:
        if ((got = gb_rm_get_num(k, o, path, f->key, f->flags & 0xff, &v)) < 0) return -1;
        if (f->kind == F_LONG) *(long *)p = got && isfinite(v) ? (long)v : -1;
        else *(size_t *)p = got ? (size_t)v : 0;
        return got;
    case F_BOOL: return gb_rm_get_bool(k, o, path, f->key, p);
    case F_KVLIST: return gb_rm_get_kvlist(k, o, path, f->key, p);
    case F_STRLIST: return gb_rm_get_strlist(k, o, path, f->key, p);
    case F_ENUM: {
        char ps[530], *st = NULL;
        gb_rm_join(ps, sizeof ps, path, f->key);
        if (!gb_rm_item(o, f->key) && f->en->missing_lists)
            return gb_rm_bad(k, ps, "missing (expected %s)", f->en->list);
        if (gb_rm_get_str(k, o, path, f->key, 1, &st) < 0) return -1;
        for (int i = 0; f->en->names[i]; i++)
            if (!strcmp(st, f->en->names[i])) {
                free(st);
                *(int *)p = i;
                return 1;
            }
        if (f->en->no_got) gb_rm_bad(k, ps, "expected %s", f->en->list);
        else gb_rm_bad(k, ps, "expected %s, got \"%s\"", f->en->list, st);
        free(st);
        return -1;
    }
    case F_JSON: {
        const cJSON *obj;
        if ((got = gb_rm_get_obj(k, o, path, f->key, 0, &obj)) <= 0) return got;
        return (*(char **)p = cJSON_PrintUnformatted(obj)) ? 1 : gb_rm_oom(k);
    }
    case F_OBJ: {
        const cJSON *obj;
        char ps[530];
        gb_rm_init(f->sub, p);
        if ((got = gb_rm_get_obj(k, o, path, f->key, (f->flags & REQ) != 0, &obj)) <= 0) return got;
        gb_rm_join(ps, sizeof ps, path, f->key);
        return gb_rm_load(c, f->sub, obj, ps, p, self, 0) < 0 ? -1 : 1;
    }
    case F_ARR: return load_arr(c, f, o, path, self);
    case F_CONTEXT: return gb_rm_context_load(c, o, path, p);
    case F_PEAKS: return gb_rm_peaks_load(c, o, path, p);
    default: return 0;
    }
}

static int load_one(gb_rm_ctx *c, const gb_rm_type *t, const gb_rm_field *f, const cJSON *o, const char *path,
                    void *self) {
    int got = load_field(c, f, o, path, self);
    if (got > 0 && f->has && has_of(t, self)) *has_of(t, self) |= f->has;
    return got < 0 ? -1 : 0;
}

int gb_rm_load_key(gb_rm_ctx *c, const gb_rm_type *t, const cJSON *o, const char *path, void *self, const char *key) {
    return load_one(c, t, gb_rm_field_of(t, key), o, path, self);
}

int gb_rm_load(gb_rm_ctx *c, const gb_rm_type *t, const cJSON *o, const char *path, void *self, const void *parent,
               int mask) {
    if (t->present_off) *(int *)AT(self, t->present_off - 1) = 1;
    for (size_t i = 0; i < t->nfields; i++) /* what the others are read against */
        if ((t->fields[i].flags & L_FIRST) && load_one(c, t, &t->fields[i], o, path, self) < 0) return -1;
    for (size_t i = 0; i < t->nfields; i++) {
        const gb_rm_field *f = &t->fields[i];
        if (!f->key || (f->flags & L_FIRST) || (mask && !(f->flags & mask))) continue;
        if ((f->flags & L_AFTER) && i + 1 < t->nfields) { /* the next one is what it is checked against */
            if (load_one(c, t, &t->fields[i + 1], o, path, self) < 0) return -1;
            if (load_one(c, t, f, o, path, self) < 0) return -1;
            i++;
            continue;
        }
        if (load_one(c, t, f, o, path, self) < 0) return -1;
    }
    if (mask) return 0;
    if (t->check && t->check(c, path, self, parent) < 0) return -1;
    return order_of(t, self) ? gb_rm_order_from(c->k, o, t, order_of(t, self)) : 0;
}

/* ---- writing -------------------------------------------------------------------- */

void gb_rm_em_begin(gb_rm_emitter *m, const gb_rm_type *t, const void *self) {
    gb_keyorder *const *ord = t->order_off ? (gb_keyorder *const *)CAT(self, t->order_off - 1) : NULL;
    m->t = t;
    m->put = calloc(t->nfields + 1, 1);
    m->o = ord && *ord ? cJSON_Duplicate((*ord)->tmpl, 1) : cJSON_CreateObject();
    m->oom = !m->o || !m->put;
}

void gb_rm_em_put(gb_rm_emitter *m, const char *key, cJSON *v) {
    if (!m->o || !v) {
        m->oom = 1;
        cJSON_Delete(v);
        return;
    }
    const gb_rm_field *f = gb_rm_field_of(m->t, key);
    if (f && m->put) m->put[f - m->t->fields] = 1;
    if (cJSON_GetObjectItemCaseSensitive(m->o, key)) cJSON_ReplaceItemInObjectCaseSensitive(m->o, key, v);
    else cJSON_AddItemToObject(m->o, key, v);
}

cJSON *gb_rm_em_end(gb_rm_emitter *m) {
    if (m->oom) {
        cJSON_Delete(m->o);
        free(m->put);
        return NULL;
    }
    for (size_t i = 0; i < m->t->nfields; i++)
        if (m->t->fields[i].key && !m->put[i]) cJSON_DeleteItemFromObjectCaseSensitive(m->o, m->t->fields[i].key);
    free(m->put);
    return m->o;
}

static int is_set(const gb_rm_field *f, const void *p) {
    switch (f->kind) {
    case F_STR: return *(char *const *)p && (*(char *const *)p)[0];
    case F_STR_NULL: case F_JSON: return *(char *const *)p != NULL;
    case F_NUM: return isfinite(*(const double *)p);
    case F_LONG: return *(const long *)p >= 0;
    case F_BOOL: return *(const int *)p >= 0;
    case F_KVLIST: return ((const gb_kvlist *)p)->present;
    case F_STRLIST: return ((const gb_strlist *)p)->present;
    case F_OBJ: return *(const int *)CAT(p, f->sub->present_off - 1);
    case F_CONTEXT: return ((const gb_context *)p)->json != NULL;
    case F_PEAKS: return ((const gb_peaks *)p)->present;
    default: return 1;
    }
}

static cJSON *array_json(const gb_rm_ctx *c, const gb_rm_field *f, const void *self) {
    const char *a = *(char *const *)CAT(self, f->off);
    size_t n = *(const size_t *)CAT(self, f->cnt);
    cJSON *arr = cJSON_CreateArray();
    for (size_t j = 0; arr && j < n; j++) {
        cJSON *x = gb_rm_write(c, f->sub, a + j * f->sub->size);
        if (!x) {
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, x);
    }
    return arr;
}

static cJSON *field_json(const gb_rm_ctx *c, const gb_rm_field *f, const void *self) {
    const void *p = CAT(self, f->off);
    switch (f->kind) {
    case F_STR: return cJSON_CreateString(*(char *const *)p ? *(char *const *)p : "");
    case F_STR_NULL: return *(char *const *)p ? cJSON_CreateString(*(char *const *)p) : cJSON_CreateNull();
    case F_NUM: return gb_json_num_or_null(*(const double *)p);
    case F_LONG: return cJSON_CreateNumber((double)*(const long *)p);
    case F_SIZE: return cJSON_CreateNumber((double)*(const size_t *)p);
    case F_BOOL: return cJSON_CreateBool(*(const int *)p);
    case F_ENUM: return cJSON_CreateString(f->en->names[*(const int *)p]);
    case F_KVLIST: return gb_kvlist_to_cjson(p);
    case F_STRLIST: return gb_rm_strlist_json(p);
    case F_JSON: return cJSON_Parse(*(char *const *)p);
    case F_OBJ: return gb_rm_write(c, f->sub, p);
    case F_ARR: return array_json(c, f, self);
    case F_CONTEXT: return cJSON_Parse(((const gb_context *)p)->json);
    case F_PEAKS: return gb_rm_peaks_json(p);
    default: return NULL;
    }
}

cJSON *gb_rm_field_value(const gb_rm_ctx *c, const gb_rm_type *t, const void *self, const char *key, int *skip) {
    const gb_rm_field *f = gb_rm_field_of(t, key);
    const void *p = CAT(self, f->off);
    *skip = 0;
    if (f->put) return f->put(c, self, skip);
    const unsigned *has = t->has_off ? (const unsigned *)CAT(self, t->has_off - 1) : NULL;
    int w = f->write == W_ALWAYS || (f->write == W_HAS && has && (*has & f->has)) ||
            (f->write == W_SET && (f->present ? *(const int *)CAT(self, f->present - 1) : is_set(f, p))) ||
            (f->write == W_WHEN && f->when(self, p));
    if (!w) return *skip = 1, NULL;
    return field_json(c, f, self);
}

void gb_rm_em_field(gb_rm_emitter *m, const gb_rm_ctx *c, const void *self, const char *key) {
    int skip;
    if ((gb_rm_field_of(m->t, key)->flags & UNPLACE) && m->o) cJSON_DeleteItemFromObjectCaseSensitive(m->o, key);
    cJSON *v = gb_rm_field_value(c, m->t, self, key, &skip);
    if (!skip) gb_rm_em_put(m, key, v);
}

cJSON *gb_rm_write(const gb_rm_ctx *c, const gb_rm_type *t, const void *self) {
    gb_rm_emitter m;
    gb_rm_em_begin(&m, t, self);
    for (size_t i = 0; i < t->nfields; i++)
        if (t->fields[i].key && t->fields[i].kind != F_NONE) gb_rm_em_field(&m, c, self, t->fields[i].key);
    return gb_rm_em_end(&m);
}
