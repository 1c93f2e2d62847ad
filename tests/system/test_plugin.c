/* test_plugin.c — the CUDA plugin loader and the plugin's face to the world,
 * on machines with or without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_id.h"
#include "plugin.h"
#include "testlib.h"

#define BUILT_PLUGIN "gpubench-cuda.so" /* the build tree's plugin, repo root */

/* Load with GPUBENCH_CUDA_PLUGIN set to path (NULL: unset); restores it. */
static const gb_backend *load_with(const char *path, char *why, size_t cap) {
    const char *old = getenv("GPUBENCH_CUDA_PLUGIN");
    char saved[1024] = "";
    if (old) snprintf(saved, sizeof saved, "%s", old);
    if (path) setenv("GPUBENCH_CUDA_PLUGIN", path, 1);
    else unsetenv("GPUBENCH_CUDA_PLUGIN");
    gb_err e = {{0}};
    const gb_backend *b = gb_plugin_load_cuda(&e);
    snprintf(why, cap, "%s", e.msg);
    if (old) setenv("GPUBENCH_CUDA_PLUGIN", saved, 1);
    else unsetenv("GPUBENCH_CUDA_PLUGIN");
    return b;
}

TEST(plugin_env_path_missing_says_so) {
    char why[512];
    const gb_backend *b = load_with("/nonexistent/gpubench-cuda.so", why, sizeof why);
    CHECK(b == NULL);
    CHECK(strstr(why, "GPUBENCH_CUDA_PLUGIN=/nonexistent/gpubench-cuda.so") != NULL);
    CHECK(strstr(why, "no such file") != NULL);
}

TEST(plugin_env_path_not_a_library_gives_loader_reason) {
    char path[] = "/tmp/gb_test_plugin_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { SKIP("cannot create a temporary file"); return; }
    CHECK(write(fd, "not an ELF file\n", 16) == 16);
    close(fd);
    char why[512];
    const gb_backend *b = load_with(path, why, sizeof why);
    CHECK(b == NULL);
    /* dlerror's words (e.g. "invalid ELF header"), and which file it was. */
    CHECK(strstr(why, path) != NULL);
    CHECK(strlen(why) > strlen(path) + 12);
    unlink(path);
}

/* The test runner lives in build/tests/: no plugin beside it or in
 * build/lib/gpubench, which is the "no plugin anywhere" case. */
TEST(plugin_absent_everywhere_is_built_without_cuda) {
    char why[512];
    const gb_backend *b = load_with(NULL, why, sizeof why);
    if (b) { SKIP("a plugin sits beside the test runner"); gb_plugin_unload(); return; }
    CHECK(strncmp(why, "built without CUDA", 18) == 0);
}

TEST(plugin_abi_mismatch_is_refused) {
    if (gb_test_sh("command -v cc", NULL, 0) != 0) { SKIP("no C compiler to build a fake plugin"); return; }
    const char *src = gb_test_tmp("abi_plugin.c"), *so = gb_test_tmp("abi_plugin.so");
    FILE *f = fopen(src, "w");
    if (!f) { SKIP("cannot write a temporary file"); return; }
    fprintf(f, "#include \"backend.h\"\n"
               "static gb_backend b = {.abi_version = GB_ABI_VERSION + 1, .name = \"cuda\"};\n"
               "const gb_backend *gb_backend_plugin(void) { return &b; }\n");
    fclose(f);
    char cmd[512], out[2048];
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -Isrc/core -I/usr/include/cjson -o %s %s", so, src);
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 0);
    if (rc != 0) { fprintf(stderr, "%s\n", out); return; }
    char why[512];
    const gb_backend *b = load_with(so, why, sizeof why);
    CHECK(b == NULL);
    char expect[64];
    snprintf(expect, sizeof expect, "plugin ABI %d, gpubench expects %d", GB_ABI_VERSION + 1, GB_ABI_VERSION);
    CHECK(strstr(why, expect) != NULL);
    unlink(src);
    unlink(so);
}

/* A plugin whose library is missing on this host (libcudart on a node
 * without the toolkit): the reason is the loader's, without the plugin path
 * prefix or errno's text. */
