/* cuda_backend.c — the CUDA backend's registration: bringing the device up
 * (with the reason when it cannot be), describing it, dispatching each case
 * to its op file, and the plugin's one exported symbol. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.h"

/* Each op's implementation, by op id (the table of ops, column cuda). */
static const gb_op_impl *const impls[GB_OP_COUNT] = {
#define GB_OP(ID, name, cpu, cuda) [GB_OP_##ID] = &cuda,
#include "ops.def"
};

static const gb_op_impl *impl_for(int id) { return id >= 0 && id < GB_OP_COUNT ? impls[id] : NULL; }

typedef struct {
    const gb_op_impl *impl;
    void *inner;
} cuda_state;

static int initialized;

static void cuda_shutdown(void);

/* "13.0" from 13000. */
/* The NVIDIA driver's version ("580.159.04"): NVML's
 * nvmlSystemGetDriverVersion, else the NVRM line of
 * /proc/driver/nvidia/version read by gb_nvidia_driver_from_proc (the word
 * after "Kernel Module" is "for" with the open kernel modules). 0 when
 * neither has it (a container without either). */
static int nvidia_driver_version(char *buf, size_t len) {
    if (gb_cuda_nvml_driver_version(buf, len)) return 1;
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return 0;
    char text[1024];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return gb_nvidia_driver_from_proc(text, buf, len);
}

static void version_string(int v, char *out, size_t cap) {
    snprintf(out, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* cudart reports a missing driver as "insufficient driver" with driver
 * version 0; say instead what the loader says about libcuda. */
static void no_driver_reason(char *out, size_t cap) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h) {
        dlclose(h);
        snprintf(out, cap, "the NVIDIA driver (libcuda.so.1) loads but reports no usable CUDA version");
        return;
    }
    const char *err = dlerror();
    snprintf(out, cap, "no NVIDIA driver: %s", err ? err : "libcuda.so.1 cannot be loaded");
    /* errno's text after the loader's adds nothing. */
    const char *tail = ": No such file or directory";
    size_t len = strlen(out), tlen = strlen(tail);
    if (len > tlen && strcmp(out + len - tlen, tail) == 0) out[len - tlen] = '\0';
}

/* Bring one device up into gb_cuda (the current context): its stream,
 * events, library handles and memory pool. */
