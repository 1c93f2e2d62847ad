/* results_io.h — JSON files in and out, for the results model and export.
 *
 * Reading: one file (or standard input) into a parsed document, strictly
 * (json_strict.h: no duplicate keys, NUL or trailing bytes, or control
 * characters in strings), with the line of a syntax error in the message. The results model
 * (results_model.h) loads results files through it; nothing else reads a
 * results file.
 *
 * Writing: every output file of gpubench — results (run, merge), exports,
 * compare reports, FFTW wisdom — goes through gb_file_write below, so that
 * a reader never sees half a file and nothing but a regular file is ever
 * replaced. */
#ifndef GB_RESULTS_IO_H
#define GB_RESULTS_IO_H
#include <cjson/cJSON.h>

#include "gb.h"

/* Read and parse the results file at path ("-": standard input) into *out
 * (free with cJSON_Delete): a regular file of at most GB_LIMIT_RESULTS
 * (file_read.h), refused before it is read otherwise. GB_OK, or GB_FAIL with a message that starts with the
 * path ("<stdin>" for standard input):
 *   "r.json: cannot open: No such file or directory"
 *   "r.json: line 3: malformed JSON near '\"op\" matmul'" */
int gb_json_read_file(const char *path, cJSON **out, gb_err *e);

/* ---- writing: every file gpubench writes goes through gb_file_write ----------
 *
 * Where the path leads decides how it is written:
 *   - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that
 *     descriptor, written as it is (never resolved to a file and replaced);
 *   - a regular file, or nothing yet: a temp file next to it
 *     (.NAME.tmp.PID; gb_output_side_name for a long NAME), fsync, rename over it, fsync the directory, so the
 *     path holds its old contents or the whole new ones, never a part. A
 *     replaced file keeps its permissions;
 *   - a character device or a FIFO (/dev/null, a named pipe): opened and
 *     written in place, never replaced, nothing created (a FIFO waits for
 *     its reader);
 *   - a symbolic link: followed; its target is written by the rules above
 *     (a regular target is replaced, or made, in its own directory; the
 *     link stays a link);
 *   - a directory, a block device, a socket: refused.
 * A temp file is removed on every error, and by gb_output_remove_temp from a
 * signal handler; one left by a killed process (SIGKILL) is removed by the
 * next gb_output_check on the same target once that process is gone. */
typedef enum { GB_OUT_FD, GB_OUT_FILE, GB_OUT_STREAM } gb_out_kind;
typedef struct {
    gb_out_kind kind;
    int fd;                 /* GB_OUT_FD */
    char path[4096];        /* the target, a symbolic link followed */
    char dir[4096], base[256]; /* GB_OUT_FILE: its directory and name */
} gb_out_target;

/* Where path leads (above). GB_OK, or GB_FAIL naming path and the reason
 * ("r/x.json: the directory r does not exist", "out: is a directory"). */
int gb_output_resolve(const char *path, gb_out_target *t, gb_err *e);
/* Before any work: can path be written? It resolves, and for a file a temp
 * file can be made in its directory (made and removed: this proves what
 * permissions alone do not: a read-only file system, root), and an existing
 * file may be replaced there (not someone else's file in a sticky directory
 * such as /tmp, not a file marked immutable or append-only). Removes the
 * stale temp files of target processes that no longer exist. GB_OK or
 * GB_FAIL with the reason. */
int gb_output_check(const char *path, gb_err *e);
/* Remove the temp files .NAME.tmp.PID of t whose process is gone; the count. */
int gb_output_clean_stale(const gb_out_target *t);
/* The path of a file next to t's target, named lead + NAME + suffix (the
 * temp file ".NAME.tmp.PID", the lock file "NAME.lock"). Where that would be
 * longer than a file name may be (NAME_MAX), NAME is cut to 180 bytes and a
 * hash of the whole name follows it ("~" and 16 hex digits), so that a target
 * of any legal length (255 bytes) can be written and locked. */
void gb_output_side_name(const gb_out_target *t, const char *lead, const char *suffix, char *buf, size_t len);

/* Write n bytes of data to path by the rules above. GB_OK, or GB_FAIL with
 * a message naming the path and the failing step ("cannot write: File too
 * large: over the file size limit of this shell (ulimit -f)"). */
int gb_file_write(const char *path, const char *data, size_t n, gb_err *e);
/* A cache (FFTW wisdom, the kept GEMM choice, the kept CPU teams): written
 * through gb_file_write only where path is none yet, or a regular file that
 * is empty or begins with own (the cache's own first bytes: "(fftw-", "key
 * cpu="). A FIFO or a device there is left alone (opening a FIFO to write it
 * waits for a reader forever); a file of another kind (the suite being run,
 * a results file, anything the variable naming the cache was pointed at) is
 * never replaced: a warning names it and what it is not (kind: "FFTW
 * wisdom"). A failure to write costs the next run a measurement, nothing
 * more, so it is not reported. */
void gb_cache_write(const char *path, const char *kind, const char *own, const char *data, size_t n);
/* doc, pretty-printed and newline-terminated, through gb_file_write. */
int gb_json_write_atomic(const cJSON *doc, const char *path, gb_err *e);

/* From a signal handler (async-signal-safe): remove the temp file being
 * written now, if any. */
void gb_output_remove_temp(void);

#endif
