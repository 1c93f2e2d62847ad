/* python.c — see python.h. */
#include "python.h"

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

#include "child_env.h"

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int gb_spawn_wait(char *const argv[], int out_fd, int quiet, int *err) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out_fd >= 0) posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    else posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (quiet) posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    /* the user's environment and CPU set, not gpubench's (child_env.h) */
    int rc = gb_child_spawn(&pid, argv[0], &fa, argv, NULL, 0);
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

int gb_python_probe(const char *python, const char *module) {
    char code[128];
    snprintf(code, sizeof code, "import sys; assert sys.version_info[0] == 3%s%s", module ? "; import " : "",
             module ? module : "");
    char *argv[] = {(char *)python, "-c", code, NULL};
    int err = 0;
    int rc = gb_spawn_wait(argv, -1, 1, &err);
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

int gb_python_find(const char *module, const char *install, char *path, size_t len, gb_err *e) {
    const char *what = module ? module : "sys";
    const char *env = getenv("GPUBENCH_PYTHON");
    if (env && *env) {
        int r = gb_python_probe(env, module);
        if (r == 0) {
            snprintf(path, len, "%s", env);
            return GB_OK;
        }
        return gb_errf(e, GB_SKIP, "GPUBENCH_PYTHON=%s %s%s: %s", env, r < 0 ? "cannot be run" : "cannot import ",
                       r < 0 ? "" : what, install);
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
        int r = gb_python_probe(cand[i], module);
        if (r == 0) {
            snprintf(path, len, "%s", cand[i]);
            return GB_OK;
        }
        if (r == 1) runs++;
    }
    if (runs)
        return gb_errf(e, GB_SKIP, "Python 3 found (%s%s%s) but it cannot import %s: %s", cand[0], n > 1 ? ", " : "",
                       n > 1 ? cand[1] : "", what, install);
    return gb_errf(e, GB_SKIP, "no Python 3 found (tried /usr/bin/python3 and python3 on PATH): install python3 and %s",
                   !strncmp(install, "install ", 8) ? install + strlen("install ") : install);
}
