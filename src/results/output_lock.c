/* output_lock.c — one run per results file: see output_lock.h. */
#include "output_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results_io.h"

/* The lock this process holds (one: a run writes one results file). The
 * path is kept for the signal handlers, which remove the file. */
static char lock_path[sizeof ((gb_out_target *)0)->dir + 300];
static volatile sig_atomic_t lock_fd = -1;

/* Who holds the lock on fd: its pid, or 0 when unknown (released since, or
 * a process in another pid namespace). */
static long holder(int fd) {
    struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_GETLK, &q) != 0 || q.l_type == F_UNLCK) return 0;
    return (long)q.l_pid;
}

int gb_output_lock(const char *path, int force, gb_err *e) {
    gb_out_target t;
    if (gb_output_resolve(path, &t, e) != GB_OK) return GB_FAIL;
    if (t.kind != GB_OUT_FILE || lock_fd >= 0) return GB_OK; /* a stream is not replaced: nothing to lose */
    char lp[sizeof lock_path];
    gb_output_side_name(&t, "", ".lock", lp, sizeof lp); /* NAME.lock, or shortened for a long NAME */
    /* The holder removes the lock file as it ends: a file opened just before
     * that removal is locked in vain, so the lock counts only while the path
     * still names the file locked. */
    for (int tries = 0; tries < 8; tries++) {
        int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) return gb_errf(e, GB_FAIL, "%s: cannot create the lock file %s: %s", path, lp, strerror(errno));
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fcntl(fd, F_SETLK, &fl) != 0) {
            int err = errno;
            long pid = holder(fd);
            close(fd);
            if (err != EACCES && err != EAGAIN) {
                /* Not "someone holds it": this file system cannot lock
                 * (ENOLCK, EOPNOTSUPP: NFS without lockd, some FUSE and
                 * parallel file systems). Failing would fail every task of a
                 * cluster job there; the lock only guards against two runs
                 * given the same --out, so go on without it and say so. */
                fprintf(stderr, "gpubench: warning: %s: cannot lock %s (%s): the file system does not lock; going on "
                        "without the lock, so two runs given this --out would both write it\n", path, lp, strerror(err));
                unlink(lp); /* nobody can hold it: do not leave it behind */
                return GB_OK;
            }
            if (force) {
                fprintf(stderr, "gpubench: warning: --force: %s is also being written by pid %ld; the run that ends "
                        "last replaces the other's results\n", path, pid);
                return GB_OK;
            }
            return gb_errf(e, GB_FAIL,
                           "%s: another gpubench run is writing it (pid %ld, lock %s); wait for it to end, give "
                           "another --out, or --force to write it anyway",
                           path, pid, lp);
        }
        struct stat held, now;
        if (fstat(fd, &held) == 0 && stat(lp, &now) == 0 && held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
            char pid[32];
            int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            /* for a person looking: the holder's pid (the lock itself is the fcntl lock) */
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) { /* only informative */ }
            snprintf(lock_path, sizeof lock_path, "%s", lp);
            lock_fd = fd;
            return GB_OK;
        }
        close(fd);
    }
    return gb_errf(e, GB_FAIL, "%s: cannot lock %s: it keeps being replaced", path, lp);
}

void gb_output_unlock(void) {
    if (lock_fd < 0) return;
    int fd = lock_fd;
    /* remove first, while still held: a waiter that opened it sees it gone */
    unlink(lock_path);
    lock_fd = -1;
    close(fd);
}

void gb_output_unlock_signal_safe(void) {
    if (lock_fd >= 0) unlink(lock_path); /* the kernel drops the lock itself at exit */
}
