/* cpu_environment.c — the process settings that make the CPU side honest
 * by default, applied before anything is measured.
 *
 * OPENBLAS_CORETYPE (the OpenBLAS kernels: openblas_core.h has the rule and
 * who may choose) is read by OpenBLAS only when it loads, so changing it
 * means re-executing the process, which happens here at most once. The
 * user's own value is noted first (child_env.h), so that the processes
 * gpubench starts get the user's environment, not gpubench's choice.
 *
 * The OpenMP wait policy is left as the user has it: every CPU library runs
 * on the one libgomp pool (Makefile), whose default lets an idle worker spin
 * for a bounded time (GOMP_SPINCOUNT's default, about 300,000 iterations, a
 * few ms) before it sleeps — a repetition pays no wake-up, and between cases
 * the workers give their CPUs back. gpubench used to set PASSIVE (workers
 * sleep at once) because OpenBLAS's and FFTW's own pools then shared the
 * CPUs; with one pool that cost 38-76 us per wake on the GPU host and made
 * small ops 1.3-7x slower (docs/timing.md, "One pool"). A policy the user
 * set is respected and named in a warning (cpu_backend.c).
 *
 * The markers that carry the first pass's facts through the exec are
 * accepted only with the exec's own token (this process's pid and start
 * time, which an exec keeps): markers inherited from another gpubench or set
 * by hand are removed and named in a warning instead of being believed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cblas.h>

#include "child_env.h"
#include "cpu_backend.h"
#include "node_env.h"
#include "openblas_core.h"
#include "sysinfo.h"

/* Set in the environment of the re-executed process: who chose the core,
 * the core asked for, and what OpenBLAS detected by itself before. They are
 * read and removed at once, so a child process does not inherit them. */
#define MARK_BY "GPUBENCH_OPENBLAS_CORE_BY"
#define MARK_ASKED "GPUBENCH_OPENBLAS_CORE_ASKED"
#define MARK_DETECTED "GPUBENCH_OPENBLAS_CORE_DETECTED"
#define MARK_IGNORED "GPUBENCH_OPENBLAS_CORE_IGNORED"
/* The markers the first pass found without its token (named in a warning
 * by the re-executed process, which alone writes the results). */
#define MARK_FORGED "GPUBENCH_OPENBLAS_CORE_FORGED"
/* Set for the probe (below): print the core OpenBLAS runs, do nothing else;
 * its value is the asking process's token (the probe's parent). */
#define MARK_PROBE "GPUBENCH_OPENBLAS_CORE_PROBE"
/* The re-executed process's token: "<pid>:<start time>" of this process. */
#define MARK_TOKEN "GPUBENCH_REEXEC_TOKEN"
static const char *const markers[] = {MARK_BY,    MARK_ASKED, MARK_DETECTED, MARK_IGNORED,
                                      MARK_FORGED, MARK_PROBE, MARK_TOKEN,    NULL};

/* "<pid>:<start time in clock ticks>" of process pid (/proc/PID/stat field
 * 22, which an exec keeps); "" when unreadable. */
static void process_token(long pid, char *buf, size_t len) {
    char path[64], line[1024];
    buf[0] = 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (!gb_read_line(path, line, sizeof line)) return;
    const char *p = strrchr(line, ')'); /* comm may hold spaces: fields from its end */
    unsigned long long start = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                     &start) != 1)
        return;
    snprintf(buf, len, "%ld:%llu", pid, start);
}

/* Names of the markers that were set without this process's token (forged,
 * or inherited from another gpubench), for the warning; "" when none. */
static char ignored_markers[256];

static void drop_markers(int note) {
    for (const char *const *m = markers; *m; m++) {
        if (note && getenv(*m)) {
            size_t l = strlen(ignored_markers);
            snprintf(ignored_markers + l, sizeof ignored_markers - l, "%s%s", l ? ", " : "", *m);
        }
        unsetenv(*m);
    }
    if (gb_child_env_import_originals(0) > 0 && note) {
        size_t l = strlen(ignored_markers);
        snprintf(ignored_markers + l, sizeof ignored_markers - l, "%sGPUBENCH_ORIGINAL_*", l ? ", " : "");
    }
}

const char *gb_cpu_ignored_markers(void) { return ignored_markers; }

static char detected_core[64];

const char *gb_cpu_openblas_detected_core(void) { return detected_core[0] ? detected_core : NULL; }

