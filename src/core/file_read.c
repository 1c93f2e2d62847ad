/* file_read.c — open and read a file only when it is a regular file of a
 * bounded size (file_read.h). */
#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *gb_file_kind_name(mode_t m) {
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a file";
}

static void fmt_bytes(char *buf, size_t len, double b) {
    if (b >= 1073741824.0) snprintf(buf, len, "%.1f GiB", b / 1073741824.0);
    else if (b >= 1048576.0) snprintf(buf, len, "%.1f MiB", b / 1048576.0);
    else snprintf(buf, len, "%.0f bytes", b);
}

/* exact: size is the file's (fstat); else what was read of a stream, one
 * byte past the limit, so "more than". */
static int over_limit(const char *name, const char *what, double size, int exact, size_t limit, gb_err *e) {
    char have[32], max[32];
    fmt_bytes(have, sizeof have, size);
    fmt_bytes(max, sizeof max, (double)limit);
    return gb_errf(e, GB_FAIL, "%s: %s%s, over the %s limit for %s", name, exact ? "" : "more than ",
                   have, max, what);
}

int gb_open_bounded(const char *path, const char *what, size_t limit, int *fd, size_t *size, gb_err *e) {
    *fd = -1;
    *size = 0;
    /* O_NONBLOCK: opening a FIFO waits for a writer otherwise; O_NOCTTY: a
     * terminal named here never becomes ours */
    int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0) return gb_errf(e, GB_FAIL, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(f, &st) != 0) {
        int err = errno;
        close(f);
        return gb_errf(e, GB_FAIL, "%s: cannot read: %s", path, strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return gb_errf(e, GB_FAIL, "%s: not a regular file: %s", path, gb_file_kind_name(st.st_mode));
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > limit) {
        close(f);
        return over_limit(path, what, (double)st.st_size, 1, limit, e);
    }
    int flags = fcntl(f, F_GETFL);
    if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int err = errno;
        close(f);
        return gb_errf(e, GB_FAIL, "%s: cannot read: %s", path, strerror(err));
    }
    *fd = f;
    *size = (size_t)st.st_size;
    return GB_OK;
}

/* Read fd to its end, at most limit bytes: one byte past it is an error (a
 * regular file may grow between fstat and read; standard input has no size). */
static int read_to_end(int fd, const char *name, const char *what, size_t limit, size_t hint, char **out, size_t *len,
                       gb_err *e) {
    size_t cap = hint + 1 < limit ? hint + 1 : limit + 1;
    if (cap < 4096) cap = 4096;
    size_t n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) return gb_errf(e, GB_FAIL, "%s: out of memory reading it", name);
    for (;;) {
        if (n == cap) {
            if (n > limit) break;
            size_t want = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            char *bigger = realloc(buf, want + 1);
            if (!bigger) {
                free(buf);
                return gb_errf(e, GB_FAIL, "%s: out of memory reading it", name);
            }
            buf = bigger;
            cap = want;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int err = errno;
            free(buf);
            return gb_errf(e, GB_FAIL, "%s: cannot read: %s", name, strerror(err));
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    if (n > limit) {
        free(buf);
        return over_limit(name, what, (double)limit, 0, limit, e);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return GB_OK;
}

int gb_read_bounded(const char *path, const char *what, size_t limit, char **buf, size_t *len, gb_err *e) {
    *buf = NULL;
    *len = 0;
    if (!strcmp(path, "-")) return read_to_end(0, "<stdin>", what, limit, 0, buf, len, e);
    int fd;
    size_t size;
    if (gb_open_bounded(path, what, limit, &fd, &size, e) != GB_OK) return GB_FAIL;
    int rc = read_to_end(fd, path, what, limit, size, buf, len, e);
    close(fd);
    return rc;
}

int gb_open_append(const char *path, FILE **out, gb_err *e) {
    *out = NULL;
    int f = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (f < 0 && errno == ENXIO) return gb_errf(e, GB_FAIL, "%s: not a regular file: a FIFO", path); /* no reader */
    if (f < 0) return gb_errf(e, GB_FAIL, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    int flags;
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
        int err = errno;
        int reg = fstat(f, &st) == 0;
        close(f);
        if (!reg) return gb_errf(e, GB_FAIL, "%s: cannot open: %s", path, strerror(err));
        return gb_errf(e, GB_FAIL, "%s: not a regular file: %s", path, gb_file_kind_name(st.st_mode));
    }
    if ((flags = fcntl(f, F_GETFL)) < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) != 0 || !(*out = fdopen(f, "a"))) {
        int err = errno;
        close(f);
        return gb_errf(e, GB_FAIL, "%s: cannot open: %s", path, strerror(err));
    }
    return GB_OK;
}

int gb_check_library_file(const char *path, gb_err *e) {
    if (!path || !strchr(path, '/')) return GB_OK;
    int fd;
    size_t size;
    if (gb_open_bounded(path, "a shared library", GB_LIMIT_LIBRARY, &fd, &size, e) != GB_OK) return GB_FAIL;
    close(fd);
    return GB_OK;
}
