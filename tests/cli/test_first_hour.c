/* test_first_hour.c — what a newcomer meets in the first hour (issue 32):
 * a refused flag in one line with where help is, not the whole usage. */
#include <stdio.h>
#include <string.h>
#include "testlib.h"

static char out[1 << 14];

static int lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* Every command: an unknown flag is one line, prefixed "gpubench CMD:",
 * naming the flag and the command's --help; exit status 2. */
TEST(cli_unknown_flag_is_one_line_with_a_hint) {
    static const char *const cmds[] = {"run", "report", "compare", "info", "list", "validate",
                                       "merge", "peak", "export", "slurm", "history"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char cmd[256], want[160];
        snprintf(cmd, sizeof cmd, "%s %s --bogus 2>&1", gb_test_binary(), cmds[i]);
        if (!strcmp(cmds[i], "history")) snprintf(cmd, sizeof cmd, "%s history add --bogus 2>&1", gb_test_binary());
        CHECK(gb_test_sh(cmd, out, sizeof out) == 2);
        snprintf(want, sizeof want, "gpubench %s: unrecognized option '--bogus' (see gpubench %s --help)\n", cmds[i],
                 cmds[i]);
        CHECK(strcmp(out, want) == 0);
        if (strcmp(out, want)) fprintf(stderr, "    got: %s", out);
    }
    /* a value missing, a value given to a switch, an unknown short option */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s run --out 2>&1", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && lines(out) == 1 &&
          strstr(out, "gpubench run: option '--out' needs a value") == out);
    snprintf(cmd, sizeof cmd, "%s run --help=3 2>&1", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && lines(out) == 1 && strstr(out, "'--help' takes no value"));
    snprintf(cmd, sizeof cmd, "%s report -z 2>&1", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && lines(out) == 1 &&
          strstr(out, "gpubench report: unrecognized option '-z'") == out);
}

static const char *json_core_detected(const char *env) {
    static char got[64];
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "%s %s info --format json 2>/dev/null | python3 -c "
             "\"import json,sys; o=json.load(sys.stdin)['libraries']['openblas']; print(o.get('core_detected',''))\"",
             env, gb_test_binary());
    got[0] = 0;
    if (gb_test_sh(cmd, out, sizeof out) == 0) sscanf(out, "%63s", got);
    return got;
}

/* `info` (and so every results file's context) records what OpenBLAS
 * detects by itself also when OPENBLAS_CORETYPE forces another core: the
 * same name as without the variable. */
TEST(info_records_core_detected_when_openblas_coretype_is_set) {
    char plain[64];
    snprintf(plain, sizeof plain, "%s", json_core_detected("env -u OPENBLAS_CORETYPE"));
    CHECK(*plain);
    CHECK(strcmp(json_core_detected("OPENBLAS_CORETYPE=Haswell"), plain) == 0);
    CHECK(strcmp(json_core_detected("OPENBLAS_CORETYPE=Prescott OMP_WAIT_POLICY=PASSIVE"), plain) == 0);
}
