/* fleet.h — the same cases on many nodes or devices, side by side.
 *
 * A fleet is every (run, device) of one or more results documents: the runs
 * of a merged file (one per node of a SLURM job array), several results
 * files, or one run that measured several devices (`run --devices`). Each
 * such (run, device) is a column; each case (op, dtype, shape, params,
 * backend, timing) a row; a cell is the case's median on that column
 * relative to the row's reference column, the column whose median is the
 * median of the row's medians (the lower of the two middle ones for an even
 * count), so a row of identical nodes reads 1.00 everywhere.
 *
 * Whether a cell is slow is decided by compare's statistics and nothing
 * else (compare.h, docs/ci.md): the column's samples against the reference
 * column's samples, Hodges-Lehmann shift with its interval and the
 * Mann-Whitney test at the rule's alpha, then the noise floor (the spread
 * of either side's own round medians) and the time floor. A cell is "slow"
 * where compare would call a regression, "fast" where it would call an
 * improvement; anything inside the measured noise is neither. */
#ifndef GB_FLEET_H
#define GB_FLEET_H
#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "compare.h"
#include "gb.h"
#include "results_model.h"
#include "stats.h"

typedef struct {
    gb_rule rule;         /* compare's threshold, alpha and time floor */
    const char *timing;   /* which timing the rows show; NULL: "device" (the
                           * accelerator's time with data resident) when any
                           * result has it, else the host's timing */
    const char *ops;      /* comma-separated ops to show; NULL: all */
} gb_fleet_options;

#define GB_FLEET_DEFAULT_OPTIONS {GB_DEFAULT_RULE, NULL, NULL}

/* ---- the fleet as C structs: filled by the judging code (fleet.c),
 * written to JSON by one writer (fleet_json.c), rendered by fleet_render.c.
 * Strings marked "borrowed" point into the documents and names given: render
 * and write before freeing those. */

/* One case on one column. */
typedef struct {
    int present;              /* a result there (JSON null otherwise) */
    const char *status;       /* its status name */
    double median_s, relative;/* NAN: none (JSON null) */
    const char *verdict;      /* "reference", "same", "slow", "fast", "unsure", "not_compared" */
    int judged;               /* change, ci_low, ci_high and p_value were estimated */
    double change, ci_low, ci_high, p_value;
    int has_reason;
    char reason[200];
} gb_fleet_cell;

/* One case: its cells, one per column. */
typedef struct {
    char name[400];           /* gb_result_name */
    const gb_case_result *c;  /* borrowed: op, dtype, label, shape, params */
    const char *backend, *timing; /* borrowed */
    long reference;           /* the reference column; -1: none (JSON null) */
    gb_fleet_cell *cells;
    double spread;            /* slowest over fastest column, minus 1; NAN: none */
} gb_fleet_row;

/* The verdict on a column or node as a whole (fleet_verdict.c): the median
 * of its cases' times relative to each case's fleet median (the median over
 * the columns that measured it), with gb_common_shift_compute's
 * distribution-free 95% interval over the cases. "slow" / "fast" when the
 * whole interval lies beyond the threshold (1 + t, 1 / (1 + t)); "same" when
 * it lies within; "unsure" otherwise; "differ" in a fleet of two that is not
 * "same" (with two, which one is slow cannot be told); "none" without cases or for the only node measured.
 * One slow case no longer marks a node: a node is judged on all its cases. */
typedef struct {
    gb_common_shift shift;
    const char *verdict;
} gb_fleet_verdict;

/* The verdict on n relative times (ratios to each case's fleet median) for
 * threshold t, into *out. */
void gb_fleet_verdict_of(const double *ratios, size_t n, double t, gb_fleet_verdict *out);

/* One column: a (run, device) of a document. */
typedef struct {
    char name[160];
    const char *source, *run, *hostname;   /* borrowed */
    const gb_device_id *device;            /* borrowed; NULL when the results name none */
    size_t cases, compared, slow, fast, not_measured;
    double median_relative;                /* NAN: none */
    gb_fleet_verdict verdict;              /* the column over all its cases */
    int flagged_slow;                      /* verdict "slow" */
} gb_fleet_column;

/* One node: a run of a document, or the runs of one job on one host (the
 * tasks of `slurm --per-gpu`), whether or not it has a column (a node asked
 * for GPUs that measured none is listed with why, never dropped). */
typedef struct {
    char name[160];
    const char *source, *hostname;         /* borrowed */
    const gb_job_info *job;                /* borrowed; job->present 0 outside SLURM */
    const char *health_json;               /* borrowed: the run's "health" (NVML's node health), or NULL */
    size_t columns;                        /* its columns in the table */
    size_t runs;                           /* the runs it pools: the srun tasks of one job on one host
                                            * (`slurm --per-gpu`, one per GPU) are one node */
    const char *status;                    /* "measured", "no_results" (none of the fleet's timing), "incomplete" */
    char reason[300];                      /* why not measured, e.g. the accelerator's "no NVIDIA driver" */
    gb_fleet_verdict verdict;              /* over all its columns' cases */
} gb_fleet_node;

typedef struct {
    const char *const *sources;            /* borrowed: the names given */
    size_t nsources;
    const char *timing;                    /* borrowed */
    gb_rule rule;
    gb_fleet_row *rows;
    size_t nrow;
    gb_fleet_column *columns;
    size_t ncol;
    gb_fleet_node *nodes;                  /* every run of every document */
    size_t nnode;
    gb_cmp_strs notes;                     /* failed nodes, incomplete runs, nodes not in the table */
} gb_fleet_result;

/* The fleet over ndocs loaded documents, named by names[i] (their paths).
 * NULL with the message in e when no column has a result of the timing, or
 * out of memory. */
gb_fleet_result *gb_fleet_judge(const gb_results *const *docs, const char *const *names, size_t ndocs,
                                const gb_fleet_options *o, gb_err *e);
void gb_fleet_result_free(gb_fleet_result *f);
/* The fleet document (schema "gpubench-fleet", the `--format json` output;
 * docs/reports.md): the one writer of it (fleet_json.c). NULL out of memory. */
cJSON *gb_fleet_result_json(const gb_fleet_result *f);
/* gb_fleet_judge written as its document. */
cJSON *gb_fleet_build(const gb_results *const *docs, const char *const *names, size_t ndocs,
                      const gb_fleet_options *o, gb_err *e);

struct gb_writer;
/* Render a fleet through a format writer (writer.h; fleet_render.c): a
 * document, or to a writer of records (CSV) a line per case and column. */
void gb_fleet_render_result(const gb_fleet_result *f, const struct gb_writer *w, FILE *out);
/* The fleet's document (gb_fleet_result_json), printed: --format json. */
void gb_fleet_print_json(const gb_fleet_result *f, FILE *out);

/* Build and render in one call, for one document with default options
 * (what `run --devices` prints at the end of a multi-device run). GB_OK, or
 * GB_FAIL with the message in e (nothing written). */
int gb_fleet_render(const gb_results *r, FILE *out, const struct gb_writer *w, gb_err *e);
#endif
