/* test_merge_jobs.c — context.job through the results model (read, write,
 * copy by merge), and merge keeping two jobs' runs of one host apart while a
 * retried task replaces its failed attempt (issue 31 items 7 and 9), with
 * one warning line per run for repeated cases (issue 32 item 10). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "merge.h"
#include "results_model.h"
#include "testlib.h"

/* tests/data/results_small.json as if task 0 of job `job` on partition
 * `part`, attempt `attempt`, started at `date`. */
static int load_as_job(const char *job, const char *part, int attempt, const char *date, gb_results *out) {
    cJSON *doc = gb_test_load_json("tests/data/results_small.json");
    if (!doc) return -1;
    cJSON *ctx = cJSON_GetObjectItemCaseSensitive(doc, "context");
    cJSON_ReplaceItemInObjectCaseSensitive(ctx, "date", cJSON_CreateString(date));
    cJSON *j = cJSON_AddObjectToObject(ctx, "job");
    cJSON_AddStringToObject(j, "scheduler", "slurm");
    cJSON_AddStringToObject(j, "job_id", job);
    cJSON_AddStringToObject(j, "array_job_id", job);
    cJSON_AddNumberToObject(j, "array_task_id", 0);
    cJSON_AddStringToObject(j, "partition", part);
    cJSON_AddStringToObject(j, "nodelist", "gpu-node-07");
    cJSON_AddStringToObject(j, "cpus", "0-7");
    cJSON_AddNumberToObject(j, "cpus_per_task", 8);
    cJSON_AddStringToObject(j, "gpus", "0");
    cJSON_AddNumberToObject(j, "attempt", attempt);
    gb_err e = {{0}};
    int rc = gb_results_from_json(doc, "task0-gpu-node-07.json", out, &e) == GB_OK ? 0 : -1;
    if (rc) fprintf(stderr, "%s\n", e.msg);
    cJSON_Delete(doc);
    return rc;
}

TEST(results_model_reads_writes_and_copies_context_job) {
    gb_results a;
    if (!CHECK(load_as_job("4242", "gpu", 2, "2026-11-26T01:00:00Z", &a) == 0)) return;
    const gb_job_info *j = &a.runs[0].context.job;
    CHECK(j->present && !strcmp(j->scheduler, "slurm") && !strcmp(j->job_id, "4242"));
    CHECK(!strcmp(j->partition, "gpu") && j->array_task_id == 0 && j->attempt == 2);
    /* written and read back: the same */
    const char *path = gb_test_tmp("job_roundtrip.json");
    gb_err e = {{0}};
    gb_results b;
    CHECK(gb_results_write(&a, path, 0, &e) == GB_OK);
    if (CHECK(gb_results_load(path, &b, &e) == GB_OK)) {
        const gb_job_info *k = &b.runs[0].context.job;
        CHECK(k->present && !strcmp(k->array_job_id, "4242") && !strcmp(k->nodelist, "gpu-node-07") && k->attempt == 2);
        gb_results_free(&b);
    }
    /* copied by merge into the merged file's run */
    gb_merge m;
    CHECK(gb_merge_init(&m, "-", &e) == GB_OK && gb_merge_add(&m, &a, "a.json", NULL, &e) == GB_OK);
    gb_results *out = gb_merge_finish(&m);
    CHECK(out->nruns == 1 && out->runs[0].context.job.present && !strcmp(out->runs[0].context.job.job_id, "4242"));
    gb_merge_free(&m);
    /* a run outside a scheduler has none */
    gb_results c;
    if (CHECK(gb_results_load("tests/data/results_small.json", &c, &e) == GB_OK)) {
        CHECK(!c.runs[0].context.job.present && isnan(c.runs[0].context.job.attempt));
        gb_results_free(&c);
    }
    gb_results_free(&a);
    unlink(path);
}

