/* sanity.c — is the CPU side at its best, and is the machine quiet?
 *
 * Context checks read only the provenance object (so a saved run can be
 * re-checked and tests can feed synthetic contexts); machine checks read
 * /sys and /proc at the moment they are called. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "sanity.h"
#include "timer.h"
#include "sysinfo.h"

static void warnf(cJSON *warnings, int *count, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warnf(cJSON *warnings, int *count, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
    (*count)++;
}

static double number(const cJSON *o, const char *key) {
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

int gb_sanity_check_ceilings(const gb_results *results, cJSON *warnings) {
    /* the worst excess per ceiling ("cpu.gemm_float64_gflops") */
    enum { MAX_CEILINGS = 32 };
    typedef struct { const char *peak; double pct; const gb_case_result *c; } excess;
    excess worst[MAX_CEILINGS];
    int n = 0, count = 0;
    for (size_t ci = 0; ci < results->ncases; ci++) {
        const gb_case_result *c = &results->cases[ci];
        for (size_t ri = 0; ri < c->nresults; ri++) {
            const gb_result *r = &c->results[ri];
            double pct = r->pct_of_peak;
            const char *peak = r->peak;
            /* only compute ceilings: a bandwidth ceiling is DRAM's, and sizes
             * that fit in cache beat it legitimately */
            if (!peak || !strstr(peak, "_gflops") || !(pct > GB_CEILING_SLACK)) continue;
            int i = 0;
            while (i < n && strcmp(worst[i].peak, peak) != 0) i++;
            if (i == n) {
                if (n == MAX_CEILINGS) continue;
                worst[n++] = (excess){peak, 0, NULL};
            }
            if (pct > worst[i].pct) worst[i] = (excess){peak, pct, c};
        }
    }
    /* such ceilings are raised where kept (run_peaks.c) */
    int kept = 0;
    const gb_peaks *pk = results->nruns ? &results->runs[0].peaks : NULL;
    for (size_t i = 0; pk && i < pk->n; i++) kept |= gb_kv_find(&pk->set[i].values, "kept_from") != NULL;
    for (int i = 0; i < n; i++)
        warnf(warnings, &count,
              "%s %s %s reached %.0f%% of the ceiling %s %s: that ceiling came in a "
              "slow moment of this machine, so %% of peak against it is overstated (the kept "
              "ceiling is raised to this rate for later runs; run --peak fresh measures it again)",
              worst[i].c->op, worst[i].c->label, worst[i].c->dtype, worst[i].pct, worst[i].peak,
              kept ? "kept from an earlier run" : "measured at the start");
    return count;
}

int gb_sanity_check_context(const cJSON *context, cJSON *warnings) {
    int count = 0;
    const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(context, "cpu");
    /* Threads: fewer than the physical cores leaves the CPU side short;
     * more than the logical CPUs oversubscribes it. Between the two
     * (hyperthreads unused) is the usual best for dense math. Only --threads
     * sets them apart from the default (all logical CPUs), so the warning
     * names it. What each library does with its threads is the backend's
     * own check (gb_backend.check). */
    int threads = (int)number(context, "cpu_threads_used");
    int cores = (int)number(cpu, "cores"), logical = (int)number(cpu, "logical_cpus");
    /* A process given fewer CPUs than the machine has (taskset, a cgroup,
     * SLURM) measures that share: said once, and the thread checks below are
     * against the set, not the machine. */
    const cJSON *aff = cJSON_GetObjectItemCaseSensitive(context, "cpu_affinity");
    int set = (int)number(aff, "count");
    if (set > 0 && logical > 0 && set < logical) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(aff, "cpus");
        warnf(warnings, &count,
              "this process may run on %d of the machine's %d logical CPUs (CPUs %.64s: taskset, a cgroup or "
              "SLURM): the CPU side is measured on those %d, not the whole machine",
              set, logical, cJSON_IsString(list) ? list->valuestring : "?", set);
        if (cores > set) cores = set;
        logical = set;
    }
    if (threads > 0 && cores > 0 && threads < cores)
        warnf(warnings, &count,
              "the CPU side uses %d thread%s on a CPU with %d physical cores (%d logical CPUs): "
              "CPU results understate the machine. Drop --threads (default: all) or pass --threads %d",
              threads, threads == 1 ? "" : "s", cores, logical > 0 ? logical : cores, cores);
    else if (threads > 0 && logical > 0 && threads > logical)
        warnf(warnings, &count,
              "the CPU side uses %d threads on %d logical CPUs: oversubscribed threads preempt each "
              "other and CPU results are slower and noisier. Pass --threads %d",
              threads, logical, cores > 0 ? cores : logical);
    return count;
}

/* ---- the machine right now --------------------------------------------- */


static void check_governor(cJSON *warnings, int *count) {
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    int readable = 0, other = 0;
    char example[64] = "";
    for (long c = 0; c < ncpu; c++) {
        char path[96], gov[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", c);
        if (!gb_read_line(path, gov, sizeof gov)) continue;
        readable++;
        if (strcmp(gov, "performance") != 0) {
            if (!other) snprintf(example, sizeof example, "%s", gov);
            other++;
        }
    }
    if (other)
        warnf(warnings, count,
              "the CPU frequency governor is \"%s\" on %d of %d CPUs, not \"performance\": clocks ramp "
              "up and down during the run, making CPU results slower and noisier. Fix: "
              "sudo cpupower frequency-set -g performance",
              example, other, readable);
}

/* Aggregate CPU time from /proc/stat's first line: busy and total jiffies.
 * Steal counts as busy: on a VM it is time another guest took from us. */
static int cpu_times(unsigned long long *busy, unsigned long long *total) {
    char line[512];
    if (!gb_read_line("/proc/stat", line, sizeof line)) return 0;
    unsigned long long v[8] = {0};
    if (sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7]) < 4)
        return 0;
    /* user nice system idle iowait irq softirq steal */
    *busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    *total = *busy + v[3] + v[4];
    return 1;
}

