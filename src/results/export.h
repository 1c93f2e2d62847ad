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

/* Build the documents (caller frees with cJSON_Delete); NULL on out of memory.
 * results is a document as gb_results_load returns it; the runner's own
 * in-memory document is not one (its "samples_s" are raw JSON text until
 * written), which is why `gpubench run --export-gbench` goes through
 * gb_export_file on the file it has just written. */
cJSON *gb_export_gbench_doc(const cJSON *results);
cJSON *gb_export_benchmark_action_doc(const cJSON *results);

/* Write them to path ("-": standard output; files atomically). 0, or -1 with
 * a message naming the path. */
int gb_export_gbench(const cJSON *results, const char *path, char *why, unsigned long why_len);
int gb_export_benchmark_action(const cJSON *results, const char *path, char *why, unsigned long why_len);

/* Load the results file at results_path and write its export to path: the
 * one code path of `gpubench export` and `gpubench run --export-gbench`, so
 * the two write the same bytes for the same results file. 0, or -1 with a
 * message that names the failing file. */
typedef enum { GB_EXPORT_GBENCH = 0, GB_EXPORT_BENCHMARK_ACTION } gb_export_format;
int gb_export_file(const char *results_path, gb_export_format f, const char *path, char *why,
                   unsigned long why_len);
#endif
