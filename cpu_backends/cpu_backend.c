/* cpu_backend.c — the CPU backend's registration: thread count, library
 * descriptions, and dispatch of each case to its op file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <omp.h>
#include <cblas.h>
#include <fftw3.h>
#include <GraphBLAS.h>
#include <lapacke.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "openblas_core.h"
#include "cpu_onednn.h"
#include "node_env.h"

/* Each op's implementation, by op id (the table of ops, column cpu). */
static const gb_op_impl *const impls[GB_OP_COUNT] = {
#define GB_OP(ID, name, cpu, cuda) [GB_OP_##ID] = &cpu,
#include "ops.def"
};

static const char *const op_names[GB_OP_COUNT] = {
#define GB_OP(ID, name, cpu, cuda) [GB_OP_##ID] = #name,
#include "ops.def"
};

void gb_cpu_case_key(const gb_case *c, char *buf, size_t len) {
    const gb_params *p = &c->params;
    snprintf(buf, len, "%s %s %s m%d f%d k%d p%d r%d d%.9g s%d t%.9g x%d h%d b%d g%d l%d i%d n%d c%d",
             c->op_id >= 0 && c->op_id < GB_OP_COUNT ? op_names[c->op_id] : "?", gb_dtype_name(c->dtype), c->label,
             p->math, p->fast_math, p->fft_kind, p->fft_planner, p->nrhs, p->density, p->svd_method, p->svd_tol,
             p->direction, p->memory, p->batch, p->gpus, p->block, p->iters, p->norm_every, p->slice_kind);
}

const gb_op_impl *gb_cpu_op_impl(int op_id) {
    return op_id >= 0 && op_id < GB_OP_COUNT ? impls[op_id] : NULL;
}

/* Prepared state: which op implementation it belongs to, and its own state. */
typedef struct {
    const gb_op_impl *impl;
    void *inner;
    char team[200]; /* how its OpenMP team was chosen (cpu_team.c), or "" */
} cpu_state;

static int cpu_init(const gb_backend_options *opt, gb_err *why) {
    /* the CPUs this process was given (taskset, cgroups, SLURM), not the
     * machine's: node_env.h */
    const char *from = "threads_option";
    int cpu_threads = opt->threads > 0 ? opt->threads : gb_node_default_threads(&from);
    gb_cpu_set_threads(cpu_threads);
    omp_set_num_threads(cpu_threads);
    gb_cpu_bind_threads(cpu_threads, from);
    openblas_set_num_threads(cpu_threads);
    gb_cpu_set_peak_dtypes(opt->peak_dtypes);
    gb_cpu_set_peak_quick(opt->peaks_quick);
    return GB_OK;
}