static int init_device(int ordinal, gb_err *why) {
    int status = GB_OK;
    gb_err *e = why;
    memset(&gb_cuda, 0, sizeof gb_cuda);
    gb_cuda.device = ordinal;
    CUDA_TRY(cudaSetDevice(gb_cuda.device));
    CUDA_TRY(cudaGetDeviceProperties(&gb_cuda.prop, gb_cuda.device));
    /* The plugin carries sm_80 and sm_90 code and compute_90 PTX: anything
     * older than 8.0 has no image for our own kernels. */
    if (gb_cuda.prop.major < 8)
        return gb_errf(why, GB_SKIP,
                       "device %d (%s) has compute capability %d.%d; this build has code for 8.0 and newer",
                       gb_cuda.device, gb_cuda.prop.name, gb_cuda.prop.major, gb_cuda.prop.minor);
    CUDA_TRY(cudaStreamCreateWithFlags(&gb_cuda.stream, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreate(&gb_cuda.ev_start));
    CUDA_TRY(cudaEventCreate(&gb_cuda.ev_stop));
    CUBLAS_TRY(cublasCreate(&gb_cuda.cublas));
    CUBLAS_TRY(cublasSetStream(gb_cuda.cublas, gb_cuda.stream));
    CUSOLVER_TRY(cusolverDnCreate(&gb_cuda.cusolver));
    CUSOLVER_TRY(cusolverDnSetStream(gb_cuda.cusolver, gb_cuda.stream));
    CUSPARSE_TRY(cusparseCreate(&gb_cuda.cusparse));
    CUSPARSE_TRY(cusparseSetStream(gb_cuda.cusparse, gb_cuda.stream));
    for (int i = 0; i < GB_CUDA_CHUNK_STREAMS; i++) {
        CUDA_TRY(cudaStreamCreateWithFlags(&gb_cuda.chunk_stream[i], cudaStreamNonBlocking));
        CUDA_TRY(cudaEventCreateWithFlags(&gb_cuda.chunk_done[i], cudaEventDisableTiming));
    }
    CUDA_TRY(cudaEventCreateWithFlags(&gb_cuda.ev_fork, cudaEventDisableTiming));
    /* cudaMallocAsync (spgemm's output) draws from the default pool; with
     * the default threshold of 0 the pool hands memory back to the driver at
     * every synchronization and each repetition pays for a fresh map. */
    if (gb_cuda.prop.memoryPoolsSupported) { /* every 8.0+ device on a current driver; else ops say so */
        CUDA_TRY(cudaDeviceGetDefaultMemPool(&gb_cuda.pool, gb_cuda.device));
        uint64_t threshold = UINT64_MAX;
        CUDA_TRY(cudaMemPoolSetAttribute(gb_cuda.pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    }
fail:
    return status;
}

static int cuda_init(const gb_backend_options *opt, gb_err *why) {
    int rt = 0, drv = 0, n = 0;
    memset(gb_cuda_devs, 0, sizeof gb_cuda_devs);
    gb_cuda_ndevs = 0;
    gb_cuda_peak_dtypes = opt->peak_dtypes;
    gb_cuda_cur = &gb_cuda_devs[0];
    (void)cudaRuntimeGetVersion(&rt);
    (void)cudaDriverGetVersion(&drv);
    cudaError_t rc = cudaGetDeviceCount(&n);
    char rts[16], drvs[16];
    version_string(rt, rts, sizeof rts);
    version_string(drv, drvs, sizeof drvs);
    if (rc == cudaErrorNoDevice || (rc == cudaSuccess && n == 0))
        return gb_errf(why, GB_SKIP, "no CUDA device");
    if (rc == cudaErrorInsufficientDriver) {
        if (drv == 0) {
            char reason[GB_MSG_LEN - 32];
            no_driver_reason(reason, sizeof reason);
            return gb_errf(why, GB_SKIP, "%s", reason);
        }
        return gb_errf(why, GB_SKIP, "driver too old: driver supports CUDA %s, runtime is %s", drvs, rts);
    }
    if (rc != cudaSuccess)
        return gb_errf(why, GB_SKIP, "cudaGetDeviceCount: %s: %s (driver CUDA %s, runtime %s)",
                       cudaGetErrorName(rc), cudaGetErrorString(rc), drvs, rts);
    /* The devices to bring up: --devices all, --devices LIST, or --device. */
    int want[GB_MAX_DEVICES], nwant = 0;
    if (opt->all_devices)
        for (int d = 0; d < n && nwant < GB_MAX_DEVICES; d++) want[nwant++] = d;
    else if (opt->ndevices > 0)
        for (int i = 0; i < opt->ndevices; i++) want[nwant++] = opt->devices[i];
    else
        want[nwant++] = opt->device;
    for (int i = 0; i < nwant; i++)
        if (want[i] < 0 || want[i] >= n)
            return gb_errf(why, GB_SKIP, "device %d does not exist (%d device%s)", want[i], n, n == 1 ? "" : "s");
    for (int i = 0; i < nwant; i++) {
        gb_cuda_cur = &gb_cuda_devs[i];
        gb_cuda_ndevs = i + 1; /* so that shutdown releases what this one made */
        if (init_device(want[i], why) != GB_OK) {
            cuda_shutdown();
            /* init reports "cannot run here", whatever the call: the backend is
             * listed as unavailable with this reason. */
            return GB_SKIP;
        }
    }
    gb_cuda_cur = &gb_cuda_devs[0];
    if (cudaSetDevice(gb_cuda.device) != cudaSuccess) {
        gb_errf(why, GB_SKIP, "cudaSetDevice(%d) failed", gb_cuda.device);
        cuda_shutdown();
        return GB_SKIP;
    }
    initialized = 1;
    return GB_OK;
}

static int cuda_device_count(void) { return initialized ? gb_cuda_ndevs : 0; }

static int cuda_use_device(int k, gb_device_info *info, gb_err *e) {
    int status = GB_OK;
    if (k < 0 || k >= gb_cuda_ndevs) return gb_errf(e, GB_FATAL, "no device at position %d of --devices", k);
    gb_cuda_cur = &gb_cuda_devs[k];
    if (gb_cuda.lost) return gb_errf(e, GB_FATAL, "CUDA context lost earlier: %s", gb_cuda.lost_reason);
    CUDA_TRY(cudaSetDevice(gb_cuda.device));
    if (info) {
        memset(info, 0, sizeof *info);
        info->index = gb_cuda.device;
        snprintf(info->name, sizeof info->name, "%s", gb_cuda.prop.name);
        gb_cuda_uuid_text(&gb_cuda.prop, info->uuid, sizeof info->uuid);
        if (cudaDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, gb_cuda.device) != cudaSuccess) {
            info->pci_bus_id[0] = '\0';
            (void)cudaGetLastError();
        }
    }
fail:
    return status;
}

static void add_version(cJSON *libs, const char *key, int major, int minor, int patch) {
    char v[48];
    snprintf(v, sizeof v, "%d.%d.%d", major, minor, patch);
    cJSON_DeleteItemFromObjectCaseSensitive(libs, key);
    cJSON_AddStringToObject(libs, key, v);
}

static void cuda_describe(cJSON *ctx) {
    if (!initialized) return;
    const struct cudaDeviceProp *p = &gb_cuda.prop;
    cJSON *gpu = cJSON_AddObjectToObject(ctx, "gpu");
    char buf[64];
    cJSON_AddStringToObject(gpu, "name", p->name);
    cJSON_AddNumberToObject(gpu, "device", gb_cuda.device);
    snprintf(buf, sizeof buf, "%d.%d", p->major, p->minor);
    cJSON_AddStringToObject(gpu, "compute_capability", buf);
    cJSON_AddNumberToObject(gpu, "sm_count", p->multiProcessorCount);
    cJSON_AddNumberToObject(gpu, "memory_bytes", (double)p->totalGlobalMem);
    cJSON_AddNumberToObject(gpu, "l2_bytes", p->l2CacheSize);
    cJSON_AddNumberToObject(gpu, "memory_bus_width_bits", p->memoryBusWidth);
    /* Clock rates left cudaDeviceProp in CUDA 13; the attributes remain. */
    int clk = 0, memclk = 0;
    if (cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, gb_cuda.device) == cudaSuccess)
        cJSON_AddNumberToObject(gpu, "sm_clock_max_mhz", clk / 1000.0);
    if (cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, gb_cuda.device) == cudaSuccess) {
        cJSON_AddNumberToObject(gpu, "memory_clock_max_mhz", memclk / 1000.0);
        /* Double data rate: two transfers per clock over the bus. */
        cJSON_AddNumberToObject(gpu, "memory_bandwidth_theoretical_gbs",
                                2.0 * memclk * 1e3 * (p->memoryBusWidth / 8.0) / 1e9);
    }
    (void)cudaGetLastError();
    cJSON_AddBoolToObject(gpu, "ecc_enabled", p->ECCEnabled != 0);
    if (cudaDeviceGetPCIBusId(buf, (int)sizeof buf, gb_cuda.device) == cudaSuccess)
        cJSON_AddStringToObject(gpu, "pci_bus_id", buf);
    (void)cudaGetLastError();
    gb_cuda_uuid_text(p, buf, sizeof buf);
    cJSON_AddStringToObject(gpu, "uuid", buf);
    int rt = 0, drv = 0;
    (void)cudaRuntimeGetVersion(&rt);
    (void)cudaDriverGetVersion(&drv);
    version_string(drv, buf, sizeof buf);
    /* The CUDA driver API version ("13.0"): what CUDA the driver supports,
     * not the NVIDIA driver's own version (nvidia_driver below). Files before
     * this one also had it as "driver_version", a name that said otherwise;
     * the readers take that key where this one is absent. */
    cJSON_AddStringToObject(gpu, "cuda_driver_api_version", buf);
    if (nvidia_driver_version(buf, sizeof buf)) cJSON_AddStringToObject(gpu, "nvidia_driver", buf);
    version_string(rt, buf, sizeof buf);
    cJSON_AddStringToObject(gpu, "runtime_version", buf);

    cJSON *libs = cJSON_GetObjectItemCaseSensitive(ctx, "libraries");
    if (!libs) libs = cJSON_AddObjectToObject(ctx, "libraries");
    int ma = 0, mi = 0, pa = 0;
    add_version(libs, "cuda_runtime", rt / 1000, (rt % 1000) / 10, rt % 10);
    if (cublasGetProperty(MAJOR_VERSION, &ma) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &mi) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &pa) == CUBLAS_STATUS_SUCCESS)
        add_version(libs, "cublas", ma, mi, pa);
    if (cufftGetProperty(MAJOR_VERSION, &ma) == CUFFT_SUCCESS &&
        cufftGetProperty(MINOR_VERSION, &mi) == CUFFT_SUCCESS &&
        cufftGetProperty(PATCH_LEVEL, &pa) == CUFFT_SUCCESS)
        add_version(libs, "cufft", ma, mi, pa);
    if (cusolverGetProperty(MAJOR_VERSION, &ma) == CUSOLVER_STATUS_SUCCESS &&
        cusolverGetProperty(MINOR_VERSION, &mi) == CUSOLVER_STATUS_SUCCESS &&
        cusolverGetProperty(PATCH_LEVEL, &pa) == CUSOLVER_STATUS_SUCCESS)
        add_version(libs, "cusolver", ma, mi, pa);
    if (cusparseGetProperty(MAJOR_VERSION, &ma) == CUSPARSE_STATUS_SUCCESS &&
        cusparseGetProperty(MINOR_VERSION, &mi) == CUSPARSE_STATUS_SUCCESS &&
        cusparseGetProperty(PATCH_LEVEL, &pa) == CUSPARSE_STATUS_SUCCESS)
        add_version(libs, "cusparse", ma, mi, pa);
}

