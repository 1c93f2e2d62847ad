/* cpu_flush.c — cold-cache mode on the CPU: the last-level cache size from
 * sysfs, and a flush that pushes every core's caches out by streaming a
 * buffer twice the size of all last-level caches through them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>

#include "cpu_backend.h"
#include "sysinfo.h"

/* Parse a sysfs cache size ("32768K", "1M", "512"): bytes, 0 if unreadable. */
static size_t read_cache_size(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long v = 0;
    char unit = 0;
    int got = fscanf(f, "%llu%c", &v, &unit);
    fclose(f);
    if (got < 1) return 0;
    if (unit == 'K') v <<= 10;
    else if (unit == 'M') v <<= 20;
    else if (unit == 'G') v <<= 30;
    return (size_t)v;
}


/* The highest cache level of one CPU: its size and the CPUs sharing it. */
static size_t llc_of_cpu(long cpu, char *shared, size_t shared_len) {
    int best_level = 0;
    size_t best = 0;
    for (int idx = 0; idx < 16; idx++) {
        char path[128], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cache/index%d/level", cpu, idx);
        if (!gb_read_line(path, buf, sizeof buf)) break;
        int level = atoi(buf);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cache/index%d/type", cpu, idx);
        if (gb_read_line(path, buf, sizeof buf) && strcmp(buf, "Instruction") == 0) continue;
        if (level < best_level) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cache/index%d/size", cpu, idx);
        size_t sz = read_cache_size(path);
        if (!sz) continue;
        best_level = level;
        best = sz;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cache/index%d/shared_cpu_list", cpu, idx);
        if (!gb_read_line(path, shared, shared_len)) shared[0] = 0;
    }
    return best;
}

/* Sum over distinct last-level cache instances: on a multi-CCX or
 * multi-socket machine each group of cores has its own LLC, and a flush or a
 * "bigger than cache" array must exceed all of them together. */
size_t gb_cpu_llc_bytes(void) {
    static size_t cached;
    if (cached) return cached;
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (ncpu < 1) ncpu = 1;
    if (ncpu > 4096) ncpu = 4096;
    enum { MAX_INST = 256 };
    char seen[MAX_INST][64];
    int nseen = 0;
    size_t total = 0;
    for (long cpu = 0; cpu < ncpu; cpu++) {
        char shared[64] = "";
        size_t sz = llc_of_cpu(cpu, shared, sizeof shared);
        if (!sz) continue;
        int dup = 0;
        for (int i = 0; i < nseen && !dup; i++) dup = strcmp(seen[i], shared) == 0;
        if (dup) continue;
        if (nseen < MAX_INST) snprintf(seen[nseen++], sizeof seen[0], "%s", shared);
        total += sz;
        if (!shared[0]) break; /* no sharing information: count one instance */
    }
    cached = total;
    return total;
}

/* Allocated once, on first use, and kept: allocation would otherwise land
 * between repetitions and page faults are not what a flush should cost. */
static double *flush_buf;
static size_t flush_len;
static volatile double flush_sink; /* the read-back checksum, so the writes are not dead */

void gb_cpu_flush_caches(void) {
    if (!flush_buf) {
        size_t llc = gb_cpu_llc_bytes();
        size_t bytes = llc ? 2 * llc : (size_t)64 << 20;
        bytes = (bytes + 63) & ~(size_t)63;
        flush_len = bytes / sizeof(double);
        flush_buf = aligned_alloc(64, flush_len * sizeof(double)); /* bytes: a multiple of 64 */
        if (!flush_buf) {
            fprintf(stderr, "gpubench: warning: cannot allocate %zu MiB for cache flushing; "
                            "cold-cache mode is ineffective\n", bytes >> 20);
            flush_len = 0;
            return;
        }
        memset(flush_buf, 0, flush_len * sizeof(double));
    }
    /* Every thread of the run touches its own part, so caches private to a
     * core and LLCs private to a CCX are all evicted, not just the caller's. */
    double sum = 0;
    double *b = flush_buf;
    size_t n = flush_len;
#pragma omp parallel num_threads(gb_cpu_threads())
    {
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) b[i] += 1.0;
#pragma omp for schedule(static) reduction(+ : sum)
        for (size_t i = 0; i < n; i++) sum += b[i];
    }
    flush_sink = sum;
}
