/* cpu_health.c — read-only facts about the CPU's state, recorded before and
 * after a run so a reader can see clocks sagging or the machine filling up:
 * scaling governors, current clocks of a few cores, load average. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "sysinfo.h"


/* Governor of every CPU, as {"performance": 14, "powersave": 2}: one entry
 * per distinct value keeps a 256-CPU machine's record short. */
static void add_governors(cJSON *health, long ncpu) {
    cJSON *gov = cJSON_CreateObject();
    for (long c = 0; c < ncpu; c++) {
        char path[96], g[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", c);
        if (!gb_read_line(path, g, sizeof g)) continue;
        cJSON *n = cJSON_GetObjectItemCaseSensitive(gov, g);
        if (n) cJSON_SetNumberValue(n, n->valuedouble + 1);
        else cJSON_AddNumberToObject(gov, g, 1);
    }
    if (cJSON_GetArraySize(gov) > 0) {
        cJSON_AddItemToObject(health, "governors", gov);
    } else {
        cJSON_Delete(gov);
        cJSON_AddStringToObject(health, "governors", "not exposed (no cpufreq in /sys: a VM or a driver without it)");
    }
}

/* Current clock of the first few CPUs: cpufreq where the kernel exposes it,
 * else /proc/cpuinfo's "cpu MHz" (on VMs often the nominal clock only). */
static void add_clocks(cJSON *health, long ncpu) {
    enum { FEW = 8 };
    long n = ncpu < FEW ? ncpu : FEW;
    cJSON *mhz = cJSON_CreateArray();
    const char *source = "cpufreq scaling_cur_freq";
    for (long c = 0; c < n; c++) {
        char path[96], v[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_cur_freq", c);
        if (!gb_read_line(path, v, sizeof v)) break;
        cJSON_AddItemToArray(mhz, cJSON_CreateNumber((double)atoll(v) / 1000.0));
    }
    if (cJSON_GetArraySize(mhz) == 0) {
        source = "/proc/cpuinfo cpu MHz";
        FILE *f = fopen("/proc/cpuinfo", "r");
        char line[512];
        double v;
        while (f && cJSON_GetArraySize(mhz) < n && fgets(line, sizeof line, f))
            if (sscanf(line, "cpu MHz : %lf", &v) == 1) cJSON_AddItemToArray(mhz, cJSON_CreateNumber(v));
        if (f) fclose(f);
    }
    cJSON_AddItemToObject(health, "cpu_mhz", mhz);
    cJSON_AddStringToObject(health, "cpu_mhz_source", source);
}

void gb_cpu_health(cJSON *health) {
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (ncpu < 1) ncpu = 1;
    add_governors(health, ncpu);
    add_clocks(health, ncpu);
    char line[128];
    double l1, l5, l15;
    if (gb_read_line("/proc/loadavg", line, sizeof line) && sscanf(line, "%lf %lf %lf", &l1, &l5, &l15) == 3) {
        cJSON *la = cJSON_AddArrayToObject(health, "loadavg");
        cJSON_AddItemToArray(la, cJSON_CreateNumber(l1));
        cJSON_AddItemToArray(la, cJSON_CreateNumber(l5));
        cJSON_AddItemToArray(la, cJSON_CreateNumber(l15));
    }
    cJSON_AddNumberToObject(health, "online_cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
}
