/* cuda_energy.c — a device's energy and clocks for the runner's monitor
 * (gb_backend.monitor_info / monitor_read; core/energy.h, docs/energy.md).
 *
 * Energy: NVML's total-energy counter (nvmlDeviceGetTotalEnergyConsumption,
 * mJ since the driver loaded, the whole board; Volta and later). Where it is
 * missing, the driver's power samples (nvmlDeviceGetSamples,
 * NVML_TOTAL_POWER_SAMPLES, mW with µs time stamps) integrated by the
 * trapezoid rule into a counter of the same shape, so the runner's arithmetic
 * is the same either way; info->counter says which.
 * Clocks: the SM and memory clocks now (nvmlDeviceGetClockInfo) and the
 * clock-event reasons now; NVML's reason bits 0x1..0x100 are, by design, the
 * values of core/energy.h's GB_CLK_* (the others are dropped).
 *
 * Read only, like cuda_health.c; NVML is opened there (gb_cuda_nvml_symbol)
 * and is thread-safe, which monitor_read needs: the runner's sampling thread
 * calls it while the host thread runs repetitions. No CUDA call is made here
 * after monitor_info resolved the device's PCI bus id. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cuda_common.h"

typedef int nvml_ret;
typedef struct nvml_dev_st *nvml_dev;
enum { NV_OK = 0, NV_CLOCK_SM = 1, NV_CLOCK_MEM = 2, NV_TOTAL_POWER_SAMPLES = 0 };
enum { NV_VALUE_DOUBLE = 0, NV_VALUE_UINT = 1, NV_VALUE_ULONG = 2, NV_VALUE_ULLONG = 3, NV_VALUE_SLLONG = 4 };
typedef union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
} nv_value;                                                 /* nvmlValue_t */
typedef struct {
    unsigned long long ts_us;
    nv_value v;
} nv_sample;                                                /* nvmlSample_t */

static struct {
    int tried;
    const char *(*error_string)(nvml_ret);
    nvml_ret (*by_pci)(const char *, nvml_dev *);
    nvml_ret (*energy)(nvml_dev, unsigned long long *);
    nvml_ret (*samples)(nvml_dev, int, unsigned long long, int *, unsigned *, nv_sample *);
    nvml_ret (*clock)(nvml_dev, int, unsigned *);
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);
    nvml_ret (*power)(nvml_dev, unsigned *);
    nvml_ret (*limit)(nvml_dev, unsigned *);
} nv;

/* Per device: its handle and, without the counter, the integrated samples. */
typedef struct {
    int resolved, usable, use_samples;
    nvml_dev dev;
    pthread_mutex_t lock;
    unsigned long long last_ts;   /* the newest power sample integrated (µs) */
    double last_w, joules;
} dev_state;
static dev_state devs[GB_MAX_DEVICES];
static pthread_once_t locks_once = PTHREAD_ONCE_INIT;
static void init_locks(void) {
    for (int k = 0; k < GB_MAX_DEVICES; k++) pthread_mutex_init(&devs[k].lock, NULL);
}

