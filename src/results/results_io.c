/* results_io.c — read a JSON file (with the line of a syntax error), write one
 * atomically. */
#include "results_io.h"

#include "json_strict.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gb_json_read_file(const char *path, cJSON **out, gb_err *e) { return gb_json_read_strict(path, out, e); }

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int gb_json_write_atomic(const cJSON *doc, const char *path, gb_err *e) {
    char *text = cJSON_Print(doc);
    if (!text) return gb_errf(e, GB_FAIL, "%s: cannot serialise the document (out of memory)", path);
    size_t n = strlen(text);
    if (strcmp(path, "-") == 0) {
        int bad = fwrite(text, 1, n, stdout) != n || fputc('\n', stdout) == EOF || fflush(stdout) != 0;
        free(text);
        if (bad) return gb_errf(e, GB_FAIL, "%s: cannot write: %s", "<stdout>", strerror(errno));
        return GB_OK;
    }

    /* The temp file lives next to the target: rename is atomic only within
     * one file system. */
    char *dircopy = strdup(path), *basecopy = strdup(path);
    size_t tlen = strlen(path) + 32;
    char *tmp = malloc(tlen);
    int rc = GB_FAIL, fd = -1;
    if (!dircopy || !basecopy || !tmp) {
        gb_errf(e, GB_FAIL, "%s: out of memory", path);
        goto out;
    }
    const char *dir = dirname(dircopy);
    snprintf(tmp, tlen, "%s/.%s.tmp.XXXXXX", dir, basename(basecopy));
    fd = mkstemp(tmp);
    if (fd < 0) {
        gb_errf(e, GB_FAIL, "%s: cannot create a temporary file there: %s", path, strerror(errno));
        goto out;
    }
    /* mkstemp makes 0600; results are meant to be shared like any output. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || write_all(fd, text, n) != 0 || write_all(fd, "\n", 1) != 0) {
        gb_errf(e, GB_FAIL, "%s: cannot write: %s", path, strerror(errno));
        goto fail;
    }
    if (fsync(fd) != 0) {
        gb_errf(e, GB_FAIL, "%s: fsync failed: %s", path, strerror(errno));
        goto fail;
    }
    if (close(fd) != 0) {
        fd = -1;
        gb_errf(e, GB_FAIL, "%s: close failed: %s", path, strerror(errno));
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        gb_errf(e, GB_FAIL, "%s: cannot rename the temporary file into place: %s", path, strerror(errno));
        goto fail;
    }
    /* Make the rename itself durable; failure here loses nothing already
     * visible, so it is not an error. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    rc = GB_OK;
    goto out;
fail:
    if (fd >= 0) close(fd);
    unlink(tmp);
out:
    free(text);
    free(dircopy);
    free(basecopy);
    free(tmp);
    return rc;
}