/* What OpenBLAS detects by itself while OPENBLAS_CORETYPE forces a core:
 * it reads the variable only when it loads, so a copy of this program is
 * asked, started without it (`gpubench info` with MARK_PROBE, which answers
 * in setup_process before anything else and stops). The results then record
 * core_detected whoever chose the core (a preset image variable hid it, and
 * with it what the machine would run by itself). Left unknown when the copy
 * does not answer. */
static void probe_detected_core(void) {
    extern char **environ;
    size_t n = 0;
    while (environ[n]) n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env) return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "OPENBLAS_CORETYPE=", 18)) env[k++] = environ[i];
    char token[96], probe[128];
    process_token((long)getpid(), token, sizeof token);
    snprintf(probe, sizeof probe, MARK_PROBE "=%s", token);
    env[k++] = probe;
    int fd[2];
    if (pipe(fd) != 0) {
        free(env);
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *args[] = {"gpubench", "info", NULL};
    pid_t pid;
    int spawned = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, args, env) == 0;
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(fd[1]);
    char got[64] = "";
    size_t len = 0;
    /* The copy answers in well under a second; one that does not (OpenBLAS
     * retrying mmap at load under a tight `ulimit -v`, a loaded machine) is
     * not waited for: after GB_PROBE_WAIT_S it is killed and the core stays
     * unknown. Unbounded, a run under `ulimit -v` sat here before anything
     * else, and a stop signal then ended it with no results file. */
    enum { GB_PROBE_WAIT_S = 30 };
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (spawned && len + 1 < sizeof got) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left_ms = GB_PROBE_WAIT_S * 1000L - ((now.tv_sec - t0.tv_sec) * 1000L + (now.tv_nsec - t0.tv_nsec) / 1000000L);
        if (left_ms <= 0) break;
        struct pollfd pf = {.fd = fd[0], .events = POLLIN};
        int ready = poll(&pf, 1, (int)left_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) break;
        ssize_t r = read(fd[0], got + len, sizeof got - 1 - len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
    }
    close(fd[0]);
    if (spawned && waitpid(pid, NULL, WNOHANG) == 0) kill(pid, SIGKILL); /* still running: not waited for */
    if (spawned) while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    got[len] = 0;
    got[strcspn(got, "\n")] = 0;
    if (len > 0 && *got) snprintf(detected_core, sizeof detected_core, "%s", got);
}

/* Second pass, after re-executing: take the markers, check OpenBLAS took
 * the core asked for. */
/* The CPU set the first pass was given, from the OMP_PLACES it set
 * ("{a},{b},..."): libgomp bound this process's main thread to the first
 * place before main(), so the kernel's answer is now that one CPU. */
static void take_back_cpu_set(void) {
    const char *p = getenv("OMP_PLACES");
    if (!gb_child_env_changed("OMP_PLACES") || !p) return;
    enum { MAXCPU = 1024 };
    static int cpus[MAXCPU];
    int n = 0;
    while (*p == '{' && n < MAXCPU) {
        char *end;
        long c = strtol(p + 1, &end, 10);
        if (*end != '}' || c < 0) return;
        cpus[n++] = (int)c;
        p = end[1] == ',' ? end + 2 : end + 1;
    }
    if (!*p && n > 0) gb_node_set_original_cpus(cpus, n);
}

static int after_reexec(gb_err *e) {
    gb_child_env_import_originals(1);
    take_back_cpu_set();
    const char *by = getenv(MARK_BY), *asked = getenv(MARK_ASKED), *det = getenv(MARK_DETECTED);
    static char who[32];
    snprintf(who, sizeof who, "%s", by);
    gb_openblas_set_core_chosen_by(who);
    if (det) snprintf(detected_core, sizeof detected_core, "%s", det);
    if (getenv(MARK_IGNORED)) gb_openblas_set_ignored_env(getenv(MARK_IGNORED));
    if (getenv(MARK_FORGED)) snprintf(ignored_markers, sizeof ignored_markers, "%s", getenv(MARK_FORGED));
    int status = GB_OK;
    const char *core = openblas_get_corename();
    if (asked && *asked && strcasecmp(asked, core) != 0) /* "": only the binding was set */
        status = gb_errf(e, GB_FAIL,
                         "asked OpenBLAS for OPENBLAS_CORETYPE=%s but it runs %s (this build may not have "
                         "that core); pass --openblas-core detected to run what it detects",
                         asked, core);
    drop_markers(0);
    return status;
}

