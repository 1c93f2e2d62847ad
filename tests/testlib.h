/* testlib.h — a minimal test registry. Each TEST registers itself; the runner
 * (tests/testlib.c) runs them all (or those whose name contains argv[1]) and
 * ends with the line "N passed, N failed, N skipped".
 *
 *   TEST(stats_median_of_odd_count) {
 *       CHECK(x == 3);
 *       CHECK_NEAR(y, 0.5, 1e-12);
 *       if (no_gpu) { SKIP("no CUDA device"); return; }
 *   }
 * Tests run from the repository root; $GPUBENCH is the binary under test. */
#ifndef GB_TESTLIB_H
#define GB_TESTLIB_H
#include <stddef.h>
#include <math.h>
#include "backend.h"
#include "results_model.h"

typedef void (*gb_test_fn)(void);
void gb_test_register(const char *file, const char *name, gb_test_fn fn);
int gb_test_check(int ok, const char *expr, const char *file, int line);
int gb_test_check_near(double a, double b, double tol, const char *ea, const char *eb,
                       const char *file, int line);
void gb_test_skip(const char *reason);
/* A whole file, NUL-terminated (malloc'd; NULL if unreadable); *len (may be
 * NULL) its size. */
char *gb_test_slurp(const char *path, size_t *len);
/* Run a shell command, capture up to cap-1 bytes of its stdout+stderr into
 * out (may be NULL); returns its exit status (or -1). */
int gb_test_sh(const char *cmd, char *out, unsigned long cap);
/* The peak virtual size (KiB) of one process: cmd, a simple shell command
 * (assignments, then a program and its arguments; no pipe, no subshell, so
 * that $! is the process itself), started in the background with its output
 * discarded, its VmPeak read every 10 ms until it exits. 0 when it exits
 * non-zero or no sample was read. What `ulimit -v` tests compute their limit
 * from: the runtime's needs grow with the CPU count and the libraries, so no
 * fixed figure holds on every machine. */
long gb_test_vm_peak_kib(const char *cmd);
/* Path of the gpubench binary ($GPUBENCH, default ./gpubench). */
const char *gb_test_binary(void);
/* "/tmp/gb_tests_XXXXXX/<name>": a scratch path of this test run alone
 * (another checkout's `make test` on the same machine used the same fixed
 * /tmp names), removed with its folder when the run passes. The last 8
 * results stay valid. */
const char *gb_test_tmp(const char *name);
/* The whole file at path, NUL-terminated (free it), its length in *len; NULL
 * when it cannot be read. */
char *gb_test_read_file(const char *path, unsigned long *len);
/* text into path (replaced); 0, or -1 when it could not be written. */
int gb_test_write_text(const char *path, const char *text);
/* doc printed into path (replaced); 0, or -1 when it could not be written. */
int gb_test_write_json(const char *path, const struct cJSON *doc);
/* The JSON file at path, parsed (a cJSON *, free with cJSON_Delete), or NULL
 * when it cannot be read or is not one whole JSON document. */
struct cJSON *gb_test_load_json(const char *path);
/* Run the suite (JSON text) on the CPU backend and one more backend (a
 * test's fake accelerator, initialised here with one thread) into r
 * (initialised here; free it with gb_results_free), keeping keep_bytes
 * between rounds (gb_run_config.keep_bytes; 0: the default). Returns 0 when
 * parsing, init and the run all succeeded. */
int gb_test_run_cpu_and(const char *suite_text, const gb_backend *accel, double keep_bytes, gb_results *r);

#define TEST(fn)                                                              \
    static void fn(void);                                                     \
    __attribute__((constructor)) static void fn##_register(void) {            \
        gb_test_register(__FILE__, #fn, fn);                                  \
    }                                                                         \
    static void fn(void)

#define CHECK(cond) gb_test_check(!!(cond), #cond, __FILE__, __LINE__)
#define CHECK_NEAR(a, b, tol) gb_test_check_near((a), (b), (tol), #a, #b, __FILE__, __LINE__)
#define SKIP(reason) gb_test_skip(reason)
#endif
