/* results_io.h — JSON files in and out, for the results model and export.
 *
 * Reading: one file (or standard input) into a parsed document, strictly
 * (json_strict.h: no duplicate keys, NUL or trailing bytes, or control
 * characters in strings), with the line of a syntax error in the message. The results model
 * (results_model.h) loads results files through it; nothing else reads a
 * results file.
 *
 * Writing: atomically, so that a reader never sees half a file — every
 * writer of a results file (run, merge) and of an export goes through
 * gb_json_write_atomic. */
#ifndef GB_RESULTS_IO_H
#define GB_RESULTS_IO_H
#include <cjson/cJSON.h>

#include "gb.h"

/* Read and parse the JSON file at path ("-": standard input) into *out (free
 * with cJSON_Delete). GB_OK, or GB_FAIL with a message that starts with the
 * path ("<stdin>" for standard input):
 *   "r.json: cannot open: No such file or directory"
 *   "r.json: line 3: malformed JSON near '\"op\" matmul'" */
int gb_json_read_file(const char *path, cJSON **out, gb_err *e);

/* Write doc (pretty-printed, newline-terminated) to path so that path holds
 * either its old contents or the whole new document, never a part: a temp
 * file in the same directory, fsync, rename over path, fsync the directory.
 * path "-" writes standard output. GB_OK, or GB_FAIL with a message naming
 * the path and the failing step. */
int gb_json_write_atomic(const cJSON *doc, const char *path, gb_err *e);

#endif
