/* compare.h — regression check between runs.
 *
 * Matches every result of the BASELINE runs with the CURRENT runs measuring
 * the same thing (op, dtype, shape, params, backend, timing kind — and
 * machine, when merged files hold several), judges each case from its
 * rounds and processes (compare_stats.h) and
 * returns the whole verdict as a cJSON document (the `--format json`
 * output, schema "gpubench-compare"), which the table and Markdown renderers
 * read. The two documents are read through the results model
 * (results_model.h). Usable without the CLI. The statistics and the verdict
 * rules are documented in docs/regression-statistics.md. */
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
    double alpha;         /* family-wise, over the cases of one comparison (Holm) */
    double min_change_s;  /* optional absolute floor on the medians' difference (0: none) */
} gb_rule;

#define GB_DEFAULT_THRESHOLD 0.05
#define GB_DEFAULT_ALPHA 0.01
/* No fixed time floor: each case's own between-process spread is its floor
 * (compare_stats.h). A user may still set one (--min-change, policy). */
#define GB_DEFAULT_MIN_CHANGE_S 0
#define GB_DEFAULT_RULE {GB_DEFAULT_THRESHOLD, GB_DEFAULT_ALPHA, GB_DEFAULT_MIN_CHANGE_S}
/* The share of the baseline's results the current run must hold. */
#define GB_DEFAULT_REQUIRE_PRESENT 1.0

/* Which values the command line set (they win over a policy's top level). */
enum { GB_CLI_THRESHOLD = 1, GB_CLI_ALPHA = 2, GB_CLI_MIN_CHANGE = 4, GB_CLI_REQUIRE_PRESENT = 8 };

/* Parse a duration with its unit: "10us", "0.5ms", "2e-5s", "300ns"; "0"
 * alone is allowed (zero needs no unit). Seconds in *out. 0, or -1 with
 * why (sized >= 120) saying what was wrong: a bare "10" is refused, not
 * read as 10 seconds. */
int gb_parse_duration(const char *s, double *out, char *why, size_t len);

/* Parse a percentage with its sign: "5%", "0.5%". A bare number is refused
 * (is 0.05 five percent or 0.05 percent?). Fraction in *out; 0, or -1 with
 * why. */
int gb_parse_percent(const char *s, double *out, char *why, size_t len);

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
/* The policy's "require_present" share, or base when it has none. */
double gb_policy_require_present(const gb_policy *p, double base);
/* The policy's "fail_on_unsure" (false when absent or p is NULL). */
int gb_policy_fail_on_unsure(const gb_policy *p);
/* The rule for one op/backend: start from base (the CLI or built-in
 * default); the policy's top level replaces it only where the CLI did not
 * set a value (cli_set: GB_CLI_* bits), then the op's entry, then the op's
 * backend entry. p may be NULL. */
gb_rule gb_policy_rule(const gb_policy *p, const char *op, const char *backend, gb_rule base,
                       unsigned cli_set);

typedef struct {
    gb_rule rule;                 /* CLI or built-in defaults */
    unsigned cli_set;             /* GB_CLI_* bits */
    const gb_policy *policy;      /* may be NULL */
    const char *policy_path;      /* shown in the report; may be NULL */
    double require_present;       /* share of the baseline's results that must be matched (1: all) */
    /* --confirm SUITE (docs/regression-statistics.md, "Confirming in fresh
     * processes"). confirm_runs 0: off. Otherwise every comparison says
     * whether it is a suspect (a regression, or unsure with its estimate
     * beyond +threshold) and "confirm" lists the suspects' case names; with
     * nconfirm > 0 as well, each suspect is judged again on those processes
     * alone against the same baseline (stage 2: Holm over the suspects),
     * and only a confirmed regression stays one. */
    int confirm_runs;
    const gb_results *const *confirm; /* the confirmation runs (one process each) */
    const char *const *confirm_names;
    size_t nconfirm;
    double confirm_seconds;           /* how long they took (shown) */
    int fail_on_unsure;               /* an all-unsure result exits 1 (--fail-on-unsure, policy) */
    int ci;                           /* --ci: warn when the baseline has fewer than GB_CI_BASELINE_RUNS runs */
    double budget_s;                  /* the extra time the summary's "could be decided" is for (0: default) */
    const char *confirm_suite;        /* the suite they ran (shown) */
    /* --confirm-unsure: every unsure case is re-measured too, not only the
     * slower-looking ones: one current process cannot show its own shift,
     * so on a host whose processes differ by a few % no case can come out
     * "same" at 5% without more of them (docs/history.md, #29) */
    int confirm_unsure;
} gb_compare_options;

