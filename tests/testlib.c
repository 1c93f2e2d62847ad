/* testlib.c — runs every registered test and prints the closing line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "testlib.h"

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

void gb_test_skip(const char *reason) {
    fprintf(stderr, "    skipped: %s\n", reason);
    current_skipped = 1;
}

int gb_test_sh(const char *cmd, char *out, unsigned long cap) {
    char full[4096];
    snprintf(full, sizeof full, "(%s) 2>&1", cmd);
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

int main(int argc, char **argv) {
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < ntests; i++) {
        if (filter && !strstr(tests[i].name, filter) && !strstr(tests[i].file, filter)) continue;
        current_failed = current_skipped = 0;
        fprintf(stderr, "%-60s ", tests[i].name);
        fflush(stderr);
        tests[i].fn();
        if (current_failed) { failed++; fprintf(stderr, "FAIL\n"); }
        else if (current_skipped) { skipped++; fprintf(stderr, "skip\n"); }
        else { passed++; fprintf(stderr, "ok\n"); }
    }
    fflush(stderr);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
