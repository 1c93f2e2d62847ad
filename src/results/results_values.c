/* results_values.c — the plain values of the results model (a key's value
 * of any JSON type, key/value lists, lists of strings, arrays of numbers):
 * copied, freed and turned into JSON. The bottom of the model: every other
 * file of it uses these, and these use none of them. */
#include <stdlib.h>
#include <string.h>

#include "results_model_internal.h"

/* ---- values ------------------------------------------------------------------ */

void gb_rm_value_free(gb_value *v) {
    free(v->text);
    memset(v, 0, sizeof *v);
}

int gb_rm_value_copy(gb_value *dst, const gb_value *src) {
    *dst = *src;
    dst->text = NULL;
    if (src->text && !(dst->text = xstrdup(src->text))) return -1;
    return 0;
}

void gb_kvlist_free(gb_kvlist *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->item[i].key);
        gb_rm_value_free(&l->item[i].v);
    }
    free(l->item);
    memset(l, 0, sizeof *l);
}

int gb_kvlist_copy(gb_kvlist *dst, const gb_kvlist *src) {
    memset(dst, 0, sizeof *dst);
    dst->present = src->present;
    if (!src->n) return GB_OK;
    if (!(dst->item = calloc(src->n, sizeof *dst->item))) return GB_FAIL;
    for (size_t i = 0; i < src->n; i++) {
        dst->n++;
        if (!(dst->item[i].key = xstrdup(src->item[i].key)) || gb_rm_value_copy(&dst->item[i].v, &src->item[i].v) != 0) {
            gb_kvlist_free(dst);
            return GB_FAIL;
        }
    }
    return GB_OK;
}

void gb_rm_strlist_free(gb_strlist *l) {
    for (size_t i = 0; i < l->n; i++) free(l->item[i]);
    free(l->item);
    memset(l, 0, sizeof *l);
}

int gb_rm_strlist_copy(gb_strlist *dst, const gb_strlist *src) {
    memset(dst, 0, sizeof *dst);
    dst->present = src->present;
    if (!src->n) return 0;
    if (!(dst->item = calloc(src->n, sizeof *dst->item))) return -1;
    for (size_t i = 0; i < src->n; i++, dst->n++)
        if (!(dst->item[i] = xstrdup(src->item[i]))) return -1;
    return 0;
}

/* ---- values ------------------------------------------------------------------ */

cJSON *gb_rm_value_to_cjson(const gb_value *v) {
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

cJSON *gb_kvlist_to_cjson(const gb_kvlist *l) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    for (size_t i = 0; i < l->n; i++) {
        cJSON *v = gb_rm_value_to_cjson(&l->item[i].v);
        if (!v) {
            cJSON_Delete(o);
            return NULL;
        }
        cJSON_AddItemToObject(o, l->item[i].key, v);
    }
    return o;
}

cJSON *gb_rm_double_array(const double *v, size_t n) { /* cJSON_CreateDoubleArray refuses an empty one */
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

cJSON *gb_rm_strlist_json(const gb_strlist *l) {
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

cJSON *gb_case_shape_to_cjson(const gb_case_result *c) { return gb_rm_double_array(c->shape, c->rank); }

