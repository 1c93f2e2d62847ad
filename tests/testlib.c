/* testlib.c — runs every registered test and prints the closing line. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "testlib.h"
#include "backend.h"
#include "backends.h"
#include "node_env.h"
#include "results_model.h"
#include "runner.h"
#include "suite.h"

int gb_test_run_cpu_and(const char *suite_text, const gb_backend *accel, double keep_bytes, gb_results *r) {
    gb_suite s;
    gb_err e = {{0}};
    memset(&s, 0, sizeof s);
    memset(r, 0, sizeof *r);
    if (gb_suite_parse(suite_text, "t.json", NULL, &s, &e) != GB_OK) {
        fprintf(stderr, "    suite: %s\n", e.msg);
        return -1;
    }
    gb_backend_options o = {.threads = 1};
    gb_backend_set set = {0};
    set.count = 2;
    set.slot[0] = (gb_backend_slot){.b = gb_cpu_backend(), .name = "cpu", .available = 1, .selected = 1};
    set.slot[1] = (gb_backend_slot){.b = accel, .name = accel->name, .available = 1, .selected = 1};
    int status = accel->init(&o, &e);
    if (status == GB_OK) status = gb_results_init(r, "t", 0, &e);
    if (status == GB_OK) {
        gb_run_config cfg = {.backends = &set, .results = r, .keep_bytes = keep_bytes};
        status = gb_runner_run(&s, &cfg, &e);
    }
    if (status != GB_OK) fprintf(stderr, "    run: %s\n", e.msg);
    gb_suite_free(&s);
    return status == GB_OK ? 0 : -1;
}

#define MAX_TESTS 1024
static struct { const char *file, *name; gb_test_fn fn; } tests[MAX_TESTS];
static int ntests, current_failed, current_skipped;

void gb_test_register(const char *file, const char *name, gb_test_fn fn) {
    if (ntests < MAX_TESTS) {
        tests[ntests].file = file;
        tests[ntests].name = name;
        tests[ntests].fn = fn;
        ntests++;
    }
}

int gb_test_check(int ok, const char *expr, const char *file, int line) {
    if (!ok) {
        fprintf(stderr, "    %s:%d: CHECK failed: %s\n", file, line, expr);
        current_failed = 1;
    }
    return ok;
}

int gb_test_check_near(double a, double b, double tol, const char *ea, const char *eb,
                       const char *file, int line) {
    int ok = fabs(a - b) <= tol; /* NaN fails */
    if (!ok) {
        fprintf(stderr, "    %s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g, tol %g\n", file,
                line, ea, a, eb, b, tol);
        current_failed = 1;
    }
    return ok;
}

/* The reason is printed where the verdict goes ("skipped: no nvcc"), on the
 * test's own line, not as a line of its own followed by a bare "skip". */
static char skip_reason[512];
void gb_test_skip(const char *reason) {
    snprintf(skip_reason, sizeof skip_reason, "%s", reason);
    current_skipped = 1;
}

char *gb_test_slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (buf) buf[got] = '\0';
    if (len) *len = got;
    return buf;
}

int gb_test_sh(const char *cmd, char *out, unsigned long cap) {
    char full[16384];
    /* a command cut short would run something else than the test wrote */
    if ((size_t)snprintf(full, sizeof full, "(%s) 2>&1", cmd) >= sizeof full) return -1;
    FILE *p = popen(full, "r");
    if (!p) return -1;
    unsigned long len = 0;
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, p)) > 0) {
        if (out && cap > 1) {
            size_t room = cap - 1 - len;
            size_t take = got < room ? got : room;
            memcpy(out + len, buf, take);
            len += take;
        }
    }
    if (out && cap > 0) out[len] = '\0';
    int rc = pclose(p);
    if (rc == -1) return -1;
    return (rc >> 8) & 0xff;
}

long gb_test_vm_peak_kib(const char *cmd) {
    char script[8192], said[4096];
    if ((size_t)snprintf(script, sizeof script,
                         "%s > /dev/null 2>&1 & p=$!; peak=0; "
                         "while kill -0 $p 2>/dev/null; do "
                         "v=$(awk '/^VmPeak:/ {print $2}' /proc/$p/status 2>/dev/null); "
                         "[ -n \"$v\" ] && [ \"$v\" -gt \"$peak\" ] && peak=$v; sleep 0.01; done; "
                         "wait $p && echo \"peak=$peak\"",
                         cmd) >= sizeof script)
        return 0;
    if (gb_test_sh(script, said, sizeof said) != 0) return 0;
    const char *at = strstr(said, "peak=");
    long peak = at ? atol(at + 5) : 0;
    return peak > 0 ? peak : 0;
}

char *gb_test_read_file(const char *path, unsigned long *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (buf) buf[got] = 0;
    if (len) *len = got;
    return buf;
}

int gb_test_write_text(const char *path, const char *text) {
    FILE *f = text ? fopen(path, "w") : NULL;
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0) ok = 0;
    return ok ? 0 : -1;
}

