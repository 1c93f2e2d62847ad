/* nolock.c — an LD_PRELOAD shim for tests/cli/test_lock_fallback.c: every
 * fcntl lock request fails with ENOLCK, as on a file system without POSIX
 * locks (NFS without lockd, some FUSE and parallel file systems), which
 * this machine does not have. Every other fcntl goes to the C library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

static int pass(const char *name, int fd, int cmd, void *arg) {
    int (*real)(int, int, ...) = (int (*)(int, int, ...))dlsym(RTLD_NEXT, name);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(fd, cmd, arg);
}

static int locking(int cmd) { return cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW; }

/* A lock request fails; anything else goes to the C library's `name`. */
static int intercept(const char *name, int fd, int cmd, void *arg) {
    if (locking(cmd)) {
        errno = ENOLCK;
        return -1;
    }
    return pass(name, fd, cmd, arg);
}

int fcntl(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    return intercept("fcntl", fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    return intercept("fcntl64", fd, cmd, arg);
}
