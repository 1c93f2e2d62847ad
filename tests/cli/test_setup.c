/* test_setup.c — the two-minute set-up (issue 47): `make` alone builds in
 * parallel, one job per CPU, and an explicit -jN still wins. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"

static char out[1 << 20];

/* make's database (-p, nothing built: -n -q) holds the MAKEFLAGS the
 * Makefile ended with. */
static int makeflags_have(const char *args, const char *want) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "make -pnq %s all 2>/dev/null | grep '^MAKEFLAGS' ", args);
    gb_test_sh(cmd, out, sizeof out);
    return strstr(out, want) != NULL;
}

TEST(make_builds_in_parallel_by_default_one_job_per_cpu) {
    char want[32];
    snprintf(want, sizeof want, " -j%ld", sysconf(_SC_NPROCESSORS_ONLN));
    CHECK(makeflags_have("", want));
    if (!strstr(out, want)) fprintf(stderr, "    got: %s", out);
    CHECK(makeflags_have("-j1", "j1") && !makeflags_have("-j1", want + 1 + (want[3] == '1')));
}
