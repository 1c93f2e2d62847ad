/* cuda_health.c — the GPU's state, read only (clocks, throttle reasons,
 * temperature, power, ECC, persistence, P-state), and the L2 flush of
 * cold-cache mode.
 *
 * NVML is opened with dlopen: it ships with the driver, not the toolkit, so
 * a link-time dependency would stop the plugin loading on a machine whose
 * driver lacks it, and the toolkit has no nvml.h to build against. The few
 * types and constants used are declared here with their documented values.
 * Nothing here changes a setting: only nvml*Get* calls are made. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cuda_common.h"
#include "cuda_node_health.h"

typedef int nvml_return;                    /* nvmlReturn_t: NVML_SUCCESS = 0 */
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t */
enum { NVML_OK = 0 };
enum { NVML_CLOCK_SM_ = 1, NVML_CLOCK_MEM_ = 2 };  /* nvmlClockType_t */
enum { NVML_TEMPERATURE_GPU_ = 0 };                /* nvmlTemperatureSensors_t */

/* nvmlClocksEventReason* (formerly nvmlClocksThrottleReason*) bits. */
static const struct {
    unsigned long long bit;
    const char *name;
} reasons[] = {
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};

typedef struct {
    void *lib;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    const char *(*error_string)(nvml_return);
    nvml_return (*by_pci)(const char *, nvml_device *);
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*max_clock)(nvml_device, int, unsigned *);
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    nvml_return (*power)(nvml_device, unsigned *);
    nvml_return (*power_limit)(nvml_device, unsigned *);
    nvml_return (*reasons)(nvml_device, unsigned long long *);
    nvml_return (*ecc)(nvml_device, int *, int *);
    nvml_return (*persistence)(nvml_device, int *);
    nvml_return (*pstate)(nvml_device, int *);
    nvml_return (*driver_version)(char *, unsigned);
} nvml_api;

/* Opened once and kept: health runs before and after every run, and a
 * second dlopen/nvmlInit costs tens of milliseconds. NULL lib = absent. */
static nvml_api nvml;
static int nvml_tried;
static char nvml_problem[160];

static void *sym(const char *name) { return dlsym(nvml.lib, name); }

static int nvml_open(void) {
    if (nvml_tried) return nvml.lib != NULL;
    nvml_tried = 1;
    nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml.lib) {
        snprintf(nvml_problem, sizeof nvml_problem, "libnvidia-ml.so.1 not found");
        return 0;
    }
    /* POSIX allows converting dlsym's void * to a function pointer. */
    *(void **)&nvml.init = sym("nvmlInit_v2");
    *(void **)&nvml.shutdown = sym("nvmlShutdown");
    *(void **)&nvml.error_string = sym("nvmlErrorString");
    *(void **)&nvml.by_pci = sym("nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml.clock = sym("nvmlDeviceGetClockInfo");
    *(void **)&nvml.max_clock = sym("nvmlDeviceGetMaxClockInfo");
    *(void **)&nvml.temperature = sym("nvmlDeviceGetTemperature");
    *(void **)&nvml.power = sym("nvmlDeviceGetPowerUsage");
    *(void **)&nvml.power_limit = sym("nvmlDeviceGetEnforcedPowerLimit");
    /* Renamed in CUDA 12.2-era drivers; older drivers have only the old name. */
    *(void **)&nvml.reasons = sym("nvmlDeviceGetCurrentClocksEventReasons");
    if (!nvml.reasons) *(void **)&nvml.reasons = sym("nvmlDeviceGetCurrentClocksThrottleReasons");
    *(void **)&nvml.ecc = sym("nvmlDeviceGetEccMode");
    *(void **)&nvml.persistence = sym("nvmlDeviceGetPersistenceMode");
    *(void **)&nvml.pstate = sym("nvmlDeviceGetPerformanceState");
    *(void **)&nvml.driver_version = sym("nvmlSystemGetDriverVersion");
    if (!nvml.init || !nvml.by_pci || !nvml.error_string) {
        snprintf(nvml_problem, sizeof nvml_problem, "libnvidia-ml.so.1 lacks nvmlInit_v2 / "
                                                    "nvmlDeviceGetHandleByPciBusId_v2 (driver too old)");
        dlclose(nvml.lib);
        nvml.lib = NULL;
        return 0;
    }
    nvml_return rc = nvml.init();
    if (rc != NVML_OK) {
        snprintf(nvml_problem, sizeof nvml_problem, "nvmlInit_v2: %s", nvml.error_string(rc));
        dlclose(nvml.lib);
        nvml.lib = NULL;
        return 0;
    }
    return 1;
}