int gb_test_write_json(const char *path, const cJSON *doc) {
    char *text = cJSON_Print(doc);
    int rc = gb_test_write_text(path, text);
    free(text);
    return rc;
}

cJSON *gb_test_load_json(const char *path) {
    char *buf = gb_test_read_file(path, NULL);
    if (!buf) return NULL;
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    return j;
}

const char *gb_test_binary(void) {
    const char *b = getenv("GPUBENCH");
    return b && *b ? b : "./gpubench";
}

/* One folder per test run for every scratch file (gb_test_tmp, the
 * caches): a run used to leave some 30 files in /tmp each time. */
static char scratch[64] = "/tmp/gb_tests_XXXXXX";

/* What a test writes to stderr (a command's warnings, a CHECK's message)
 * goes to a temporary file, shown only when the test fails: a passing
 * `make test` prints one line per test and the closing line, nothing else. */
int main(int argc, char **argv) {
    const char *filter = argc > 1 ? argv[1] : NULL;
    /* Tests that stop a run with SIGHUP expect it to arrive as from a
     * terminal. Under nohup it comes ignored, the children inherit that, and
     * gpubench rightly leaves an ignored SIGHUP ignored (nohup's promise), so
     * the runs under test start from the default disposition. */
    signal(SIGHUP, SIG_DFL);
    /* Every gpubench the tests start keeps its caches (GEMM library choice,
     * kept ceilings, FFTW wisdom) in a folder of this test process, not in
     * the machine's ~/.cache: a choice kept by an earlier, odd run (one under
     * `ulimit -v` kept BLIS for small products) made later tests measure
     * another library, and a test's outcome depended on the machine's past. */
    char cache[sizeof scratch + 8] = "";
    if (mkdtemp(scratch)) snprintf(cache, sizeof cache, "%s/cache", scratch);
    else scratch[0] = 0;
    if (cache[0] && mkdir(cache, 0700) == 0) setenv("XDG_CACHE_HOME", cache, 1);
    size_t orig_size = 0;
    const cpu_set_t *orig = gb_node_original_mask(&orig_size);
    int passed = 0, failed = 0, skipped = 0;
    const char *times_env = getenv("GB_TEST_TIMES");
    int show_times = times_env && *times_env && strcmp(times_env, "0") != 0;
    int real_fd = dup(2);
    FILE *real = real_fd >= 0 ? fdopen(real_fd, "w") : NULL;
    if (!real) real = stderr;
    for (int i = 0; i < ntests; i++) {
        if (filter && !strstr(tests[i].name, filter) && !strstr(tests[i].file, filter)) continue;
        current_failed = current_skipped = 0;
        fprintf(real, "%-60s ", tests[i].name);
        fflush(real);
        FILE *cap = real != stderr ? tmpfile() : NULL;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        fflush(stderr);
        if (cap) dup2(fileno(cap), 2);
        /* The CPU backend pins this thread to one CPU when a test brings it
         * up (cpu_bind.c), and every process a later test starts would
         * inherit that one CPU: each test starts with the whole set. */
        if (orig) pthread_setaffinity_np(pthread_self(), orig_size, orig);
        tests[i].fn();
        fflush(stderr);
        if (cap) dup2(real_fd, 2);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        /* GB_TEST_TIMES=1: each test's wall time, to find what makes the
         * suite slow (a timing is printed, never asserted). */
        if (show_times)
            fprintf(real, "[%6.1f s] ", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
        if (current_failed) {
            failed++;
            if (cap) { /* the test's messages, then the verdict */
                char buf[4096];
                size_t n;
                rewind(cap);
                fputc('\n', real);
                while ((n = fread(buf, 1, sizeof buf, cap)) > 0) fwrite(buf, 1, n, real);
            }
            fprintf(real, "FAIL\n");
        } else if (current_skipped) {
            skipped++;
            fprintf(real, "skipped: %s\n", skip_reason);
        } else {
            passed++;
            fprintf(real, "ok\n");
        }
        fflush(real);
        if (cap) fclose(cap);
    }
    fflush(real);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    /* every test's files (gb_test_tmp) and the caches go with the folder; a
     * failed run keeps them to look at */
    if (scratch[0] && failed) fprintf(stderr, "the tests' files are kept in %s\n", scratch);
    else if (scratch[0]) {
        char rm[128];
        snprintf(rm, sizeof rm, "rm -rf '%s'", scratch);
        if (system(rm) != 0) fprintf(stderr, "could not remove %s\n", scratch);
    }
    return failed ? 1 : 0;
}

const char *gb_test_tmp(const char *name) {
    static char buf[8][256];
    static int next;
    char *b = buf[next++ % 8];
    if (scratch[0] && !strstr(scratch, "XXXXXX")) snprintf(b, sizeof buf[0], "%s/%s", scratch, name);
    else snprintf(b, sizeof buf[0], "/tmp/gbt%d_%s", (int)getpid(), name);
    return b;
}