static void load(void) {
    if (nv.tried) return;
    nv.tried = 1;
    /* POSIX allows converting dlsym's void * to a function pointer. */
    *(void **)&nv.error_string = gb_cuda_nvml_symbol("nvmlErrorString");
    *(void **)&nv.by_pci = gb_cuda_nvml_symbol("nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nv.energy = gb_cuda_nvml_symbol("nvmlDeviceGetTotalEnergyConsumption");
    *(void **)&nv.samples = gb_cuda_nvml_symbol("nvmlDeviceGetSamples");
    *(void **)&nv.clock = gb_cuda_nvml_symbol("nvmlDeviceGetClockInfo");
    *(void **)&nv.reasons = gb_cuda_nvml_symbol("nvmlDeviceGetCurrentClocksEventReasons");
    if (!nv.reasons) *(void **)&nv.reasons = gb_cuda_nvml_symbol("nvmlDeviceGetCurrentClocksThrottleReasons");
    *(void **)&nv.power = gb_cuda_nvml_symbol("nvmlDeviceGetPowerUsage");
    *(void **)&nv.limit = gb_cuda_nvml_symbol("nvmlDeviceGetEnforcedPowerLimit");
}

static const char *errstr(nvml_ret rc) { return nv.error_string ? nv.error_string(rc) : "NVML error"; }

/* Integrate the power samples newer than the last into d->joules (lock held). */
static int integrate_samples(dev_state *d) {
    nv_sample buf[128];
    unsigned count = sizeof buf / sizeof buf[0];
    int type = 0;
    nvml_ret rc = nv.samples(d->dev, NV_TOTAL_POWER_SAMPLES, d->last_ts, &type, &count, buf);
    if (rc != NV_OK) return 0;
    for (unsigned i = 0; i < count; i++) {
        if (buf[i].ts_us <= d->last_ts) continue;
        double w = (type == NV_VALUE_DOUBLE   ? buf[i].v.d
                    : type == NV_VALUE_UINT   ? buf[i].v.ui
                    : type == NV_VALUE_ULONG  ? (double)buf[i].v.ul
                    : type == NV_VALUE_SLLONG ? (double)buf[i].v.sll
                                              : (double)buf[i].v.ull) / 1000.0;
        if (d->last_ts > 0) d->joules += 0.5 * (w + d->last_w) * (double)(buf[i].ts_us - d->last_ts) * 1e-6;
        d->last_ts = buf[i].ts_us;
        d->last_w = w;
    }
    return 1;
}

int gb_cuda_monitor_info(int k, gb_monitor_info *info) {
    memset(info, 0, sizeof *info);
    info->power_limit_w = NAN;
    pthread_once(&locks_once, init_locks);
    if (k < 0 || k >= gb_cuda_ndevs) {
        snprintf(info->why, sizeof info->why, "no device %d", k);
        return GB_SKIP;
    }
    if (gb_cuda_nvml_problem()[0]) {
        snprintf(info->why, sizeof info->why, "NVML: %.140s", gb_cuda_nvml_problem());
        return GB_SKIP;
    }
    load();
    dev_state *d = &devs[k];
    if (!d->resolved) {
        d->resolved = 1;
        char bus[32];
        /* CUDA ordinals and NVML indices differ under CUDA_VISIBLE_DEVICES: by PCI bus id */
        if (nv.by_pci && cudaDeviceGetPCIBusId(bus, sizeof bus, gb_cuda_devs[k].device) == cudaSuccess &&
            nv.by_pci(bus, &d->dev) == NV_OK)
            d->usable = 1;
    }
    if (!d->usable) {
        snprintf(info->why, sizeof info->why, "device %d unknown to NVML", k);
        return GB_SKIP;
    }
    info->has_clocks = nv.clock != NULL;
    snprintf(info->boundary, sizeof info->boundary, "the GPU board");
    unsigned mw = 0;
    if (nv.limit && nv.limit(d->dev, &mw) == NV_OK) info->power_limit_w = mw / 1000.0;
    unsigned long long mj = 0;
    nvml_ret rc = nv.energy ? nv.energy(d->dev, &mj) : -1;
    if (rc == NV_OK) {
        info->has_energy = 1;
        info->resolution_j = 1e-3;
        snprintf(info->counter, sizeof info->counter, "nvmlDeviceGetTotalEnergyConsumption");
        return GB_OK;
    }
    /* without the counter: the driver's power samples, integrated */
    pthread_mutex_lock(&d->lock);
    int have = nv.samples && integrate_samples(d) && d->last_ts > 0;
    d->use_samples = have;
    pthread_mutex_unlock(&d->lock);
    if (have) {
        info->has_energy = 1;
        info->resolution_j = 0;
        snprintf(info->counter, sizeof info->counter, "nvmlDeviceGetSamples (power, integrated)");
        return GB_OK;
    }
    snprintf(info->why, sizeof info->why, "nvmlDeviceGetTotalEnergyConsumption: %s; no power samples either",
             nv.energy ? errstr(rc) : "not in this driver's NVML");
    return info->has_clocks ? GB_OK : GB_SKIP; /* clocks alone are still worth sampling */
}

int gb_cuda_monitor_read(int k, gb_monitor_sample *s) {
    s->energy_j = s->power_w = s->sm_mhz = s->mem_mhz = NAN;
    s->reasons = 0;
    s->has_reasons = 0;
    if (k < 0 || k >= GB_MAX_DEVICES || !devs[k].usable) return GB_SKIP;
    dev_state *d = &devs[k];
    unsigned long long mj = 0;
    if (d->use_samples) {
        pthread_mutex_lock(&d->lock);
        if (integrate_samples(d)) s->energy_j = d->joules;
        pthread_mutex_unlock(&d->lock);
    } else if (nv.energy && nv.energy(d->dev, &mj) == NV_OK) {
        s->energy_j = (double)mj * 1e-3;
    }
    if (!s->want_clocks) return GB_OK; /* the counter alone: polled every millisecond */
    unsigned v = 0;
    if (nv.clock && nv.clock(d->dev, NV_CLOCK_SM, &v) == NV_OK) s->sm_mhz = v;
    if (nv.clock && nv.clock(d->dev, NV_CLOCK_MEM, &v) == NV_OK) s->mem_mhz = v;
    if (nv.power && nv.power(d->dev, &v) == NV_OK) s->power_w = v / 1000.0;
    unsigned long long bits = 0;
    if (nv.reasons && nv.reasons(d->dev, &bits) == NV_OK) {
        s->reasons = (unsigned)(bits & ((1u << GB_CLK_NREASONS) - 1));
        s->has_reasons = 1;
    }
    return GB_OK;
}
