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

typedef struct {
    gb_rule rule;         /* compare's threshold, alpha and time floor */
    const char *timing;   /* which timing the rows show; NULL: "device" (the
                           * accelerator's time with data resident) when any
                           * result has it, else the host's timing */
    const char *ops;      /* comma-separated ops to show; NULL: all */
} gb_fleet_options;

#define GB_FLEET_DEFAULT_OPTIONS {GB_DEFAULT_RULE, NULL, NULL}

/* The fleet document (schema "gpubench-fleet", the `--format json`
 * output; docs/reports.md) over ndocs loaded documents, named by names[i]
 * (their paths). NULL with the message in e when no column has a result of
 * the timing, or out of memory. */
cJSON *gb_fleet_build(const gb_results *const *docs, const char *const *names, size_t ndocs,
                      const gb_fleet_options *o, gb_err *e);

typedef enum { GB_FLEET_TABLE = 0, GB_FLEET_MD, GB_FLEET_CSV, GB_FLEET_JSON } gb_fleet_format;
/* "table" | "md" | "csv" | "json"; -1 if unknown. */
int gb_fleet_format_parse(const char *s);
/* Render a fleet document. */
void gb_fleet_render_doc(const cJSON *fleet, gb_fleet_format f, FILE *out);

/* Build and render in one call, for one document with default options
 * (what `run --devices` prints at the end of a multi-device run). GB_OK, or
 * GB_FAIL with the message in e (nothing written). */
int gb_fleet_render(const gb_results *r, FILE *out, gb_fleet_format f, gb_err *e);
#endif
