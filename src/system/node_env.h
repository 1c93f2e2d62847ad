/* node_env.h — what the scheduler gave this process on its node: the CPU
 * set it may run on (sched_getaffinity, which taskset, cgroups' cpusets and
 * SLURM's task binding all set), the thread counts the environment asks for
 * (SLURM_CPUS_PER_TASK, OMP_NUM_THREADS), and the SLURM job it runs in.
 *
 * Why here: `sysconf(_SC_NPROCESSORS_ONLN)` counts the machine's CPUs, not
 * the process's: `taskset -c 0 gpubench run` ran two threads on one CPU, and
 * a --per-gpu task given one CPU ran as many threads as the node had. The
 * CPU set is the honest default (DESIGN: "all cores" means all the cores
 * this process was given). */
#ifndef GB_NODE_ENV_H
#define GB_NODE_ENV_H
#include <sched.h>
#include <stddef.h>
#include <cjson/cJSON.h>

/* The CPUs this process may run on, ascending; up to max of them written to
 * cpus. Returns how many there are (may exceed max), or 0 when the set cannot
 * be read (then callers fall back to the online count). The set is the one
 * the process was started with, read at the first call (before the CPU side
 * pins its threads), whatever the calling thread is pinned to now. */
int gb_node_cpu_set(int *cpus, int max);
/* That set as a mask for sched_setaffinity (size bytes), or NULL when it
 * could not be read. */
const cpu_set_t *gb_node_original_mask(size_t *size);
/* The set is these n CPUs (whatever the kernel answers now): a process
 * that bound its own threads at start (libgomp's places, set by gpubench's
 * re-exec) knows its set from before the exec. 1, or 0 when not taken. */
int gb_node_set_original_cpus(const int *cpus, int n);
/* The calling thread on the whole original set until restored: the threads
 * it starts meanwhile (a library's own, a child process) inherit the set,
 * not the one CPU the thread itself is bound to (cpu_bind.c). */
typedef struct {
    cpu_set_t *mask; /* the thread's own, to put back */
    size_t size;
    int widened;
} gb_thread_mask;
void gb_node_thread_widen(gb_thread_mask *m);
void gb_node_thread_restore(gb_thread_mask *m);
/* The same without reading it (NULL when not read yet): safe after fork. */
const cpu_set_t *gb_node_original_mask_if_read(size_t *size);
/* The CPU set written as a list "0-3,8,10-11" into buf (len bytes); "" when
 * unknown. */
void gb_node_cpu_list(char *buf, size_t len);
/* A positive integer environment variable, or 0 when unset or not one. */
long gb_node_env_count(const char *name);
/* The default thread count: SLURM_CPUS_PER_TASK when set and not larger than
 * the CPU set, else the size of the CPU set, else the online CPUs; *from is
 * set to what decided ("cpu_set", "SLURM_CPUS_PER_TASK", "online_cpus"). */
int gb_node_default_threads(const char **from);
/* context.job for a process under SLURM (SLURM_JOB_ID set): scheduler,
 * job_id, array_job_id, array_task_id, partition, nodelist, cpus, cpus_per_task,
 * gpus, attempt (GPUBENCH_SLURM_ATTEMPT, 1 when unset); NULL outside SLURM.
 * docs/results-schema.md "context.job". */
cJSON *gb_node_job_json(void);
/* context.cpu_affinity: {"cpus": the list, "count", "slurm_cpus_per_task",
 * "omp_num_threads"} (numbers null when unset). */
cJSON *gb_node_affinity_json(void);
#endif