/* ---- NVML for the other readers of the plugin ------------------------------
 * Energy and clocks (cuda_energy.c) look their own NVML functions up here, so
 * that NVML is opened once, in one place, and stays optional. */

/* The NVML function `name` (NULL when NVML or the function is absent). */
void *gb_cuda_nvml_symbol(const char *name) { return nvml_open() ? sym(name) : NULL; }
/* Why NVML is absent ("" when it is open). */
const char *gb_cuda_nvml_problem(void) { return nvml_open() ? "" : nvml_problem; }

/* Add key: value when the query succeeded; "not supported" etc. otherwise,
 * so a reader can tell a missing fact from a zero. */
static void add_uint(cJSON *o, const char *key, nvml_return rc, unsigned v) {
    if (rc == NVML_OK) cJSON_AddNumberToObject(o, key, v);
    else cJSON_AddStringToObject(o, key, nvml.error_string(rc));
}

int gb_cuda_nvml_driver_version(char *buf, size_t len) {
    char v[96] = ""; /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80 */
    if (!nvml_open() || !nvml.driver_version || nvml.driver_version(v, sizeof v) != NVML_OK) return 0;
    v[sizeof v - 1] = '\0';
    if (!gb_is_driver_version(v)) return 0; /* then /proc says it */
    snprintf(buf, len, "%s", v);
    return 1;
}