TEST(results_model_refuses_a_job_without_scheduler_naming_the_path) {
    cJSON *doc = gb_test_load_json("tests/data/results_small.json");
    if (!CHECK(doc != NULL)) return;
    cJSON *j = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(doc, "context"), "job");
    cJSON_AddStringToObject(j, "job_id", "1");
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_from_json(doc, "x.json", &r, &e) != GB_OK);
    CHECK(strstr(e.msg, "context.job.scheduler") != NULL);
    cJSON_Delete(doc);
}

/* Merge a then b; the number of runs and cases, and the warnings. */
static gb_results *merge_two(gb_merge *m, const gb_results *a, const gb_results *b) {
    gb_err e = {{0}};
    if (gb_merge_init(m, "-", &e) != GB_OK || gb_merge_add(m, a, "a.json", NULL, &e) != GB_OK ||
        gb_merge_add(m, b, "b.json", NULL, &e) != GB_OK)
        return NULL;
    return gb_merge_finish(m);
}

TEST(merge_keeps_two_jobs_of_one_host_apart) {
    gb_results cpu, gpu;
    if (!CHECK(load_as_job("100", "cpu", 1, "2026-11-26T01:00:00Z", &cpu) == 0)) return;
    if (!CHECK(load_as_job("200", "gpu", 1, "2026-11-26T01:00:00Z", &gpu) == 0)) return;
    gb_merge m;
    gb_results *out = merge_two(&m, &cpu, &gpu);
    if (CHECK(out != NULL)) {
        /* both runs named task0-<host> before: now two runs, nothing replaced */
        CHECK(out->nruns == 2);
        CHECK(out->ncases == 2 * cpu.ncases);
        CHECK(out->nruns == 2 && strcmp(out->runs[0].name, out->runs[1].name) != 0);
        CHECK(out->warnings.n == 0);
    }
    gb_merge_free(&m);
    gb_results_free(&cpu);
    gb_results_free(&gpu);
}

TEST(merge_lets_a_retried_task_replace_its_attempt_with_one_warning_line) {
    gb_results first, retry;
    if (!CHECK(load_as_job("100", "gpu", 1, "2026-11-26T01:00:00Z", &first) == 0)) return;
    if (!CHECK(load_as_job("300", "gpu", 2, "2026-11-26T02:00:00Z", &retry) == 0)) return;
    gb_merge m;
    gb_results *out = merge_two(&m, &first, &retry);
    if (CHECK(out != NULL)) {
        CHECK(out->ncases == first.ncases);
        /* one line for the run, not one per case; each case in the details */
        CHECK(out->warnings.n == 1);
        CHECK(m.details.n == first.ncases);
        char want[64];
        snprintf(want, sizeof want, "%zu cases of run", first.ncases);
        CHECK(out->warnings.n == 1 && strstr(out->warnings.item[0], want) != NULL);
        for (size_t i = 0; i < out->ncases; i++) CHECK(out->runs[out->cases[i].run].context.job.attempt == 2);
    }
    gb_merge_free(&m);
    gb_results_free(&first);
    gb_results_free(&retry);
}

TEST(merge_keeps_two_finished_runs_of_one_host_apart) {
    gb_results a, b;
    gb_err e = {{0}};
    if (!CHECK(gb_results_load("tests/data/results_small.json", &a, &e) == GB_OK)) return;
    cJSON *doc = gb_test_load_json("tests/data/results_small.json");
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "context"), "date",
                                           cJSON_CreateString("2026-11-26T05:00:00Z"));
    CHECK(gb_results_from_json(doc, "later.json", &b, &e) == GB_OK);
    cJSON_Delete(doc);
    gb_merge m;
    gb_results *out = merge_two(&m, &a, &b);
    if (CHECK(out != NULL)) {
        CHECK(out->nruns == 2 && out->ncases == 2 * a.ncases && out->warnings.n == 0);
        CHECK(out->nruns == 2 && strstr(out->runs[1].name, "#2") != NULL);
    }
    gb_merge_free(&m);
    gb_results_free(&a);
    gb_results_free(&b);
}
