/* compare_result.h — what a comparison found, as C structs: filled by the
 * judging code (compare.c, compare_confirm.c), written to JSON by one writer
 * (compare_json.c: the `--format json` document, schema "gpubench-compare",
 * docs/regression-statistics.md) and rendered by compare_render.c. Nothing
 * reads a result back from JSON; the exit code is a field.
 *
 * Strings marked "borrowed" point into the results documents compared and
 * the options given: render and write the result before freeing those.
 * Included by compare.h (it needs gb_rule and gb_cmp_verdict from there). */
#ifndef GB_COMPARE_RESULT_H
#define GB_COMPARE_RESULT_H
#include <stddef.h>

#include "results_model.h"

/* A list of owned strings (gb_cmp_strs_add copies). */
typedef struct {
    char **item;
    size_t n, cap;
} gb_cmp_strs;
/* Append a copy of s. 0, or -1 out of memory. */
int gb_cmp_strs_add(gb_cmp_strs *l, const char *s);
int gb_cmp_strs_has(const gb_cmp_strs *l, const char *s);
void gb_cmp_strs_free(gb_cmp_strs *l);

/* A run of a compared file (borrowed). */
typedef struct {
    const char *name, *date, *gpu, *cpu;
} gb_cmp_run_desc;

/* A compared file: its path (borrowed) and runs. */
typedef struct {
    const char *path;
    gb_cmp_run_desc *runs;
    size_t nruns;
} gb_cmp_file;

/* One side of a compared case. */
typedef struct {
    const char *status;       /* the result's status name */
    char desc[120];           /* "ok", or why it cannot be compared */
    double n;                 /* samples of the side's first result */
    int files;                /* files holding the result at all */
    int runs;                 /* of those, usable (ok) */
    double median_s, round_spread, process_spread; /* NAN when not compared */
} gb_cmp_side;

/* Stage 2 of --confirm on one suspect. */
typedef struct {
    int have;                 /* stage 2 judged this case */
    size_t runs;              /* confirmation processes */
    gb_cmp_verdict verdict;
    double change, lo, hi, p_holm;
} gb_cmp_confirmed;

/* What would decide an unsure case (compare_decide.c): each lever alone,
 * 0 where it cannot. */
typedef struct {
    int have;                 /* an unsure case with its noise estimated */
    int on_threshold;         /* its change sits on the edge: nothing decides it */
    int more_rounds;          /* rounds to add to a run (both sides measured again) */
    int baseline_runs;        /* baseline runs (history depth) in all */
    int processes;            /* confirming processes (--confirm-runs) */
    int runs_each;            /* k baseline runs with confirming processes up to k current ones */
    double round_s;           /* one round of the case */
    double cost_s;            /* the cheapest lever's time (INFINITY: none) */
    const char *cheapest;     /* "rounds", "baseline runs", "confirming processes", or both of those */
} gb_cmp_decide_plan;
void gb_cmp_decide_text(const gb_cmp_decide_plan *p, char *buf, size_t len);

/* One case matched on both sides. */
typedef struct {
    char name[400];           /* gb_result_name, with @machine when matched by machine */
    const gb_case_result *c;  /* borrowed: op, dtype, label, shape, params */
    const char *backend, *timing, *machine; /* borrowed; machine NULL unless by machine */
    gb_rule rule;
    gb_cmp_side baseline, current;
    double change, ci_low, ci_high, p_value, p_holm, df; /* NAN when not estimated; net of the backend's shift */
    double raw_change;        /* before the shift was taken out (= change when there was none) */
    int has_noise;            /* the noise below was estimated */
    double process_sd, round_sd, sampling_sd;
    int process_from_case;    /* the process sd is this case's own (else the suite's typical) */
    int baseline_plans;       /* distinct library plans in the baseline (0: none recorded) */
    int plan_changed;
    gb_cmp_verdict verdict;
    int suspect;              /* --confirm re-measures it */
    gb_cmp_confirmed confirm;
    gb_cmp_decide_plan decide;
    char reason[480];
} gb_cmp_item;
/* How many of items' unsure cases could be decided within budget_s (the
 * cheapest first); *spent: their time. */
int gb_cmp_decidable_within(const gb_cmp_item *items, size_t n, double budget_s, double *spent);