void gb_cuda_health(cJSON *health) {
    if (!nvml_open()) {
        cJSON_AddStringToObject(health, "nvml", nvml_problem);
        return;
    }
    /* CUDA ordinals and NVML indices differ under CUDA_VISIBLE_DEVICES:
     * find the device by its PCI bus id instead. */
    char bus[32];
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, gb_cuda.device) != cudaSuccess) {
        cJSON_AddStringToObject(health, "nvml", "cudaDeviceGetPCIBusId failed: device unknown to NVML");
        return;
    }
    nvml_device dev;
    nvml_return rc = nvml.by_pci(bus, &dev);
    if (rc != NVML_OK) {
        char msg[160];
        snprintf(msg, sizeof msg, "nvmlDeviceGetHandleByPciBusId_v2(%s): %s", bus, nvml.error_string(rc));
        cJSON_AddStringToObject(health, "nvml", msg);
        return;
    }
    cJSON_AddStringToObject(health, "nvml", "ok");
    cJSON_AddStringToObject(health, "pci_bus_id", bus);
    unsigned v = 0;
    if (nvml.clock) {
        rc = nvml.clock(dev, NVML_CLOCK_SM_, &v);
        add_uint(health, "sm_clock_mhz", rc, v);
        rc = nvml.clock(dev, NVML_CLOCK_MEM_, &v);
        add_uint(health, "mem_clock_mhz", rc, v);
    }
    if (nvml.max_clock) {
        rc = nvml.max_clock(dev, NVML_CLOCK_SM_, &v);
        add_uint(health, "sm_clock_max_mhz", rc, v);
        rc = nvml.max_clock(dev, NVML_CLOCK_MEM_, &v);
        add_uint(health, "mem_clock_max_mhz", rc, v);
    }
    if (nvml.temperature) {
        rc = nvml.temperature(dev, NVML_TEMPERATURE_GPU_, &v);
        add_uint(health, "temperature_c", rc, v);
    }
    if (nvml.power) {
        rc = nvml.power(dev, &v);
        if (rc == NVML_OK) cJSON_AddNumberToObject(health, "power_w", v / 1000.0);
        else cJSON_AddStringToObject(health, "power_w", nvml.error_string(rc));
    }
    if (nvml.power_limit) {
        rc = nvml.power_limit(dev, &v);
        if (rc == NVML_OK) cJSON_AddNumberToObject(health, "power_limit_w", v / 1000.0);
    }
    if (nvml.reasons) {
        unsigned long long bits = 0;
        rc = nvml.reasons(dev, &bits);
        if (rc == NVML_OK) {
            /* Names of the active reasons; [] = running at full clocks.
             * gpu_idle is normal between runs (sampled before the work). */
            cJSON *list = cJSON_AddArrayToObject(health, "clock_event_reasons");
            for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
                if (bits & reasons[i].bit) cJSON_AddItemToArray(list, cJSON_CreateString(reasons[i].name));
            cJSON_AddNumberToObject(health, "clock_event_reasons_mask", (double)bits);
        } else {
            cJSON_AddStringToObject(health, "clock_event_reasons", nvml.error_string(rc));
        }
    }
    int cur = 0, pending = 0;
    if (nvml.ecc) {
        rc = nvml.ecc(dev, &cur, &pending);
        if (rc == NVML_OK) cJSON_AddBoolToObject(health, "ecc", cur == 1);
        else cJSON_AddStringToObject(health, "ecc", nvml.error_string(rc));
    }
    if (nvml.persistence) {
        rc = nvml.persistence(dev, &cur);
        if (rc == NVML_OK) cJSON_AddBoolToObject(health, "persistence_mode", cur == 1);
        else cJSON_AddStringToObject(health, "persistence_mode", nvml.error_string(rc));
    }
    if (nvml.pstate) {
        rc = nvml.pstate(dev, &cur);
        if (rc == NVML_OK && cur >= 0 && cur <= 15) {
            char p[8];
            snprintf(p, sizeof p, "P%d", cur);
            cJSON_AddStringToObject(health, "performance_state", p);
        } else {
            cJSON_AddStringToObject(health, "performance_state", rc == NVML_OK ? "unknown" : nvml.error_string(rc));
        }
    }
    /* the node's side (PCIe link, ECC error counts, XIDs, CPU locality):
     * cuda_node_health.c, with its own NVML symbols */
    gb_cuda_node_health(health, dev, bus);
}

/* ---- cold-cache mode ------------------------------------------------------ */

/* Twice the L2, allocated on first use and kept for the process (freed with
 * the context at exit): allocating between repetitions would add a
 * synchronizing cudaMalloc to every flush. One per device (in its context). */

void gb_cuda_flush_l2(void) {
    gb_err e;
    if (!gb_cuda.l2_buf) {
        size_t l2 = gb_cuda.prop.l2CacheSize > 0 ? (size_t)gb_cuda.prop.l2CacheSize : (size_t)64 << 20;
        gb_cuda.l2_bytes = 2 * l2;
        if (gb_cuda_check(cudaMalloc(&gb_cuda.l2_buf, gb_cuda.l2_bytes), "cudaMalloc (L2 flush buffer)", &e) != GB_OK) {
            fprintf(stderr, "gpubench: warning: %s; cold-cache mode cannot flush the GPU L2\n", e.msg);
            gb_cuda.l2_buf = NULL;
            return;
        }
    }
    /* A different byte each pass: every line of the buffer is really
     * written, so whatever the L2 held before is evicted. */
    if (gb_cuda_check(cudaMemsetAsync(gb_cuda.l2_buf, (int)(++gb_cuda.l2_pass & 0xff), gb_cuda.l2_bytes, gb_cuda.stream),
                      "cudaMemsetAsync (L2 flush)", &e) != GB_OK ||
        gb_cuda_check(cudaStreamSynchronize(gb_cuda.stream), "cudaStreamSynchronize (L2 flush)", &e) != GB_OK)
        fprintf(stderr, "gpubench: warning: %s\n", e.msg);
}
