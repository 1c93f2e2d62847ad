/* export.h — results in other tools' formats, so gpubench numbers can feed
 * existing dashboards and gates:
 *   Google Benchmark JSON — one "iteration" entry per sample (repetitions)
 *     plus mean/median/stddev/cv aggregates, which Google Benchmark's
 *     tools/compare.py reads (its U test runs over the repetitions);
 *   github-action-benchmark "customSmallerIsBetter" — one entry per result,
 *     the median with its 95% interval.
 * Only results with status "ok" and samples are exported (neither format has
 * a way to say "skipped"). Names are gb_result_name's, stable across runs.
 * Mean, median and spread come from src/core/stats.h, computed from the
 * samples exported. */
#ifndef GB_EXPORT_H
#define GB_EXPORT_H
#include <cjson/cJSON.h>

#include "gb.h"
#include "results_model.h"

/* Build the documents (caller frees with cJSON_Delete); NULL on out of memory.
 * results is a loaded results model (results_model.h). */
cJSON *gb_export_gbench_doc(const gb_results *results);
cJSON *gb_export_benchmark_action_doc(const gb_results *results);

/* Write them to path ("-": standard output; files atomically). GB_OK, or
 * GB_FAIL with a message naming the path. */
int gb_export_gbench(const gb_results *results, const char *path, gb_err *e);
int gb_export_benchmark_action(const gb_results *results, const char *path, gb_err *e);

/* Load the results file at results_path and write its export to path: the
 * one code path of `gpubench export` and `gpubench run --export-gbench`, so
 * the two write the same bytes for the same results file. GB_OK, or GB_FAIL
 * with a message that names the failing file. */
typedef enum { GB_EXPORT_GBENCH = 0, GB_EXPORT_BENCHMARK_ACTION } gb_export_format;
int gb_export_file(const char *results_path, gb_export_format f, const char *path, gb_err *e);
#endif
