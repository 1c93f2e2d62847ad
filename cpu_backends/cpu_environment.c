/* cpu_environment.c — the process settings that make the CPU side honest
 * by default, applied before anything is measured.
 *
 * Two settings are read by a library only when it loads, so changing them
 * means re-executing the process, which happens here at most once:
 *   - OPENBLAS_CORETYPE: the OpenBLAS kernels (openblas_core.h has the rule
 *     and who may choose);
 *   - OMP_WAIT_POLICY: one process runs three thread pools — OpenMP (our
 *     fused loops, GraphBLAS), OpenBLAS's pthreads and FFTW's — and libgomp's
 *     default lets idle workers spin, starving the other pools on the same
 *     cores: measured on 2 cores, a 64×64 float64 Cholesky solve took 7.5 ms
 *     after an OpenMP region instead of 0.03 ms. So OpenMP workers sleep when
 *     idle (PASSIVE), unless the user chose a policy.
 * The settings a user made explicitly win; the backend's check then warns
 * and names where each came from. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <cblas.h>

#include "cpu_backend.h"
#include "openblas_core.h"

/* Set in the environment of the re-executed process: who chose the core,
 * the core asked for, and what OpenBLAS detected by itself before. They are
 * read and removed at once, so a child process does not inherit them. */
#define MARK_BY "GPUBENCH_OPENBLAS_CORE_BY"
#define MARK_ASKED "GPUBENCH_OPENBLAS_CORE_ASKED"
#define MARK_DETECTED "GPUBENCH_OPENBLAS_CORE_DETECTED"
#define MARK_IGNORED "GPUBENCH_OPENBLAS_CORE_IGNORED"

static char detected_core[64];

const char *gb_cpu_openblas_detected_core(void) { return detected_core[0] ? detected_core : NULL; }

/* Second pass, after re-executing: take the markers, check OpenBLAS took
 * the core asked for. */
static int after_reexec(gb_err *e) {
    const char *by = getenv(MARK_BY), *asked = getenv(MARK_ASKED), *det = getenv(MARK_DETECTED);
    static char who[32];
    snprintf(who, sizeof who, "%s", by);
    gb_openblas_set_core_chosen_by(who);
    if (det) snprintf(detected_core, sizeof detected_core, "%s", det);
    if (getenv(MARK_IGNORED)) gb_openblas_set_ignored_env(getenv(MARK_IGNORED));
    int status = GB_OK;
    const char *core = openblas_get_corename();
    if (asked && *asked && strcasecmp(asked, core) != 0)
        status = gb_errf(e, GB_FAIL,
                         "asked OpenBLAS for OPENBLAS_CORETYPE=%s but it runs %s (this build may not have "
                         "that core); pass --openblas-core detected to run what it detects",
                         asked, core);
    unsetenv(MARK_BY);
    unsetenv(MARK_ASKED);
    unsetenv(MARK_DETECTED);
    unsetenv(MARK_IGNORED);
    return status;
}

static int setup_process(const char *core_flag, char **argv, gb_err *e) {
    if (getenv(MARK_BY)) return after_reexec(e);
    if (core_flag && !*core_flag) return gb_errf(e, GB_FAIL, "--openblas-core: expected auto, detected or a core name");

    const char *env_core = getenv("OPENBLAS_CORETYPE");
    if (env_core && !*env_core) env_core = NULL;
    const char *running = openblas_get_corename();
    /* OpenBLAS read OPENBLAS_CORETYPE when it loaded: if it runs another core,
     * it did not take the name (unknown, or a core this build lacks) and fell
     * back to its own detection. That counts as not set (so the honest
     * default applies), and the run warns naming it. With a flag the flag
     * decides and the variable is replaced anyway. */
    if (env_core && !core_flag && strcasecmp(env_core, running) != 0) {
        gb_openblas_set_ignored_env(env_core);
        env_core = NULL;
    }
    /* What OpenBLAS detects by itself is known only when nothing forced it. */
    if (!env_core) snprintf(detected_core, sizeof detected_core, "%s", running);

    const char *want = NULL, *by = NULL; /* want: NULL = leave OPENBLAS_CORETYPE as it is; "" = unset it */
    if (!core_flag) {
        if (env_core) {
            by = "environment";
        } else {
            const char *best = gb_openblas_best_core_here();
            int better = best && strcasecmp(best, running) != 0;
            by = better ? "gpubench" : "openblas";
            want = better ? best : NULL;
        }
    } else if (!strcmp(core_flag, "auto")) {
        const char *best = gb_openblas_best_core_here();
        if (best) {
            by = strcasecmp(best, running) == 0 && !env_core ? "openblas" : "gpubench";
            want = best;
        } else {
            by = "openblas";
            want = env_core ? "" : NULL;
        }
    } else if (!strcmp(core_flag, "detected")) {
        by = "openblas";
        want = env_core ? "" : NULL;
    } else {
        by = "flag";
        want = core_flag;
    }
    if (want && *want && !strcasecmp(want, running) && (!env_core || !strcasecmp(env_core, want))) want = NULL;

    int need_omp = getenv("OMP_WAIT_POLICY") == NULL;
    gb_openblas_set_core_chosen_by(by);
    if (!want && !need_omp) return GB_OK;

    if (want && *want && !strcmp(by, "gpubench")) {
        if (env_core)
            fprintf(stderr, "gpubench: --openblas-core auto: using the %s kernels instead of OPENBLAS_CORETYPE=%s "
                            "from the environment\n", want, env_core);
        else
            fprintf(stderr, "gpubench: OpenBLAS detected its %s kernels on this CPU; using %s, the best this CPU "
                            "supports (--openblas-core detected keeps %s)\n", running, want, running);
    }
    if (need_omp) setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    if (want) {
        if (*want) setenv("OPENBLAS_CORETYPE", want, 1);
        else unsetenv("OPENBLAS_CORETYPE");
    }
    setenv(MARK_BY, by, 1);
    setenv(MARK_ASKED, want ? want : "", 1);
    if (detected_core[0]) setenv(MARK_DETECTED, detected_core, 1);
    if (gb_openblas_ignored_env()) setenv(MARK_IGNORED, gb_openblas_ignored_env(), 1);
    fflush(stdout);
    fflush(stderr);
    execv("/proc/self/exe", argv);
    int err = errno;
    unsetenv(MARK_BY);
    unsetenv(MARK_ASKED);
    unsetenv(MARK_DETECTED);
    unsetenv(MARK_IGNORED);
    if (!want) return GB_OK; /* only the OpenMP policy: go on as we are */
    return gb_errf(e, GB_FAIL, "re-executing with OPENBLAS_CORETYPE=%s: execv(/proc/self/exe): %s", want,
                   strerror(err));
}

