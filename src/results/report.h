/* report.h — tables from a results document (docs/results-schema.md).
 *
 * Both `gpubench run` (the summary at the end) and `gpubench report` (any
 * saved run) render through these, from the same results model
 * (results_model.h), so a saved run prints exactly what the live run
 * printed. Which backend fills which column is the model's to say (host,
 * then the accelerator's timings); nothing here names a backend. */
#ifndef GB_REPORT_H
#define GB_REPORT_H
#include <stdio.h>

#include "results_model.h"

struct cJSON;

/* The width a terminal table keeps to unless asked for every column. */
#define GB_REPORT_COLUMNS 100

typedef enum { GB_FMT_TABLE = 0, GB_FMT_MD, GB_FMT_CSV, GB_FMT_HTML } gb_format;

typedef struct {
    gb_format format;
    const char *ops;   /* comma-separated op filter, or NULL for all */
    int color;         /* terminal colour (table format only) */
    int wide;          /* table format: every column, not only those that fit GB_REPORT_COLUMNS */
    /* `run`: why the accelerator is missing was said in a note above, in
     * the same stream (stderr and stdout one file): the machine line points
     * to it rather than saying it a second time */
    int accel_reason_above;
} gb_report_options;

/* Parse "table" | "md" | "csv" | "html"; -1 if unknown. */
int gb_format_parse(const char *s);
/* The summary tables grouped by op, then the crossover section (the
 * document's own when every entry lists its changes, else computed). 0, or
 * -1 when writing failed or out of memory. */
int gb_report_render(const gb_results *results, const gb_report_options *o, FILE *out);
/* One machine's CPU against another's GPU (`gpubench report A B --pair`):
 * for every case of gpu_doc with an ok CPU result of the same op, dtype,
 * shape and params in cpu_doc, cpu_doc's CPU median, gpu_doc's GPU medians
 * and the speedups between them; the count of cases without a partner.
 * Run 0 of each file. 0, or -1 when writing failed. */
int gb_report_pair(const gb_results *cpu_doc, const char *cpu_path, const gb_results *gpu_doc,
                   const char *gpu_path, const gb_report_options *o, FILE *out);
/* One line for a finished case (printed as it finishes). results may be NULL
 * (the built-in table then describes the backends). note (may be NULL): what
 * the times on the line are, when not the whole result ("round 1 of 3"),
 * said on it in parentheses. */
void gb_report_case(const gb_results *results, const gb_case_result *c, const char *note, FILE *out);

/* gb_report_params_text, params as words: format.h. */

/* ---- Strong scaling over GPUs (src/results/report_scaling.c) ---------------- */

/* One accelerator result of a case with a "gpus" param (the multi-GPU
 * routines). A series is the same run, op, dtype, shape, params other than
 * gpus, and timing; within it, speedup = the median at its fewest gpus / this
 * median (over one device when the sweep starts at 1) and efficiency =
 * speedup × base_gpus / gpus. Only ok results with a median take part. */
typedef struct {
    int run;
    const char *op, *dtype, *label, *timing;   /* borrowed from the document */
    double size;
    char params[256];                          /* every param but gpus */
    int gpus, base_gpus;
    double median_s, speedup, efficiency;
} gb_scaling_row;
/* The rows, ordered by series then gpus (free *rows). GB_OK or GB_FAIL. */
int gb_scaling_compute(const gb_results *r, gb_scaling_row **rows, size_t *n, gb_err *e);

/* ---- Crossover ------------------------------------------------------------- */

/* Where the GPU wins over a size sweep (src/results/report_crossover.c).
 * Points are (scalar size, speedup = CPU median / GPU median), in any order;
 * points with a non-positive or non-finite size or speedup are ignored and
 * points at the same size are merged (geometric mean of their speedups).
 * The GPU wins a size where its speedup is above 1× (a tie, exactly 1×, is
 * not a GPU win). After sorting by size, every change of winner between two
 * neighbouring sizes is listed in `changes`, each interpolated linearly in
 * log(size) against log(speedup) between those two sizes. The status says
 * where the GPU first wins: at the smallest size (BELOW_SMALLEST), at the
 * first change (INTERPOLATED: size, lo, hi are changes[0]'s), or nowhere
 * (NOT_REACHED). It does not say whether the GPU keeps winning: `changes`
 * does. */
typedef enum {
    GB_CROSS_NO_DATA = -1, GB_CROSS_INTERPOLATED = 0, GB_CROSS_BELOW_SMALLEST, GB_CROSS_NOT_REACHED
} gb_crossover_status;
typedef struct {
    double size;          /* where the log-log line through lo and hi crosses 1× */
    double lo, hi;        /* the neighbouring tested sizes: the old winner's last, the new winner's first */
    int to_gpu;           /* 1: the GPU wins at hi; 0: the CPU does */
} gb_crossover_change;
typedef struct {
    gb_crossover_status status;
    double size;          /* INTERPOLATED: the first crossing to the GPU; otherwise NAN */
    double lo, hi;        /* INTERPOLATED: the bracketing sizes */
    double tested_min, tested_max;
    int points;           /* distinct sizes used */
    int sign_changes;     /* changes of winner: the length of changes */
    gb_crossover_change *changes;  /* in size order; NULL when none (gb_crossover_free) */
} gb_crossover;
gb_crossover_status gb_crossover_find(const double *size, const double *speedup, size_t n,
                                      gb_crossover *x);
void gb_crossover_free(gb_crossover *x);
const char *gb_crossover_status_name(gb_crossover_status s);
/* The scalar size of a case for crossover and plots: the geometric mean of
 * its shape (= n for a square n×n or n×n×n case). *square (may be NULL) is
 * set to 1 when every dimension is equal. 0 when the case has no shape. */
double gb_case_scalar_size(const gb_case_result *c, int *square);

/* The crossover entries of a results document, computed without changing
 * it: for each sweep (cases of one run, op, dtype and params) and each timing
 * of the run's accelerator, where the accelerator wins. *out is malloc'd
 * (free each with gb_crossover_entry_free, then the array). GB_OK, or GB_FAIL
 * (out of memory) with the message in e. */
int gb_crossover_compute(const gb_results *results, gb_crossover_entry **out, size_t *n, gb_err *e);
/* Replace results' crossover with the computed one. GB_OK or GB_FAIL. */
int gb_crossover_update(gb_results *results, gb_err *e);
/* What a crossover entry says, in words, for
 * every report format (malloc'd; the caller frees; NULL on out of memory):
 *   gb_crossover_text: which side wins where along the sweep, naming every
 *     change of winner, e.g. "the GPU wins from 512 to 1024; the CPU wins
 *     from 2048 to 8192 (crossing ≈ 1624)", or "the GPU wins at every size
 *     tested, from 256 to 8192";
 *   gb_crossover_gpu_sizes: the tested sizes the GPU wins, as ranges
 *     ("512–1024", "256, 1024–3162"), or "none".
 * Sizes print as the report prints them (whole numbers from 100 up). */
char *gb_crossover_text(const gb_crossover_entry *entry);
char *gb_crossover_gpu_sizes(const gb_crossover_entry *entry);
/* Whether the terminal table should be coloured on this stream: it is a
 * terminal and NO_COLOR (https://no-color.org) is unset or empty. */
int gb_report_want_color(FILE *out);
#endif
