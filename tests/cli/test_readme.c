/* test_readme.c — the README stays true (issue 32): every command it shows
 * is run, or validated with --list where measuring would take minutes, or
 * named as skipped with the reason (a GPU, root, matplotlib); its sample
 * table matches the results file it names; its links resolve.
 * scripts/dev/check-readme.py does the work and says which was which. */
#include <stdio.h>
#include <string.h>
#include "testlib.h"

TEST(readme_commands_run_and_its_sample_table_and_links_hold) {
    static char out[1 << 16];
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 scripts/dev/check-readme.py %s 2>&1", gb_test_binary());
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 0);
    if (rc != 0) fprintf(stderr, "%s", out);
    CHECK(strstr(out, "ran: ./gpubench list") != NULL);
    CHECK(strstr(out, " rows match results/reference/") != NULL);
}
