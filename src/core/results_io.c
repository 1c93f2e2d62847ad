/* results_io.c — read a JSON file (with the line of a syntax error); write
 * any output file of gpubench (see results_io.h: temp + rename for a regular
 * file, streamed to a device or FIFO, never a device node replaced). */
#include "results_io.h"

#include <dirent.h>
#include "json_strict.h"
#include "model_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

int gb_json_read_file(const char *path, cJSON **out, gb_err *e) {
    return gb_json_read_limited(path, "a results file", GB_LIMIT_RESULTS, out, e);
}

/* ---- writing ----------------------------------------------------------------- */

/* In pieces of at most 1 MiB, each a tick of progress (model_lock.h): a large
 * results file being written is a run still stopping in order. */
static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        gb_progress_tick();
        ssize_t w = write(fd, p, n < ((size_t)1 << 20) ? n : (size_t)1 << 20);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* "No space left on device", with what to do where the reason is a limit
 * (SIGXFSZ is ignored by main, so a file over `ulimit -f` fails with EFBIG
 * instead of killing the process). */
static const char *why_not_written(int err) {
    if (err == EFBIG) return "File too large: over the file size limit of this shell (ulimit -f)";
    return strerror(err);
}

/* The temp files being written, for the signal handlers: named before the
 * file is created, forgotten after the rename, so a handler that runs in
 * between removes it (unlink is async-signal-safe; after the rename it finds
 * nothing). A few slots, one per writer at a time: the run's signal watchdog
 * (run_signals.h) may write the results while the main thread writes FFTW
 * wisdom. */
#define TEMP_LEN (sizeof ((gb_out_target *)0)->dir + NAME_MAX + 32)
#define TEMP_SLOTS 4
static struct {
    char path[TEMP_LEN];
    volatile sig_atomic_t live;
    atomic_flag busy;
} temps[TEMP_SLOTS] = {[0 ... TEMP_SLOTS - 1] = {.busy = ATOMIC_FLAG_INIT}};

void gb_output_remove_temp(void) {
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (temps[i].live) unlink(temps[i].path);
}

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: a descriptor this
 * process already has, written as it is (its offset, its O_APPEND), never
 * resolved to the file behind it and replaced. -1 when path is none. */
static int fd_alias(const char *path) {
    if (!strcmp(path, "/dev/stdout")) return 1;
    if (!strcmp(path, "/dev/stderr")) return 2;
    const char *n = !strncmp(path, "/dev/fd/", 8) ? path + 8 : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
    if (!n || !*n) return -1;
    long fd = 0;
    for (; *n; n++) {
        if (*n < '0' || *n > '9' || fd > 1 << 20) return -1;
        fd = fd * 10 + (*n - '0');
    }
    return (int)fd;
}

/* The end of path's chain of symbolic links (path itself when it is none),
 * also when that end does not exist yet: a link is followed to write its
 * target, which is then replaced (or made) in its own directory while the
 * link stays a link. A relative link is relative to its own directory. */
static int follow_links(const char *path, char *out, size_t len, gb_err *e) {
    char cur[PATH_MAX], to[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            if (strlen(cur) >= len) return gb_errf(e, GB_FAIL, "%s: the path it leads to is too long", path);
            snprintf(out, len, "%s", cur);
            return GB_OK;
        }
        ssize_t k = readlink(cur, to, sizeof to - 1);
        if (k < 0) return gb_errf(e, GB_FAIL, "%s: cannot read the symbolic link %s: %s", path, cur, strerror(errno));
        to[k] = '\0';
        const char *slash = strrchr(cur, '/');
        if (to[0] == '/' || !slash) {
            snprintf(cur, sizeof cur, "%s", to);
        } else {
            char next[PATH_MAX];
            if (snprintf(next, sizeof next, "%.*s/%s", (int)(slash - cur), cur, to) >= (int)sizeof next)
                return gb_errf(e, GB_FAIL, "%s: the path it leads to is too long", path);
            snprintf(cur, sizeof cur, "%s", next);
        }
    }
    return gb_errf(e, GB_FAIL, "%s: too many levels of symbolic links", path);
}

