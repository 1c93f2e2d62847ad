/* results_io.h — reading and writing results documents (docs/results-schema.md).
 *
 * Every command that reads a results file (report, compare, merge, export)
 * loads it through gb_results_load, so a wrong file gets the same clear
 * message everywhere. Every writer of a results file (run, merge) writes it
 * through gb_results_write_atomic, so a reader never sees half a file.
 *
 * Single-run and merged files (the output of `gpubench merge`) are read by
 * the same code through the run accessors below: a single-run file is its own
 * run 0; a merged file lists its runs in "runs" and each case names its run
 * with "run": index. */
#ifndef GB_RESULTS_IO_H
#define GB_RESULTS_IO_H
#include <cjson/cJSON.h>

#define GB_RESULTS_SCHEMA "gpubench-results"
#define GB_RESULTS_SCHEMA_VERSION 1

/* Read, parse and check a results file: a JSON object whose "schema" is
 * "gpubench-results", whose "schema_version" is the one this build reads, with
 * a "cases" array (and, in a merged file, a "runs" array that every case's
 * "run" indexes). Returns the document (free with cJSON_Delete), or NULL with
 * a message that starts with the path, e.g.
 *   "r.json: not a gpubench results file (no \"schema\")"
 *   "r.json: schema_version 7, this gpubench reads 1"
 *   "r.json: line 3: malformed JSON near '\"op\" matmul'"
 * path "-" reads standard input. */
cJSON *gb_results_load(const char *path, char *why, unsigned long why_len);

/* Write doc (pretty-printed, newline-terminated) to path so that path holds
 * either its old contents or the whole new document, never a part: a temp
 * file in the same directory, fsync, rename over path, fsync the directory.
 * path "-" writes standard output. Returns 0, or -1 with a message naming
 * the path and the failing step. */
int gb_results_write_atomic(const cJSON *doc, const char *path, char *why, unsigned long why_len);

/* Runs of a loaded document: 1 for a single-run file, the length of "runs"
 * for a merged one. */
int gb_results_run_count(const cJSON *doc);
/* The object holding run i's "context", "peaks", "warnings", "suite",
 * "health": the document itself for a single-run file (i must be 0), runs[i]
 * for a merged one. NULL when i is out of range. */
const cJSON *gb_results_run(const cJSON *doc, int i);
/* The run a case belongs to: its "run" member, 0 when absent. */
int gb_results_case_run(const cJSON *case_obj);
/* A short name for run i: runs[i].name in a merged file, else the context's
 * hostname, else "run<i>". Never NULL; points into doc or a static buffer. */
const char *gb_results_run_name(const cJSON *doc, int i);
/* 1 if doc is a merged file (has "runs"). */
int gb_results_is_merged(const cJSON *doc);
#endif
