/* compare.h — regression check between two results documents.
 *
 * Matches every result of CURRENT with the one of BASELINE measuring the
 * same thing (op, dtype, shape, params, backend, timing kind — and machine,
 * when merged files hold several), judges each pair from its samples and
 * returns the whole verdict as a cJSON document (the `--format json`
 * output, schema "gpubench-compare"), which the table and Markdown renderers
 * read. The two documents are read through the results model
 * (results_model.h). Usable without the CLI. The statistics and the verdict
 * rules are documented in docs/ci.md. */
#ifndef GB_COMPARE_H
#define GB_COMPARE_H
#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "gb.h"
#include "results_model.h"

typedef enum {
    GB_V_SAME = 0,      /* estimated change within ±threshold */
    GB_V_IMPROVEMENT,   /* faster by more than the threshold, and sure of it */
    GB_V_UNSURE,        /* beyond the threshold, but not established */
    GB_V_REGRESSION,    /* slower by more than the threshold, and sure of it */
    GB_V_FAILED,        /* CURRENT failed (verification) or errored */
    GB_V_NOT_COMPARED   /* skipped / not ok on a side, or unusable samples */
} gb_cmp_verdict;

const char *gb_verdict_name(gb_cmp_verdict v);

/* Thresholds are fractions (0.05 = 5%). */
typedef struct {
    double threshold;
    double alpha;
    double min_change_s;  /* the time floor: see gb_apply_time_floor */
} gb_rule;

#define GB_DEFAULT_THRESHOLD 0.05
#define GB_DEFAULT_ALPHA 0.01
/* 10 µs: between two processes of the same build on the H100 host, cuBLAS
 * GEMMs of 15-20 µs moved by 4.1-4.2 µs in every round (a launch-bound
 * call's fixed costs differ per process); twice that is the default. */
#define GB_DEFAULT_MIN_CHANGE_S 10e-6
#define GB_DEFAULT_RULE {GB_DEFAULT_THRESHOLD, GB_DEFAULT_ALPHA, GB_DEFAULT_MIN_CHANGE_S}

/* Which values the command line set (they win over a policy's top level). */
enum { GB_CLI_THRESHOLD = 1, GB_CLI_ALPHA = 2, GB_CLI_MIN_CHANGE = 4 };

/* Parse a duration: "10us", "0.5ms", "2e-5s" or a bare number of seconds.
 * Seconds in *out; 0 or -1. */
int gb_parse_duration(const char *s, double *out);

/* Parse "5%", "5" (percent) or "0.5%": fraction in *out. 0 or -1. */
int gb_parse_percent(const char *s, double *out);

/* A policy file (docs/ci.md): default threshold/alpha plus per-op and
 * per-op-per-backend overrides. */
typedef struct gb_policy gb_policy;
/* Load and validate; unknown keys, unknown ops, unknown backends and bad
 * values are errors naming the path inside the file. NULL with the message
 * in e on failure. */
gb_policy *gb_policy_load(const char *path, gb_err *e);
/* Same from a parsed document (the caller keeps ownership of doc). */
gb_policy *gb_policy_from_json(const cJSON *doc, const char *name, gb_err *e);
void gb_policy_free(gb_policy *p);
/* The rule for one op/backend: start from base (the CLI or built-in
 * default); the policy's top level replaces it only where the CLI did not
 * set a value (cli_set: GB_CLI_* bits), then the op's entry, then the op's
 * backend entry. p may be NULL. */
gb_rule gb_policy_rule(const gb_policy *p, const char *op, const char *backend, gb_rule base,
                       unsigned cli_set);

/* The verdict for one pair of sample sets. */
typedef struct {
    size_t n_base, n_cur;
    double base_median, cur_median;
    double change;            /* Hodges–Lehmann ratio estimate − 1 (0.10 = 10% slower) */
    double ci_low, ci_high;   /* its (1 − alpha) interval; ±INFINITY when too few samples */
    double p;                 /* two-sided Mann–Whitney p-value */
    int exact;                /* p from the exact distribution */
    gb_cmp_verdict verdict;
    char reason[160];         /* why unsure / not compared */
} gb_sample_verdict;

/* Judge cur against base under rule. Samples must be positive and finite
 * (they are times); otherwise the verdict is GB_V_NOT_COMPARED with the
 * reason. Returns 0, or -1 on out of memory. */
int gb_compare_samples(const double *base, size_t nb, const double *cur, size_t nc, gb_rule rule,
                       gb_sample_verdict *out);

/* How far the medians of a result's rounds spread: max/min − 1 (0.08 = the
 * slowest round's median is 8% above the fastest's); 0 with fewer than two
 * rounds. round_n[r] samples of round r follow each other in samples. */
double gb_round_spread(const double *samples, size_t n, const size_t *round_n, int rounds);

/* The noise floor: a change no larger than the spread either run showed
 * between its own rounds is not evidence of a change, whatever the samples
 * of the two runs say (they cannot see what drifts between runs). A
 * regression or improvement whose interval does not clear floor becomes
 * unsure, with the reason. */
void gb_apply_noise_floor(gb_sample_verdict *v, double floor);

/* The time floor: a regression or improvement whose medians differ by less
 * than min_change_s (absolute) becomes unsure. Launch-bound calls of a few
 * microseconds shift by a few microseconds from one process to the next,
 * in every round alike, which neither the samples nor the rounds can show. */
void gb_apply_time_floor(gb_sample_verdict *v, double min_change_s);

typedef struct {
    gb_rule rule;                 /* CLI or built-in defaults */
    unsigned cli_set;             /* GB_CLI_* bits */
    const gb_policy *policy;      /* may be NULL */
    const char *policy_path;      /* shown in the report; may be NULL */
} gb_compare_options;

/* Compare two loaded results documents (gb_results_load). Names are what the
 * report calls them (their paths). Returns the comparison document:
 *   {"schema": "gpubench-compare", "schema_version": 1, "baseline": {...},
 *    "current": {...}, "method": {...}, "warnings": [...],
 *    "comparisons": [...], "only_in_baseline": [...], "only_in_current": [...],
 *    "summary": {...}, "exit_code": 0|1}
 * or NULL (out of memory). */
cJSON *gb_compare_docs(const gb_results *base, const char *base_name, const gb_results *cur,
                       const char *cur_name, const gb_compare_options *o);

typedef enum { GB_CMP_TABLE = 0, GB_CMP_MD, GB_CMP_JSON } gb_compare_format;
/* Render a comparison document. */
void gb_compare_render(const cJSON *cmp, gb_compare_format f, FILE *out);

/* The display name of a result: "op/dtype/label[/k=v,...]/backend/timing",
 * then its device tag, then "@machine" when machine is not NULL. Also the
 * name the exporters use, so names stay stable across tools. */
void gb_result_name(const gb_case_result *c, const gb_result *r, const char *machine, char *buf, size_t len);
/* "/gpu<k>" for a result measured on device k != 0, "/gpu<k>/concurrent"
 * for one measured with every device at once, "" otherwise: each device of a
 * --devices run is its own series, and device 0 alone keeps the name results
 * had before devices were recorded. */
void gb_result_device_tag(const gb_result *r, char *buf, size_t len);
#endif
