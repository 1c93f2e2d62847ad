/* test_file_roles.c — no command writes over one of its own inputs, nor two
 * outputs of one command over each other (file_roles.h); the up-front output
 * check is exact (another user's file in a sticky directory) and says the
 * real reason (a read-only working directory); names of any legal length
 * can be written (docs/reliability.md). End to end with the binary, each
 * test in a scratch directory of its own. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static char said[1 << 15];

/* Run a shell script (printf-style) with $B the binary and $d the scratch
 * directory, in $d; its output in `said`. */
static int run_in(const char *dir, const char *fmt, ...) {
    char script[6144], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(script, sizeof script, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "B=$(realpath %s); d=%s; cd $d && { %s; }", gb_test_binary(), dir, script);
    return gb_test_sh(cmd, said, sizeof said);
}

/* A scratch directory with a suite s.json and a results file R.json (one
 * tiny CPU case). */
static int setup(char *dir, size_t len) {
    snprintf(dir, len, "/tmp/gb_roles_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    return run_in(dir, "printf '{\"name\":\"s\",\"benchmarks\":[{\"op\":\"elementwise\",\"sizes\":[8],"
                       "\"dtypes\":[\"float32\"]}]}\\n' > s.json && $B run --op elementwise --sizes 8 --backend cpu "
                       "--no-peak --quiet --out R.json > /dev/null 2>&1 && cp R.json R2.json");
}

static void cleanup(const char *dir) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}

/* The tests run as root, who may write anywhere: another user is needed,
 * through setpriv (util-linux). 1 when $B runs as uid 65534 here. */
static int can_be_another_user(const char *dir) {
    if (geteuid() != 0) return 0;
    return run_in(dir, "setpriv --reuid=65534 --regid=65534 --clear-groups $B --version > /dev/null 2>&1") == 0;
}

/* The scratch directory set up (a failed CHECK when not); with
 * other_user, also able to run the binary as another user (skipped, with
 * the reason, when not). */
static int ready(char *dir, size_t len, int other_user) {
    int ok = setup(dir, len) == 0;
    CHECK(ok);
    if (ok && other_user && !can_be_another_user(dir)) {
        SKIP("needs root and setpriv, and the binary reachable by uid 65534");
        cleanup(dir);
        ok = 0;
    }
    return ok;
}

/* The command exits 2 naming both paths, and every file is as it was. */
static void refused(const char *dir, const char *cmd, const char *a, const char *b) {
    int rc = run_in(dir, "cat s.json R.json > before; %s 2>&1; rc=$?; cat s.json R.json | cmp -s - before || "
                         "echo CHANGED; exit $rc", cmd);
    CHECK(rc == 2);
    CHECK(strstr(said, a) != NULL && strstr(said, b) != NULL);
    CHECK(strstr(said, "CHANGED") == NULL);
    if (rc != 2 || !strstr(said, a) || !strstr(said, b) || strstr(said, "CHANGED"))
        fprintf(stderr, "    %s: %s\n", cmd, said);
}

TEST(files_no_command_writes_over_its_own_input) {
    char dir[64];
    if (!ready(dir, sizeof dir, 0)) return;
    run_in(dir, "ln s.json hard.json; ln -s s.json sym.json; ln -s R.json Rsym.json; mkdir d; cp R.json d/fleet.json; "
                "cp s.json d/suite.json");
    const char *never = "never writes over one of its own inputs";
    refused(dir, "$B run s.json --out s.json --no-peak", "--out s.json", "the suite s.json");
    refused(dir, "$B run s.json --export-gbench ./s.json --no-peak", "--export-gbench ./s.json", never);
    refused(dir, "$B run ./hard.json --out s.json --no-peak", "the suite ./hard.json", never);
    refused(dir, "$B run sym.json --out s.json --no-peak", "--out s.json", "the suite sym.json");
    refused(dir, "$B export R.json --format gbench -o R.json", "-o R.json", "the results file R.json");
    refused(dir, "$B export Rsym.json --format benchmark-action -o ./R.json", "-o ./R.json", never);
    refused(dir, "$B compare R2.json R.json -o R.json", "-o R.json", "the current results R.json");
    refused(dir, "echo '{}' > p.json; $B compare R.json R2.json --policy p.json -o ./p.json", "-o ./p.json",
            "the policy p.json");
    refused(dir, "$B merge R2.json R.json -o $d/R.json", "-o", "the input R.json");
    refused(dir, "$B report R.json -o R.json", "-o R.json", "the results file R.json");
    refused(dir, "$B report R.json --plot R.json", "--plot R.json", "the results file R.json");
    refused(dir, "$B report --fleet d/fleet.json --plot d", "d/fleet.json", never);
    refused(dir, "$B slurm d/suite.json --dir d", "d/suite.json", never);
    /* a --plot directory that is there as a file: said before anything is measured, not after the run */
    refused(dir, "cp R.json other.json; $B run s.json --plot other.json --no-peak --out o.json", "--plot other.json",
            "there is a file of that name, not a directory to write into");
    CHECK(run_in(dir, "test -e o.json") != 0);
    CHECK(run_in(dir, "ls d | wc -l") == 0 && atoi(said) == 2); /* slurm wrote nothing there */
    cleanup(dir);
}

