/* confirm_run.c — see confirm_run.h. The children are this binary
 * (/proc/self/exe, else argv[0]) so that the re-measurement is of the same
 * build that measured the current run; only the suspects run (`run --case`),
 * with the suite's own rounds and budgets. --no-peak: the ceilings are not
 * judged in the second stage, and measuring them costs tens of seconds a
 * process. */
#include "confirm_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "results_io.h"
#include "child_env.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* This binary's path: /proc/self/exe (argv[0] may be a bare name found on
 * PATH, or relative to a directory since left), else argv[0]. */
static void self_path(char *buf, size_t len) {
    /* GPUBENCH_CONFIRM_CHILD: a program to run instead of this binary, given
     * the same arguments. For the tests, whose verdicts must not depend on how
     * fast this machine measures: a fake child writes fixed results. */
    const char *fake = getenv("GPUBENCH_CONFIRM_CHILD");
    if (fake && *fake) {
        snprintf(buf, len, "%s", fake);
        return;
    }
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n > 0) {
        buf[n] = '\0';
        return;
    }
    snprintf(buf, len, "%s", gb_full_argv && gb_full_argv[0] ? gb_full_argv[0] : "gpubench");
}

/* What a signal handler needs: the child being waited for (0: none) and
 * the directory the runs write into ("" when there is none). */
static volatile sig_atomic_t running_child;
static char signal_dir[256];

/* Every entry of dir unlinked, then dir itself, with system calls only
 * (opendir and readdir are not async-signal-safe; getdents64 is a call). */
static void remove_dir_signal_safe(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (long at = 0; at < n;) {
            /* struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name */
            unsigned short reclen;
            memcpy(&reclen, buf + at + 16, sizeof reclen);
            const char *name = buf + at + 19;
            if (strcmp(name, ".") && strcmp(name, "..")) unlinkat(fd, name, 0);
            at += reclen;
        }
    close(fd);
    rmdir(dir);
}

void gb_confirm_stop_signal_safe(int sig) {
    pid_t child = (pid_t)running_child;
    if (child > 0) {
        kill(child, sig == SIGPIPE ? SIGTERM : sig);
        int status;
        struct timespec tick = {0, 10 * 1000 * 1000};
        for (int i = 0; i < GB_CONFIRM_CHILD_GRACE_S * 100 && waitpid(child, &status, WNOHANG) == 0; i++)
            nanosleep(&tick, NULL);
        if (kill(child, 0) == 0) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
        }
        running_child = 0;
    }
    if (signal_dir[0]) remove_dir_signal_safe(signal_dir);
}

/* One child; its exit status in *status (waitpid's). -1 when it could not be started. */
static int run_child(char *const *argv, const char *log, int *status, char *why, size_t len) {
    fflush(stdout);
    fflush(stderr);
    /* the stop signals held from fork until running_child names the child,
     * so that a signal in between cannot leave it unknown to the handler */
    sigset_t stops, before;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT), sigaddset(&stops, SIGTERM), sigaddset(&stops, SIGHUP), sigaddset(&stops, SIGPIPE);
    /* the user's environment and CPU set, not this process's own settings
     * (child_env.h): a confirming run measures as a run the user started */
    char **envp = gb_child_envp(NULL);
    if (!envp) {
        snprintf(why, len, "out of memory for the child's environment");
        return -1;
    }
    gb_child_before_fork();
    sigprocmask(SIG_BLOCK, &stops, &before);
    pid_t pid = fork();
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &before, NULL);
        gb_child_envp_free(envp);
        snprintf(why, len, "cannot start a process: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &before, NULL); /* exec keeps the mask: the child must hear its signals */
        /* the child's report and progress go to our stderr (stdout is the comparison's), or to the log */
        int fd = log ? open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : 2;
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(127);
        gb_child_after_fork();
        if (strchr(argv[0], '/')) execve(argv[0], argv, envp);
        else execvpe(argv[0], argv, envp);
        fprintf(stderr, "gpubench compare: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    running_child = pid;
    sigprocmask(SIG_SETMASK, &before, NULL);
    gb_child_envp_free(envp);
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR) {
            running_child = 0;
            snprintf(why, len, "waiting for it: %s", strerror(errno));
            return -1;
        }
    running_child = 0;
    return 0;
}

