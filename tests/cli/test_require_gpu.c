/* test_require_gpu.c — `run --require-gpu` on a node whose GPU cannot be
 * used (this test hides every device with CUDA_VISIBLE_DEVICES="", so it
 * holds on a GPU host too): the results are written, the run exits 3, and
 * the reason is in the file and on stderr (issue 31 item 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "testlib.h"

/* A one-case run of the real binary: PRE (environment, a wrapper) before
 * it, FLAGS after the case, results to out; its stderr into text. The exit
 * status. */
static int tiny_run(const char *pre, const char *flags, const char *out, char *text, size_t len) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s %s run --op reduction --sizes 256 --no-peak --min-time 10ms --max-time 20ms %s -o %s 2>&1 >/dev/null",
             pre, gb_test_binary(), flags, out);
    return gb_test_sh(cmd, text, len);
}

TEST(require_gpu_without_a_device_writes_results_and_exits_3_with_the_reason) {
    if (access(gb_test_binary(), X_OK) != 0) {
        SKIP("no gpubench binary");
        return;
    }
    const char *out = gb_test_tmp("require_gpu.json");
    char text[8192];
    CHECK(tiny_run("CUDA_VISIBLE_DEVICES=", "--quiet --require-gpu", out, text, sizeof text) == 3);
    CHECK(strstr(text, "the GPU side was required (--require-gpu) and no device was measured: ") != NULL);
    cJSON *doc = gb_test_load_json(out);
    if (CHECK(doc != NULL)) {
        /* nothing lost: the CPU side's results are there */
        cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
        CHECK(cJSON_GetArraySize(cases) > 0);
        cJSON *req = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "context"), "gpu_required");
        CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(req, "measured")));
        cJSON *why = cJSON_GetObjectItemCaseSensitive(req, "reason");
        /* no driver here, or (on a GPU host) no device visible */
        CHECK(cJSON_IsString(why) && (strstr(why->valuestring, "no NVIDIA driver") ||
                                      strstr(why->valuestring, "no device visible") ||
                                      strstr(why->valuestring, "built without CUDA") ||
                                      strstr(why->valuestring, "unavailable")));
        int warned = 0;
        cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(doc, "warnings"))
            warned |= cJSON_IsString(w) && strstr(w->valuestring, "--require-gpu") != NULL;
        CHECK(warned);
        cJSON_Delete(doc);
    }
    /* without the flag the same run is a CPU-only success, as before */
    CHECK(tiny_run("CUDA_VISIBLE_DEVICES=", "--quiet", out, text, sizeof text) == 0);
    doc = gb_test_load_json(out);
    CHECK(doc && !cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "context"), "gpu_required"));
    cJSON_Delete(doc);
    unlink(out);
}

/* taskset -c 0: the CPU side runs one thread, bound, and says the process
 * was given one of the machine's CPUs (issue 31 item 2). */
TEST(run_under_taskset_uses_the_cpu_set_and_records_it) {
    if (access(gb_test_binary(), X_OK) != 0 || system("command -v taskset >/dev/null 2>&1") != 0) {
        SKIP("no gpubench binary or no taskset");
        return;
    }
    const char *out = gb_test_tmp("taskset.json");
    char text[8192];
    CHECK(tiny_run("env -u OMP_PROC_BIND -u OMP_PLACES -u SLURM_CPUS_PER_TASK taskset -c 0", "--quiet", out, text,
                   sizeof text) == 0);
    cJSON *doc = gb_test_load_json(out);
    if (CHECK(doc != NULL)) {
        cJSON *ctx = cJSON_GetObjectItemCaseSensitive(doc, "context");
        CHECK(cJSON_GetObjectItemCaseSensitive(ctx, "cpu_threads_used")->valuedouble == 1);
        cJSON *aff = cJSON_GetObjectItemCaseSensitive(ctx, "cpu_affinity");
        CHECK(!strcmp(cJSON_GetObjectItemCaseSensitive(aff, "cpus")->valuestring, "0"));
        cJSON *bind = cJSON_GetObjectItemCaseSensitive(ctx, "cpu_binding");
        CHECK(!strcmp(cJSON_GetObjectItemCaseSensitive(bind, "threads_from")->valuestring, "cpu_set"));
        CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(bind, "bound")));
        cJSON_Delete(doc);
    }
    /* OMP_PROC_BIND set: respected and named */
    CHECK(tiny_run("OMP_PROC_BIND=spread", "", out, text, sizeof text) == 0);
    CHECK(strstr(text, "OMP_PROC_BIND=spread is respected") != NULL);
    /* under SLURM: the job is recorded, the thread count from SLURM_CPUS_PER_TASK */
    CHECK(tiny_run("SLURM_JOB_ID=900 SLURM_ARRAY_JOB_ID=899 SLURM_ARRAY_TASK_ID=2 SLURM_JOB_PARTITION=gpu "
                   "SLURM_JOB_NODELIST=n[1-4] SLURM_CPUS_PER_TASK=1 GPUBENCH_SLURM_ATTEMPT=2",
                   "--quiet", out, text, sizeof text) == 0);
    doc = gb_test_load_json(out);
    if (CHECK(doc != NULL)) {
        cJSON *ctx = cJSON_GetObjectItemCaseSensitive(doc, "context");
        cJSON *job = cJSON_GetObjectItemCaseSensitive(ctx, "job");
        CHECK(job && !strcmp(cJSON_GetObjectItemCaseSensitive(job, "job_id")->valuestring, "900"));
        CHECK(job && cJSON_GetObjectItemCaseSensitive(job, "array_task_id")->valuedouble == 2);
        CHECK(job && cJSON_GetObjectItemCaseSensitive(job, "attempt")->valuedouble == 2);
        CHECK(job && !strcmp(cJSON_GetObjectItemCaseSensitive(job, "nodelist")->valuestring, "n[1-4]"));
        CHECK(cJSON_GetObjectItemCaseSensitive(ctx, "cpu_threads_used")->valuedouble == 1);
        cJSON_Delete(doc);
    }
    unlink(out);
}
