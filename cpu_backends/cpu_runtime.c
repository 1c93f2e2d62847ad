/* cpu_runtime.c — what the CPU side runs on, read from the running process
 * (cpu_backend.h: gb_cpu_runtime_describe, gb_cpu_runtime_check,
 * gb_cpu_threads_alive).
 *
 * One thread pool is the rule (docs/timing.md, "One pool"): every CPU
 * library on the one libgomp runtime. What is loaded is read from
 * /proc/self/maps rather than assumed from the link line, because Debian's
 * alternatives can put the pthread OpenBLAS under the OpenMP build's
 * sonames, and a --cpu-blas or vendor library can bring an OpenMP runtime
 * of its own (Intel's libiomp5): a second pool is then recorded and named in
 * a warning. The threads alive are counted from /proc/self/task after each
 * measurement (extra.threads_alive), so a pool that should not exist shows
 * in the results, and a test holds the count. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cblas.h>
#include <cjson/cJSON.h>

#include "child_env.h"
#include "cpu_backend.h"

int gb_cpu_threads_alive(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (isdigit((unsigned char)de->d_name[0])) n++;
    closedir(d);
    return n;
}

/* The shared objects this process has mapped whose names say they are a
 * BLAS, LAPACK, OpenMP runtime or threading library, each path once. */
static const char *const watched[] = {"libopenblas", "libblas.so", "liblapack.so", "libgomp", "libiomp", "libomp.so",
                                      "libtbb", "libmkl", "libblis", "libflame", "libfftw3", "libdnnl", NULL};

static int watched_name(const char *base) {
    for (const char *const *w = watched; *w; w++)
        if (!strncmp(base, *w, strlen(*w))) return 1;
    return 0;
}

static cJSON *loaded_libraries(int *openblas, int *openmp) {
    *openblas = *openmp = 0;
    cJSON *list = cJSON_CreateArray();
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f || !list) {
        if (f) fclose(f);
        return list;
    }
    char line[4352];
    while (fgets(line, sizeof line, f)) {
        char *path = strchr(line, '/');
        if (!path) continue;
        path[strcspn(path, "\n")] = 0;
        const char *base = strrchr(path, '/') + 1;
        if (!watched_name(base)) continue;
        int seen = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, list) seen |= !strcmp(it->valuestring, path);
        if (seen) continue;
        cJSON_AddItemToArray(list, cJSON_CreateString(path));
        if (!strncmp(base, "libopenblas", 11)) (*openblas)++;
        if (!strncmp(base, "libgomp", 7) || !strncmp(base, "libiomp", 7) || !strncmp(base, "libomp.so", 9))
            (*openmp)++;
    }
    fclose(f);
    return list;
}

/* Variables that steer the CPU libraries' threads and kernels: the user's,
 * as they were before gpubench changed anything (child_env.h). */
static const char *const steering_prefixes[] = {"OMP_", "GOMP_", "OPENBLAS_", "BLIS_", "MKL_", "KMP_", NULL};

static cJSON *user_settings(void) {
    extern char **environ;
    cJSON *o = cJSON_CreateObject();
    for (char **e = environ; o && *e; e++) {
        int steering = 0;
        for (const char *const *p = steering_prefixes; *p && !steering; p++)
            steering = !strncmp(*e, *p, strlen(*p));
        const char *eq = strchr(*e, '=');
        if (!steering || !eq || (size_t)(eq - *e) >= 64) continue;
        char name[64];
        memcpy(name, *e, (size_t)(eq - *e));
        name[eq - *e] = 0;
        const char *v = gb_child_env_original(name);
        if (v && !cJSON_GetObjectItemCaseSensitive(o, name)) cJSON_AddStringToObject(o, name, v);
    }
    /* one gpubench changed and the user had set, but that is not in environ
     * under its own value any more */
    const char *core = gb_child_env_original("OPENBLAS_CORETYPE");
    if (o && core && !cJSON_GetObjectItemCaseSensitive(o, "OPENBLAS_CORETYPE"))
        cJSON_AddStringToObject(o, "OPENBLAS_CORETYPE", core);
    if (o && gb_child_env_changed("OPENBLAS_CORETYPE") && !core)
        cJSON_DeleteItemFromObjectCaseSensitive(o, "OPENBLAS_CORETYPE"); /* gpubench's own, not the user's */
    return o;
}

static const char *wait_policy_words(void) {
    const char *p = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    static char buf[160];
    if (p && *p) snprintf(buf, sizeof buf, "OMP_WAIT_POLICY=%.40s (the user's)", p);
    else if (spin && *spin) snprintf(buf, sizeof buf, "bounded spin of GOMP_SPINCOUNT=%.40s (the user's)", spin);
    else snprintf(buf, sizeof buf, "libgomp's default: an idle worker spins a few ms, then sleeps");
    return buf;
}