static int cuda_supports(const gb_case *c, gb_err *why) {
    int status = gb_cuda_lost_check(why);
    if (status != GB_OK) return status;
    const gb_op_impl *impl = impl_for(c->op_id);
    if (!impl) return gb_errf(why, GB_SKIP, "op not built into this CUDA plugin");
    return impl->supports ? impl->supports(c, why) : GB_OK;
}

static int cuda_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = gb_cuda_lost_check(e);
    if (status != GB_OK) return status;
    const gb_op_impl *impl = impl_for(c->op_id);
    if (!impl) return gb_errf(e, GB_SKIP, "op not built into this CUDA plugin");
    /* The current device is per host thread: set it for whichever thread
     * the runner prepares on. */
    CUDA_TRY(cudaSetDevice(gb_cuda.device));
    cuda_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->impl = impl;
    status = impl->prepare(c, in, &s->inner, e);
    if (status != GB_OK) {
        free(s);
        return status;
    }
    *state = s;
    return GB_OK;
fail:
    return status;
}

static int cuda_run(void *state, int timing, double *seconds, gb_err *e) {
    int status = gb_cuda_lost_check(e);
    if (status != GB_OK) return status;
    cuda_state *s = state;
    return s->impl->run(s->inner, timing, seconds, e);
}

static int cuda_fetch(void *state, gb_arrays *out, gb_err *e) {
    int status = gb_cuda_lost_check(e);
    if (status != GB_OK) return status;
    cuda_state *s = state;
    return s->impl->fetch(s->inner, out, e);
}