/* The places that bind libgomp's threads one per CPU of the process's CPU
 * set ("{0},{1},..."), when the user chose no binding of their own and the
 * set has two CPUs or more; 0 otherwise. Why libgomp's binding and not
 * pinning by hand: libgomp lets its idle workers exit when a smaller team
 * starts (FFTW, OpenBLAS and GraphBLAS pick team sizes by work) and makes
 * new ones for the next larger team, which inherit the creating main
 * thread's mask; pinned by hand, the main thread's one CPU then held every
 * new worker — on the GPU host each 16-thread region took 17-20 ms
 * (2026-12-01). With OMP_PLACES and OMP_PROC_BIND=close libgomp binds every
 * thread it makes, the initial thread to the first place. */
static int libgomp_places(char *buf, size_t len) {
    static const char *const users[] = {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY", NULL};
    for (const char *const *u = users; *u; u++)
        if (getenv(*u) && *getenv(*u)) return 0;
    enum { MAXCPU = 1024 };
    static int cpus[MAXCPU];
    int n = gb_node_cpu_set(cpus, MAXCPU);
    if (n < 2 || n > MAXCPU) return 0;
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        int w = snprintf(buf + used, len - used, "%s{%d}", i ? "," : "", cpus[i]);
        if (w < 0 || (size_t)w >= len - used) return 0;
        used += (size_t)w;
    }
    return 1;
}

static int setup_process(const char *core_flag, char **argv, gb_err *e) {
    char mine[96];
    process_token((long)getpid(), mine, sizeof mine);
    const char *probe = getenv(MARK_PROBE);
    if (probe) { /* probe_detected_core's copy: answer, and stop — when the parent asked */
        char parent[96];
        process_token((long)getppid(), parent, sizeof parent);
        if (*parent && !strcmp(probe, parent)) {
            printf("%s\n", openblas_get_corename());
            fflush(stdout);
            return gb_errf(e, GB_FAIL, "asked only for OpenBLAS's core (%s)", MARK_PROBE);
        }
    }
    const char *token = getenv(MARK_TOKEN);
    if (token && *mine && !strcmp(token, mine) && getenv(MARK_BY)) return after_reexec(e);
    drop_markers(1); /* none of ours: not believed, named in a warning */
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
    /* What OpenBLAS detects by itself: what it runs when nothing forced it,
     * else asked of a copy started without the variable. */
    if (!env_core) snprintf(detected_core, sizeof detected_core, "%s", running);
    else probe_detected_core();

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

    gb_openblas_set_core_chosen_by(by);
    char places[8192];
    int bind = libgomp_places(places, sizeof places);
    if (!want && !bind) return GB_OK;

    /* Overriding the user's OPENBLAS_CORETYPE is said; choosing the best
     * core where nobody chose one is the default, said in the results
     * (libraries.openblas.core_chosen_by, core_detected) and by `info`, not
     * before every command (#47). */
    if (want && *want && !strcmp(by, "gpubench") && env_core)
        fprintf(stderr, "gpubench: --openblas-core auto: using the %s kernels instead of OPENBLAS_CORETYPE=%s "
                        "from the environment\n", want, env_core);
    if (want) {
        gb_child_env_note_original("OPENBLAS_CORETYPE", getenv("OPENBLAS_CORETYPE"));
        if (*want) setenv("OPENBLAS_CORETYPE", want, 1);
        else unsetenv("OPENBLAS_CORETYPE");
    }
    if (bind) {
        gb_child_env_note_original("OMP_PLACES", NULL);
        gb_child_env_note_original("OMP_PROC_BIND", NULL);
        setenv("OMP_PLACES", places, 1);
        setenv("OMP_PROC_BIND", "close", 1);
    }
    gb_child_env_export_originals();
    setenv(MARK_BY, by, 1);
    setenv(MARK_ASKED, want ? want : "", 1);
    if (detected_core[0]) setenv(MARK_DETECTED, detected_core, 1);
    if (gb_openblas_ignored_env()) setenv(MARK_IGNORED, gb_openblas_ignored_env(), 1);
    if (*ignored_markers) setenv(MARK_FORGED, ignored_markers, 1);
    if (*mine) setenv(MARK_TOKEN, mine, 1);
    fflush(stdout);
    fflush(stderr);
    execv("/proc/self/exe", argv);
    int err = errno;
    drop_markers(0);
    if (bind) unsetenv("OMP_PLACES"), unsetenv("OMP_PROC_BIND");
    gb_child_env_import_originals(1); /* the exec failed: this process is still the user's */
    if (!want) return GB_OK; /* only the binding: cpu_bind.c pins by hand instead */
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