typedef struct {
    int pid;
    unsigned long long ticks;
    char comm[32];
} proc_ticks;

/* utime + stime of this process, all its threads (/proc/self/stat, in the
 * clock ticks /proc/stat counts in); 0 when unreadable. */
static unsigned long long own_ticks(void) {
    char buf[1024];
    if (!gb_read_line("/proc/self/stat", buf, sizeof buf)) return 0;
    const char *close = strrchr(buf, ')');
    unsigned long long ut = 0, st = 0;
    if (!close || sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) return 0;
    return ut + st;
}

/* utime + stime of every process (but this one). */
static size_t snapshot_procs(proc_ticks *out, size_t cap) {
    DIR *d = opendir("/proc");
    if (!d) return 0;
    size_t n = 0;
    int self = (int)getpid();
    struct dirent *de;
    while (n < cap && (de = readdir(d))) {
        if (!isdigit((unsigned char)de->d_name[0])) continue;
        int pid = atoi(de->d_name);
        if (pid == self) continue;
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        if (!gb_read_line(path, buf, sizeof buf)) continue;
        /* "pid (comm) state ppid ... utime(14) stime(15)": comm may hold
         * spaces and parentheses, so parse from the last ')'. */
        char *open = strchr(buf, '('), *close = strrchr(buf, ')');
        if (!open || !close || close < open) continue;
        unsigned long long ut = 0, st = 0;
        if (sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
            continue;
        out[n].pid = pid;
        out[n].ticks = ut + st;
        size_t len = (size_t)(close - open - 1);
        if (len >= sizeof out[n].comm) len = sizeof out[n].comm - 1;
        memcpy(out[n].comm, open + 1, len);
        out[n].comm[len] = 0;
        n++;
    }
    closedir(d);
    return n;
}

static void check_load(cJSON *warnings, int *count) {
    enum { MAXP = 8192 };
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1) ncpu = 1;
    unsigned long long b0, t0, b1, t1;
    proc_ticks *before = malloc(MAXP * sizeof *before), *after = malloc(MAXP * sizeof *after);
    if (!before || !after || !cpu_times(&b0, &t0)) goto done;
    unsigned long long own0 = own_ticks();
    size_t nb = snapshot_procs(before, MAXP);
    double w0 = gb_now();
    struct timespec ts = {0, 200 * 1000 * 1000};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {}
    size_t na = snapshot_procs(after, MAXP);
    double window = gb_now() - w0;
    unsigned long long own1 = own_ticks();
    if (!cpu_times(&b1, &t1) || t1 <= t0) goto done;
    /* gpubench's own threads are not other work: OpenMP workers that spin
     * before they sleep (libgomp's default) were counted as "15 of 16 CPUs
     * used by other work" */
    unsigned long long own = own1 >= own0 ? own1 - own0 : 0, busy = b1 - b0;
    busy = busy > own ? busy - own : 0;
    double busy_cpus = (double)busy / (double)(t1 - t0) * (double)ncpu;
    /* Any busy core hurts: OpenMP and OpenBLAS split work evenly over all
     * threads, so one slowed thread slows the whole kernel. */
    if (busy_cpus < 0.5 || busy_cpus < 0.02 * (double)ncpu) goto done;

    /* The three busiest other processes over the same window. */
    long hz = sysconf(_SC_CLK_TCK);
    struct { double pct; int pid; const char *comm; } top[3] = {{0, 0, NULL}, {0, 0, NULL}, {0, 0, NULL}};
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            if (before[j].pid != after[i].pid) continue;
            double pct = 100.0 * (double)(after[i].ticks - before[j].ticks) / (double)hz / window;
            for (int k = 0; k < 3; k++)
                if (pct > top[k].pct) {
                    memmove(&top[k + 1], &top[k], (size_t)(2 - k) * sizeof top[0]);
                    top[k].pct = pct, top[k].pid = after[i].pid, top[k].comm = after[i].comm;
                    break;
                }
            break;
        }
    char procs[256] = "";
    for (int k = 0; k < 3 && top[k].comm && top[k].pct >= 5; k++) {
        size_t len = strlen(procs);
        snprintf(procs + len, sizeof procs - len, "%s%s (pid %d) %.0f%%", k ? ", " : "; busiest: ",
                 top[k].comm, top[k].pid, top[k].pct);
    }
    char load[64];
    double l1 = 0;
    if (!gb_read_line("/proc/loadavg", load, sizeof load) || sscanf(load, "%lf", &l1) != 1) l1 = -1;
    warnf(warnings, count,
          "other work was using %.1f of %ld CPUs when the run started (1-minute load average %.1f%s): "
          "CPU results will be slower and noisier, and so will GPU end-to-end timings. Fix: stop it, "
          "or run on an idle machine",
          busy_cpus, ncpu, l1, procs);
done:
    free(before);
    free(after);
}

int gb_sanity_check_machine(cJSON *warnings) {
    int count = 0;
    check_governor(warnings, &count);
    check_load(warnings, &count);
    return count;
}

int gb_sanity_check(const cJSON *context, cJSON *warnings) {
    return gb_sanity_check_context(context, warnings) + gb_sanity_check_machine(warnings);
}

