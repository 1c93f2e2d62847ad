/* plugin.c — finding and opening gpubench-cuda.so (see plugin.h).
 *
 * The plugin links the CUDA libraries; gpubench itself does not, so it starts
 * anywhere and reports why CUDA is missing: the loader's own words for a
 * missing library, "built without CUDA" when no plugin exists at all. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin.h"

#define PLUGIN_FILE "gpubench-cuda.so"

static void *handle;

/* Directory of the running executable (from /proc/self/exe), or "." */
static void exe_dir(char *out, size_t cap) {
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) {
        snprintf(out, cap, ".");
        return;
    }
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (slash) *slash = '\0';
    snprintf(out, cap, "%s", path[0] ? path : "/");
}

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* dlerror() says "<plugin path>: libcudart.so.13: cannot open shared object
 * file: No such file or directory". The plugin path is reported separately
 * and errno's text adds nothing, so keep the middle. */
static void trim_dlerror(const char *err, const char *path, char *out, size_t cap) {
    if (!err) err = "unknown dlopen error";
    size_t plen = strlen(path);
    if (strncmp(err, path, plen) == 0 && strncmp(err + plen, ": ", 2) == 0) err += plen + 2;
    snprintf(out, cap, "%s", err);
    const char *tail = ": No such file or directory";
    size_t len = strlen(out), tlen = strlen(tail);
    if (len > tlen && strcmp(out + len - tlen, tail) == 0) out[len - tlen] = '\0';
}

static const gb_backend *open_plugin(const char *path, gb_err *why) {
    char msg[1024];
    (void)dlerror();
    /* RTLD_NODELETE: gb_plugin_unload's dlclose must not unmap the CUDA
     * libraries under their own exit-time destructors (a known source of
     * crashes at exit); the process is ending anyway. */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) {
        trim_dlerror(dlerror(), path, msg, sizeof msg);
        gb_errf(why, GB_SKIP, "%s (loading %s)", msg, path);
        return NULL;
    }
    gb_backend_plugin_fn fn;
    /* POSIX's sanctioned way to turn dlsym's void * into a function pointer. */
    *(void **)&fn = dlsym(h, GB_PLUGIN_SYMBOL);
    if (!fn) {
        gb_errf(why, GB_SKIP, "%s is not a gpubench plugin (no %s symbol)", path, GB_PLUGIN_SYMBOL);
        dlclose(h);
        return NULL;
    }
    const gb_backend *b = fn();
    if (!b) {
        gb_errf(why, GB_SKIP, "%s returned no backend", path);
        dlclose(h);
        return NULL;
    }
    if (b->abi_version != GB_ABI_VERSION) {
        gb_errf(why, GB_SKIP, "plugin ABI %d, gpubench expects %d (%s is from another build)", b->abi_version,
                 GB_ABI_VERSION, path);
        dlclose(h);
        return NULL;
    }
    handle = h;
    return b;
}

const gb_backend *gb_plugin_load_cuda(gb_err *why) {
    gb_err ignored;
    if (!why) why = &ignored;
    why->msg[0] = '\0';
    /* An explicit path is a request: report its failure, do not fall back. */
    const char *env = getenv("GPUBENCH_CUDA_PLUGIN");
    if (env && *env) {
        if (!is_file(env)) {
            gb_errf(why, GB_SKIP, "GPUBENCH_CUDA_PLUGIN=%s: no such file", env);
            return NULL;
        }
        return open_plugin(env, why);
    }
    char dir[PATH_MAX], cand[2][PATH_MAX + 64];
    exe_dir(dir, sizeof dir);
    snprintf(cand[0], sizeof cand[0], "%s/%s", dir, PLUGIN_FILE);
    snprintf(cand[1], sizeof cand[1], "%s/../lib/gpubench/%s", dir, PLUGIN_FILE);
    for (int i = 0; i < 2; i++)
        if (is_file(cand[i])) return open_plugin(cand[i], why);
    gb_errf(why, GB_SKIP, "built without CUDA (no %s in %s or %s/../lib/gpubench)", PLUGIN_FILE, dir, dir);
    return NULL;
}

void gb_plugin_unload(void) {
    if (handle) dlclose(handle);
    handle = NULL;
}
