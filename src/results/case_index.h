/* case_index.h — find equal cases (or anything else) in linear time.
 *
 * The readers group and match cases: the crossover groups a run's cases into
 * size sweeps, merge finds a case repeated on the same machine, compare
 * pairs each baseline result with the current one, export finds a result's
 * family. Each used to compare every case with every other (report, merge
 * and compare on 20,000 cases took minutes); with this index each finds its
 * match by a hash and compares only the candidates with the same hash, with
 * the reader's own equality, so what "the same" means does not change.
 *
 * The index stores item numbers (the reader's array indices) under 64-bit
 * hashes, open addressing with linear probing; items with the same hash are
 * found in the order they were added. */
#ifndef GB_CASE_INDEX_H
#define GB_CASE_INDEX_H
#include <stddef.h>
#include <stdint.h>

#include "results_model.h"

typedef struct {
    size_t cap, n;      /* slots (a power of two), items stored */
    uint64_t *hash;
    size_t *item;       /* item + 1; 0: an empty slot */
} gb_index;

/* An empty index; GB_OK or GB_FAIL (out of memory). */
int gb_index_init(gb_index *x, size_t expected);
void gb_index_free(gb_index *x);
/* Add item under hash. GB_OK or GB_FAIL (out of memory). */
int gb_index_add(gb_index *x, uint64_t hash, size_t item);
/* The first item added under hash that same(ctx, item) accepts, or -1. */
long gb_index_find(const gb_index *x, uint64_t hash, int (*same)(const void *ctx, size_t item), const void *ctx);
/* Replace item old (stored under hash) by item new. */
void gb_index_replace(gb_index *x, uint64_t hash, size_t old_item, size_t new_item);

/* Hashes to build keys from (FNV-1a; h starts at GB_HASH_START). */
#define GB_HASH_START 1469598103934665603ull
uint64_t gb_hash_str(uint64_t h, const char *s);
uint64_t gb_hash_num(uint64_t h, double v);
/* The parts of a case that say which case it is: op, dtype, params (in any
 * key order, as gb_kvlist_equal compares them), and its shape when
 * with_shape. Equal cases hash equal. */
uint64_t gb_case_hash(uint64_t h, const gb_case_result *c, int with_shape);
#endif
