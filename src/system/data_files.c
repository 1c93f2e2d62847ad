/* data_files.c — see data_files.h. */
#include "data_files.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The places, in order, relative to the executable's directory. */
static const char *const places[] = {"", "../", "../share/gpubench/"};
enum { PLACES = sizeof places / sizeof places[0] };

static int is_a(const char *p, mode_t kind) {
    struct stat st;
    return stat(p, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

/* exe_dir, or this executable's directory into buf; NULL with why in e. */
static const char *exe_dir_or_own(const char *exe_dir, char *buf, size_t len, gb_err *e) {
    if (exe_dir) return exe_dir;
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0) {
        gb_errf(e, GB_SKIP, "cannot find the gpubench executable (/proc/self/exe: %s)", strerror(errno));
        return NULL;
    }
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash) *slash = '\0';
    return buf;
}

/* The first of the places where folder[/name] is a file (name) or a
 * directory (name NULL). */
static int find(const char *exe_dir, const char *folder, const char *name, char *path, size_t len, gb_err *e) {
    char exe[PATH_MAX];
    if (!(exe_dir = exe_dir_or_own(exe_dir, exe, sizeof exe, e))) return GB_SKIP;
    char looked[GB_MSG_LEN] = "";
    size_t off = 0;
    for (size_t i = 0; i < PLACES; i++) {
        snprintf(path, len, "%s/%s%s%s%s", exe_dir, places[i], folder, name ? "/" : "", name ? name : "");
        if (is_a(path, name ? S_IFREG : S_IFDIR)) {
            char whole[PATH_MAX]; /* /usr/bin/../share/... said as /usr/share/... */
            if (realpath(path, whole) && strlen(whole) < len) strcpy(path, whole);
            return GB_OK;
        }
        if (off < sizeof looked) off += (size_t)snprintf(looked + off, sizeof looked - off, "%s %s", i ? "," : "", path);
    }
    path[0] = '\0';
    return gb_errf(e, GB_SKIP, "%s%s%s not found; looked in%s", folder, name ? "/" : "", name ? name : "", looked);
}

int gb_data_file_find(const char *exe_dir, const char *folder, const char *name, char *path, size_t len, gb_err *e) {
    return find(exe_dir, folder, name, path, len, e);
}

int gb_data_folder_find(const char *exe_dir, const char *folder, char *dir, size_t len, gb_err *e) {
    return find(exe_dir, folder, NULL, dir, len, e);
}
