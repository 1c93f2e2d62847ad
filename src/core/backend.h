/* backend.h — the backend contract: the one interface the runner calls.
 *
 * Implemented once per backend (cpu_backends/, gpu_backends/). The runner
 * owns warm-up, the stopping rule, statistics and verification, so both
 * backends are measured by the same rule; a backend only knows how to set a
 * case up, run one repetition and time it, and hand the output back.
 *
 * The CUDA backend is a plugin: a shared object exporting
 *     const gb_backend *gb_backend_plugin(void);
 * which `gpubench` opens with dlopen at run time (src/system/plugin.c). Its
 * abi_version must equal GB_ABI_VERSION. */
#ifndef GB_BACKEND_H
#define GB_BACKEND_H

#include <cjson/cJSON.h>
#include "energy.h"
#include "gb.h"

typedef struct {
    int threads;       /* CPU threads to use (>= 1) */
    int device;        /* GPU ordinal (--device); used when ndevices is 0 */
    int ndevices;      /* --devices: how many of devices[] to bring up; 0: [device] */
    int devices[GB_MAX_DEVICES];
    int all_devices;   /* --devices all: every device the backend sees (devices[] unused) */
    int cache_cold;    /* flush caches between reps (flush_caches is called) */
    /* Bits (1 << gb_dtype) of the dtypes the run's GEMMs use: measure_peaks
     * adds the GEMM ceilings of those beyond float32/float64 (so a run
     * without them spends no time on them). */
    unsigned peak_dtypes;
    /* `run` (not --peak fresh): the ceilings measured quickly, products of
     * about 0.08 s instead of 0.3 s, so a first run's table comes in seconds;
     * results that beat them raise the kept values (run_peaks.h); `gpubench
     * peak` and --peak fresh measure in full. */
    int peaks_quick;
} gb_backend_options;

/* How a repetition is timed. A backend offers one or more timings; the
 * runner measures each with the same stopping rule and records each. */
#define GB_MAX_TIMINGS 3

typedef struct gb_backend {
    int abi_version;              /* GB_ABI_VERSION at build time */
    const char *name;             /* "cpu", "cuda" */
    gb_backend_role role;
    int ntimings;
    /* cpu: {"host"}; cuda: {"device", "end_to_end", "end_to_end_overlapped"} */
    const char *timings[GB_MAX_TIMINGS];
    /* as tables print them: "cpu"; "gpu dev", "gpu e2e", "gpu e2e-ovl" (the
     * last word heads the GPU ms and speedup columns) */
    const char *timing_labels[GB_MAX_TIMINGS];

    /* Bring the backend up. GB_OK when usable; otherwise GB_SKIP with the
     * reason ("no CUDA device", "driver too old") and it is listed as
     * unavailable. Called once, before anything else. */
    int (*init)(const gb_backend_options *opt, gb_err *why);
    /* Add what identifies this backend's hardware and libraries to ctx
     * (an object): e.g. "gpu": {...}, "libraries": {...}. */
    void (*describe)(cJSON *ctx);
    /* GB_OK or GB_SKIP with the reason. Includes the memory estimate: a case
     * that does not fit the device is GB_SKIP, "needs 12.3 GiB, 8.1 free". */
    int (*supports)(const gb_case *c, gb_err *why);
    /* Allocate, upload, create plans/handles/workspaces. Not timed as
     * compute: the runner records its wall time as setup time. Outputs are
     * poisoned here. Returns GB_OK, GB_SKIP, GB_FAIL or GB_FATAL. */
    int (*prepare)(const gb_case *c, const gb_arrays *in, void **state, gb_err *e);
    /* One repetition, issued the way a user would issue it, timed by the
     * backend's own clock for that timing: the host monotonic clock on the
     * CPU; CUDA events on the backend's stream (synchronized before reading)
     * for "device"; host clock around H2D → op → D2H after a stream sync for
     * "end_to_end". Work that restores an overwritten input (e.g. a fresh
     * copy of A before a factorization) is part of the repetition. */
    int (*run)(void *state, int timing, double *seconds, gb_err *e);
    /* Copy the output of the last repetition into out (host arrays, named
     * as in src/ops/op.h). Called after timing. */
    int (*fetch)(void *state, gb_arrays *out, gb_err *e);
    /* Facts about how the case ran, into extra (an object): routine names,
     * output nnz, math mode. May be NULL. */
    void (*annotate)(void *state, cJSON *extra);
    void (*release)(void *state);
    /* Evict this backend's caches (CPU last-level cache, GPU L2); called
     * between repetitions, outside the timer, in cold-cache mode. May be NULL. */
    void (*flush_caches)(void);
    /* Measure this backend's ceilings into peaks (an object of numbers, e.g.
     * "copy_gbs", "gemm_float32_gflops"). May be NULL. */
    int (*measure_peaks)(cJSON *peaks, gb_err *e);
    /* The key in this backend's peaks that bounds this case's rate with this
     * timing ("gemm_float32_gflops", "triad_gbs", ...), or NULL when none
     * does (an end-to-end time includes transfers, which no single ceiling
     * bounds). May be NULL: no % of peak. */
    const char *(*ceiling)(const gb_case *c, int timing);
    /* Read-only health facts (clocks, throttle reasons, governor) into
     * health; the runner calls it before and after the run. May be NULL. */
    void (*health)(cJSON *health);
    void (*shutdown)(void);
    /* Is this backend at its best in this process? Reads the context its
     * describe() filled (library settings, who chose them) and appends one
     * warning per handicap, naming where the setting came from and how to
     * change it. May be NULL. Returns the number of warnings added. */
    int (*check)(const cJSON *context, cJSON *warnings);
    /* Devices (--devices). How many devices init brought up (0 or NULL: a
     * backend without devices, such as the CPU), in the order asked for. */
    int (*device_count)(void);
    /* Describe device k (0 <= k < device_count()) into info and make it the
     * one this host thread's supports/prepare/run/fetch/release use (the
     * runner calls it before each visit; with --devices-concurrent each
     * thread calls it for its own device). GB_OK, or GB_FATAL with why. */
    int (*use_device)(int k, gb_device_info *info, gb_err *e);
    /* Does this timing apply to this case (1) or not (0)? A timing only some
     * ops have (the CUDA backend's end_to_end_overlapped: ops whose work
     * splits into independent chunks) gets no result at all for the others,
     * rather than a "skipped" in every table. May be NULL: every timing
     * applies to every case. */
    int (*has_timing)(const gb_case *c, int timing);
    /* Energy and clocks (core/energy.h, docs/energy.md). What device k
     * (0 <= k < device_count()) offers: GB_OK with info filled, or GB_SKIP
     * with info->why. And one sample of it: its cumulative energy counter,
     * SM and memory clocks and the clock-event reasons now (NAN / has_reasons
     * 0 for what it cannot read). monitor_read is called from another host
     * thread while this one runs repetitions, so it must be thread-safe and
     * make no call on the device's stream (NVML is both). May be NULL: the
     * backend's energy is not measured this way (the host backend's is the
     * CPU's RAPL, system/energy_cpu.h). */
    int (*monitor_info)(int k, gb_monitor_info *info);
    int (*monitor_read)(int k, gb_monitor_sample *s);
} gb_backend;

