/* cpu_bind.c — where the CPU side's threads run (cpu_backend.h).
 *
 * The OpenMP threads are bound one per CPU of the process's CPU set
 * (node_env.h), in order, unless the user chose otherwise: OMP_PROC_BIND or
 * OMP_PLACES in the environment (libgomp binds by those itself), or an
 * explicit --threads larger than the set (the threads must share CPUs).
 * Unbound threads migrate between cores mid-measurement, and two
 * --per-gpu tasks on one node may pile onto the same CPUs. The choice is
 * recorded as context.cpu_binding and, where the user's setting decided,
 * named in a warning (DESIGN: the user's explicit setting wins and is
 * named).
 *
 * The libraries' own threads follow: OpenBLAS's worker pthreads are pinned
 * like the OpenMP threads (worker i on the CPU of OpenMP thread i + 1: the
 * caller is the last, as OpenMP's thread 0 is the first), through
 * openblas_setaffinity, looked up at run time (an OpenMP build of OpenBLAS
 * has no pool of its own). FFTW's own threads stay inside the CPU set,
 * unpinned: on the OpenMP threads (GPUBENCH_FFTW_OMP_THREADS=1, cpu_fft.c)
 * its FFTs were 3-8% slower on the GPU host. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "node_env.h"

static const char *threads_from = "cpu_set";
static char how[160] = "not bound";
static char user_setting[96] = "";
static int bound;
static int bound_cpus[4096], nbound; /* the CPU of each OpenMP thread, when bound */

static void pin_self(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

void gb_cpu_bind_threads(int n, const char *from) {
    threads_from = from;
    const char *vars[] = {"OMP_PROC_BIND", "OMP_PLACES"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            snprintf(user_setting, sizeof user_setting, "%s=%.60s", vars[i], v);
            snprintf(how, sizeof how, "as %s asks (libgomp)", user_setting);
            return;
        }
    }
    enum { MAXCPU = 4096 };
    static int cpus[MAXCPU];
    int ncpu = gb_node_cpu_set(cpus, MAXCPU);
    if (ncpu <= 0 || ncpu > MAXCPU) {
        snprintf(how, sizeof how, "not bound: the CPU set could not be read");
        return;
    }
    /* more threads than CPUs, asked for by hand: they must share CPUs, and
     * pinning them in turn would only fix which ones share */
    if (!strcmp(from, "threads_option") && n > ncpu) {
        snprintf(user_setting, sizeof user_setting, "--threads %d", n);
        snprintf(how, sizeof how, "not bound: %d threads on the %d CPU%s of the process's CPU set", n, ncpu,
                 ncpu == 1 ? "" : "s");
        return;
    }
    /* one OpenMP thread per CPU of the set, the i-th on the i-th CPU; the
     * main thread (thread 0) keeps the whole set afterwards for the
     * libraries' own pthreads (OpenBLAS, FFTW), which it spawns from there */
#pragma omp parallel num_threads(n)
    {
        int t = omp_get_thread_num();
        if (t > 0) pin_self(cpus[t]);
    }
    bound = 1;
    nbound = n < ncpu ? n : ncpu;
    memcpy(bound_cpus, cpus, (size_t)nbound * sizeof *cpus);
    snprintf(how, sizeof how, "one OpenMP thread per CPU of the set (%d thread%s on %d CPU%s)", n, n == 1 ? "" : "s",
             ncpu, ncpu == 1 ? "" : "s");
}

void gb_cpu_describe_binding(cJSON *ctx) {
    cJSON *o = cJSON_AddObjectToObject(ctx, "cpu_binding");
    if (!o) return;
    cJSON_AddStringToObject(o, "threads_from", threads_from);
    cJSON_AddBoolToObject(o, "bound", bound);
    cJSON_AddStringToObject(o, "how", how);
    if (*user_setting) cJSON_AddStringToObject(o, "user_setting", user_setting);
    else cJSON_AddNullToObject(o, "user_setting");
}

int gb_cpu_bind_openblas(int n) {
    if (!bound || n < 2) return 0;
    int (*set)(int, size_t, cpu_set_t *) = (int (*)(int, size_t, cpu_set_t *))dlsym(RTLD_DEFAULT,
                                                                                   "openblas_setaffinity");
    if (!set) return 0;
    int pinned = 0;
    for (int i = 0; i + 1 < n && i + 1 < nbound; i++) { /* index n - 1 is the calling thread: left free */
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(bound_cpus[i + 1], &one);
        pinned += set(i, sizeof one, &one) == 0;
    }
    if (pinned) {
        size_t l = strlen(how);
        snprintf(how + l, sizeof how - l, "; OpenBLAS's %d worker thread%s pinned alike", pinned,
                 pinned == 1 ? "" : "s");
    }
    return pinned;
}
