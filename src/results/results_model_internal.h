/* results_model_internal.h — what the files of the results model share with
 * each other and with nothing else (only src/results/results_*.c of the model
 * include it; readers use results_model.h).
 *
 * The model is split by what it does:
 *   results_get.c        the checker: the getters below (JSON paths,
 *                        typed fields, plain values)
 *   results_format.c     the format declared once: a table of every
 *                        object's fields, and the checks that span fields
 *   results_walk.c       the one walker over the table: loading, writing
 *                        in key order, copying, freeing, key templates
 *   results_context.c    a run's context, backends and peaks
 *   results_read.c       loading the document (schema, versions, runs)
 *   results_write.c      writing the document, plain values as JSON
 *   results_copy.c       building the structs; copying and freeing them
 *                        through the walker
 *   results_values.c     plain values: key/value lists, lists of strings,
 *                        arrays of numbers, as JSON (the bottom of the model)
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

/* ---- the format, declared once (results_format.c), and its walker ------------
 * (results_walk.c). Each object of the schema is a gb_rm_type: its fields in
 * the schema's key order, each with its key, its kind (how it is stored in the
 * struct and checked in the file), its checks and when it is written. One
 * walker loads (with the strict checks), writes (in key order, keeping a
 * loaded object's order and unknown keys), copies, frees and empties every
 * object from these tables; a field added to the model is one row. */

typedef struct gb_rm_type gb_rm_type;

/* What a walk carries: the checker (loading), the document (cases' runs,
 * crossover steps' backends), the writer's flags. */
typedef struct {
    gb_rm_chk *k;
    const gb_results *doc;  /* NULL: an object alone */
    int nruns;              /* loading: the runs a case may name; < 0 not checked */
    int merged;             /* writing: cases and crossover entries name their run */
    unsigned flags;         /* writing: GB_WRITE_* */
} gb_rm_ctx;

typedef enum {
    F_NONE,      /* a key handled by the document's own code (schema, schema_version) */
    F_STR,       /* char *: a string ("" when absent); REQ: required */
    F_STR_NULL,  /* char *: a string or null (NULL when null or absent) */
    F_NUM,       /* double: N_* checks, NAN when absent or null; written as a number or null */
    F_LONG,      /* long: a whole number, N_* checks; -1 when absent */
    F_SIZE,      /* size_t: a whole number, N_* checks; 0 when absent */
    F_INT,       /* int, loaded and written by the field's hooks (a case's run) */
    F_BOOL,      /* int: true/false, -1 when absent */
    F_ENUM,      /* int: one of en->names, stored as its index */
    F_KVLIST,    /* gb_kvlist: an object of plain values */
    F_STRLIST,   /* gb_strlist: an array of strings */
    F_JSON,      /* char *: an object kept as its text (NULL when absent) */
    F_OBJ,       /* a struct of type sub, with `present` */
    F_ARR,       /* an array of structs of type sub: pointer at off, count at cnt */
    F_DOUBLES,   /* double * at off, count at cnt (hooks check it) */
    F_SIZES,     /* size_t * at off, count at cnt (hooks check it) */
    F_PAIR,      /* double[2] (hooks) */
    F_SPEEDUPS,  /* gb_speedup * at off, count at cnt (hooks) */
    F_CONTEXT,   /* gb_context (results_context.c) */
    F_PEAKS      /* gb_peaks (results_context.c) */
} gb_rm_kind;

/* When a field is written: always; when its bit is in the object's `has`;
 * when it is set (a string non-empty, a pointer non-NULL, a number finite, a
 * long or bool >= 0, a list, object or array present); when `when` says so. */
enum { W_ALWAYS = 0, W_HAS, W_SET, W_WHEN, W_NEVER };
/* Field flags beside N_*: REQ required; L_FIRST loaded before the others;
 * L_AFTER loaded after the field that follows it; UNPLACE written last
 * whatever the loaded order (a merged file's "run"); PROV a run's provenance. */
enum { REQ = 1 << 8, L_FIRST = 1 << 9, L_AFTER = 1 << 10, UNPLACE = 1 << 11, PROV = 1 << 12 };

typedef struct {
    const char *const *names; /* NULL-terminated; the value is the index */
    const char *list;         /* "ok, skipped, failed or error" */
    int missing_lists;        /* when absent: "missing (expected <list>)", else "missing (expected a string)" */
    int no_got;               /* a bad value: "expected <list>" without ", got ..." */
    int dflt;
} gb_rm_enum;

typedef struct gb_rm_field {
    const char *key;          /* NULL: a field of the struct that is no key of its own (freed and copied) */
    gb_rm_kind kind;
    int flags;                /* N_*, REQ, L_*, UNPLACE, PROV */
    size_t off, cnt;          /* where it lives; cnt: its count (arrays); present: off of an int set
                               * when an optional array is there (+1; 0: none) */
    size_t present;
    unsigned has;             /* the `has` bit it sets when loaded and W_HAS reads */
    int write;                /* W_* */
    const gb_rm_type *sub;    /* F_OBJ, F_ARR */
    const gb_rm_enum *en;     /* F_ENUM */
    const char *doc;          /* what it means (docs/results-schema.md, the JSON Schema) */
    /* custom loading: 1 present, 0 absent, -1 bad (message in c->k) */
    int (*load)(gb_rm_ctx *c, const cJSON *o, const char *path, void *self);
    /* custom writing: the value, or NULL with *skip set when it is not written */
    cJSON *(*put)(const gb_rm_ctx *c, const void *self, int *skip);
    int (*when)(const void *self, const void *value); /* W_WHEN */
} gb_rm_field;

