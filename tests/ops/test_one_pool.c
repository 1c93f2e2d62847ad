/* test_one_pool.c — the CPU side runs on one thread pool, as a real run
 * records it (docs/timing.md, "One pool"): exactly one OpenBLAS (its OpenMP
 * build) and one OpenMP runtime mapped, no more threads alive after any
 * measurement than the team and a stated few; a team choice kept for the
 * machine and build is what a later process uses; what the user set for the
 * OpenMP runtime is respected and named, and gpubench sets nothing of its
 * own there; re-exec markers the process did not set are not believed.
 * Each runs gpubench itself (a fresh cache folder for each). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "testlib.h"

/* Beside the team: the signal watchdog (run_signals.c) and an energy
 * sampler when energy is measured (run_energy.c). docs/timing.md states it. */
#define GB_THREADS_BESIDE_THE_TEAM 2

static char out[65536];

/* `env gpubench run ARGS -o RES` with its own cache folder; its exit status. */
static int run_cpu(const char *env, const char *cache, const char *args, const char *res) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && env %s XDG_CACHE_HOME=%s %s run %s --backend cpu --no-peak -o %s",
             cache, env, cache, gb_test_binary(), args, res);
    return gb_test_sh(cmd, out, sizeof out);
}

static const cJSON *ctx_item(const cJSON *doc, const char *a, const char *b) {
    const cJSON *o = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "context"), a);
    return b ? cJSON_GetObjectItem(o, b) : o;
}

static int has_warning(const cJSON *doc, const char *needle) {
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(doc, "warnings")) if (cJSON_IsString(w) && strstr(w->valuestring, needle)) return 1;
    return 0;
}

TEST(cpu_one_pool_one_openblas_one_libgomp_and_no_thread_beyond_the_team) {
    const char *res = gb_test_tmp("pool.json");
    if (!CHECK(run_cpu("", gb_test_tmp("pool-cache"),
                       "--op matmul,elementwise,reduction,fft,solve,spgemm,svd,stencil,transfer --sizes 64 --rounds 1",
                       res) == 0))
        return;
    cJSON *doc = gb_test_load_json(res);
    if (!CHECK(doc != NULL)) return;
    CHECK(!strcmp(cJSON_GetStringValue(ctx_item(doc, "cpu_runtime", "openblas_threading")), "openmp"));
    CHECK(ctx_item(doc, "cpu_runtime", "openblas_copies")->valueint == 1);
    CHECK(ctx_item(doc, "cpu_runtime", "openmp_runtimes")->valueint == 1);
    int openblas = 0, gomp = 0, pthread_build = 0;
    const cJSON *lib;
    cJSON_ArrayForEach(lib, ctx_item(doc, "cpu_runtime", "libraries_loaded")) {
        const char *base = strrchr(lib->valuestring, '/');
        base = base ? base + 1 : lib->valuestring;
        openblas += !strncmp(base, "libopenblas", 11);
        gomp += !strncmp(base, "libgomp", 7);
        pthread_build += strstr(lib->valuestring, "openblas-pthread") != NULL;
    }
    CHECK(openblas == 1 && gomp == 1 && pthread_build == 0);
    CHECK(!has_warning(doc, "more than one CPU thread pool"));
    int team = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "context"), "cpu_threads_used")->valueint, seen = 0;
    const cJSON *c, *r;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) cJSON_ArrayForEach(r, cJSON_GetObjectItem(c, "results")) {
        const cJSON *alive = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "extra"), "threads_alive");
        if (!cJSON_IsNumber(alive)) continue;
        seen++;
        if (!CHECK(alive->valueint <= team + GB_THREADS_BESIDE_THE_TEAM))
            fprintf(stderr, "    %s: %d threads alive, team %d\n", cJSON_GetStringValue(cJSON_GetObjectItem(c, "op")),
                    alive->valueint, team);
    }
    CHECK(seen >= 9);
    /* bound one thread per CPU, the main thread (thread 0) included, each
     * on its own CPU */
    const cJSON *bind = ctx_item(doc, "cpu_binding", NULL);
    const cJSON *where = cJSON_GetObjectItem(bind, "thread_cpus");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(bind, "bound")));
    CHECK(cJSON_GetArraySize(where) == team);
    for (int i = 0; i < cJSON_GetArraySize(where); i++) {
        int cpu = cJSON_GetArrayItem(where, i)->valueint;
        CHECK(cpu >= 0);
        for (int j = 0; j < i; j++) CHECK(cJSON_GetArrayItem(where, j)->valueint != cpu);
    }
    cJSON_Delete(doc);
}

/* The team of the first process is the team of the next, read from the
 * file, not measured again; a line that is not a team is measured again
 * with a warning; a file that is not one of kept teams is left alone. */
