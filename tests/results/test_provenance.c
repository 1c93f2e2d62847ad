/* test_provenance.c — what a results file says about where it came from is
 * read right (issue 25, part 12): the NVIDIA driver's version from the
 * open-kernel-module line of /proc/driver/nvidia/version (it was recorded as
 * "for"), the CUDA driver API version under a name that says so (older
 * files' driver_version still read), the committed files with "for" not
 * shown as a driver, and the commit of a build from a source archive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "compare.h"
#include "gb.h"
#include "results_model.h"
#include "testlib.h"

static char out[1 << 16];

TEST(provenance_nvidia_driver_is_read_from_either_kind_of_kernel_module_line) {
    char v[64] = "";
    /* the GPU host's open kernel module: the word after "Kernel Module" is "for" */
    CHECK(gb_nvidia_driver_from_proc("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release "
                                     "Build  (dvs-builder@U22-I3-AF03-09-1)  Thu Jul 10 23:28:50 UTC 2025\n"
                                     "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
                                     v, sizeof v) == 1);
    CHECK(strcmp(v, "580.159.04") == 0);
    /* the proprietary module */
    CHECK(gb_nvidia_driver_from_proc("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 "
                                     "09:55:41 UTC 2025\n", v, sizeof v) == 1);
    CHECK(strcmp(v, "580.95.05") == 0);
    CHECK(gb_nvidia_driver_from_proc("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.54  Tue\n", v, sizeof v) == 1 &&
          strcmp(v, "535.54") == 0);
    /* no version on the NVRM line (the GCC line's 12.2.0 is not the driver's) */
    CHECK(gb_nvidia_driver_from_proc("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64\nGCC version: 12.2.0\n",
                                     v, sizeof v) == 0);
    CHECK(gb_nvidia_driver_from_proc("", v, sizeof v) == 0);
    CHECK(gb_is_driver_version("580.159.04") && gb_is_driver_version("535.54"));
    CHECK(!gb_is_driver_version("for") && !gb_is_driver_version("580") && !gb_is_driver_version("580.") &&
          !gb_is_driver_version(".580.1") && !gb_is_driver_version("x86_64") && !gb_is_driver_version(""));
}

/* A committed H100 reference file (nvidia_driver "for", driver_version the
 * CUDA driver API's "13.0") against the same file written the new way: the
 * CUDA driver API version is the same fact under either name, and "for" is
 * never presented as a driver version. */
TEST(provenance_old_files_read_and_for_is_not_a_driver_version) {
    const char *ref = "results/reference/transfer-h100.json";
    gb_results a, b;
    gb_err e = {{0}};
    if (!CHECK(gb_results_load(ref, &a, &e) == GB_OK)) return;
    if (!CHECK(gb_results_load(ref, &b, &e) == GB_OK)) {
        gb_results_free(&a);
        return;
    }
    /* the old file: "for" read as absent, driver_version as the API version */
    CHECK(a.runs[0].context.f_nvidia_driver.kind == GB_VAL_ABSENT);
    CHECK(a.runs[0].context.f_gpu_driver.kind == GB_VAL_STRING && strcmp(a.runs[0].context.f_gpu_driver.text, "13.0") == 0);
    /* the same run in the new layout, written and read back */
    cJSON *ctx = cJSON_Parse(b.runs[0].context.json);
    cJSON *gpu = cJSON_GetObjectItemCaseSensitive(ctx, "gpu");
    cJSON_DeleteItemFromObjectCaseSensitive(gpu, "driver_version");
    cJSON_ReplaceItemInObjectCaseSensitive(gpu, "nvidia_driver", cJSON_CreateString("580.159.04"));
    if (!cJSON_ReplaceItemInObjectCaseSensitive(gpu, "cuda_driver_api_version", cJSON_CreateString("13.0")))
        cJSON_AddStringToObject(gpu, "cuda_driver_api_version", "13.0");
    free(b.runs[0].context.json);
    b.runs[0].context.json = cJSON_PrintUnformatted(ctx);
    cJSON_Delete(ctx);
    const char *path = "build/provenance-new.json";
    CHECK(gb_results_write(&b, path, GB_WRITE_SAMPLES_6G, &e) == GB_OK);
    gb_results_free(&b);
    if (!CHECK(gb_results_load(path, &b, &e) == GB_OK)) {
        fprintf(stderr, "    %s\n", e.msg);
        gb_results_free(&a);
        return;
    }
    CHECK(b.runs[0].context.f_nvidia_driver.kind == GB_VAL_STRING && strcmp(b.runs[0].context.f_nvidia_driver.text, "580.159.04") == 0);
    CHECK(b.runs[0].context.f_gpu_driver.kind == GB_VAL_STRING && strcmp(b.runs[0].context.f_gpu_driver.text, "13.0") == 0);
    gb_results_free(&a);
    gb_results_free(&b);
    /* a file older still, with only driver_version: read as the API version */
    if (CHECK(gb_results_load("tests/data/results_h100.json", &a, &e) == GB_OK)) {
        CHECK(a.runs[0].context.f_gpu_driver.kind == GB_VAL_NUMBER && a.runs[0].context.f_gpu_driver.num == 13000);
        gb_results_free(&a);
    }
    /* compare: the driver named as absent in the old file, never as "for";
     * the API version, the same under both names, not a difference */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s compare -f json %s -- %s 2>&1", gb_test_binary(), ref, path);
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 0 || rc == 1);
    CHECK(strstr(out, "gpu.nvidia_driver is absent in the baseline, \\\"580.159.04\\\" in the current run") ||
          strstr(out, "gpu.nvidia_driver is absent in the baseline, \"580.159.04\" in the current run"));
    CHECK(strstr(out, "\"for\"") == NULL && strstr(out, "\\\"for\\\"") == NULL);
    CHECK(strstr(out, "cuda_driver_api_version is") == NULL && strstr(out, "driver_version is") == NULL);
    remove(path);
}

/* A tree without .git (a source archive) takes its commit from .git-commit,
 * which `git archive` fills in (export-subst); unfilled, "unknown". */
TEST(provenance_a_build_without_git_records_the_archived_commit) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "set -e; T=$(mktemp -d); mkdir -p $T/src/core; cp Makefile $T/; cp src/core/gb.h $T/src/core/; "
             "echo 0123456789abcdef0123456789abcdef01234567 > $T/.git-commit; "
             "(cd $T && GIT_DIR=/nonexistent make -s print-git-commit); "
             "printf '$Format:%%%%H$\\n' > $T/.git-commit; (cd $T && GIT_DIR=/nonexistent make -s print-git-commit); "
             "rm -rf $T");
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    if (!CHECK(strcmp(out, "0123456789ab\nunknown\n") == 0)) fprintf(stderr, "    %s\n", out);
    /* the archive of this checkout carries its commit (where this is a git checkout) */
    if (gb_test_sh("git rev-parse HEAD 2>/dev/null", out, sizeof out) != 0) {
        SKIP("not a git checkout: the archive half needs git");
        return;
    }
    char head[64];
    snprintf(head, sizeof head, "%.40s", out);
    /* (a tree made from an archive and committed again holds a filled-in
     * .git-commit: then there is nothing to fill in) */
    if (gb_test_sh("git show HEAD:.git-commit 2>/dev/null | grep -q 'Format:'", NULL, 0) != 0) {
        SKIP("HEAD's .git-commit is not the placeholder git archive fills in");
        return;
    }
    CHECK(gb_test_sh("git archive HEAD .git-commit | tar -xOf - .git-commit", out, sizeof out) == 0);
    CHECK(strncmp(out, head, 40) == 0);
}