/* ---- the backend's options (backend.h, gb_backend_process) ---------------- */

static const char *core_flag; /* --openblas-core; NULL: not given (the honest default) */

static int set_core(const char *value, gb_err *e) {
    core_flag = value;
    return GB_OK;
}

/* --cpu-gemm LIB: the GEMM library of every dtype it has (cpu_gemm_choice.c). */
static int cpu_gemm_forced;
static int set_cpu_gemm(const char *value, gb_err *e) {
    int lib = gb_cpu_gemm_lib_parse(value);
    if (lib < 0) return gb_errf(e, GB_FAIL, "--cpu-gemm: expected auto, openblas, onednn or blis, got \"%s\"", value);
    cpu_gemm_forced = lib != GB_CPU_GEMM_AUTO;
    gb_cpu_set_gemm(lib);
    return GB_OK;
}

/* --cpu-blas PATH: a site's CBLAS for float32/float64 (cpu_gemm_dl.c). */
static int set_cpu_blas(const char *value, gb_err *e) {
    if (!*value) return gb_errf(e, GB_FAIL, "--cpu-blas: expected the path of a CBLAS shared library");
    gb_cpu_set_blas_path(value);
    return GB_OK;
}

static int setup_with_flags(char **argv, gb_err *e) {
    gb_err why = {{0}};
    if (setup_process(core_flag, argv, &why) != GB_OK) return gb_errf(e, GB_FAIL, "--openblas-core: %s", why.msg);
    if (!gb_cpu_blas_path()) return GB_OK;
    if (cpu_gemm_forced)
        return gb_errf(e, GB_FAIL, "--cpu-blas and --cpu-gemm both choose the float32/float64 GEMM library: give one");
    /* opened now, so that a wrong path stops the run before anything is measured */
    if (gb_cpu_dl_available(GB_CPU_GEMM_CBLAS, &why) != GB_OK) return gb_errf(e, GB_FAIL, "%s", why.msg);
    return GB_OK;
}

const gb_backend_process *gb_cpu_process(void) {
    static const gb_backend_flag flags[] = {
        {"openblas-core", set_core, "[--openblas-core auto|detected|NAME]",
         "  --openblas-core C   OpenBLAS kernels: auto (the best for this CPU, the default unless\n"
         "                      OPENBLAS_CORETYPE is set), detected (what OpenBLAS picks itself)\n"
         "                      or a core name such as Haswell\n"},
        {"cpu-gemm", set_cpu_gemm, "[--cpu-gemm auto|openblas|onednn|blis]",
         "  --cpu-gemm LIB      CPU GEMM library: auto (the default: oneDNN for bfloat16/float16/\n"
         "                      int8; for float32/float64 the fastest per shape class, measured\n"
         "                      once and kept), openblas, onednn or blis (every dtype it has)\n"},
        {"cpu-blas", set_cpu_blas, "[--cpu-blas PATH]",
         "  --cpu-blas PATH     float32/float64 GEMMs through this CBLAS library (e.g. MKL's\n"
         "                      libmkl_rt.so), opened at run time; named in a warning and the results\n"},
        {NULL, NULL, NULL, NULL}};
    static const gb_backend_process p = {flags, setup_with_flags};
    return &p;
}
