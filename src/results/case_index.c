/* case_index.c — a hash index of item numbers (case_index.h). */
#include "case_index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gb_index_init(gb_index *x, size_t expected) {
    memset(x, 0, sizeof *x);
    size_t cap = 16;
    while (cap < 2 * expected + 2) cap *= 2;
    x->hash = malloc(cap * sizeof *x->hash);
    x->item = calloc(cap, sizeof *x->item);
    if (!x->hash || !x->item) {
        gb_index_free(x);
        return GB_FAIL;
    }
    x->cap = cap;
    return GB_OK;
}

void gb_index_free(gb_index *x) {
    free(x->hash);
    free(x->item);
    memset(x, 0, sizeof *x);
}

static void put(gb_index *x, uint64_t hash, size_t item) {
    size_t i = (size_t)hash & (x->cap - 1);
    while (x->item[i]) i = (i + 1) & (x->cap - 1);
    x->hash[i] = hash;
    x->item[i] = item + 1;
    x->n++;
}

typedef struct {
    size_t item;
    uint64_t hash;
} slot;

static int by_item(const void *a, const void *b) {
    size_t x = ((const slot *)a)->item, y = ((const slot *)b)->item;
    return (x > y) - (x < y);
}

/* Twice the slots. Items are re-added in the order of their numbers: a probe
 * meets same-hash items in the order they were put, and readers add items in
 * increasing order, so "the first added" stays the first found. */
static int grow(gb_index *x) {
    slot *all = malloc((x->n ? x->n : 1) * sizeof *all);
    gb_index bigger;
    if (!all || gb_index_init(&bigger, x->cap) != GB_OK) {
        free(all);
        return GB_FAIL;
    }
    size_t n = 0;
    for (size_t i = 0; i < x->cap; i++)
        if (x->item[i]) all[n++] = (slot){x->item[i] - 1, x->hash[i]};
    qsort(all, n, sizeof *all, by_item);
    for (size_t i = 0; i < n; i++) put(&bigger, all[i].hash, all[i].item);
    free(all);
    gb_index_free(x);
    *x = bigger;
    return GB_OK;
}

int gb_index_add(gb_index *x, uint64_t hash, size_t item) {
    if (2 * (x->n + 1) > x->cap && grow(x) != GB_OK) return GB_FAIL;
    put(x, hash, item);
    return GB_OK;
}

long gb_index_find(const gb_index *x, uint64_t hash, int (*same)(const void *ctx, size_t item), const void *ctx) {
    if (!x->cap) return -1;
    for (size_t i = (size_t)hash & (x->cap - 1); x->item[i]; i = (i + 1) & (x->cap - 1))
        if (x->hash[i] == hash && same(ctx, x->item[i] - 1)) return (long)(x->item[i] - 1);
    return -1;
}

void gb_index_replace(gb_index *x, uint64_t hash, size_t old_item, size_t new_item) {
    if (!x->cap) return;
    for (size_t i = (size_t)hash & (x->cap - 1); x->item[i]; i = (i + 1) & (x->cap - 1))
        if (x->hash[i] == hash && x->item[i] == old_item + 1) {
            x->item[i] = new_item + 1;
            return;
        }
}

/* ---- hashes ---------------------------------------------------------------- */

static uint64_t mix_bytes(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t gb_hash_str(uint64_t h, const char *s) { return mix_bytes(h, s, strlen(s) + 1); }

/* Numbers compare equal within rounding (cJSON_Compare): hash them as floats,
 * which two such doubles all but always round to alike; the equality the
 * reader passes decides in any case. */
uint64_t gb_hash_num(uint64_t h, double v) {
    float f = isfinite(v) ? (float)v : 0.0f;
    if (f == 0) f = 0; /* -0 and 0 are equal */
    return mix_bytes(h, &f, sizeof f);
}

static uint64_t value_hash(const gb_value *v) {
    uint64_t h = gb_hash_num(GB_HASH_START, v->kind);
    switch (v->kind) {
    case GB_VAL_BOOL: return gb_hash_num(h, v->b);
    case GB_VAL_NUMBER: return gb_hash_num(h, v->num);
    case GB_VAL_STRING: return gb_hash_str(h, v->text);
    default: return h; /* null, absent; objects and arrays: by kind (the equality looks inside) */
    }
}

uint64_t gb_case_hash(uint64_t h, const gb_case_result *c, int with_shape) {
    h = gb_hash_str(gb_hash_str(h, c->op), c->dtype);
    /* Params in any order: a sum of per-key hashes does not depend on it. */
    uint64_t p = 0;
    for (size_t i = 0; i < c->params.n; i++)
        p += gb_hash_str(GB_HASH_START, c->params.item[i].key) * 31 + value_hash(&c->params.item[i].v);
    h = mix_bytes(h, &p, sizeof p);
    if (with_shape)
        for (size_t i = 0; i < c->rank; i++) h = gb_hash_num(h, c->shape[i]);
    return h;
}
