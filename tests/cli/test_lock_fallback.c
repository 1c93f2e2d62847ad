/* test_lock_fallback.c — a file system that cannot lock (ENOLCK from every
 * fcntl lock, injected by tests/data/shim/nolock.c through LD_PRELOAD: this
 * machine has no such file system) must not fail the run: it warns that it
 * goes on without the lock, writes its results and leaves no lock file
 * behind (issue #31: every task of a cluster job would fail there). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include "testlib.h"

TEST(run_on_a_file_system_without_locks_warns_and_writes_its_results) {
    const char *so = gb_test_tmp("nolock.so"), *out = gb_test_tmp("nolock-out.json");
    char cmd[1024], text[8192];
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o %s tests/data/shim/nolock.c -ldl 2>&1", so);
    if (gb_test_sh(cmd, text, sizeof text) != 0) {
        SKIP("no C compiler to build the shim");
        return;
    }
    unlink(out);
    /* ASan wants its runtime first; the shim only wraps fcntl */
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 LD_PRELOAD=%s %s run --op elementwise --sizes 32 "
             "--backend cpu --rounds 1 --no-peak --quiet --max-time 1s --out %s 2>&1",
             so, gb_test_binary(), out);
    CHECK(gb_test_sh(cmd, text, sizeof text) == 0);
    CHECK(strstr(text, "the file system does not lock; going on without the lock") != NULL);
    CHECK(access(out, F_OK) == 0);
    char lock[512];
    snprintf(lock, sizeof lock, "%s.lock", out);
    CHECK(access(lock, F_OK) != 0);
    cJSON *doc = gb_test_load_json(out);
    CHECK(doc != NULL);
    cJSON_Delete(doc);
}