static const char *file_type(mode_t m) {
    return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int gb_output_resolve(const char *path, gb_out_target *t, gb_err *e) {
    memset(t, 0, sizeof *t);
    t->fd = -1;
    if (!path || !*path) return gb_errf(e, GB_FAIL, "an output path is empty");
    if (!strcmp(path, "-")) {
        t->kind = GB_OUT_FD;
        t->fd = 1;
        snprintf(t->path, sizeof t->path, "<stdout>");
        return GB_OK;
    }
    if (strlen(path) >= sizeof t->path - 1) return gb_errf(e, GB_FAIL, "%.80s...: path too long", path);
    int alias = fd_alias(path);
    if (alias >= 0) {
        if (fcntl(alias, F_GETFL) < 0) return gb_errf(e, GB_FAIL, "%s: descriptor %d is not open", path, alias);
        t->kind = GB_OUT_FD;
        t->fd = alias;
        snprintf(t->path, sizeof t->path, "%s", path);
        return GB_OK;
    }
    struct stat st;
    if (follow_links(path, t->path, sizeof t->path, e) != GB_OK) return GB_FAIL;
    if (stat(t->path, &st) == 0) {
        if (S_ISREG(st.st_mode)) t->kind = GB_OUT_FILE;
        else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) t->kind = GB_OUT_STREAM;
        else
            return gb_errf(e, GB_FAIL, "%s: is %s; gpubench writes to a regular file, a character device or a FIFO",
                           path, file_type(st.st_mode));
    } else if (errno == ENOENT) {
        t->kind = GB_OUT_FILE;
    } else {
        return gb_errf(e, GB_FAIL, "%s: cannot write there: %s", path, strerror(errno));
    }
    if (t->kind == GB_OUT_FILE) {
        char copy[PATH_MAX];
        snprintf(copy, sizeof copy, "%s", t->path);
        snprintf(t->dir, sizeof t->dir, "%s", dirname(copy));
        snprintf(copy, sizeof copy, "%s", t->path);
        snprintf(t->base, sizeof t->base, "%s", basename(copy));
        if (stat(t->dir, &st) != 0) {
            if (errno == ENOENT) return gb_errf(e, GB_FAIL, "%s: the directory %s does not exist", path, t->dir);
            return gb_errf(e, GB_FAIL, "%s: cannot reach the directory %s: %s", path, t->dir, strerror(errno));
        }
        if (!S_ISDIR(st.st_mode)) return gb_errf(e, GB_FAIL, "%s: %s is not a directory", path, t->dir);
    }
    return GB_OK;
}

/* A file next to t's target named after it: lead + NAME + suffix, and when
 * that is longer than a file name may be (NAME_MAX, 255 bytes), NAME's first
 * 180 bytes and a hash of the whole name instead of NAME, so that a target
 * of any legal length has its temp and lock files. */
void gb_output_side_name(const gb_out_target *t, const char *lead, const char *suffix, char *buf, size_t len) {
    size_t blen = strlen(t->base);
    /* decided by NAME alone (32 bytes kept for any suffix), so that the
     * stale-temp search (suffix ".tmp.") and the writer (".tmp.PID") name
     * the same files */
    if (strlen(lead) + blen + 32 <= NAME_MAX) {
        snprintf(buf, len, "%s/%s%s%s", t->dir, lead, t->base, suffix);
        return;
    }
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < blen; i++) h = (h ^ (unsigned char)t->base[i]) * 1099511628211ull;
    snprintf(buf, len, "%s/%s%.180s~%016llx%s", t->dir, lead, t->base, (unsigned long long)h, suffix);
}

/* The temp file of target t written by process pid: hidden, next to it (a
 * rename is atomic only within one file system), named after the process so
 * that a later writer knows when it is stale. */
static void temp_name(const gb_out_target *t, long pid, char *buf, size_t len) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".tmp.%ld", pid);
    gb_output_side_name(t, ".", suffix, buf, len);
}