static void cuda_annotate(void *state, cJSON *extra) {
    cuda_state *s = state;
    if (s && s->impl->annotate) s->impl->annotate(s->inner, extra);
}

static void cuda_release(void *state) {
    cuda_state *s = state;
    if (!s) return;
    s->impl->release(s->inner);
    free(s);
}

static void cuda_flush_caches(void) {
    if (!gb_cuda.lost) gb_cuda_flush_l2();
}

static int cuda_measure_peaks(cJSON *peaks, gb_err *e) {
    int status = gb_cuda_lost_check(e);
    if (status != GB_OK) return status;
    return gb_cuda_measure_peaks(peaks, e);
}

static void cuda_health(cJSON *health) {
    if (gb_cuda.lost) {
        cJSON_AddStringToObject(health, "cuda_context_lost", gb_cuda.lost_reason);
        return;
    }
    gb_cuda_health(health);
}

static void cuda_shutdown(void) {
    /* Each destroy is attempted; after a lost context they fail and there
     * is nothing left to release anyway. */
    gb_cuda_pinned_release_all();
    for (int i = 0; i < gb_cuda_ndevs; i++) {
        gb_cuda_context *d = &gb_cuda_devs[i];
        (void)cudaSetDevice(d->device);
        if (d->cusparse) (void)cusparseDestroy(d->cusparse);
        if (d->cusolver) (void)cusolverDnDestroy(d->cusolver);
        if (d->cublas) (void)cublasDestroy(d->cublas);
        if (d->ev_start) (void)cudaEventDestroy(d->ev_start);
        if (d->ev_stop) (void)cudaEventDestroy(d->ev_stop);
        if (d->stream) (void)cudaStreamDestroy(d->stream);
        for (int k = 0; k < GB_CUDA_CHUNK_STREAMS; k++) {
            if (d->chunk_stream[k]) (void)cudaStreamDestroy(d->chunk_stream[k]);
            if (d->chunk_done[k]) (void)cudaEventDestroy(d->chunk_done[k]);
            d->chunk_stream[k] = NULL;
            d->chunk_done[k] = NULL;
        }
        if (d->ev_fork) (void)cudaEventDestroy(d->ev_fork);
        d->ev_fork = NULL;
        d->cusparse = NULL;
        d->cusolver = NULL;
        d->cublas = NULL;
        d->ev_start = d->ev_stop = NULL;
        d->stream = NULL;
    }
    gb_cuda_ndevs = 0;
    gb_cuda_cur = &gb_cuda_devs[0];
    initialized = 0;
}

