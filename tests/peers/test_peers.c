/* test_peers.c — the framework peers (peer_backends/, scripts/peer_worker.py,
 * docs/frameworks.md) through the real binary and the real worker: NumPy and
 * SciPy results verified like every backend's, the protocol's cost kept out
 * of a timed call (the noop peer), and each kind of bad worker a skipped
 * result with its reason while the CPU results go on. Skipped without a
 * Python that has numpy and scipy (/usr/bin/python3 first: Debian's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>
#include "testlib.h"

static char out[1 << 16];

static const char SUITE[] =
    "{\"name\": \"peers\", \"defaults\": {\"dtypes\": [\"float64\"], \"warmup\": 1, \"min_reps\": 5,"
    " \"min_time_s\": 0.01, \"max_time_s\": 0.5, \"seed\": 42, \"rounds\": 1},"
    " \"benchmarks\": [{\"op\": \"matmul\", \"sizes\": [48]}, {\"op\": \"elementwise\", \"sizes\": [64]},"
    " {\"op\": \"reduction\", \"sizes\": [64]}, {\"op\": \"fft\", \"sizes\": [32]},"
    " {\"op\": \"solve\", \"sizes\": [40]}, {\"op\": \"spgemm\", \"sizes\": [128], \"params\": {\"density\": 0.05}},"
    " {\"op\": \"svd\", \"sizes\": [[40, 24]]}, {\"op\": \"slicing\", \"sizes\": [[30, 21]]},"
    " {\"op\": \"batched_matmul\", \"sizes\": [8], \"params\": {\"batch\": 10}}]}";

static int have_python(void) {
    return gb_test_sh("/usr/bin/python3 -c 'import numpy, scipy' >/dev/null 2>&1", NULL, 0) == 0;
}

/* Run the suite with extra options (and env before the binary); the results, or NULL. */
static cJSON *run_peers(const char *env, const char *opts, int *rc) {
    const char *suite = gb_test_tmp("peers_suite.json"), *res = gb_test_tmp("peers.json");
    gb_test_write_text(suite, SUITE);
    remove(res);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s run %s --no-peak --quiet --out %s %s 2>&1", env ? env : "", gb_test_binary(),
             suite, res, opts);
    *rc = gb_test_sh(cmd, out, sizeof out);
    return gb_test_load_json(res);
}

/* The result of backend on the case of op (first), or NULL. */
static const cJSON *result_of(const cJSON *doc, const char *op, const char *backend) {
    const cJSON *c, *r;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases")) {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(c, "op")->valuestring, op)) continue;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(c, "results"))
            if (!strcmp(cJSON_GetObjectItemCaseSensitive(r, "backend")->valuestring, backend)) return r;
    }
    return NULL;
}

static const char *str_of(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int verified(const cJSON *r) {
    return r && !strcmp(str_of(r, "status"), "ok") &&
           !strcmp(str_of(cJSON_GetObjectItemCaseSensitive(r, "verification"), "status"), "passed");
}

TEST(peers_numpy_and_scipy_results_verified_against_the_libraries) {
    if (!have_python()) { SKIP("no /usr/bin/python3 with numpy and scipy (apt-get install python3-numpy python3-scipy)"); return; }
    int rc;
    cJSON *doc = run_peers(NULL, "--peers numpy,scipy", &rc);
    if (!CHECK(rc == 0 && doc)) { fprintf(stderr, "%s\n", out); cJSON_Delete(doc); return; }
    static const char *const np_ops[] = {"matmul", "elementwise", "reduction", "fft", "svd", "slicing", "batched_matmul"};
    for (size_t i = 0; i < sizeof np_ops / sizeof *np_ops; i++)
        if (!CHECK(verified(result_of(doc, np_ops[i], "numpy")))) fprintf(stderr, "  numpy %s\n", np_ops[i]);
    static const char *const sp_ops[] = {"fft", "solve", "spgemm", "svd"};
    for (size_t i = 0; i < sizeof sp_ops / sizeof *sp_ops; i++)
        if (!CHECK(verified(result_of(doc, sp_ops[i], "scipy")))) fprintf(stderr, "  scipy %s\n", sp_ops[i]);
    /* an op the framework has not: skipped with the reason */
    const cJSON *r = result_of(doc, "solve", "numpy");
    CHECK(r && !strcmp(str_of(r, "status"), "skipped") && strstr(str_of(r, "reason"), "numpy"));
    /* what the worker ran on, recorded */
    const cJSON *np = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "context"), "peers"), "numpy");
    CHECK(*str_of(np, "python") && *str_of(np, "framework_version") && *str_of(np, "blas") &&
          *str_of(np, "affinity") && *str_of(np, "clock"));
    cJSON_Delete(doc);
}

/* A GPU framework's worker imports numpy alone; spgemm's inputs are SciPy
 * CSR matrices, so its spgemm errored "'NoneType' object has no attribute
 * 'sparse'" for CuPy and PyTorch on the GPU host. PyTorch on the CPU holds
 * it here: its spgemm verifies, or is refused by PyTorch itself (Debian's
 * build has no MKL sparse), never by the worker's own missing import. */