static void cpu_describe(cJSON *ctx) {
    cJSON *libs = cJSON_GetObjectItemCaseSensitive(ctx, "libraries");
    if (!libs) libs = cJSON_AddObjectToObject(ctx, "libraries");
    cJSON *ob = cJSON_AddObjectToObject(libs, "openblas");
    cJSON_AddStringToObject(ob, "config", openblas_get_config());
    cJSON_AddStringToObject(ob, "core", openblas_get_corename());
    cJSON_AddStringToObject(ob, "core_chosen_by", gb_openblas_core_chosen_by());
    if (gb_cpu_openblas_detected_core())
        cJSON_AddStringToObject(ob, "core_detected", gb_cpu_openblas_detected_core());
    cJSON_AddNumberToObject(ob, "threads", openblas_get_num_threads());
    cJSON_AddStringToObject(libs, "fftw", fftw_version);
    cJSON *dn = cJSON_AddObjectToObject(libs, "onednn");
    char dv[16];
    cJSON_AddStringToObject(dn, "version", gb_onednn_version(dv, sizeof dv));
    cJSON_AddStringToObject(dn, "isa", gb_onednn_isa_name());
    gb_err why = {{0}};
    cJSON *bl = cJSON_AddObjectToObject(libs, "blis"); /* opened at run time (cpu_gemm_dl.c) */
    if (gb_cpu_dl_available(GB_CPU_GEMM_BLIS, &why) == GB_OK) cJSON_AddStringToObject(bl, "version", gb_cpu_dl_name(GB_CPU_GEMM_BLIS));
    else cJSON_AddStringToObject(bl, "unavailable", why.msg);
    if (gb_cpu_blas_path() && gb_cpu_dl_available(GB_CPU_GEMM_CBLAS, &why) == GB_OK)
        cJSON_AddStringToObject(libs, "cpu_blas", gb_cpu_dl_name(GB_CPU_GEMM_CBLAS));
    char gbv[64];
    snprintf(gbv, sizeof gbv, "%d.%d.%d", GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR,
             GxB_IMPLEMENTATION_SUB);
    cJSON_AddStringToObject(libs, "graphblas", gbv);
    /* LAPACKE is released with LAPACK and has no version call of its own:
     * ilaver is LAPACK's, answered by the LAPACK the process linked (here
     * OpenBLAS's, which bundles it). */
    lapack_int lma = 0, lmi = 0, lpa = 0;
    LAPACK_ilaver(&lma, &lmi, &lpa);
    char lv[64];
    snprintf(lv, sizeof lv, "%d.%d.%d", (int)lma, (int)lmi, (int)lpa);
    cJSON_AddStringToObject(libs, "lapacke", lv);
    cJSON_AddNumberToObject(ctx, "cpu_threads_used", gb_cpu_threads());
    gb_cpu_describe_binding(ctx);
    gb_cpu_runtime_describe(ctx);
}

/* Memory-bound ops against STREAM triad, the rest against OpenBLAS GEMM of
 * their dtype (gb_cpu_measure_peaks measures both). Transfer's local copy
 * against STREAM's copy counted as transfers count, in bytes delivered. */
static const char *cpu_ceiling(const gb_case *c, int timing) {
    (void)timing;
    if (c->op_id == GB_OP_TRANSFER) return "copy_delivered_gbs";
    if (c->memory_bound) return "triad_gbs";
    return gb_dtype_gemm_peak(c->dtype);
}

/* OpenBLAS's core and threads, OpenMP's wait policy (gb_backend.check). */
static int cpu_check(const cJSON *context, cJSON *warnings) {
    int count = gb_openblas_check(context, warnings);
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(context, "libraries");
    const cJSON *ob = libs ? cJSON_GetObjectItemCaseSensitive(libs, "openblas") : NULL;
    const cJSON *obt = ob ? cJSON_GetObjectItemCaseSensitive(ob, "threads") : NULL;
    const cJSON *used = cJSON_GetObjectItemCaseSensitive(context, "cpu_threads_used");
    char msg[512];
    if (cJSON_IsNumber(obt) && cJSON_IsNumber(used) && obt->valueint > 0 && obt->valueint < used->valueint) {
        snprintf(msg, sizeof msg,
                 "OpenBLAS runs %d thread%s although the CPU side was given %d (OPENBLAS_NUM_THREADS, "
                 "or a build with a lower MAX_THREADS?): BLAS and LAPACK results understate the CPU",
                 obt->valueint, obt->valueint == 1 ? "" : "s", used->valueint);
        cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
        count++;
    }
    /* Thread counts from the environment (common on clusters: =1 for MPI
     * jobs) are not what the CPU side uses: --threads sets every library's
     * count (default all logical CPUs). Say so, so nobody thinks theirs ran. */
    static const char *const thread_vars[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"};
    for (size_t i = 0; i < sizeof thread_vars / sizeof thread_vars[0]; i++) {
        const char *v = getenv(thread_vars[i]);
        if (!v || !*v || !cJSON_IsNumber(used) || atoi(v) == used->valueint) continue;
        snprintf(msg, sizeof msg,
                 "%s=%.16s is set in the environment, but the CPU side uses %d threads: gpubench gives every "
                 "library the --threads count (default: the CPUs this process may run on). Pass --threads %.16s to measure with "
                 "that many",
                 thread_vars[i], v, used->valueint, v);
        cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
        count++;
    }
    if (gb_cpu_blas_path()) {
        const cJSON *cb = libs ? cJSON_GetObjectItemCaseSensitive(libs, "cpu_blas") : NULL;
        snprintf(msg, sizeof msg,
                 "--cpu-blas: float32/float64 GEMMs run on %.300s, not on this build's OpenBLAS/oneDNN/BLIS%s",
                 cJSON_IsString(cb) ? cb->valuestring : gb_cpu_blas_path(),
                 gb_cpu_dl_threads_settable(GB_CPU_GEMM_CBLAS)
                     ? ""
                     : " (it has no thread setter gpubench knows: it runs its own default thread count)");
        cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
        count++;
    }
    /* the user's own binding (OMP_PROC_BIND, OMP_PLACES, --threads) is kept,
     * and named, since it is not the one-thread-per-CPU default */
    const cJSON *bind = cJSON_GetObjectItemCaseSensitive(context, "cpu_binding");
    const cJSON *us = bind ? cJSON_GetObjectItemCaseSensitive(bind, "user_setting") : NULL;
    if (cJSON_IsString(us) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(bind, "how"))) {
        snprintf(msg, sizeof msg,
                 "CPU threads are placed %.200s, not one per CPU of the process's CPU set as by default: %.96s "
                 "is respected",
                 cJSON_GetObjectItemCaseSensitive(bind, "how")->valuestring, us->valuestring);
        cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
        count++;
    }
    count += gb_cpu_runtime_check(context, warnings);
    return count;
}

