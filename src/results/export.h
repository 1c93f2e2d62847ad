/* export.h — results in other tools' formats, so gpubench numbers can feed
 * existing dashboards and gates:
 *   Google Benchmark JSON — one "iteration" entry per sample (repetitions)
 *     plus mean/median/stddev/cv aggregates, which Google Benchmark's
 *     tools/compare.py reads (its U test runs over the repetitions);
 *   github-action-benchmark "customSmallerIsBetter" — one entry per result,
 *     the median with its 95% interval.
 * Only results with status "ok" and samples are exported (neither format has
 * a way to say "skipped"). Names are gb_result_name's, stable across runs. */
#ifndef GB_EXPORT_H
#define GB_EXPORT_H
#include <cjson/cJSON.h>

/* Build the documents (caller frees with cJSON_Delete); NULL on out of memory. */
cJSON *gb_export_gbench_doc(const cJSON *results);
cJSON *gb_export_benchmark_action_doc(const cJSON *results);

/* Write them to path ("-": standard output; files atomically). 0, or -1 with
 * a message naming the path. */
int gb_export_gbench(const cJSON *results, const char *path, char *why, unsigned long why_len);
int gb_export_benchmark_action(const cJSON *results, const char *path, char *why, unsigned long why_len);
#endif
