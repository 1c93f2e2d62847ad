/* test_peer_check.c — scripts/cpu-peer-check.py on a small committed results
 * file (tests/data/results_peer_small.json: a CPU-only run of every op at
 * tiny sizes): it must time a peer for every CPU case and print a ratio for
 * each, write the same as JSON, and fail clearly without numpy/scipy or with
 * a bad argument. Skipped when no Python with numpy and scipy is found
 * (/usr/bin/python3 first, then python3 on PATH — Debian's python3-numpy and
 * python3-scipy live under /usr/bin/python3, which need not be first on
 * PATH). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "testlib.h"

#define RESULTS "tests/data/results_peer_small.json"
#define SCRIPT "scripts/cpu-peer-check.py"

static char out[1 << 16];

/* A python that imports numpy and scipy, into py; 0 if found. */
static int find_python(char *py, size_t len) {
    static const char *const cands[] = {"/usr/bin/python3", "python3"};
    for (int i = 0; i < 2; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy, scipy' >/dev/null 2>&1", cands[i]);
        if (gb_test_sh(cmd, NULL, 0) == 0) {
            snprintf(py, len, "%s", cands[i]);
            return 0;
        }
    }
    return -1;
}

static cJSON *read_json(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return cJSON_Parse(buf);
}

/* "op dtype label": the start of the script's case name for a results case. */
static void case_key(const cJSON *c, char *key, size_t len) {
    snprintf(key, len, "%s %s %s", cJSON_GetObjectItemCaseSensitive(c, "op")->valuestring,
             cJSON_GetObjectItemCaseSensitive(c, "dtype")->valuestring, cJSON_GetObjectItemCaseSensitive(c, "label")->valuestring);
}

TEST(cpu_peer_check_prints_a_ratio_for_every_cpu_case) {
    char py[64];
    if (find_python(py, sizeof py) != 0) {
        SKIP("no Python with numpy and scipy (tried /usr/bin/python3, then python3 on PATH): "
             "apt-get install python3-numpy python3-scipy, or pip install numpy scipy");
        return;
    }
    char cmd[1024];
    remove("build/peers.json");
    snprintf(cmd, sizeof cmd, "%s %s %s --reps 3 --budget 1 --json build/peers.json 2>&1", py, SCRIPT, RESULTS);
    int rc = gb_test_sh(cmd, out, sizeof out);
    if (!CHECK(rc == 0)) fprintf(stderr, "  %s\n%s\n", cmd, out);
    CHECK(strstr(out, "ratio") != NULL);
    CHECK(strstr(out, "BLAS/LAPACK:") != NULL);

    cJSON *res = read_json(RESULTS), *peers = read_json("build/peers.json");
    if (!CHECK(res && peers)) {
        cJSON_Delete(res);
        cJSON_Delete(peers);
        return;
    }
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(peers, "rows"), *c;
    int cases = 0, ops_seen = 0;
    char seen[8][16] = {{0}};
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(res, "cases")) {
        char key[160];
        case_key(c, key, sizeof key);
        cases++;
        /* every CPU case: at least one peer row with a positive ratio, and
         * that ratio on a line of the printed table */
        int ok = 0;
        const cJSON *r;
        cJSON_ArrayForEach(r, rows) {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(r, "case"), *ratio = cJSON_GetObjectItemCaseSensitive(r, "ratio");
            if (!cJSON_IsString(name) || strncmp(name->valuestring, key, strlen(key)) != 0) continue;
            if (cJSON_IsNumber(ratio) && ratio->valuedouble > 0) {
                char shown[32];
                snprintf(shown, sizeof shown, "%.2f", ratio->valuedouble);
                const char *line = strstr(out, name->valuestring);
                ok = line && strstr(line, shown) != NULL;
            }
            if (ok) break;
        }
        if (!CHECK(ok)) fprintf(stderr, "  no ratio for %s\n", key);
        const char *op = cJSON_GetObjectItemCaseSensitive(c, "op")->valuestring;
        int known = 0;
        for (int i = 0; i < ops_seen; i++) known |= !strcmp(seen[i], op);
        if (!known && ops_seen < 8) snprintf(seen[ops_seen++], sizeof seen[0], "%s", op);
    }
    CHECK(cases >= 7);
    CHECK(ops_seen == 7); /* the small file covers every op */
    cJSON_Delete(res);
    cJSON_Delete(peers);
}

TEST(cpu_peer_check_fails_clearly_without_numpy_or_with_bad_arguments) {
    char py[64];
    if (find_python(py, sizeof py) != 0) {
        SKIP("no Python with numpy and scipy (tried /usr/bin/python3, then python3 on PATH)");
        return;
    }
    /* A numpy that cannot be imported, ahead on the path. */
    gb_test_sh("mkdir -p build/no-numpy/numpy && echo 'raise ImportError(\"hidden by the test\")' "
               "> build/no-numpy/numpy/__init__.py",
               NULL, 0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "PYTHONPATH=build/no-numpy %s %s %s 2>&1", py, SCRIPT, RESULTS);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2);
    CHECK(strstr(out, "needs numpy and scipy") != NULL);
    snprintf(cmd, sizeof cmd, "%s %s %s --ops qr 2>&1", py, SCRIPT, RESULTS);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2);
    CHECK(strstr(out, "unknown op") != NULL);
    snprintf(cmd, sizeof cmd, "%s %s tests/data/not_results.json 2>&1", py, SCRIPT);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2);
    CHECK(strstr(out, "not a gpubench results file") != NULL);
}
