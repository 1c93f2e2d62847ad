/* cuda_node_health.c — the node's side of a GPU's health (see
 * cuda_node_health.h): a GPU trained at PCIe gen3 x8 instead of gen5 x16, a
 * card retiring pages after ECC errors, an XID during the run, or a task
 * whose CPUs sit on the other socket all make a node slow in ways its
 * benchmark times alone cannot explain. The fleet report shows these per
 * node (results/fleet_verdict.c).
 *
 * NVML was opened and initialised by cuda_health.c (dlopen, so the plugin
 * loads on a driver without it); this file takes its own symbols from the
 * same library (RTLD_NOLOAD: the handle it already has) so that file's
 * symbol table stays its own. The types and constants are NVML's documented
 * ones, declared here since the toolkit ships no nvml.h. Only reads, and
 * one event registration (no setting is changed). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cuda_node_health.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

typedef int nvml_ret;                     /* nvmlReturn_t */
typedef struct nvml_device_st *nvml_dev;  /* nvmlDevice_t */
typedef struct nvml_event_set_st *nvml_event_set; /* nvmlEventSet_t */
enum { NVML_OK_ = 0, NVML_TIMEOUT_ = 10 };
enum { ECC_CORRECTED = 0, ECC_UNCORRECTED = 1 };  /* nvmlMemoryErrorType_t */
enum { ECC_VOLATILE = 0, ECC_AGGREGATE = 1 };     /* nvmlEccCounterType_t */
#define NVML_EVENT_XID 0x0000000000000008ULL      /* nvmlEventTypeXidCriticalError */

typedef struct {                          /* nvmlEventData_t */
    nvml_dev device;
    unsigned long long event_type, event_data;
    unsigned gpu_instance_id, compute_instance_id;
} nvml_event_data;

static struct {
    int tried;
    const char *(*err)(nvml_ret);
    nvml_ret (*pcie_gen)(nvml_dev, unsigned *), (*pcie_width)(nvml_dev, unsigned *);
    nvml_ret (*pcie_max_gen)(nvml_dev, unsigned *), (*pcie_max_width)(nvml_dev, unsigned *);
    nvml_ret (*ecc_total)(nvml_dev, int, int, unsigned long long *);
    nvml_ret (*set_create)(nvml_event_set *);
    nvml_ret (*register_events)(nvml_dev, unsigned long long, nvml_event_set);
    nvml_ret (*set_wait)(nvml_event_set, nvml_event_data *, unsigned);
    nvml_ret (*cpu_affinity)(nvml_dev, unsigned, unsigned long *);
    nvml_ret (*numa_node)(nvml_dev, unsigned *);
    nvml_event_set events;     /* one set for every device, created on the first call */
    char events_problem[160];
    nvml_dev watched[64];      /* the devices registered in it (--devices: one call each) */
    unsigned long long xids[64];
    int nwatched;
} nv;

static int watched_index(nvml_dev d) {
    for (int i = 0; i < nv.nwatched; i++)
        if (nv.watched[i] == d) return i;
    return -1;
}