TEST(plugin_missing_library_is_named) {
    if (gb_test_sh("command -v cc", NULL, 0) != 0) { SKIP("no C compiler to build a fake plugin"); return; }
    char out[2048], cmd[1024], so[300];
    /* in a directory of this process's own (another checkout's tests may build the same names) */
    const char *dir = gb_test_tmp("plugin_needs");
    snprintf(so, sizeof so, "%s/gb_test_needs.so", dir);
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s && cd %s && echo 'int gb_missing_fn(void){return 1;}' > gb_test_missing.c && "
             "cc -shared -fPIC -Wl,-soname,libgb_test_missing.so.7 -o libgb_test_missing.so.7 "
             "gb_test_missing.c && "
             "echo 'int gb_missing_fn(void); int gb_backend_plugin(void){return gb_missing_fn();}' "
             "> gb_test_needs.c && cc -shared -fPIC -o gb_test_needs.so gb_test_needs.c "
             "./libgb_test_missing.so.7 && rm -f libgb_test_missing.so.7 gb_test_missing.c gb_test_needs.c",
             dir, dir);
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 0);
    if (rc != 0) { fprintf(stderr, "%s\n", out); return; }
    char why[512], want[700];
    const gb_backend *b = load_with(so, why, sizeof why);
    CHECK(b == NULL);
    snprintf(want, sizeof want, "libgb_test_missing.so.7: cannot open shared object file (loading %s)", so);
    CHECK(strcmp(why, want) == 0);
    if (strcmp(why, want) != 0) fprintf(stderr, "    got: %s\n", why);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}

TEST(plugin_exports_only_its_entry_point) {
    if (access(BUILT_PLUGIN, F_OK) != 0) { SKIP("gpubench-cuda.so not built (no nvcc)"); return; }
    char out[4096];
    int rc = gb_test_sh("nm -D --defined-only " BUILT_PLUGIN, out, sizeof out);
    if (rc == 127) { SKIP("nm not installed"); return; }
    CHECK(rc == 0);
    int lines = 0;
    for (const char *p = out; *p; p++)
        if (*p == '\n') lines++;
    CHECK(lines == 1);
    CHECK(strstr(out, " T gb_backend_plugin\n") != NULL);
}

/* The built plugin either comes up (GPU host) or says why not (anywhere
 * else); either way the reason is in words, and `gpubench list` shows it. */
TEST(plugin_init_reports_why_cuda_is_unavailable) {
    if (access(BUILT_PLUGIN, F_OK) != 0) { SKIP("gpubench-cuda.so not built (no nvcc)"); return; }
    char why[512];
    char abs[1024];
    if (!realpath(BUILT_PLUGIN, abs)) { CHECK(0); return; }
    const gb_backend *b = load_with(abs, why, sizeof why);
    char reason[600] = "";
    if (!b) {
        /* The CUDA libraries themselves are missing: the loader's reason.
         * (An undefined symbol would be a build bug, not a missing library.) */
        CHECK(strstr(why, "cannot open shared object file") != NULL);
        if (!strstr(why, "cannot open shared object file")) fprintf(stderr, "    %s\n", why);
        snprintf(reason, sizeof reason, "%.*s", (int)strcspn(why, "("), why);
    } else {
        CHECK(strcmp(b->name, "cuda") == 0);
        CHECK(b->ntimings == 3 && strcmp(b->timings[0], "device") == 0 &&
              strcmp(b->timings[1], "end_to_end") == 0 && strcmp(b->timings[2], "end_to_end_overlapped") == 0);
        /* the overlapped timing is the ops' to declare: elementwise has it, matmul not */
        gb_case ew = {.op_id = GB_OP_ELEMENTWISE}, mm = {.op_id = GB_OP_MATMUL};
        CHECK(b->has_timing && b->has_timing(&ew, 2) && !b->has_timing(&mm, 2) && b->has_timing(&mm, 1));
        gb_backend_options opt = {.threads = 1, .device = 0, .cache_cold = 0};
        gb_err e = {{0}};
        int st = b->init(&opt, &e);
        if (st == GB_OK) {
            /* A GPU is here: a device that does not exist must be named. */
            b->shutdown();
            gb_backend_options bad = {.threads = 1, .device = 999, .cache_cold = 0};
            gb_err e2 = {{0}};
            CHECK(b->init(&bad, &e2) == GB_SKIP);
            CHECK(strstr(e2.msg, "device 999 does not exist") != NULL);
        } else {
            CHECK(st == GB_SKIP);
            CHECK(strlen(e.msg) > 5);
            snprintf(reason, sizeof reason, "%s", e.msg);
            fprintf(stderr, "    (cuda unavailable here: %s) ", e.msg);
        }
        gb_plugin_unload();
    }
    /* `gpubench list` exits 0 and carries the same reason. */
    const char *bin = gb_test_binary();
    if (access(bin, X_OK) != 0) { SKIP("gpubench binary not built"); return; }
    char cmd[2200], out[16384];
    /* the same plugin as above: a binary of another build folder (the
     * sanitizer build has none next to it) must not look elsewhere */
    snprintf(cmd, sizeof cmd, "GPUBENCH_CUDA_PLUGIN=%s %s list", abs, bin);
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 0);
    CHECK(strstr(out, "cuda") != NULL);
    if (reason[0]) {
        /* Compare a prefix: list may wrap or shorten long reasons. */
        char head[40];
        snprintf(head, sizeof head, "%.39s", reason);
        CHECK(strstr(out, head) != NULL);
        if (!strstr(out, head)) fprintf(stderr, "    expected '%s' in:\n%s\n", head, out);
    }
}