/* Per-op part of a backend: each op file of a backend exports one of these,
 * and the backend's registration file dispatches to it by c->op_id. */
typedef struct gb_op_impl {
    int (*supports)(const gb_case *c, gb_err *why);   /* may be NULL: supported */
    int (*prepare)(const gb_case *c, const gb_arrays *in, void **state, gb_err *e);
    int (*run)(void *state, int timing, double *seconds, gb_err *e);
    int (*fetch)(void *state, gb_arrays *out, gb_err *e);
    void (*annotate)(void *state, cJSON *extra);      /* may be NULL */
    void (*release)(void *state);
    /* The backend's optional timings this op has (see gb_backend.has_timing);
     * may be NULL: none of them. */
    int (*has_timing)(const gb_case *c, int timing);
    /* The OpenMP team a prepared state runs on, for an op whose loop is
     * gpubench's own (the CPU backend chooses it by measuring, cpu_team.c);
     * may be NULL: the op's library decides. */
    void (*set_threads)(void *state, int threads);
    /* Whether this prepared state's team is gpubench's to choose (a state
     * whose library sizes its own threads says no); may be NULL: yes. */
    int (*takes_team)(void *state);
} gb_op_impl;

/* The CPU backend is linked in; the CUDA one comes from the plugin. */
const gb_backend *gb_cpu_backend(void);
/* An option a backend reads from the command line (--NAME VALUE), declared
 * by that backend: the commands that set the process up (run, peak, info)
 * offer every linked-in backend's options and hand their values over
 * (run/backends.h), so no command names a backend or its options. */
typedef struct {
    const char *name;                          /* without the dashes: "openblas-core" */
    int (*set)(const char *value, gb_err *e);  /* remember it for setup_process; GB_OK or GB_FAIL */
    const char *synopsis;                      /* for a usage line: "[--openblas-core auto|detected|NAME]" */
    const char *help;                          /* the lines of `run --help`, each "  --NAME ARG   what...\n" */
} gb_backend_flag;
/* A linked-in backend's process-wide settings: its options, and the set-up
 * that applies them before anything is measured or described. setup_process
 * may re-execute the process (argv) once, when a setting is read by a library
 * only as it loads; GB_OK, or GB_FAIL with the reason, naming the option. */
typedef struct {
    const gb_backend_flag *flags;              /* ends with {NULL} */
    int (*setup_process)(char **argv, gb_err *e);
} gb_backend_process;
/* The CPU backend's (cpu_backends/cpu_environment.c): --openblas-core, the
 * OpenBLAS core and OpenMP's wait policy; --cpu-gemm and --cpu-blas. */
const gb_backend_process *gb_cpu_process(void);
typedef const gb_backend *(*gb_backend_plugin_fn)(void);
#define GB_PLUGIN_SYMBOL "gb_backend_plugin"

#endif