/* Most confirmation processes --confirm-runs allows, and its default
 * (docs/regression-statistics.md: what N = 3 detects at real-host noise). */
#define GB_CONFIRM_MAX_RUNS 16
#define GB_CONFIRM_DEFAULT_RUNS 8
/* The baseline runs `compare --ci` (and `history check`'s default) expects,
 * and the confirming processes `compare --ci` (and `history check
 * --confirm`) start: with 8 of each, a 10% regression of a quiet case in a
 * suite as noisy as the H100 VM's was caught 82-84 times in 100 in the
 * simulation; with 16 processes, at least 90 (docs/ci.md, "Power"). */
#define GB_CI_BASELINE_RUNS 8
#define GB_CI_CONFIRM_RUNS 16
/* The extra time the summary counts decidable unsure cases for by default. */
#define GB_DEFAULT_DECIDE_BUDGET_S 60.0

/* What a comparison found, as C structs (needs gb_rule and gb_cmp_verdict above). */
#include "compare_result.h"

/* Compare two loaded results documents (gb_results_load). Names are what the
 * report calls them (their paths). Returns the comparison document:
 *   {"schema": "gpubench-compare", "schema_version": 2, "baseline": {...},
 *    "current": {...}, "baseline_files": [...], "current_files": [...],
 *    "method": {...}, "warnings": [...], "comparisons": [...],
 *    "only_in_baseline": [...], "only_in_current": [...], "summary": {...},
 *    "exit_code": 0|1|2, "error"?: "why 2"}
 * or NULL (out of memory). */
cJSON *gb_compare_docs(const gb_results *base, const char *base_name, const gb_results *cur,
                       const char *cur_name, const gb_compare_options *o);
/* The same with a baseline of nbase runs and a current side of ncur runs
 * (each file one process: how much a case moves between them is measured,
 * compare_stats.h). Cases are those of base[0]; exit_code is 2 (with
 * "error") when none matched or fewer than o->require_present of them. */
cJSON *gb_compare_runs(const gb_results *const *base, const char *const *base_names, size_t nbase,
                       const gb_results *const *cur, const char *const *cur_names, size_t ncur,
                       const gb_compare_options *o);

/* The comparison as C structs (compare_result.h), what the command renders
 * and whose exit_code it exits with; NULL out of memory. Free it with
 * gb_compare_result_free, after rendering, and before freeing the documents
 * (it borrows their strings). gb_compare_runs is this written as JSON. */
gb_compare_result *gb_compare_judge_runs(const gb_results *const *base, const char *const *base_names, size_t nbase,
                                         const gb_results *const *cur, const char *const *cur_names, size_t ncur,
                                         const gb_compare_options *o);
/* The comparison document (schema "gpubench-compare") of a result: the one
 * writer of it (compare_json.c). NULL out of memory. */
cJSON *gb_compare_result_json(const gb_compare_result *r);

struct gb_writer;
/* Render a comparison through a format writer (writer.h: "table", "md",
 * "html"; compare_render.c). */
void gb_compare_render(const gb_compare_result *r, const struct gb_writer *w, FILE *out);
/* The same; verbose: full names, and every case's reason and what would
 * decide it under its verdict (the default keeps to 100 columns). */
void gb_compare_render_verbose(const gb_compare_result *r, const struct gb_writer *w, FILE *out, int verbose);
/* The comparison's document (gb_compare_result_json), printed: --format json. */
void gb_compare_print_json(const gb_compare_result *r, FILE *out);

/* The name of a result's case as the suite names it (gb_case_name, and
 * `run --case`): "op/dtype/label[/k=v,...]". */
void gb_result_case_name(const gb_case_result *c, char *buf, size_t len);
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