struct gb_rm_type {
    const char *name;         /* as docs/results-schema.md heads it */
    size_t size;
    const gb_rm_field *fields;
    size_t nfields;
    size_t present_off, has_off, order_off; /* +1; 0: none */
    int copy_order;           /* a copy keeps the loaded key order (a run's copy does not) */
    /* after the fields: checks across fields (parent: the struct holding it) */
    int (*check)(gb_rm_ctx *c, const char *path, void *self, const void *parent);
};

extern const gb_rm_type gb_rm_t_doc, gb_rm_t_run, gb_rm_t_summary, gb_rm_t_case, gb_rm_t_result,
    gb_rm_t_stats, gb_rm_t_verification, gb_rm_t_device, gb_rm_t_concurrent, gb_rm_t_energy, gb_rm_t_clocks,
    gb_rm_t_cross, gb_rm_t_step;
/* Every type, for the schema's documents and tests (NULL-terminated). */
extern const gb_rm_type *const gb_rm_types[];
const gb_rm_field *gb_rm_field_of(const gb_rm_type *t, const char *key);

/* The walker (results_walk.c). */
void gb_rm_init(const gb_rm_type *t, void *self);      /* defaults; -1 out of memory */
int gb_rm_empty(const gb_rm_type *t, void *self);
/* o: the object itself (checked to be one by the caller). mask: only the
 * fields with these flags (0: all). Fills self (emptied first); -1 bad. */
int gb_rm_load(gb_rm_ctx *c, const gb_rm_type *t, const cJSON *o, const char *path, void *self,
               const void *parent, int mask);
/* One field, by key, of o into self. */
int gb_rm_load_key(gb_rm_ctx *c, const gb_rm_type *t, const cJSON *o, const char *path, void *self,
                   const char *key);
int gb_rm_copy(const gb_rm_type *t, void *dst, const void *src);  /* -1: dst freed */
void gb_rm_free(const gb_rm_type *t, void *self);
void gb_rm_free_mask(const gb_rm_type *t, void *self, int mask);
/* Writing: the whole object, or an object built key by key (the document). */
cJSON *gb_rm_write(const gb_rm_ctx *c, const gb_rm_type *t, const void *self);
typedef struct {
    cJSON *o;
    const gb_rm_type *t;
    unsigned char *put;
    int oom;
} gb_rm_emitter;
void gb_rm_em_begin(gb_rm_emitter *m, const gb_rm_type *t, const void *self);
void gb_rm_em_put(gb_rm_emitter *m, const char *key, cJSON *v);
/* A field's value as written; NULL with *skip set when it is not written. */
cJSON *gb_rm_field_value(const gb_rm_ctx *c, const gb_rm_type *t, const void *self, const char *key, int *skip);
void gb_rm_em_field(gb_rm_emitter *m, const gb_rm_ctx *c, const void *self, const char *key);
cJSON *gb_rm_em_end(gb_rm_emitter *m);

int gb_rm_order_from(gb_rm_chk *k, const cJSON *obj, const gb_rm_type *t, gb_keyorder **out);
void gb_rm_order_free(gb_keyorder **o);
int gb_rm_order_copy(gb_keyorder **dst, const gb_keyorder *src);

/* ---- context, backends, peaks (results_context.c) ------------------------- */

int gb_rm_context_load(gb_rm_ctx *c, const cJSON *o, const char *path, void *ctx);
int gb_rm_context_empty(gb_context *c);
int gb_rm_context_copy(gb_context *dst, const gb_context *src);
void gb_rm_context_free(gb_context *c);
int gb_rm_peaks_load(gb_rm_ctx *c, const cJSON *o, const char *path, void *pk);
int gb_rm_peaks_copy(gb_peaks *dst, const gb_peaks *src);
void gb_rm_peaks_free(gb_peaks *p);
cJSON *gb_rm_peaks_json(const gb_peaks *p);
int gb_rm_timings_copy(gb_backend_desc *dst, const gb_timing_desc *t, size_t n);

/* ---- plain values (results_values.c) --------------------------------------- */

void gb_rm_value_free(gb_value *v);
int gb_rm_value_copy(gb_value *dst, const gb_value *src);
void gb_rm_strlist_free(gb_strlist *l);
int gb_rm_strlist_copy(gb_strlist *dst, const gb_strlist *src);
cJSON *gb_rm_strlist_json(const gb_strlist *l);
cJSON *gb_rm_double_array(const double *v, size_t n);
cJSON *gb_rm_value_to_cjson(const gb_value *v);
const gb_backend_desc *gb_rm_builtin_desc(const char *name); /* results_query.c */

#endif