TEST(cpu_team_kept_for_the_machine_is_used_by_a_later_process) {
    const char *cache = gb_test_tmp("team-cache"), *a = gb_test_tmp("team-a.json"), *b = gb_test_tmp("team-b.json");
    const char *args = "--op elementwise,transfer,solve --sizes 64 --dtype float32 --rounds 1";
    if (!CHECK(run_cpu("", cache, args, a) == 0) || !CHECK(run_cpu("", cache, args, b) == 0)) return;
    cJSON *da = gb_test_load_json(a), *db = gb_test_load_json(b);
    int compared = 0;
    for (int i = 0; da && db && i < cJSON_GetArraySize(cJSON_GetObjectItem(da, "cases")); i++) {
        const cJSON *xa = cJSON_GetObjectItem(
            cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(da, "cases"), i), "results"), 0),
            "extra");
        const cJSON *xb = cJSON_GetObjectItem(
            cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(db, "cases"), i), "results"), 0),
            "extra");
        const char *ta = cJSON_GetStringValue(cJSON_GetObjectItem(xa, "team"));
        const char *tb = cJSON_GetStringValue(cJSON_GetObjectItem(xb, "team"));
        if (!ta) continue;
        compared++;
        CHECK(strncmp(ta, "kept: ", 6) != 0 || !strcmp(ta, "all: one thread to run on"));
        CHECK(tb && (!strncmp(tb, "kept: ", 6) || !strcmp(tb, "all: one thread to run on")));
        CHECK(cJSON_GetObjectItem(xa, "threads")->valueint == cJSON_GetObjectItem(xb, "threads")->valueint);
    }
    CHECK(compared == 3);
    cJSON_Delete(da);
    cJSON_Delete(db);
    /* the file: one line of the key, one per case; spoil one team */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "f=$(ls %s/gpubench/cpu-teams-*.txt) && test $(wc -l < $f) = 4 && "
                              "sed -i '2s/^[0-9]*\\t/7\\t/' $f && echo $f", cache);
    if (!CHECK(gb_test_sh(cmd, out, sizeof out) == 0)) return;
    char path[512] = "";
    out[strcspn(out, "\n")] = 0;
    if (!CHECK(strlen(out) < sizeof path)) return;
    memcpy(path, out, strlen(out) + 1);
    if (!CHECK(run_cpu("", cache, args, b) == 0)) return;
    CHECK(strstr(out, "1 line not a kept CPU team: ignored, measured again") != NULL);
    /* not a file of kept teams: never read, never replaced */
    CHECK(gb_test_write_text(path, "my notes\n") == 0);
    if (!CHECK(run_cpu("", cache, args, b) == 0)) return;
    CHECK(strstr(out, "is not a file of kept CPU teams: left alone") != NULL);
    char *kept = gb_test_read_file(path, NULL);
    CHECK(kept && !strcmp(kept, "my notes\n"));
    free(kept);
}

/* gpubench sets no OpenMP policy of its own (libgomp's bounded spin is the
 * default); the user's are kept, recorded as theirs and named. */
TEST(cpu_openmp_settings_are_the_users_respected_and_named) {
    const char *res = gb_test_tmp("omp-default.json");
    if (!CHECK(run_cpu("-u OMP_WAIT_POLICY -u GOMP_SPINCOUNT", gb_test_tmp("omp-cache"),
                       "--op elementwise --sizes 64 --dtype float32 --rounds 1", res) == 0))
        return;
    cJSON *doc = gb_test_load_json(res);
    CHECK(doc && !strcmp(cJSON_GetStringValue(ctx_item(doc, "environment", "OMP_WAIT_POLICY")), ""));
    CHECK(doc && strstr(cJSON_GetStringValue(ctx_item(doc, "cpu_runtime", "wait_policy")), "default") != NULL);
    cJSON_Delete(doc);
    res = gb_test_tmp("omp-user.json");
    if (!CHECK(run_cpu("OMP_WAIT_POLICY=PASSIVE OMP_DYNAMIC=false", gb_test_tmp("omp-cache"),
                       "--op elementwise --sizes 64 --dtype float32 --rounds 1", res) == 0))
        return;
    doc = gb_test_load_json(res);
    CHECK(doc && !strcmp(cJSON_GetStringValue(ctx_item(doc, "environment", "OMP_WAIT_POLICY")), "PASSIVE"));
    const cJSON *us = ctx_item(doc, "cpu_runtime", "user_settings");
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(us, "OMP_DYNAMIC")), "false"));
    CHECK(has_warning(doc, "OMP_WAIT_POLICY=PASSIVE is set in the environment and respected"));
    CHECK(has_warning(doc, "OMP_DYNAMIC=false"));
    cJSON_Delete(doc);
}

/* A re-exec marker set by hand (or left by another gpubench) is not who
 * chose the core: it is removed, the core chosen afresh, and it is named. */
TEST(cpu_reexec_markers_without_the_processs_token_are_not_believed) {
    const char *res = gb_test_tmp("forged.json");
    /* run without the user's own OPENBLAS_CORETYPE (a machine's image may
     * preset one), so that only a believed forged original could fill it */
    if (!CHECK(run_cpu("-u OPENBLAS_CORETYPE GPUBENCH_OPENBLAS_CORE_BY=flag GPUBENCH_OPENBLAS_CORE_ASKED=Prescott "
                       "GPUBENCH_REEXEC_TOKEN=1:2 GPUBENCH_ORIGINAL_OPENBLAS_CORETYPE==Prescott",
                       gb_test_tmp("forged-cache"), "--op elementwise --sizes 64 --dtype float32 --rounds 1", res) == 0))
        return;
    cJSON *doc = gb_test_load_json(res);
    const cJSON *ob = ctx_item(doc, "libraries", "openblas");
    CHECK(doc && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(ob, "core_chosen_by")), "flag") != 0);
    CHECK(has_warning(doc, "gpubench's own marker for its re-executed process"));
    const char *forged = cJSON_GetStringValue(ctx_item(doc, "cpu_runtime", "ignored_markers"));
    CHECK(forged && strstr(forged, "GPUBENCH_OPENBLAS_CORE_BY") && strstr(forged, "GPUBENCH_ORIGINAL_*"));
    /* the user's OPENBLAS_CORETYPE is what the environment had: nothing */
    CHECK(!strcmp(cJSON_GetStringValue(ctx_item(doc, "environment", "OPENBLAS_CORETYPE")), ""));
    cJSON_Delete(doc);
}
