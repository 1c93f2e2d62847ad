/* test_golden.c — what report, compare, export and the fleet report print for
 * the small fixtures, byte for byte against tests/golden/expected (written by
 * tests/golden/outputs.sh). A change in how the outputs are produced (the
 * writers, the typed compare and fleet results) must leave every one of them
 * identical; a change meant to alter an output regenerates the expected files
 * (`tests/golden/outputs.sh ./gpubench tests/golden/expected`) and shows the
 * difference in its commit. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testlib.h"

TEST(golden_outputs_are_byte_identical) {
    char dir[] = "/tmp/gb_test_golden_XXXXXX", cmd[1024], out[8192];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "tests/golden/outputs.sh %s %s/out >/dev/null && diff -r tests/golden/expected %s/out",
             gb_test_binary(), dir, dir);
    int st = gb_test_sh(cmd, out, sizeof out);
    if (st != 0) fprintf(stderr, "%s\n", out);
    CHECK(st == 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}
