/* node_env.c — see node_env.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "node_env.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* The process's CPU set as it was given (taskset, cgroups, SLURM), read
 * once: the CPU side later pins its main thread to one CPU of it
 * (cpu_bind.c), after which sched_getaffinity of the main thread would
 * answer that one CPU. Every reader, and every child process
 * (child_env.c), sees the set the process was started with. */
static cpu_set_t *original_set;
static size_t original_size, original_ncpu;

static int read_original_set(void) {
    if (original_set) return 1;
    /* A machine of more CPUs than CPU_SETSIZE needs a bigger set: grow until
     * the kernel takes it (EINVAL means the mask was too small). */
    for (size_t ncpu = CPU_SETSIZE; ncpu <= (1u << 16); ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpu);
        if (!set) return 0;
        size_t sz = CPU_ALLOC_SIZE(ncpu);
        CPU_ZERO_S(sz, set);
        if (sched_getaffinity(0, sz, set) != 0) {
            CPU_FREE(set);
            if (errno == EINVAL) continue;
            return 0;
        }
        original_set = set, original_size = sz, original_ncpu = ncpu;
        return 1;
    }
    return 0;
}

const cpu_set_t *gb_node_original_mask(size_t *size) {
    if (!read_original_set()) return NULL;
    *size = original_size;
    return original_set;
}

int gb_node_set_original_cpus(const int *cpus, int n) {
    size_t ncpu = CPU_SETSIZE;
    for (int i = 0; i < n; i++)
        while (cpus[i] < 0 || (size_t)cpus[i] >= ncpu) {
            if (cpus[i] < 0 || ncpu >= (1u << 16)) return 0;
            ncpu *= 2;
        }
    cpu_set_t *set = CPU_ALLOC(ncpu);
    if (!set) return 0;
    size_t sz = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(sz, set);
    for (int i = 0; i < n; i++) CPU_SET_S((size_t)cpus[i], sz, set);
    if (original_set) CPU_FREE(original_set);
    original_set = set, original_size = sz, original_ncpu = ncpu;
    return 1;
}

void gb_node_thread_widen(gb_thread_mask *m) {
    memset(m, 0, sizeof *m);
    const cpu_set_t *original = gb_node_original_mask(&m->size);
    if (!original || !(m->mask = CPU_ALLOC(m->size * 8))) return;
    m->widened = pthread_getaffinity_np(pthread_self(), m->size, m->mask) == 0 &&
                 pthread_setaffinity_np(pthread_self(), m->size, original) == 0;
}

void gb_node_thread_restore(gb_thread_mask *m) {
    if (m->widened) pthread_setaffinity_np(pthread_self(), m->size, m->mask);
    if (m->mask) CPU_FREE(m->mask);
    memset(m, 0, sizeof *m);
}

const cpu_set_t *gb_node_original_mask_if_read(size_t *size) {
    *size = original_size;
    return original_set;
}

int gb_node_cpu_set(int *cpus, int max) {
    if (!read_original_set()) return 0;
    int n = 0;
    for (size_t c = 0; c < original_ncpu; c++)
        if (CPU_ISSET_S(c, original_size, original_set)) {
            if (n < max) cpus[n] = (int)c;
            n++;
        }
    return n;
}

void gb_node_cpu_list(char *buf, size_t len) {
    buf[0] = '\0';
    int n = gb_node_cpu_set(NULL, 0);
    if (n <= 0) return;
    int *c = malloc((size_t)n * sizeof *c);
    if (!c) return;
    n = gb_node_cpu_set(c, n);
    size_t used = 0;
    for (int i = 0; i < n && used < len;) {
        int j = i;
        while (j + 1 < n && c[j + 1] == c[j] + 1) j++;
        used += (size_t)(j > i ? snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", c[i], c[j])
                               : snprintf(buf + used, len - used, "%s%d", i ? "," : "", c[i]));
        i = j + 1;
    }
    free(c);
}

long gb_node_env_count(const char *name) {
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    /* OMP_NUM_THREADS may be a list ("4,2"): its first level is the count */
    if (errno || end == v || (*end && *end != ',') || n <= 0) return 0;
    return n;
}

int gb_node_default_threads(const char **from) {
    int set = gb_node_cpu_set(NULL, 0);
    long per_task = gb_node_env_count("SLURM_CPUS_PER_TASK");
    if (per_task > 0 && (set <= 0 || per_task <= set)) {
        *from = "SLURM_CPUS_PER_TASK";
        return (int)per_task;
    }
    if (set > 0) {
        *from = "cpu_set";
        return set;
    }
    /* the set could not be read: the machine's online CPUs (sysinfo.c calls
     * this module, so its gb_sysinfo_logical_cpus is not called back) */
    *from = "online_cpus";
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

static void add_env_str(cJSON *o, const char *key, const char *var) {
    const char *v = getenv(var);
    if (v && *v) cJSON_AddStringToObject(o, key, v);
    else cJSON_AddNullToObject(o, key);
}

static void add_count_or_null(cJSON *o, const char *key, long n) {
    if (n > 0) cJSON_AddNumberToObject(o, key, (double)n);
    else cJSON_AddNullToObject(o, key);
}

cJSON *gb_node_job_json(void) {
    const char *id = getenv("SLURM_JOB_ID");
    if (!id || !*id) return NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "scheduler", "slurm");
    cJSON_AddStringToObject(o, "job_id", id);
    add_env_str(o, "array_job_id", "SLURM_ARRAY_JOB_ID");
    const char *task = getenv("SLURM_ARRAY_TASK_ID");
    char *end = NULL;
    long t = task && *task ? strtol(task, &end, 10) : -1;
    if (task && *task && end && !*end && t >= 0) cJSON_AddNumberToObject(o, "array_task_id", (double)t);
    else cJSON_AddNullToObject(o, "array_task_id");
    add_env_str(o, "partition", "SLURM_JOB_PARTITION");
    add_env_str(o, "nodelist", "SLURM_JOB_NODELIST");
    char cpus[1024];
    gb_node_cpu_list(cpus, sizeof cpus);
    cJSON_AddStringToObject(o, "cpus", cpus);
    add_count_or_null(o, "cpus_per_task", gb_node_env_count("SLURM_CPUS_PER_TASK"));
    /* the GPUs the task may use: what CUDA is told (CUDA_VISIBLE_DEVICES,
     * which SLURM's gres plugin sets), else the job's GPU list */
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (cvd) cJSON_AddStringToObject(o, "gpus", cvd);
    else add_env_str(o, "gpus", "SLURM_JOB_GPUS");
    long attempt = gb_node_env_count("GPUBENCH_SLURM_ATTEMPT");
    cJSON_AddNumberToObject(o, "attempt", attempt > 0 ? (double)attempt : 1.0);
    return o;
}

cJSON *gb_node_affinity_json(void) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    char cpus[1024];
    gb_node_cpu_list(cpus, sizeof cpus);
    cJSON_AddStringToObject(o, "cpus", cpus);
    add_count_or_null(o, "count", gb_node_cpu_set(NULL, 0));
    add_count_or_null(o, "slurm_cpus_per_task", gb_node_env_count("SLURM_CPUS_PER_TASK"));
    add_count_or_null(o, "omp_num_threads", gb_node_env_count("OMP_NUM_THREADS"));
    return o;
}
