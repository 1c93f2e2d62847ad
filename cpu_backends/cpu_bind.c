/* cpu_bind.c — where the CPU side's threads run (cpu_backend.h).
 *
 * One OpenMP thread per CPU of the process's CPU set (node_env.h), in
 * order, the main thread (OpenMP's thread 0) on the first: unpinned, it
 * migrated onto a CPU whose worker it then shared, and a parallel region
 * waits for its slowest thread. libgomp does the binding, through the
 * OMP_PLACES ("{0},{1},...") and OMP_PROC_BIND=close that gpubench's
 * re-exec sets (cpu_environment.c): libgomp lets idle workers exit when a
 * smaller team starts and makes new ones for a larger team, and only its
 * own binding follows them (pinned by hand, every new worker inherited the
 * pinned main thread's one CPU). Here the binding is read back from the
 * threads themselves (thread_cpus) and recorded.
 *
 * The user's choice wins: OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY
 * in the environment (libgomp binds by those), or an explicit --threads
 * larger than the set (libgomp then puts threads on the places in turn:
 * they share CPUs). Recorded as context.cpu_binding and, where the user's
 * setting decided, named in a warning (DESIGN: the user's explicit setting
 * wins and is named). Where libgomp was not given the places (the CPU
 * backend brought up inside another program, such as the test runner, or
 * a failed re-exec), the workers are pinned by hand and the main thread is
 * left on the whole set, so that the threads libgomp makes later are not
 * all held on one CPU.
 *
 * The libraries have no threads of their own: OpenBLAS is its OpenMP
 * build and FFTW runs through fftw3_omp (Makefile), so they run on these
 * same OpenMP threads. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <cjson/cJSON.h>

#include "child_env.h"
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

/* The CPU each of n OpenMP threads is bound to, read by each thread
 * (-1: bound to more than one); how many are bound to exactly one. */
static int read_binding(int n, int *cpu) {
    int single = 0;
#pragma omp parallel num_threads(n) reduction(+ : single)
    {
        int t = omp_get_thread_num();
        cpu_set_t set;
        CPU_ZERO(&set);
        int one = pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
        int c = -1;
        for (int k = 0; one && k < CPU_SETSIZE; k++)
            if (CPU_ISSET(k, &set)) c = k;
        if (t < n) cpu[t] = c;
        single += one;
    }
    return single;
}

void gb_cpu_bind_threads(int n, const char *from) {
    threads_from = from;
    enum { MAXCPU = 4096 };
    static int cpus[MAXCPU];
    int ncpu = gb_node_cpu_set(cpus, MAXCPU);
    int by_libgomp = gb_child_env_changed("OMP_PROC_BIND"); /* gpubench's re-exec set the places */
    const char *vars[] = {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY"};
    for (int i = 0; i < 3 && !by_libgomp; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            snprintf(user_setting, sizeof user_setting, "%s=%.60s", vars[i], v);
            snprintf(how, sizeof how, "as %s asks (libgomp)", user_setting);
            return;
        }
    }
    if (ncpu <= 0 || ncpu > MAXCPU) {
        snprintf(how, sizeof how, "not bound: the CPU set could not be read");
        return;
    }
    nbound = n < MAXCPU ? n : MAXCPU;
    if (by_libgomp) {
        int single = read_binding(nbound, bound_cpus);
        bound = single == nbound;
        if (!strcmp(from, "threads_option") && n > ncpu) {
            snprintf(user_setting, sizeof user_setting, "--threads %d", n);
            snprintf(how, sizeof how, "%d threads on the %d CPU%s of the set, placed in turn by libgomp: they share CPUs",
                     n, ncpu, ncpu == 1 ? "" : "s");
        } else {
            snprintf(how, sizeof how, "one OpenMP thread per CPU of the set, the main thread included (%d thread%s on %d "
                     "CPU%s; libgomp's places)", n, n == 1 ? "" : "s", ncpu, ncpu == 1 ? "" : "s");
        }
        if (!bound) snprintf(how + strlen(how), sizeof how - strlen(how), "; only %d of %d threads on one CPU", single, nbound);
        return;
    }
    /* more threads than CPUs, asked for by hand: they must share CPUs, and
     * pinning them in turn would only fix which ones share */
    if (!strcmp(from, "threads_option") && n > ncpu) {
        snprintf(user_setting, sizeof user_setting, "--threads %d", n);
        snprintf(how, sizeof how, "not bound: %d threads on the %d CPU%s of the process's CPU set", n, ncpu,
                 ncpu == 1 ? "" : "s");
        nbound = 0;
        return;
    }
    /* by hand (libgomp was not given places): the workers, not the main
     * thread, whose mask every worker libgomp makes later inherits */
    nbound = n < ncpu ? n : ncpu;
#pragma omp parallel num_threads(n)
    {
        int t = omp_get_thread_num();
        if (t > 0 && t < nbound) pin_self(cpus[t]);
    }
    bound = 1;
    memcpy(bound_cpus, cpus, (size_t)nbound * sizeof *cpus);
    bound_cpus[0] = -1; /* the main thread: the whole set */
    snprintf(how, sizeof how, "the OpenMP workers one per CPU of the set, pinned by hand; the main thread on the whole set "
             "(%d thread%s on %d CPU%s)", n, n == 1 ? "" : "s", ncpu, ncpu == 1 ? "" : "s");
}

void gb_cpu_describe_binding(cJSON *ctx) {
    cJSON *o = cJSON_AddObjectToObject(ctx, "cpu_binding");
    if (!o) return;
    cJSON_AddStringToObject(o, "threads_from", threads_from);
    cJSON_AddBoolToObject(o, "bound", bound);
    cJSON_AddStringToObject(o, "how", how);
    if (*user_setting) cJSON_AddStringToObject(o, "user_setting", user_setting);
    else cJSON_AddNullToObject(o, "user_setting");
    /* where each OpenMP thread was bound: thread i on thread_cpus[i] (-1: more than one CPU) */
    if (nbound > 0) cJSON_AddItemToObject(o, "thread_cpus", cJSON_CreateIntArray(bound_cpus, nbound));
}