/* Device timings only: memory-bound ops against the device-to-device copy,
 * the rest against cuBLAS GEMM of their dtype and math mode
 * (gb_cuda_measure_peaks measures them). End-to-end includes transfers,
 * except for transfer, where the transfer is the op: both timings against
 * the pinned-memory copy rate of its direction, whatever its memory. */
static const char *cuda_ceiling(const gb_case *c, int timing) {
    if (c->op_id == GB_OP_TRANSFER)
        return c->params.direction == GB_DIR_H2D   ? "h2d_pinned_gbs"
               : c->params.direction == GB_DIR_D2H ? "d2h_pinned_gbs"
                                                   : "bidir_pinned_gbs";
    if (timing != 0) return NULL;
    /* one device's ceiling does not bound a routine spread over several */
    if (c->op_id == GB_OP_MATMUL_XT || c->op_id == GB_OP_SOLVE_MG || c->op_id == GB_OP_FFT_XT) return NULL;
    if (c->memory_bound) return "d2d_copy_gbs";
    if (c->op_id == GB_OP_MATMUL && c->params.math == GB_MATH_TF32 && c->dtype == GB_FLOAT32)
        return "gemm_tf32_gflops";
    return gb_dtype_gemm_peak(c->dtype);
}

/* device and end_to_end apply to every op; end_to_end_overlapped to the
 * ops whose file implements it (gb_op_impl.has_timing). */
static int cuda_has_timing(const gb_case *c, int timing) {
    if (timing == GB_CUDA_TIMING_DEVICE || timing == GB_CUDA_TIMING_END_TO_END) return 1;
    const gb_op_impl *impl = impl_for(c->op_id);
    return impl && impl->has_timing && impl->has_timing(c, timing);
}

static const gb_backend cuda_backend = {
    .abi_version = GB_ABI_VERSION,
    .name = "cuda",
    .role = GB_ROLE_ACCELERATOR,
    .ntimings = 3,
    .timings = {"device", "end_to_end", "end_to_end_overlapped"},
    .timing_labels = {"gpu dev", "gpu e2e", "gpu e2e-ovl"},
    .has_timing = cuda_has_timing,
    .init = cuda_init,
    .describe = cuda_describe,
    .supports = cuda_supports,
    .prepare = cuda_prepare,
    .run = cuda_run,
    .fetch = cuda_fetch,
    .annotate = cuda_annotate,
    .release = cuda_release,
    .flush_caches = cuda_flush_caches,
    .measure_peaks = cuda_measure_peaks,
    .health = cuda_health,
    .shutdown = cuda_shutdown,
    .ceiling = cuda_ceiling,
    .device_count = cuda_device_count,
    .use_device = cuda_use_device,
    .monitor_info = gb_cuda_monitor_info,
    .monitor_read = gb_cuda_monitor_read,
};

/* The plugin's only exported symbol (everything else is hidden). */
__attribute__((visibility("default"))) const gb_backend *gb_backend_plugin(void) {
    return &cuda_backend;
}
