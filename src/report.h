/* report.h — tables from a results document (docs/results-schema.md).
 *
 * Both `gpubench run` (the summary at the end) and `gpubench report` (any
 * saved run) render through these, from the same cJSON document, so a saved
 * run prints exactly what the live run printed. */
#ifndef GB_REPORT_H
#define GB_REPORT_H
#include <stdio.h>
#include <cjson/cJSON.h>

typedef enum { GB_FMT_TABLE = 0, GB_FMT_MD, GB_FMT_CSV, GB_FMT_HTML } gb_format;

typedef struct {
    gb_format format;
    const char *ops;   /* comma-separated op filter, or NULL for all */
    int color;         /* terminal colour (table format only) */
} gb_report_options;

/* Parse "table" | "md" | "csv" | "html"; -1 if unknown. */
int gb_format_parse(const char *s);
/* The summary tables grouped by op, then the crossover section. */
int gb_report_render(const cJSON *results, const gb_report_options *o, FILE *out);
/* One line for a finished case (printed as it finishes). */
void gb_report_case_line(const cJSON *case_obj, FILE *out);
/* Compute the crossover sizes of a results document and store them in its
 * "crossover" array (replacing any). */
void gb_report_crossover(cJSON *results);
#endif
