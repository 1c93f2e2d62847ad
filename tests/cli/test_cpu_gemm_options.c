/* --cpu-gemm and --cpu-blas, the CPU backend's own options (declared in
 * cpu_backends/cpu_environment.c, parsed through the backend option
 * registry): bad values and conflicts are usage errors naming the option;
 * --cpu-blas sends float32/float64 GEMMs to the named library, says so in a
 * warning and records it; the reduced precisions stay on oneDNN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <cjson/cJSON.h>

#include "testlib.h"

TEST(cpu_gemm_options_refuse_unknown_library_missing_blas_and_both_at_once) {
    char out[4096], cmd[512];
    snprintf(cmd, sizeof cmd, "%s run --op matmul --sizes 8 --backend cpu --cpu-gemm mkl -o %s", gb_test_binary(),
             gb_test_tmp("cg1.json"));
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && strstr(out, "--cpu-gemm: expected auto, openblas, onednn or blis"));
    snprintf(cmd, sizeof cmd, "%s run --op matmul --sizes 8 --backend cpu --cpu-blas /nonexistent/libx.so -o %s",
             gb_test_binary(), gb_test_tmp("cg2.json"));
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && strstr(out, "--cpu-blas /nonexistent/libx.so"));
    snprintf(cmd, sizeof cmd, "%s run --op matmul --sizes 8 --backend cpu --cpu-gemm onednn --cpu-blas libblis.so.4 -o %s",
             gb_test_binary(), gb_test_tmp("cg3.json"));
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && strstr(out, "give one"));
    /* offered by every command that sets the process up, from the backend's table */
    snprintf(cmd, sizeof cmd, "%s info --help", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0 && strstr(out, "[--cpu-gemm auto|openblas|onednn|blis]") &&
          strstr(out, "[--cpu-blas PATH]"));
}

TEST(cpu_blas_runs_float32_and_float64_through_the_named_library) {
    /* a CBLAS that is not the linked OpenBLAS: BLIS's, where it is installed */
    void *h = dlopen("libblis.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        SKIP("no libblis.so.4 to stand for a site's CBLAS");
        return;
    }
    dlclose(h);
    char out[16384], cmd[512];
    const char *res = gb_test_tmp("cpublas.json");
    snprintf(cmd, sizeof cmd,
             "%s run --op matmul --sizes 32 --dtype float32,float64,int8 --backend cpu --no-peak --rounds 1 "
             "--threads 1 --cpu-blas libblis.so.4 -o %s",
             gb_test_binary(), res);
    if (!CHECK(gb_test_sh(cmd, out, sizeof out) == 0)) return;
    CHECK(strstr(out, "--cpu-blas: float32/float64 GEMMs run on libblis.so.4") != NULL);
    cJSON *doc = gb_test_load_json(res);
    if (!CHECK(doc != NULL)) return;
    const cJSON *libs = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "context"), "libraries");
    const cJSON *cb = cJSON_GetObjectItem(libs, "cpu_blas");
    CHECK(cJSON_IsString(cb) && strstr(cb->valuestring, "libblis.so.4"));
    int seen = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
        const char *dt = cJSON_GetObjectItem(c, "dtype")->valuestring;
        const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "results"), 0);
        const cJSON *x = cJSON_GetObjectItem(r, "extra");
        const char *lib = cJSON_GetStringValue(cJSON_GetObjectItem(x, "library"));
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(x, "library_choice"));
        const char *ver = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "verification"), "status"));
        if (strcmp(dt, "int8") == 0) {
            /* the reduced precisions stay on oneDNN (or, on a CPU without
             * VNNI, are skipped for oneDNN's inexact int8) */
            const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(r, "status"));
            CHECK((lib && !strcmp(lib, "onednn")) || (st && !strcmp(st, "skipped")));
            continue;
        }
        seen++;
        CHECK(lib && !strcmp(lib, "cblas") && why && strstr(why, "forced (--cpu-blas libblis.so.4)"));
        CHECK(ver && !strcmp(ver, "passed")); /* its answer checked like any other */
    }
    CHECK(seen == 2);
    cJSON_Delete(doc);
}

/* Without BLIS (GPUBENCH_BLIS set empty stands for a host that has none):
 * the run goes on, --cpu-gemm blis skips float32 with the reason, and the
 * context says why BLIS is not there. */
TEST(cpu_gemm_blis_absent_is_a_skip_with_the_reason_not_a_failure) {
    char out[16384], cmd[512];
    const char *res = gb_test_tmp("noblis.json");
    snprintf(cmd, sizeof cmd,
             "GPUBENCH_BLIS= %s run --op matmul --sizes 16 --dtype float32 --backend cpu --no-peak --rounds 1 "
             "--cpu-gemm blis -o %s",
             gb_test_binary(), res);
    if (!CHECK(gb_test_sh(cmd, out, sizeof out) == 0)) return;
    cJSON *doc = gb_test_load_json(res);
    if (!CHECK(doc != NULL)) return;
    const cJSON *bl = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "context"), "libraries"), "blis");
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(bl, "unavailable"));
    CHECK(why && strstr(why, "GPUBENCH_BLIS"));
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), 0),
                                                            "results"), 0);
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(r, "status"));
    const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(r, "reason"));
    CHECK(status && !strcmp(status, "skipped"));
    CHECK(reason && strstr(reason, "BLIS not used"));
    cJSON_Delete(doc);
}

/* oneDNN's int8 matmul without VNNI is not exact (16-bit saturating sums):
 * limited to AVX2 by oneDNN's own ONEDNN_MAX_CPU_ISA, the case is skipped
 * with that reason and the run exits 0; where the CPU has VNNI, the same
 * case unlimited is timed and verified. */
TEST(cpu_int8_matmul_without_vnni_is_skipped_not_failed) {
    char out[16384], cmd[512];
    const char *res = gb_test_tmp("int8avx2.json");
    snprintf(cmd, sizeof cmd,
             "ONEDNN_MAX_CPU_ISA=AVX2 %s run --op matmul --sizes 32 --dtype int8 --backend cpu --no-peak --rounds 1 "
             "-o %s",
             gb_test_binary(), res);
    if (!CHECK(gb_test_sh(cmd, out, sizeof out) == 0)) return;
    cJSON *doc = gb_test_load_json(res);
    if (!CHECK(doc != NULL)) return;
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), 0),
                                                            "results"), 0);
    const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(r, "status"));
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(r, "reason"));
    CHECK(st && !strcmp(st, "skipped"));
    CHECK(why && strstr(why, "without VNNI (effective ISA avx2)"));
    cJSON_Delete(doc);
}