void gb_cpu_runtime_describe(cJSON *ctx) {
    cJSON *o = cJSON_AddObjectToObject(ctx, "cpu_runtime");
    if (!o) return;
    int p = openblas_get_parallel();
    cJSON_AddStringToObject(o, "openblas_threading", p == 2 ? "openmp" : p == 1 ? "pthreads" : "sequential");
    cJSON_AddStringToObject(o, "wait_policy", wait_policy_words());
    int openblas, openmp;
    cJSON *libs = loaded_libraries(&openblas, &openmp);
    cJSON_AddNumberToObject(o, "openblas_copies", openblas);
    cJSON_AddNumberToObject(o, "openmp_runtimes", openmp);
    if (libs) cJSON_AddItemToObject(o, "libraries_loaded", libs);
    cJSON *us = user_settings();
    if (us) cJSON_AddItemToObject(o, "user_settings", us);
    const char *forged = gb_cpu_ignored_markers();
    if (*forged) cJSON_AddStringToObject(o, "ignored_markers", forged);
}

static void warn(cJSON *warnings, int *count, const char *msg) {
    cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
    (*count)++;
}

int gb_cpu_runtime_check(const cJSON *context, cJSON *warnings) {
    int count = 0;
    char msg[768];
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(context, "cpu_runtime");
    const cJSON *ob = cJSON_GetObjectItemCaseSensitive(rt, "openblas_copies");
    const cJSON *om = cJSON_GetObjectItemCaseSensitive(rt, "openmp_runtimes");
    const cJSON *thr = cJSON_GetObjectItemCaseSensitive(rt, "openblas_threading");
    if ((cJSON_IsNumber(ob) && ob->valueint > 1) || (cJSON_IsNumber(om) && om->valueint > 1) ||
        (cJSON_IsString(thr) && strcmp(thr->valuestring, "openmp") != 0)) {
        snprintf(msg, sizeof msg,
                 "more than one CPU thread pool: %d OpenBLAS cop%s, %d OpenMP runtime%s, OpenBLAS threading "
                 "\"%s\" (context.cpu_runtime.libraries_loaded): pools that share the CPUs make small and mid-size "
                 "CPU times slower and different from process to process",
                 cJSON_IsNumber(ob) ? ob->valueint : 0, cJSON_IsNumber(ob) && ob->valueint == 1 ? "y" : "ies",
                 cJSON_IsNumber(om) ? om->valueint : 0, cJSON_IsNumber(om) && om->valueint == 1 ? "" : "s",
                 cJSON_IsString(thr) ? thr->valuestring : "?");
        warn(warnings, &count, msg);
    }
    const char *policy = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    if (policy && *policy) {
        int passive = !strncasecmp(policy, "passive", 7);
        snprintf(msg, sizeof msg,
                 "OMP_WAIT_POLICY=%.32s is set in the environment and respected: %s. Unset it for libgomp's "
                 "default, a spin of a few ms before an idle worker sleeps",
                 policy,
                 passive ? "idle OpenMP workers sleep at once, so each repetition of a small CPU op pays their "
                           "wake-up (tens of us): small CPU results are slower than this CPU can be"
                         : "idle OpenMP workers spin without end, holding every CPU between cases (the GPU "
                           "backend's host thread and the busy-machine check then compete with them)");
        warn(warnings, &count, msg);
    } else if (spin && *spin) {
        snprintf(msg, sizeof msg,
                 "GOMP_SPINCOUNT=%.32s is set in the environment and respected: how long idle OpenMP workers spin "
                 "before they sleep differs from libgomp's default (300000)",
                 spin);
        warn(warnings, &count, msg);
    }
    /* the rest of the user's steering variables: respected, and named */
    static const char *const handled[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_WAIT_POLICY",
                                          "GOMP_SPINCOUNT", "OMP_PROC_BIND", "OMP_PLACES", "OPENBLAS_CORETYPE", NULL};
    char names[512] = "";
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rt, "user_settings")) {
        int known = 0;
        for (const char *const *h = handled; *h && !known; h++) known = !strcmp(it->string, *h);
        if (known || !cJSON_IsString(it)) continue;
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%.40s=%.40s", l ? ", " : "", it->string, it->valuestring);
    }
    if (*names) {
        snprintf(msg, sizeof msg,
                 "set in the environment and respected: %s (they change how the CPU libraries run; unset them "
                 "to measure gpubench's defaults)",
                 names);
        warn(warnings, &count, msg);
    }
    const cJSON *forged = cJSON_GetObjectItemCaseSensitive(rt, "ignored_markers");
    if (cJSON_IsString(forged)) {
        snprintf(msg, sizeof msg,
                 "%.300s was set in the environment: gpubench's own marker for its re-executed process, not a "
                 "setting; ignored and removed (the OpenBLAS core was chosen afresh)",
                 forged->valuestring);
        warn(warnings, &count, msg);
    }
    return count;
}
