/* suite.h — suite files: parse, validate, expand into a plan of cases.
 *
 * Format (docs/usage.md "Suite files"):
 *   { "name": "quick", "description": "...",
 *     "defaults": { "dtypes": ["float32","float64"], "warmup": 2, "min_reps": 5,
 *                   "min_time_s": 0.2, "max_time_s": 5, "seed": 42, "rounds": 3 },
 *     "benchmarks": [ { "op": "matmul", "sizes": [256, [512,1024,256]],
 *                       "dtypes": ["float32"], "params": {"math": "tf32"},
 *                       "max_time_s": 10 }, ... ] }
 * Every key is checked: an unknown key, an unknown op or param, a value of
 * the wrong type or out of range is an error naming the file, the JSON path
 * and the reason. Nothing runs until the whole suite is valid. */
#ifndef GB_SUITE_H
#define GB_SUITE_H
#include <stdint.h>
#include <cjson/cJSON.h>
#include "gb.h"
#include "op.h"
#include "stopping.h" /* gb_budget, GB_MAX_ROUNDS */

typedef struct {
    gb_case c;
    gb_budget budget;
    int benchmark;      /* index in the suite's "benchmarks" */
} gb_plan_item;

typedef struct {
    char path[1024];
    char name[128];
    char description[512];
    gb_budget defaults;
    uint64_t seed;
    int rounds;         /* passes over the whole plan (runner.h); "defaults.rounds" */
    unsigned dtypes;    /* default dtype mask: bit d for each gb_dtype d */
    int dtypes_named;   /* 1: "defaults.dtypes" was given (else dtypes is the table's default) */
    cJSON *doc;         /* the parsed file, kept for the results' "suite" */
    gb_plan_item *items;
    size_t count;
} gb_suite;

/* Filters and overrides from the command line. The overrides are written
 * into the parsed suite document before it is validated, so a value from
 * the command line is checked as the same value in a file would be, and the
 * results' "suite" records what actually ran. */
typedef struct {
    const char *ops;     /* comma list or NULL */
    const char *dtypes;  /* comma list or NULL */
    int has_seed;
    uint64_t seed;
    int rounds;          /* > 0: replaces the suite's rounds */
    const char *sizes;   /* "1024,4096,10000x1000": replaces every benchmark's sizes; NULL: keep */
    double max_time_s, min_time_s; /* > 0: replace the suite's (defaults and every benchmark) */
    int has_warmup, warmup;        /* has_warmup: replaces the suite's warmup */
    const char *name_regex;        /* POSIX extended regex on gb_case_name; NULL: every case */
    /* --case NAME (repeatable): only the cases named exactly so (gb_case_name);
     * a name no case of the suite has is an error. compare --confirm selects
     * its suspects this way: a regex would need escaping and could match more. */
    const char *const *case_names;
    size_t ncase_names;
    /* --param KEY=VALUE (repeatable): the op param KEY set to VALUE in every
     * benchmark whose op (among those --op selects) takes it; a KEY no such
     * op takes is an error. A value an op refuses is named as --param. */
    const char *const *params;
    size_t nparams;
    int reps; /* --reps N (> 0): exactly N timed repetitions a result (min_reps = max_reps = N) */
} gb_suite_filter;

/* Load and validate path; on failure returns GB_FAIL with
 * "path: json.path: reason" in e and leaves s empty. */
int gb_suite_load(const char *path, const gb_suite_filter *f, gb_suite *s, gb_err *e);
/* Same from a string (tests); path is used in messages only. */
int gb_suite_parse(const char *text, const char *path, const gb_suite_filter *f, gb_suite *s,
                   gb_err *e);
/* A suite built in memory from the command line alone (`gpubench run --op
 * matmul --sizes 1024,4096`): one benchmark per op of f->ops with f->sizes,
 * validated as a file would be; its path reads "(command line)". */
int gb_suite_from_args(const gb_suite_filter *f, gb_suite *s, gb_err *e);
/* Same from len bytes (a NUL among them is an error, as in a file). */
int gb_suite_parse_bytes(const char *text, size_t len, const char *path, const gb_suite_filter *f, gb_suite *s,
                         gb_err *e);
void gb_suite_free(gb_suite *s);
/* A case's name, as --filter sees it and as compare and export name its
 * results (without the backend and timing): op/dtype/shape[/k=v,k=v],
 * e.g. "matmul/float32/4096x4096x4096/math=tf32". */
void gb_case_name(const gb_case *c, char *buf, size_t len);

/* Every param of the case's op with its value (defaults filled in). */
cJSON *gb_params_to_json(const gb_case *c);
/* Parse a dtype name: gb_dtype_parse (dtype.h). */
#endif