int gb_confirm_run(const char *suite, const char *const *cases, size_t ncases, int runs, int quiet,
                   gb_confirm_runs *out, char *why, size_t len) {
    memset(out, 0, sizeof *out);
    const char *tmp = getenv("TMPDIR");
    snprintf(out->dir, sizeof out->dir, "%s/gpubench-confirm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(out->dir)) {
        snprintf(why, len, "cannot create a temporary directory %s: %s", out->dir, strerror(errno));
        out->dir[0] = '\0';
        return -1;
    }
    snprintf(signal_dir, sizeof signal_dir, "%s", out->dir);
    out->docs = calloc((size_t)runs, sizeof *out->docs);
    out->paths = calloc((size_t)runs, sizeof *out->paths);
    char **argv = calloc(2 * ncases + 8, sizeof *argv);
    if (!out->docs || !out->paths || !argv) {
        free(argv);
        snprintf(why, len, "out of memory");
        return -1;
    }
    char self[4096], res[512], log[512];
    self_path(self, sizeof self);
    size_t a = 0;
    argv[a++] = self;
    argv[a++] = (char *)"run";
    argv[a++] = (char *)suite;
    for (size_t i = 0; i < ncases; i++) {
        argv[a++] = (char *)"--case";
        argv[a++] = (char *)cases[i];
    }
    argv[a++] = (char *)"--no-peak";
    argv[a++] = (char *)"--out";
    size_t at_out = a++;
    argv[a] = NULL;
    double t0 = now_s();
    int rc = 0;
    for (int k = 0; k < runs && rc == 0; k++) {
        snprintf(res, sizeof res, "%s/confirm-%d.json", out->dir, k + 1);
        snprintf(log, sizeof log, "%s/confirm-%d.log", out->dir, k + 1);
        argv[at_out] = res;
        if (!quiet)
            fprintf(stderr, "gpubench compare: --confirm: re-measuring %zu case%s, fresh process %d of %d\n", ncases,
                    ncases == 1 ? "" : "s", k + 1, runs);
        int status = 0;
        char w[200] = "";
        if (run_child(argv, quiet ? log : NULL, &status, w, sizeof w) != 0) {
            snprintf(why, len, "confirmation run %d of %d: %s", k + 1, runs, w);
            rc = -1;
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            char st[64];
            if (WIFEXITED(status)) snprintf(st, sizeof st, "exited with status %d", WEXITSTATUS(status));
            else snprintf(st, sizeof st, "was killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
            char named[300] = "";
            for (size_t i = 0, n = 0; i < ncases && n + 1 < sizeof named; i++)
                n += (size_t)snprintf(named + n, sizeof named - n, "%s%s", i ? ", " : "", cases[i]);
            snprintf(why, len, "confirmation run %d of %d (%s run %s --case ... --out %s), re-measuring %.300s, %s%s%s%s",
                     k + 1, runs, self, suite, res, named, st,
                     WIFEXITED(status) && WEXITSTATUS(status) == 1 ? " (a result failed verification or errored)" : "",
                     quiet ? "; its output: " : "; its output is above", quiet ? log : "");
            rc = -1;
        } else {
            gb_err e = {{0}};
            if (gb_results_load(res, &out->docs[k], &e) != GB_OK) {
                snprintf(why, len, "confirmation run %d of %d: %s", k + 1, runs, e.msg);
                rc = -1;
            } else {
                out->loaded = k + 1;
                if (!(out->paths[k] = strdup(res))) {
                    snprintf(why, len, "out of memory");
                    rc = -1;
                }
            }
        }
    }
    out->seconds = now_s() - t0;
    free(argv);
    return rc;
}

void gb_confirm_free(gb_confirm_runs *c, int remove_dir) {
    for (int k = 0; k < c->loaded; k++) {
        gb_results_free(&c->docs[k]);
        free(c->paths[k]);
    }
    free(c->docs);
    free(c->paths);
    if (!strcmp(signal_dir, c->dir)) signal_dir[0] = '\0'; /* kept or removed below: not the handler's any more */
    if (remove_dir && c->dir[0]) {
        /* the directory is ours alone (mkdtemp): its files are the runs'
         * results and logs, and whatever a killed run left (lock, temp) */
        DIR *d = opendir(c->dir);
        for (struct dirent *x = d ? readdir(d) : NULL; x; x = readdir(d)) {
            if (!strcmp(x->d_name, ".") || !strcmp(x->d_name, "..")) continue;
            char p[600];
            snprintf(p, sizeof p, "%s/%s", c->dir, x->d_name);
            unlink(p);
        }
        if (d) closedir(d);
        rmdir(c->dir);
    }
    memset(c, 0, sizeof *c);
}