static void load(void) {
    if (nv.tried) return;
    nv.tried = 1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return;
    /* POSIX allows converting dlsym's void * to a function pointer. */
    *(void **)&nv.err = dlsym(lib, "nvmlErrorString");
    *(void **)&nv.pcie_gen = dlsym(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    *(void **)&nv.pcie_width = dlsym(lib, "nvmlDeviceGetCurrPcieLinkWidth");
    *(void **)&nv.pcie_max_gen = dlsym(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    *(void **)&nv.pcie_max_width = dlsym(lib, "nvmlDeviceGetMaxPcieLinkWidth");
    *(void **)&nv.ecc_total = dlsym(lib, "nvmlDeviceGetTotalEccErrors");
    *(void **)&nv.set_create = dlsym(lib, "nvmlEventSetCreate");
    *(void **)&nv.register_events = dlsym(lib, "nvmlDeviceRegisterEvents");
    /* _v2 fills the instance ids of MIG; older drivers have the plain one */
    *(void **)&nv.set_wait = dlsym(lib, "nvmlEventSetWait_v2");
    if (!nv.set_wait) *(void **)&nv.set_wait = dlsym(lib, "nvmlEventSetWait");
    *(void **)&nv.cpu_affinity = dlsym(lib, "nvmlDeviceGetCpuAffinity");
    *(void **)&nv.numa_node = dlsym(lib, "nvmlDeviceGetNumaNodeId");
    /* the handle stays open: cuda_health.c holds the library for the process */
    dlclose(lib);
}

/* A small non-negative decimal at the start of s; -1 otherwise (sysfs says
 * -1 for "no node"). */
static int atoi_safe(const char *s) {
    int n = 0, any = 0;
    for (; *s >= '0' && *s <= '9' && n < 100000; s++, any = 1) n = 10 * n + (*s - '0');
    return any ? n : -1;
}

static const char *why(nvml_ret rc) { return nv.err ? nv.err(rc) : "NVML error"; }

static void add_u(cJSON *o, const char *key, int have, nvml_ret rc, double v) {
    if (!have) cJSON_AddStringToObject(o, key, "not in this NVML");
    else if (rc == NVML_OK_) cJSON_AddNumberToObject(o, key, v);
    else cJSON_AddStringToObject(o, key, why(rc));
}

static void pcie(cJSON *node, nvml_dev d) {
    cJSON *o = cJSON_AddObjectToObject(node, "pcie");
    unsigned v = 0;
    nvml_ret rc = nv.pcie_gen ? nv.pcie_gen(d, &v) : 0;
    add_u(o, "gen", nv.pcie_gen != NULL, rc, v);
    rc = nv.pcie_width ? nv.pcie_width(d, &v) : 0;
    add_u(o, "width", nv.pcie_width != NULL, rc, v);
    rc = nv.pcie_max_gen ? nv.pcie_max_gen(d, &v) : 0;
    add_u(o, "max_gen", nv.pcie_max_gen != NULL, rc, v);
    rc = nv.pcie_max_width ? nv.pcie_max_width(d, &v) : 0;
    add_u(o, "max_width", nv.pcie_max_width != NULL, rc, v);
}

static void ecc(cJSON *node, nvml_dev d) {
    cJSON *o = cJSON_AddObjectToObject(node, "ecc_errors");
    static const struct {
        const char *key;
        int type, counter;
    } k[] = {{"volatile_corrected", ECC_CORRECTED, ECC_VOLATILE},
             {"volatile_uncorrected", ECC_UNCORRECTED, ECC_VOLATILE},
             {"aggregate_corrected", ECC_CORRECTED, ECC_AGGREGATE},
             {"aggregate_uncorrected", ECC_UNCORRECTED, ECC_AGGREGATE}};
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        unsigned long long n = 0;
        nvml_ret rc = nv.ecc_total ? nv.ecc_total(d, k[i].type, k[i].counter, &n) : 0;
        add_u(o, k[i].key, nv.ecc_total != NULL, rc, (double)n);
    }
}

/* XIDs: a device is registered on its first call (the "before" health), so
 * "after" reports those that came during the run; the set is drained with a
 * 0 ms wait, each event counted for its device. */
static void xids(cJSON *node, nvml_dev d) {
    cJSON *o = cJSON_AddObjectToObject(node, "xid_events");
    if (!nv.events && !nv.events_problem[0]) {
        nvml_ret rc = 0;
        if (!nv.set_create || !nv.register_events || !nv.set_wait)
            snprintf(nv.events_problem, sizeof nv.events_problem, "NVML events not in this driver");
        else if ((rc = nv.set_create(&nv.events)) != NVML_OK_) {
            snprintf(nv.events_problem, sizeof nv.events_problem, "nvmlEventSetCreate: %s", why(rc));
            nv.events = NULL;
        }
    }
    if (!nv.events) {
        cJSON_AddStringToObject(o, "watching", nv.events_problem);
        return;
    }
    int me = watched_index(d);
    if (me < 0) {
        nvml_ret rc = nv.nwatched < 64 ? nv.register_events(d, NVML_EVENT_XID, nv.events) : -1;
        if (rc != NVML_OK_) {
            char msg[160];
            snprintf(msg, sizeof msg, "nvmlDeviceRegisterEvents: %s", nv.nwatched < 64 ? why(rc) : "too many devices");
            cJSON_AddStringToObject(o, "watching", msg);
            return;
        }
        nv.watched[nv.nwatched] = d;
        nv.xids[nv.nwatched++] = 0;
        cJSON_AddStringToObject(o, "watching", "from now on (the run's XIDs are in \"after\")");
        cJSON_AddNumberToObject(o, "count", 0);
        return;
    }
    cJSON *codes = cJSON_CreateArray();
    nvml_event_data ev;
    for (int i = 0; i < 1000; i++) { /* bounded: a storm of XIDs is reported, not waited out */
        memset(&ev, 0, sizeof ev);
        if (nv.set_wait(nv.events, &ev, 0) != NVML_OK_) break;
        int k = watched_index(ev.device);
        if (!(ev.event_type & NVML_EVENT_XID) || k < 0) continue;
        nv.xids[k]++;
        if (k == me && cJSON_GetArraySize(codes) < 32) cJSON_AddItemToArray(codes, cJSON_CreateNumber((double)ev.event_data));
    }
    cJSON_AddStringToObject(o, "watching", "since the run started");
    cJSON_AddNumberToObject(o, "count", (double)nv.xids[me]);
    cJSON_AddItemToObject(o, "codes", codes);
}

/* The GPU's CPUs (NVML's ideal affinity), its NUMA node, and whether every
 * CPU this process may run on is among them. */
static void locality(cJSON *node, nvml_dev d, const char *bus) {
    enum { WORDS = 64 }; /* 4096 CPUs */
    unsigned long mask[WORDS];
    memset(mask, 0, sizeof mask);
    nvml_ret rc = nv.cpu_affinity ? nv.cpu_affinity(d, WORDS, mask) : -1;
    const int bits = (int)(8 * sizeof mask[0]);
    if (rc == NVML_OK_) {
        char list[1024] = "";
        size_t used = 0;
        for (int c = 0; c < WORDS * bits && used < sizeof list;) {
            if (!(mask[c / bits] >> (c % bits) & 1UL)) { c++; continue; }
            int e = c;
            while (e + 1 < WORDS * bits && (mask[(e + 1) / bits] >> ((e + 1) % bits) & 1UL)) e++;
            used += (size_t)snprintf(list + used, sizeof list - used, e > c ? "%s%d-%d" : "%s%d", used ? "," : "", c, e);
            c = e + 1;
        }
        cJSON_AddStringToObject(node, "gpu_cpu_affinity", list);
        cpu_set_t mine;
        CPU_ZERO(&mine);
        if (sched_getaffinity(0, sizeof mine, &mine) == 0) {
            int local = 1;
            for (int c = 0; c < CPU_SETSIZE && c < WORDS * bits; c++)
                if (CPU_ISSET(c, &mine) && !(mask[c / bits] >> (c % bits) & 1UL)) local = 0;
            cJSON_AddBoolToObject(node, "task_cpus_local", local);
        }
    } else {
        cJSON_AddStringToObject(node, "gpu_cpu_affinity", nv.cpu_affinity ? why(rc) : "not in this NVML");
    }
    unsigned numa = 0;
    rc = nv.numa_node ? nv.numa_node(d, &numa) : -1;
    if (rc == NVML_OK_) {
        cJSON_AddNumberToObject(node, "numa_node", numa);
        return;
    }
    /* older NVML: the kernel's view of the device's node */
    char path[128], lower[32], line[32] = "";
    snprintf(lower, sizeof lower, "%s", bus);
    for (char *p = lower; *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    /* NVML's bus ids have an 8-digit domain, sysfs a 4-digit one */
    const char *id = strlen(lower) > 12 && !strncmp(lower, "0000", 4) ? lower + 4 : lower;
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", id);
    FILE *f = fopen(path, "r");
    int n = -1;
    if (f && fgets(line, sizeof line, f)) n = atoi_safe(line);
    if (f) fclose(f);
    if (n >= 0) cJSON_AddNumberToObject(node, "numa_node", n);
    else cJSON_AddStringToObject(node, "numa_node", "unknown (a single node, or not exposed)");
}

void gb_cuda_node_health(cJSON *health, void *nvml_device, const char *bus) {
    load();
    nvml_dev d = nvml_device;
    cJSON *node = cJSON_AddObjectToObject(health, "node");
    if (!node) return;
    pcie(node, d);
    ecc(node, d);
    xids(node, d);
    locality(node, d, bus);
}