static int cpu_supports(const gb_case *c, gb_err *why) {
    const gb_op_impl *impl = impls[c->op_id];
    if (!impl) return gb_errf(why, GB_SKIP, "op not implemented on the CPU backend");
    return impl->supports ? impl->supports(c, why) : GB_OK;
}

static int cpu_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    cpu_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->impl = impls[c->op_id];
    int status = s->impl->prepare(c, in, &s->inner, e);
    if (status != GB_OK) {
        free(s);
        return status;
    }
    if (s->impl->set_threads && (!s->impl->takes_team || s->impl->takes_team(s->inner))) {
        char key[256];
        gb_cpu_case_key(c, key, sizeof key);
        gb_cpu_team_choose(s->impl, s->inner, key, s->team, sizeof s->team);
    }
    *state = s;
    return GB_OK;
}

static int cpu_run(void *state, int timing, double *seconds, gb_err *e) {
    cpu_state *s = state;
    return s->impl->run(s->inner, timing, seconds, e);
}

static int cpu_fetch(void *state, gb_arrays *out, gb_err *e) {
    cpu_state *s = state;
    return s->impl->fetch(s->inner, out, e);
}

static void cpu_annotate(void *state, cJSON *extra) {
    cpu_state *s = state;
    if (s->impl->annotate) s->impl->annotate(s->inner, extra);
    if (*s->team) cJSON_AddStringToObject(extra, "team", s->team);
    /* every thread of the process right after its measurement: the one pool
     * is the team plus a stated few (docs/timing.md, "One pool") */
    int alive = gb_cpu_threads_alive();
    if (alive > 0) cJSON_AddNumberToObject(extra, "threads_alive", alive);
}

static void cpu_release(void *state) {
    cpu_state *s = state;
    if (!s) return;
    s->impl->release(s->inner);
    free(s);
}

static const gb_backend cpu_backend = {
    .abi_version = GB_ABI_VERSION,
    .name = "cpu",
    .role = GB_ROLE_HOST,
    .ntimings = 1,
    .timings = {"host"},
    .timing_labels = {"cpu"},
    .init = cpu_init,
    .describe = cpu_describe,
    .supports = cpu_supports,
    .prepare = cpu_prepare,
    .run = cpu_run,
    .fetch = cpu_fetch,
    .annotate = cpu_annotate,
    .release = cpu_release,
    .flush_caches = gb_cpu_flush_caches,
    .measure_peaks = gb_cpu_measure_peaks,
    .health = gb_cpu_health,
    .check = cpu_check,
    .ceiling = cpu_ceiling,
};

const gb_backend *gb_cpu_backend(void) { return &cpu_backend; }