/* The shift common to a backend's cases (compare_shift.c). */
typedef enum {
    GB_SHIFT_NONE = 0,     /* not established (its interval holds 1), or too few cases */
    GB_SHIFT_SMALL,        /* established, within the threshold */
    GB_SHIFT_MACHINE,      /* beyond the threshold, and the ceilings moved with it: a warning */
    GB_SHIFT_UNEXPLAINED,  /* beyond the threshold, the ceilings did not move: slower = a regression */
    GB_SHIFT_WITHIN_SPREAD /* within how much the baseline runs' own level moves: shown, never failed */
} gb_cmp_shift_status;
const char *gb_cmp_shift_status_name(gb_cmp_shift_status s);

typedef struct {
    const char *backend;      /* borrowed */
    size_t cases;
    double ratio, lo, hi;     /* median current/baseline time ratio, its interval (widened by the spread when known) */
    double case_lo, case_hi;  /* the interval from the cases alone (order statistics) */
    size_t spread_runs;       /* baseline runs whose leave-one-out shifts gave the spread (0: fewer than 3) */
    double spread_sd;         /* log sd of a run's level, from those shifts (NAN: unknown) */
    double loo_min, loo_max;  /* the smallest and largest leave-one-out shift */
    char differs[200];        /* which of build, libraries, ceilings differ ("none of ..." when none) */
    double ceiling_ratio;     /* what the ceilings make of a time (NAN: none measured on both sides) */
    size_t ceiling_keys;
    int applied;              /* the backend's cases were judged net of it */
    gb_cmp_shift_status status;
} gb_cmp_shift;
/* The shift's line: "cpu: x1.081 [1.06, 1.10] over 50 cases, ...". */
void gb_cmp_shift_text(const gb_cmp_shift *sh, double threshold, char *buf, size_t len);
#define GB_CMP_MAX_SHIFTS 8

/* What --confirm did (summary.confirm). */
typedef struct {
    int present;              /* --confirm was given */
    const char *suite;        /* borrowed; NULL when not named */
    int runs;                 /* --confirm-runs */
    size_t processes;         /* confirmation processes run */
    double seconds;
    gb_cmp_strs cases;        /* the suspects' case names, each once */
    int suspects, confirmed, not_confirmed;
} gb_cmp_confirm_summary;

typedef struct {
    int compared;                          /* same + improvement + unsure + regression */
    int count[GB_V_NOT_COMPARED + 1];      /* per verdict */
    int failed_only_in_current;
    int shift_regressions;                 /* backends whose unexplained shift is a regression */
    int all_unsure;                        /* cases were compared and every one is unsure */
    double budget_s;                       /* the extra time the decidable count is for */
    int decidable;                         /* unsure cases that budget_s would decide */
    double decidable_s;
    double present;                        /* share of the baseline's results matched */
    gb_cmp_confirm_summary confirm;
} gb_cmp_summary;

typedef struct {
    gb_cmp_file baseline, current;         /* the first file of each side */
    gb_cmp_file *baseline_files, *current_files;
    size_t nbase, ncur;
    double threshold, alpha, min_change_s, require_present;
    const char *policy;                    /* borrowed; NULL: none */
    int by_machine;                        /* machines are part of the key */
    int confirm_on;                        /* every item says whether it is a suspect */
    gb_cmp_strs warnings;
    gb_cmp_shift shifts[GB_CMP_MAX_SHIFTS]; /* one per backend with cases */
    size_t nshifts;
    char build_note[300];                  /* the commits compared ("" when unknown) */
    gb_cmp_item *items;
    size_t nitems;
    gb_cmp_strs only_in_baseline, only_in_current;
    gb_cmp_summary summary;
    int fail_on_unsure;                    /* an all-unsure result failed */
    char error[1200];                      /* why the exit code is 2; "" when it is not */
    int exit_code;                         /* 0 pass, 1 a regression or failure, 2 error */
} gb_compare_result;

void gb_compare_result_free(gb_compare_result *r);
/* "pass", "fail" (a regression, a failure or an unexplained shift),
 * "all_unsure" (nothing decided: exit 0, or 1 with fail_on_unsure), "error". */
const char *gb_cmp_outcome(const gb_compare_result *r);
#endif