int gb_output_clean_stale(const gb_out_target *t) {
    if (t->kind != GB_OUT_FILE) return 0;
    DIR *d = opendir(t->dir);
    if (!d) return 0;
    char stem[TEMP_LEN];
    gb_output_side_name(t, ".", ".tmp.", stem, sizeof stem);
    const char *prefix = strrchr(stem, '/') + 1;
    int plen = (int)strlen(prefix), removed = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, (size_t)plen) != 0) continue;
        const char *n = de->d_name + plen;
        char *end;
        long pid = strtol(n, &end, 10);
        if (!*n || *end || pid <= 0 || pid == (long)getpid()) continue;
        /* only a writer that is gone: ESRCH (EPERM is someone else's live process) */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char stale[TEMP_LEN];
        temp_name(t, pid, stale, sizeof stale);
        if (unlink(stale) == 0) removed++;
    }
    closedir(d);
    return removed;
}

/* Whether this process has CAP_FOWNER (bit 3 of CapEff in /proc/self/status):
 * it may replace anyone's file in a sticky directory. */
static int has_cap_fowner(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long caps = 0;
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "CapEff: %llx", &caps) == 1) {
            found = 1;
            break;
        }
    if (f) fclose(f);
    return found ? (int)((caps >> 3) & 1) : geteuid() == 0;
}

/* Can the rename replace the existing target? The kernel refuses it (EPERM)
 * in a sticky directory (/tmp) to all but the file's owner, the directory's
 * owner and CAP_FOWNER, and for a file marked immutable or append-only: found
 * here, before the work, not by a rename after it. */
static int can_replace(const gb_out_target *t, const char *path, gb_err *e) {
    struct stat st, dir;
    if (lstat(t->path, &st) != 0 || stat(t->dir, &dir) != 0) return GB_OK; /* nothing there to replace */
    uid_t me = geteuid();
    if ((dir.st_mode & S_ISVTX) && st.st_uid != me && dir.st_uid != me && !has_cap_fowner())
        return gb_errf(e, GB_FAIL,
                       "%s: cannot replace it: Operation not permitted (it belongs to user %u in the sticky directory "
                       "%s, where only its owner, the directory's owner or root may replace it)",
                       path, (unsigned)st.st_uid, t->dir);
    int fd = open(t->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    int attr = 0;
    if (fd >= 0) {
        if (ioctl(fd, FS_IOC_GETFLAGS, &attr) != 0) attr = 0;
        close(fd);
    }
    if (attr & (FS_IMMUTABLE_FL | FS_APPEND_FL))
        return gb_errf(e, GB_FAIL, "%s: cannot replace it: Operation not permitted (it is marked %s: chattr)", path,
                       attr & FS_IMMUTABLE_FL ? "immutable" : "append-only");
    return GB_OK;
}

int gb_output_check(const char *path, gb_err *e) {
    gb_out_target t;
    if (gb_output_resolve(path, &t, e) != GB_OK) return GB_FAIL;
    if (t.kind == GB_OUT_STREAM) {
        if (access(t.path, W_OK) != 0) return gb_errf(e, GB_FAIL, "%s: cannot write there: %s", path, strerror(errno));
        return GB_OK;
    }
    if (t.kind != GB_OUT_FILE) return GB_OK;
    gb_output_clean_stale(&t);
    /* Proved by doing: create the temp file the write will use, and remove
     * it (permissions, a read-only file system, root's exceptions). */
    char tmp[TEMP_LEN];
    temp_name(&t, (long)getpid(), tmp, sizeof tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0) fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return gb_errf(e, GB_FAIL, "%s: cannot write in %s: %s", path, t.dir, strerror(errno));
    close(fd);
    unlink(tmp);
    return can_replace(&t, path, e);
}

/* Temp file, fsync, rename over the target, fsync the directory. */
static int write_replacing(const gb_out_target *t, const char *shown, const char *data, size_t n, gb_err *e) {
    struct stat old;
    int had = stat(t->path, &old) == 0;
    char own[TEMP_LEN], *tmp = own;
    volatile sig_atomic_t *live = NULL;
    int slot = -1;
    for (int i = 0; i < TEMP_SLOTS && slot < 0; i++)
        if (!atomic_flag_test_and_set(&temps[i].busy)) slot = i;
    if (slot >= 0) tmp = temps[slot].path, live = &temps[slot].live;
    temp_name(t, (long)getpid(), tmp, TEMP_LEN);
    if (live) *live = 1;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0) fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    const char *step = "cannot write";
    int rc = GB_FAIL, err = 0;
    if (fd < 0) {
        err = errno;
        gb_errf(e, GB_FAIL, "%s: cannot create a temporary file in %s: %s", shown, t->dir, strerror(err));
        goto done;
    }
    /* a file replaced keeps its permissions; a new one gets 0666 less the umask */
    if (had && fchmod(fd, old.st_mode & 07777) != 0) goto fail;
    if (write_all(fd, data, n) != 0) goto fail;
    step = "fsync failed";
    if (fsync(fd) != 0) goto fail;
    step = "close failed";
    int closed = close(fd);
    fd = -1;
    if (closed != 0) goto fail;
    step = "cannot rename the temporary file into place";
    if (rename(tmp, t->path) != 0) goto fail;
    if (live) *live = 0;
    /* Make the rename itself durable; failure here loses nothing already
     * visible, so it is not an error. */
    int dfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    rc = GB_OK;
    goto done;
fail:
    err = errno;
    if (fd >= 0) close(fd);
    unlink(tmp);
    gb_errf(e, GB_FAIL, "%s: %s: %s", shown, step, why_not_written(err));
done:
    if (live) *live = 0;
    if (slot >= 0) atomic_flag_clear(&temps[slot].busy);
    return rc;
}

