/* results_model_internal.h — what the files of the results model share with
 * each other and with nothing else (only src/results/results_*.c of the model
 * include it; readers use results_model.h).
 *
 * The model is split by what it does:
 *   results_get.c        the checker: the getters below (JSON paths,
 *                        typed fields, plain values)
 *   results_read.c       loading: the document, runs, context, backends,
 *                        peaks, summary
 *   results_read_case.c  loading: cases, results, stats, verification,
 *                        devices, crossover entries
 *   results_write.c      writing (from the key-order templates), the
 *                        status names it writes
 *   results_copy.c       copying, freeing and building the structs
 *   results_keyorder.c   the key-order templates and the known keys
 *   results_query.c      what readers ask: backends (the built-in table),
 *                        speedups, values
 * The names below were static in the one file they came from; gb_rm_ marks
 * them as the model's own. No two of these files depend on each other
 * (src/LAYERS, tests/layers/test_layers.c). */
#ifndef GB_RESULTS_MODEL_INTERNAL_H
#define GB_RESULTS_MODEL_INTERNAL_H
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "results_model.h"

/* A template of an object's keys as loaded: known keys as null placeholders,
 * unknown keys with their values (results_keyorder.c). */
struct gb_keyorder {
    cJSON *tmpl;
};

static inline char *xstrdup(const char *s) { return strdup(s ? s : ""); }

/* ---- the checker (results_read.c) ----------------------------------------- */

/* The checker: the file's name (what messages start with) and the message. */
typedef struct {
    const char *file;
    gb_err *e;
} gb_rm_chk;

/* Flags for numbers. */
enum { N_REQ = 1, N_NULL = 2, N_NONNEG = 4, N_POS = 8, N_WHOLE = 16, N_COUNT = 32 };
/* N_COUNT: a count of CPUs or threads, whole and at most this many (readers
 * print it as an int; 1e300 threads would overflow the conversion). */
#define GB_MAX_CPU_COUNT 1e6

/* The checked getters (results_get.c). */
void gb_rm_join(char *buf, size_t len, const char *path, const char *key);
void gb_rm_at(char *buf, size_t len, const char *path, const char *key, size_t i);
const char *gb_rm_type_name(const cJSON *v);
int gb_rm_bad(gb_rm_chk *k, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int gb_rm_oom(gb_rm_chk *k);
const cJSON *gb_rm_item(const cJSON *o, const char *key);
int gb_rm_get_num(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int flags, double *out);
int gb_rm_get_str(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int required, char **out);
int gb_rm_get_str_or_null(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, char **out);
int gb_rm_get_bool(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int *out);
int gb_rm_get_obj(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int required, const cJSON **out);
int gb_rm_get_arr(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, int required, const cJSON **out);
/* An array of strings (results_read.c): 1 present, 0 absent, -1 bad. */
int gb_rm_get_strlist(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, gb_strlist *l);
int gb_rm_get_kvlist(gb_rm_chk *k, const cJSON *o, const char *path, const char *key, gb_kvlist *l);
/* *out freed and replaced by s; a plain value (any JSON) from j, 0 or -1 out of memory. */
void gb_rm_replace_str(char **out, char *s);
int gb_rm_value_from(const cJSON *j, gb_value *v);

/* ---- cases and crossover entries (results_read_case.c) -------------------- */

int gb_rm_parse_case(gb_rm_chk *k, const cJSON *o, const char *path, int nruns, gb_case_result *c);
int gb_rm_parse_crossover_entry(gb_rm_chk *k, const cJSON *o, const char *path, const gb_results *doc,
                                gb_crossover_entry *x);

/* ---- key order (results_keyorder.c) --------------------------------------- */

int gb_rm_order_from(gb_rm_chk *k, const cJSON *obj, const char *const *known, gb_keyorder **out);
void gb_rm_order_free(gb_keyorder **o);
int gb_rm_order_copy(gb_keyorder **dst, const gb_keyorder *src);

/* Known keys of each object, as the schema orders them (NULL-terminated). */
extern const char *const gb_rm_keys_top[], *const gb_rm_keys_run[], *const gb_rm_keys_summary[],
    *const gb_rm_keys_case[], *const gb_rm_keys_result[], *const gb_rm_keys_device[], *const gb_rm_keys_concurrent[],
    *const gb_rm_keys_stats[], *const gb_rm_keys_verif[], *const gb_rm_keys_cross[], *const gb_rm_keys_step[],
    *const gb_rm_keys_energy[], *const gb_rm_keys_clocks[];

/* ---- making, copying, freeing (results_copy.c) ---------------------------- */

int gb_rm_context_empty(gb_context *c);
void gb_rm_context_free(gb_context *c);
void gb_rm_peaks_free(gb_peaks *p);
void gb_rm_strlist_free(gb_strlist *l);
int gb_rm_timings_copy(gb_backend_desc *dst, const gb_timing_desc *t, size_t n);
int gb_rm_summary_copy(gb_summary *dst, const gb_summary *src);
void gb_rm_stats_init(gb_result_stats *s);
int gb_rm_verification_empty(gb_verification *v);

/* ---- writing and queries -------------------------------------------------- */

cJSON *gb_rm_value_to_cjson(const gb_value *v); /* results_write.c */
const gb_backend_desc *gb_rm_builtin_desc(const char *name); /* results_query.c */

#endif
