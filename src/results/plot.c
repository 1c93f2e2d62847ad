/* plot.c — find scripts/plot.py and a Python with matplotlib, run it. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gb.h"

extern char **environ;

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int gb_plot_find_script(const char *exe_dir, char *path, size_t len, gb_err *e) {
    static const char *const rel[] = {"scripts/plot.py", "../scripts/plot.py",
                                      "../share/gpubench/scripts/plot.py"};
    char looked[GB_MSG_LEN] = "";
    size_t off = 0;
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(path, len, "%s/%s", exe_dir, rel[i]);
        if (is_file(path)) return GB_OK;
        if (off < sizeof looked) off += (size_t)snprintf(looked + off, sizeof looked - off, "%s %s", i ? "," : "", path);
    }
    path[0] = '\0';
    return gb_errf(e, GB_SKIP, "scripts/plot.py not found; looked in%s", looked);
}

/* Run argv with stdout going to out_fd (or /dev/null when -1) and stderr to
 * /dev/null when quiet; returns the exit status, or -1 if it could not start
 * (errno kept in *err). */
static int spawn_wait(char *const argv[], int out_fd, int quiet, int *err) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    else posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (quiet) posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        *err = rc;
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            *err = errno;
            return -1;
        }
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* 0: python runs and imports matplotlib; 1: runs without matplotlib; -1: does not run. */
static int probe(const char *python) {
    char *argv[] = {(char *)python, "-c", "import matplotlib", NULL};
    int err = 0;
    int rc = spawn_wait(argv, -1, 1, &err);
    return rc < 0 || rc == 127 || rc == 126 ? -1 : rc == 0 ? 0 : 1;
}

static int on_path(const char *name, char *path, size_t len) {
    const char *p = getenv("PATH");
    if (!p) return -1;
    while (*p) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        snprintf(path, len, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
        if (access(path, X_OK) == 0 && is_file(path)) return 0;
        if (!e) break;
        p = e + 1;
    }
    return -1;
}

int gb_plot_find_python(char *path, size_t len, gb_err *e) {
    static const char install[] =
        "install matplotlib (Debian/Ubuntu: apt-get install python3-matplotlib; elsewhere: "
        "python3 -m pip install matplotlib) or point GPUBENCH_PYTHON at a python that has it";
    const char *env = getenv("GPUBENCH_PYTHON");
    if (env && *env) {
        int r = probe(env);
        if (r == 0) {
            snprintf(path, len, "%s", env);
            return GB_OK;
        }
        return gb_errf(e, GB_SKIP, "GPUBENCH_PYTHON=%s %s: %s", env, r < 0 ? "cannot be run" : "cannot import matplotlib",
                       install);
    }
    char cand[2][PATH_MAX];
    int n = 0, runs = 0;
    snprintf(cand[n++], PATH_MAX, "/usr/bin/python3");
    if (on_path("python3", cand[n], PATH_MAX) == 0) {
        char a[PATH_MAX], b[PATH_MAX];
        /* The same interpreter twice (PATH=/usr/bin) is probed once. */
        if (!(realpath(cand[0], a) && realpath(cand[n], b) && !strcmp(a, b)) && strcmp(cand[0], cand[n])) n++;
    }
    for (int i = 0; i < n; i++) {
        int r = probe(cand[i]);
        if (r == 0) {
            snprintf(path, len, "%s", cand[i]);
            return GB_OK;
        }
        if (r == 1) runs++;
    }
    if (runs)
        return gb_errf(e, GB_SKIP, "Python 3 found (%s%s%s) but it cannot import matplotlib: %s", cand[0],
                       n > 1 ? ", " : "", n > 1 ? cand[1] : "", install);
    return gb_errf(e, GB_SKIP, "no Python 3 found (tried /usr/bin/python3 and python3 on PATH): install python3 and %s",
                   install + strlen("install "));
}

/* The script on n results files (several: drawn overlaid). */
static int run_script(const char *exe_dir, const char *const *jsons, size_t n, const char *out_dir,
                      const char *format, const char *ops, gb_err *e) {
    char script[PATH_MAX], python[PATH_MAX];
    gb_err found = {{0}};
    if (!format || (strcmp(format, "png") && strcmp(format, "svg")))
        return gb_errf(e, GB_FAIL, "plot format \"%s\" is not png or svg", format ? format : "(null)");
    if (gb_plot_find_script(exe_dir, script, sizeof script, e) != GB_OK) return GB_SKIP;
    if (gb_plot_find_python(python, sizeof python, &found) != GB_OK)
        return gb_errf(e, GB_SKIP, "cannot draw plots: %s", found.msg);
    char **argv = calloc(n + 10, sizeof *argv);
    if (!argv) return gb_errf(e, GB_FAIL, "out of memory");
    size_t a = 0;
    argv[a++] = python;
    argv[a++] = script;
    for (size_t i = 0; i < n; i++) argv[a++] = (char *)jsons[i];
    argv[a++] = "--out";
    argv[a++] = (char *)out_dir;
    argv[a++] = "--format";
    argv[a++] = (char *)format;
    if (ops) {
        argv[a++] = "--op";
        argv[a++] = (char *)ops;
    }
    argv[a] = NULL;
    int err = 0;
    fflush(stdout);
    fflush(stderr);
    /* The script's progress goes to our stderr: stdout may be a report. */
    int rc = spawn_wait(argv, 2, 0, &err);
    free(argv);
    if (rc < 0) return gb_errf(e, GB_FAIL, "cannot run %s: %s", python, strerror(err));
    if (rc != 0) return gb_errf(e, GB_FAIL, "%s %s exited with status %d (its messages are above)", python, script, rc);
    return GB_OK;
}

int gb_plot_run_from(const char *exe_dir, const char *results_json, const char *out_dir,
                     const char *format, const char *ops, gb_err *e) {
    return run_script(exe_dir, &results_json, 1, out_dir, format, ops, e);
}

int gb_plot_run_many(const char *const *jsons, size_t n, const char *out_dir, const char *format, const char *ops,
                     gb_err *e) {
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return gb_errf(e, GB_FAIL, "cannot find the gpubench executable (/proc/self/exe: %s)", strerror(errno));
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    return run_script(exe, jsons, n, out_dir, format, ops, e);
}

int gb_plot_run(const char *results_json, const char *out_dir, const char *format, const char *ops, gb_err *e) {
    return gb_plot_run_many(&results_json, 1, out_dir, format, ops, e);
}