int gb_file_write(const char *path, const char *data, size_t n, gb_err *e) {
    gb_out_target t;
    if (gb_output_resolve(path, &t, e) != GB_OK) return GB_FAIL;
    const char *shown = strcmp(path, "-") ? path : "<stdout>";
    if (t.kind == GB_OUT_FILE) return write_replacing(&t, shown, data, n, e);
    if (t.kind == GB_OUT_FD && t.fd == 1) {
        /* standard output: through stdout, after what the command printed */
        if (fwrite(data, 1, n, stdout) != n || fflush(stdout) != 0)
            return gb_errf(e, GB_FAIL, "%s: cannot write: %s", shown, why_not_written(errno));
        return GB_OK;
    }
    if (t.kind == GB_OUT_FD) {
        fflush(NULL);
        if (write_all(t.fd, data, n) != 0) return gb_errf(e, GB_FAIL, "%s: cannot write: %s", shown, why_not_written(errno));
        return GB_OK;
    }
    /* A character device or a FIFO is written in place, never replaced: no
     * O_CREAT (nothing is made there), no O_TRUNC (a device has no length). */
    int fd = open(t.path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return gb_errf(e, GB_FAIL, "%s: cannot open: %s", shown, strerror(errno));
    int bad = write_all(fd, data, n) != 0, err = errno;
    if (close(fd) != 0 && !bad) bad = 1, err = errno;
    if (bad) return gb_errf(e, GB_FAIL, "%s: cannot write: %s", shown, why_not_written(err));
    return GB_OK;
}

void gb_cache_write(const char *path, const char *kind, const char *own, const char *data, size_t n) {
    gb_out_target t;
    gb_err e = {{0}};
    if (gb_output_resolve(path, &t, &e) != GB_OK || t.kind != GB_OUT_FILE) return;
    int fd = open(t.path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) { /* one there: replaced only when it is this cache's own */
        char head[64];
        size_t want = strlen(own) < sizeof head ? strlen(own) : sizeof head;
        ssize_t got = read(fd, head, want);
        close(fd);
        if (got > 0 && ((size_t)got < want || memcmp(head, own, want) != 0)) {
            fprintf(stderr, "warning: %s is not %s: left as it is (the cache is not kept)\n", path, kind);
            return;
        }
    }
    (void)gb_file_write(path, data, n, &e);
}

int gb_json_write_atomic(const cJSON *doc, const char *path, gb_err *e) {
    char *text = cJSON_Print(doc);
    if (!text) return gb_errf(e, GB_FAIL, "%s: cannot serialise the document (out of memory)", path);
    size_t n = strlen(text);
    char *line = realloc(text, n + 2);
    if (!line) {
        free(text);
        return gb_errf(e, GB_FAIL, "%s: out of memory", path);
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    int rc = gb_file_write(path, line, n + 1, e);
    free(line);
    return rc;
}
