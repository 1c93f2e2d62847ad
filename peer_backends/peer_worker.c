/* peer_worker.c — see peer_worker.h. */
#include "peer_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child_env.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Kill and reap: the worker is no longer to be trusted. Returns a short
 * description of how it ended ("exited with status 3", "killed by signal 9"). */
static void end_worker(gb_peer_worker *w, int kill_it, char *how, size_t len) {
    if (w->to >= 0) close(w->to);
    if (w->from >= 0) close(w->from);
    w->to = w->from = -1;
    w->len = 0;
    if (how && len) how[0] = '\0';
    if (w->pid <= 0) return;
    int st = 0;
    pid_t r = waitpid(w->pid, &st, WNOHANG);
    if (r == 0 && kill_it) {
        kill(w->pid, SIGKILL);
        r = waitpid(w->pid, &st, 0);
    } else if (r == 0) {
        for (int i = 0; i < 100 && r == 0; i++) { /* up to a second to go by itself */
            usleep(10000);
            r = waitpid(w->pid, &st, WNOHANG);
        }
        if (r == 0) {
            kill(w->pid, SIGKILL);
            r = waitpid(w->pid, &st, 0);
        }
    }
    if (how && len && r == w->pid) {
        if (WIFEXITED(st)) snprintf(how, len, "exited with status %d", WEXITSTATUS(st));
        else if (WIFSIGNALED(st)) snprintf(how, len, "killed by signal %d", WTERMSIG(st));
    }
    w->pid = 0;
}

void gb_peer_worker_stop(gb_peer_worker *w) {
    if (w->pid <= 0) return;
    if (w->to >= 0) {
        ssize_t ignored = write(w->to, "quit\n", 5);
        (void)ignored;
    }
    end_worker(w, 0, NULL, 0);
}

/* A failed exchange: the worker is stopped and e says what happened. */
static int broke(gb_peer_worker *w, gb_err *e, int kill_it, const char *what) {
    char how[64];
    end_worker(w, kill_it, how, sizeof how);
    return gb_errf(e, GB_SKIP, "%s%s%s", what, how[0] ? "; the worker " : "", how);
}

/* Fill buf until it holds n bytes (or a newline, when line), by the deadline. */
static int fill(gb_peer_worker *w, size_t want, int line, double deadline, double timeout_s, gb_err *e) {
    for (;;) {
        if (line && memchr(w->buf, '\n', w->len)) return GB_OK;
        if (!line && w->len >= want) return GB_OK;
        if (w->len == sizeof w->buf)
            return broke(w, e, 1, "peer worker: a line longer than 8 KiB on its pipe (not the protocol)");
        double left = deadline - now_s();
        if (left <= 0) {
            char msg[96];
            snprintf(msg, sizeof msg, "peer worker: no answer within %.0f s (--peer-timeout)", timeout_s);
            return broke(w, e, 1, msg);
        }
        struct pollfd p = {w->from, POLLIN, 0};
        int r = poll(&p, 1, left > 1e6 ? 1000000000 : (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        ssize_t got = read(w->from, w->buf + w->len, sizeof w->buf - w->len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return broke(w, e, 0, "peer worker: its pipe closed (it died)");
        w->len += (size_t)got;
    }
}

int gb_peer_worker_line(gb_peer_worker *w, double timeout_s, char *reply, size_t len, gb_err *e) {
    if (w->pid <= 0) return gb_errf(e, GB_SKIP, "peer worker: not running");
    double deadline = now_s() + timeout_s;
    if (fill(w, 0, 1, deadline, timeout_s, e) != GB_OK) return GB_SKIP;
    char *nl = memchr(w->buf, '\n', w->len);
    size_t n = (size_t)(nl - w->buf);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)w->buf[i] < 0x20 && w->buf[i] != '\t')
            return broke(w, e, 1, "peer worker: a control byte on its pipe (not the protocol)");
    snprintf(reply, len, "%.*s", (int)(n < len ? n : len - 1), w->buf);
    memmove(w->buf, nl + 1, w->len - n - 1);
    w->len -= n + 1;
    return GB_OK;
}

int gb_peer_worker_read(gb_peer_worker *w, void *data, size_t n, double timeout_s, gb_err *e) {
    if (w->pid <= 0) return gb_errf(e, GB_SKIP, "peer worker: not running");
    double deadline = now_s() + timeout_s;
    unsigned char *out = data;
    while (n) {
        if (w->len == 0 && fill(w, 1, 0, deadline, timeout_s, e) != GB_OK) return GB_SKIP;
        size_t k = w->len < n ? w->len : n;
        memcpy(out, w->buf, k);
        memmove(w->buf, w->buf + k, w->len - k);
        w->len -= k;
        out += k;
        n -= k;
    }
    return GB_OK;
}

int gb_peer_worker_ask(gb_peer_worker *w, const char *line, double timeout_s, char *reply, size_t len, gb_err *e) {
    if (w->pid <= 0) return gb_errf(e, GB_SKIP, "peer worker: not running");
    size_t n = strlen(line);
    char *msg = malloc(n + 2);
    if (!msg) return gb_errf(e, GB_FAIL, "out of memory");
    memcpy(msg, line, n);
    msg[n] = '\n';
    size_t off = 0;
    while (off < n + 1) {
        ssize_t put = write(w->to, msg + off, n + 1 - off);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) {
            free(msg);
            return broke(w, e, 1, "peer worker: cannot write to it (it died)");
        }
        off += (size_t)put;
    }
    free(msg);
    return gb_peer_worker_line(w, timeout_s, reply, len, e);
}

int gb_peer_worker_start(gb_peer_worker *w, const char *python, const char *script, const char *name,
                         double timeout_s, char *reply, size_t len, gb_err *e) {
    memset(w, 0, sizeof *w);
    w->to = w->from = -1;
    /* a worker that dies while we write must not take gpubench with it */
    struct sigaction old;
    if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return gb_errf(e, GB_SKIP, "peer %s: pipe: %s", name, strerror(errno));
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return gb_errf(e, GB_SKIP, "peer %s: pipe: %s", name, strerror(errno));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    char *argv[] = {(char *)python, (char *)script, "--worker", (char *)name, NULL};
    pid_t pid;
    /* the user's environment and CPU set, not gpubench's (child_env.h) */
    int rc = gb_child_spawn(&pid, python, &fa, argv, NULL, 0);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
        close(in[1]);
        close(out[0]);
        return gb_errf(e, GB_SKIP, "peer %s: cannot run %s: %s", name, python, strerror(rc));
    }
    w->pid = pid;
    w->to = in[1];
    w->from = out[0];
    char line[4096];
    gb_err why = {{0}};
    if (gb_peer_worker_line(w, timeout_s, line, sizeof line, &why) != GB_OK)
        return gb_errf(e, GB_SKIP, "peer %s: %s is not a working Python worker: %s", name, python, why.msg);
    if (!strncmp(line, "hello ", 6)) {
        snprintf(reply, len, "%s", line + 6);
        return GB_OK;
    }
    if (!strncmp(line, "unavailable ", 12)) {
        snprintf(reply, len, "%s", line + 12);
        gb_peer_worker_stop(w);
        return gb_errf(e, GB_SKIP, "peer %s: %s", name, reply);
    }
    end_worker(w, 1, NULL, 0);
    return gb_errf(e, GB_SKIP, "peer %s: %s is not a working Python worker: its first line was \"%.60s\"", name,
                   python, line);
}