TEST(files_no_two_outputs_of_one_command_are_the_same_file) {
    char dir[64];
    if (!ready(dir, sizeof dir, 0)) return;
    int rc = run_in(dir, "$B run s.json --out x.json --export-gbench ./x.json 2>&1");
    CHECK(rc == 2 && strstr(said, "--out x.json and --export-gbench ./x.json are the same file") != NULL);
    CHECK(access("x.json", F_OK) != 0);
    rc = run_in(dir, "touch y.json; ln y.json z.json; $B run s.json --out y.json --export-gbench z.json 2>&1");
    CHECK(rc == 2 && strstr(said, "are the same file") != NULL);
    rc = run_in(dir, "$B run s.json --out p --plot ./p --no-peak 2>&1");
    CHECK(rc == 2 && strstr(said, "--out p and --plot ./p are the same path") != NULL);
    /* a device is not a file that is replaced: /dev/null twice is no clash */
    run_in(dir, "$B run s.json --backend cpu --no-peak --quiet --out /dev/null --export-gbench /dev/null 2>&1");
    CHECK(strstr(said, "same") == NULL);
    cleanup(dir);
}

/* 255 bytes, the longest name Linux takes: every writer writes it (its temp
 * file .NAME.tmp.PID and lock file NAME.lock are shortened with a hash), and
 * leaves no temp or lock file. */
TEST(files_names_of_255_bytes_are_written_by_every_writer) {
    char dir[64];
    if (!ready(dir, sizeof dir, 0)) return;
    int rc = run_in(dir,
                    "L=$(printf '%%0249d' 0); "
                    "$B run s.json --backend cpu --no-peak --quiet --out r$L.json --export-gbench g$L.json >/dev/null "
                    "2>&1 && $B export R.json --format gbench -o e$L.json && "
                    "$B compare R.json R2.json -o c$L.json > /dev/null 2>&1 && $B merge R.json R2.json -o m$L.json "
                    "2> /dev/null && $B report R.json -o p$L.json && mkdir f${L}12345 && "
                    "$B slurm s.json --dir f${L}12345 > /dev/null && echo ALL; "
                    "ls -a | awk 'length($0) == 255' | wc -l; ls -a | grep -c -e '\\.tmp\\.' -e '\\.lock$'");
    CHECK(rc != 2 && strstr(said, "ALL") != NULL);
    char *counts = strstr(said, "ALL");
    int n255 = -1, left = -1;
    if (counts) sscanf(counts + 3, "%d %d", &n255, &left);
    CHECK(n255 == 7); /* r, g, e, c, m, p and the directory f */
    CHECK(left == 0);
    if (!counts || n255 != 7 || left != 0) fprintf(stderr, "    %s\n", said);
    cleanup(dir);
}

/* D: another user's file in a sticky directory (/tmp's rule) cannot be
 * replaced by rename: refused up front, before anything is measured, naming
 * the rule; its owner may write it. */
TEST(files_out_onto_another_users_file_in_a_sticky_directory_is_refused_up_front) {
    char dir[64];
    if (!ready(dir, sizeof dir, 1)) return;
    run_in(dir, "chmod 755 $d; mkdir t; chmod 1777 t; echo theirs > t/r.json; chown 65534 t/r.json; chmod 644 s.json");
    int rc = run_in(dir, "setpriv --reuid=65533 --regid=65533 --clear-groups $B run s.json --backend cpu --no-peak "
                         "--out t/r.json 2>&1");
    CHECK(rc == 2);
    CHECK(strstr(said, "t/r.json: cannot replace it") != NULL && strstr(said, "sticky directory") != NULL);
    CHECK(strstr(said, "results:") == NULL); /* nothing measured, nothing claimed written */
    CHECK(run_in(dir, "cat t/r.json") == 0 && strstr(said, "theirs") != NULL);
    /* the file's owner may replace it */
    CHECK(run_in(dir, "setpriv --reuid=65534 --regid=65534 --clear-groups $B run s.json --backend cpu --no-peak "
                      "--quiet --out t/r.json > /dev/null 2>&1") == 0);
    cleanup(dir);
}

/* F: a working directory the user cannot write: the reason is the errno
 * (Permission denied), not "does not exist". */
TEST(files_unwritable_working_directory_says_permission_denied) {
    char dir[64];
    if (!ready(dir, sizeof dir, 1)) return;
    run_in(dir, "chmod 755 $d; mkdir ro; chmod 555 ro; chmod 644 s.json");
    int rc = run_in(dir, "cd ro && setpriv --reuid=65534 --regid=65534 --clear-groups $B run ../s.json --backend cpu "
                         "--no-peak 2>&1");
    CHECK(rc == 2 && strstr(said, "cannot create the directory results") && strstr(said, "Permission denied"));
    CHECK(strstr(said, "does not exist") == NULL);
    rc = run_in(dir, "setpriv --reuid=65534 --regid=65534 --clear-groups $B export R.json --format gbench -o ro/x.json "
                     "2>&1");
    CHECK(rc == 2 && strstr(said, "Permission denied") != NULL);
    /* a directory that cannot be searched is not one that "does not exist" */
    run_in(dir, "mkdir -p hidden/sub; chmod 700 hidden");
    rc = run_in(dir, "setpriv --reuid=65534 --regid=65534 --clear-groups $B export R.json --format gbench "
                     "-o hidden/sub/x.json 2>&1");
    CHECK(rc == 2 && strstr(said, "hidden/sub/x.json") && strstr(said, "Permission denied"));
    CHECK(strstr(said, "does not exist") == NULL);
    cleanup(dir);
}