TEST(peers_gpu_framework_worker_makes_spgemm_inputs) {
    if (!have_python() || gb_test_sh("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1", NULL, 0) != 0) {
        SKIP("no /usr/bin/python3 with numpy, scipy and torch (apt-get install python3-torch)");
        return;
    }
    int rc;
    cJSON *doc = run_peers(NULL, "--peers torch --op spgemm", &rc);
    const cJSON *r = result_of(doc, "spgemm", "torch");
    if (!CHECK(r && !strstr(str_of(r, "reason"), "NoneType") &&
               (verified(r) || strstr(str_of(r, "reason"), "torch: RuntimeError"))))
        fprintf(stderr, "    %s: %s\n", r ? str_of(r, "status") : "no torch result", r ? str_of(r, "reason") : out);
    cJSON_Delete(doc);
}

TEST(peers_noop_protocol_adds_under_a_microsecond_to_a_timed_call) {
    if (!have_python()) { SKIP("no /usr/bin/python3 with numpy and scipy"); return; }
    int rc;
    cJSON *doc = run_peers(NULL, "--peers noop --op elementwise", &rc);
    const cJSON *r = result_of(doc, "elementwise", "noop");
    if (!CHECK(rc == 0 && verified(r))) { fprintf(stderr, "%s\n", out); cJSON_Delete(doc); return; }
    double med = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "stats"), "median")->valuedouble;
    if (!CHECK(med > 0 && med < 1e-6)) fprintf(stderr, "  noop median %.3g s\n", med);
    cJSON_Delete(doc);
}

TEST(peers_python_that_is_not_python_is_a_reason_not_a_failure) {
    int rc;
    cJSON *doc = run_peers(NULL, "--peers numpy --python /bin/true --op matmul", &rc);
    if (!CHECK(rc == 0 && doc)) { fprintf(stderr, "%s\n", out); cJSON_Delete(doc); return; }
    CHECK(verified(result_of(doc, "matmul", "cpu")));
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "context"), "backends"), "numpy");
    CHECK(b && strstr(str_of(b, "reason"), "/bin/true"));
    cJSON_Delete(doc);
}

TEST(peers_framework_crashing_on_import_is_skipped_with_its_error) {
    if (!have_python()) { SKIP("no /usr/bin/python3 with numpy and scipy"); return; }
    const char *dir = gb_test_tmp("fakemods");
    mkdir(dir, 0755);
    char path[512], env[600];
    snprintf(path, sizeof path, "%s/torch.py", dir);
    gb_test_write_text(path, "raise RuntimeError('boom on import')\n");
    snprintf(env, sizeof env, "PYTHONPATH=%s", dir);
    int rc;
    cJSON *doc = run_peers(env, "--peers torch,numpy --op matmul", &rc);
    if (!CHECK(rc == 0 && doc)) { fprintf(stderr, "%s\n", out); cJSON_Delete(doc); return; }
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "context"), "backends"), "torch");
    CHECK(b && strstr(str_of(b, "reason"), "RuntimeError: boom on import"));
    CHECK(verified(result_of(doc, "matmul", "numpy")));
    cJSON_Delete(doc);
}

/* A fake interpreter that passes the probe and then speaks the protocol
 * until `run`, where it does what MODE says: hang, die, or write garbage. */
static const char FAKE[] =
    "#!/bin/sh\n"
    "if [ \"$1\" = -c ]; then exit 0; fi\n"
    "echo 'hello {\"framework\": \"numpy\", \"clock\": \"fake\", \"device\": \"cpu\"}'\n"
    "while read -r cmd rest; do\n"
    "  case $cmd in\n"
    "    case) echo ok ;;\n"
    "    run) case $FAKE_MODE in hang) sleep 30 ;; die) exit 7 ;; garbage) printf 'zz\\001\\002 not the protocol\\n' ;; esac ;;\n"
    "    release) echo ok ;;\n"
    "    quit) exit 0 ;;\n"
    "  esac\n"
    "done\n";

static void bad_worker(const char *mode, const char *reason) {
    const char *fake = gb_test_tmp("fake_python.sh");
    gb_test_write_text(fake, FAKE);
    chmod(fake, 0755);
    char env[64], opts[600];
    snprintf(env, sizeof env, "FAKE_MODE=%s", mode);
    snprintf(opts, sizeof opts, "--peers numpy --python %s --peer-timeout 2 --op matmul,elementwise", fake);
    int rc;
    cJSON *doc = run_peers(env, opts, &rc);
    if (!CHECK(rc == 0 && doc)) { fprintf(stderr, "%s: %s\n", mode, out); cJSON_Delete(doc); return; }
    static const char *const ops[] = {"matmul", "elementwise"};
    for (int i = 0; i < 2; i++) {
        CHECK(verified(result_of(doc, ops[i], "cpu")));
        const cJSON *r = result_of(doc, ops[i], "numpy");
        if (!CHECK(r && !strcmp(str_of(r, "status"), "skipped") && strstr(str_of(r, "reason"), reason) &&
                   !strchr(str_of(r, "reason"), '\n')))
            fprintf(stderr, "  %s %s: %s\n", mode, ops[i], r ? str_of(r, "reason") : "(no result)");
    }
    cJSON_Delete(doc);
}

TEST(peers_hung_worker_is_killed_at_the_timeout_and_skipped) { bad_worker("hang", "no answer within 2 s"); }
TEST(peers_dying_worker_is_skipped_and_the_next_case_gets_a_new_one) { bad_worker("die", "pipe closed"); }
TEST(peers_garbage_on_the_pipe_is_skipped) { bad_worker("garbage", "not the protocol"); }
