/* test_hostile.c — the fourth hardening pass (issue #41): special files
 * named where a library, a log or a kept file is expected. Each test fails
 * on the code before the pass; none depends on timing (a hang is caught by
 * a generous timeout and reported as exit 124). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "testlib.h"

static char out[1 << 16];

/* A FIFO named by --cpu-blas (run, info), GPUBENCH_BLIS or
 * GPUBENCH_ENERGY_LOG hung until killed: dlopen and fopen wait for a writer
 * or a reader. Now each is checked without blocking and refused or left out,
 * naming the FIFO. */
TEST(hostile_fifos_named_as_libraries_or_logs_never_block) {
    const char *fifo = gb_test_tmp("hostile.fifo");
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    const char *quick = "--op matmul --sizes 32 --dtype float32 --backend cpu --quiet --min-time 1ms --max-time 5ms";
    char cmd[2048];
    struct { const char *env, *args, *want; int rc; } cases[] = {
        {"", "run %s --cpu-blas %s -o /dev/null", "--cpu-blas %s: not a regular file: a FIFO", 2},
        {"", "info --cpu-blas %2$s", "--cpu-blas %s: not a regular file: a FIFO", 2},
        {"GPUBENCH_BLIS=%s", "info", "GPUBENCH_BLIS=%s: not a regular file: a FIFO", 0},
        {"GPUBENCH_ENERGY_LOG=%s", "run %s --energy on -o /dev/null", "GPUBENCH_ENERGY_LOG=%s: not a regular file: a FIFO", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char env[600], args[1200], want[600];
        snprintf(env, sizeof env, cases[i].env, fifo);
        snprintf(args, sizeof args, cases[i].args, quick, fifo);
        snprintf(want, sizeof want, cases[i].want, fifo);
        snprintf(cmd, sizeof cmd, "env %s timeout 120 %s %s", env, gb_test_binary(), args);
        int rc = gb_test_sh(cmd, out, sizeof out);
        if (!CHECK(rc == cases[i].rc && strstr(out, want))) fprintf(stderr, "    %s -> %d: %.600s\n", cmd, rc, out);
    }
    unlink(fifo);
}

/* Flags that did nothing: `report --fleet X -o F` printed the report and
 * wrote no F; `run -o -` put the results JSON between the per-case lines
 * and the table, so a JSON reader of standard output failed. Now F holds the
 * report and standard output nothing; `-o -` gives the JSON alone there. */
TEST(hostile_flags_do_what_they_say_or_are_refused) {
    const char *results = gb_test_tmp("hostile_flags.json"), *report = gb_test_tmp("hostile_flags.md");
    const char *quick = "--op matmul --sizes 32 --dtype float32 --backend cpu --min-time 1ms --max-time 5ms";
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "timeout 120 %s run %s -o - 2>/dev/null", gb_test_binary(), quick);
    int rc = gb_test_sh(cmd, out, sizeof out);
    cJSON *doc = cJSON_Parse(out);
    if (!CHECK(rc == 0 && doc && cJSON_GetObjectItem(doc, "cases"))) fprintf(stderr, "    %s -> %d: %.300s\n", cmd, rc, out);
    cJSON_Delete(doc);

    snprintf(cmd, sizeof cmd, "timeout 120 %s run %s --quiet -o %s", gb_test_binary(), quick, results);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    unlink(report);
    snprintf(cmd, sizeof cmd, "timeout 120 %s report --fleet %s --format md -o %s 2>/dev/null", gb_test_binary(), results,
             report);
    rc = gb_test_sh(cmd, out, sizeof out);
    struct stat st;
    if (!CHECK(rc == 0 && out[0] == '\0' && stat(report, &st) == 0 && st.st_size > 0))
        fprintf(stderr, "    %s -> %d: %.300s\n", cmd, rc, out);
    /* and never over its own input */
    snprintf(cmd, sizeof cmd, "timeout 120 %s report --fleet %s -o %s", gb_test_binary(), results, results);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && strstr(out, "never writes over one of its own inputs"));
    /* an empty backend list is refused by --list as by a run */
    snprintf(cmd, sizeof cmd, "%s run --backend '' --list", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2);
    unlink(results);
    unlink(report);
}

/* A history one user locked for another: another user's reader in a shared
 * sticky directory left -wal/-shm files the owner could neither write nor
 * remove; a reader of a 444 database in a 755 directory failed "attempt to
 * write a readonly database". Now a reader of a file it may not write opens
 * it read-only (immutable while no -wal is beside it): it reads, and leaves
 * nothing. Needs root (to be another user: setpriv as nobody). */
TEST(hostile_a_reader_who_may_not_write_reads_and_leaves_nothing) {
    char cmd[4 * PATH_MAX + 2048], bin[PATH_MAX];
    if (!CHECK(realpath(gb_test_binary(), bin) != NULL)) return; /* the commands below run in another directory */
    snprintf(cmd, sizeof cmd, "[ \"$(id -u)\" = 0 ] && command -v setpriv >/dev/null && "
                              "setpriv --reuid=65534 --regid=65534 --clear-groups %s --help >/dev/null 2>&1",
             bin);
    if (gb_test_sh(cmd, out, sizeof out) != 0) {
        SKIP("needs root, setpriv and a binary user nobody may run");
        return;
    }
    char dir[] = "/tmp/gb-hostile-history-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL)) return;
    const char *as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups";
    snprintf(cmd, sizeof cmd,
             "cd %1$s && mkdir ro shared && chmod 755 . ro && chmod 1777 shared && "
             "timeout 120 %2$s run --op matmul --sizes 32 --dtype float32 --backend cpu --min-time 1ms --max-time 5ms "
             "--quiet -o r.json && chmod 644 r.json && %2$s history add --db ro/h.db r.json && chmod 444 ro/h.db && "
             "%2$s history add --db shared/h.db r.json",
             dir, bin);
    if (!CHECK(gb_test_sh(cmd, out, sizeof out) == 0)) fprintf(stderr, "    %.600s\n", out);
    /* the read-only database is read by another user */
    snprintf(cmd, sizeof cmd, "cd %s && %s %s history list --db ro/h.db", dir, as_nobody, bin);
    int rc = gb_test_sh(cmd, out, sizeof out);
    if (!CHECK(rc == 0 && strstr(out, "1 run"))) fprintf(stderr, "    %s -> %d: %.600s\n", cmd, rc, out);
    /* another user's reader in the shared directory leaves no file there,
     * and the owner's next add works */
    snprintf(cmd, sizeof cmd, "cd %s && %s %s history list --db shared/h.db", dir, as_nobody, bin);
    rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 0 && strstr(out, "1 run"));
    snprintf(cmd, sizeof cmd, "cd %s && ls shared", dir);
    gb_test_sh(cmd, out, sizeof out);
    if (!CHECK(!strstr(out, "h.db-wal") && !strstr(out, "h.db-shm"))) fprintf(stderr, "    left: %s\n", out);
    snprintf(cmd, sizeof cmd, "cd %1$s && cp r.json r2.json && sed -i 's/\"seed\"/\"seed\" /' r2.json && "
                              "%2$s history add --db shared/h.db r2.json", dir, bin);
    rc = gb_test_sh(cmd, out, sizeof out);
    if (!CHECK(rc == 0 && strstr(out, "added as run 2"))) fprintf(stderr, "    %s -> %d: %.600s\n", cmd, rc, out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, out, sizeof out);
}

/* Work before refusing: a 2 GiB sparse file of NUL bytes (within the
 * results limit) was read whole, 2 GiB of memory, before "a NUL byte at line
 * 1, column 1"; `history add` of it with a new --db refused but left an
 * empty history behind. Now what is plainly not JSON is refused from its
 * first bytes, and no history is made for it. The memory limit is computed:
 * the most address space each command needs on a small valid results file
 * here, with OpenBLAS and OpenMP held to one thread (so it does not grow
 * with nproc), plus 256 MiB -- well under the file's 2047 MiB, so reading it
 * whole cannot fit. */
TEST(hostile_plainly_not_json_is_refused_from_its_first_bytes) {
    char probe[1024];
    snprintf(probe, sizeof probe, "grep -qa __asan_init %s", gb_test_binary());
    if (gb_test_sh(probe, out, sizeof out) == 0) {
        SKIP("this build cannot start under ulimit -v (a sanitizer build reserves terabytes of address space)");
        return;
    }
    const char *big = gb_test_tmp("hostile_nul.json"), *db = gb_test_tmp("hostile_nul.sqlite");
    const char *small = "tests/data/results_small.json", *small_db = gb_test_tmp("hostile_small.sqlite");
    static const char env[] = "OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1";
    const char *cmds[] = {"report %s", "history add --db %2$s %1$s", "compare %1$s %1$s"};
    long need = 0;
    unlink(small_db);
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char args[1024], cmd[2048];
        snprintf(args, sizeof args, cmds[i], small, small_db);
        snprintf(cmd, sizeof cmd, "%s %s %s", env, gb_test_binary(), args);
        long peak = gb_test_vm_peak_kib(cmd);
        if (!CHECK(peak > 0)) fprintf(stderr, "    the address space of %s could not be measured\n", cmd);
        if (peak > need) need = peak;
    }
    unlink(small_db);
    long limit = need + 256L * 1024;
    if (!CHECK(need > 0 && limit < 2047L * 1024)) return;
    unlink(db);
    if (!CHECK(truncate(big, 0) == 0 || errno == ENOENT)) return;
    FILE *f = fopen(big, "w");
    if (!CHECK(f != NULL)) return;
    fclose(f);
    if (!CHECK(truncate(big, (off_t)2047 << 20) == 0)) return; /* sparse: nothing written */
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char args[1024], cmd[2048];
        snprintf(args, sizeof args, cmds[i], big, db);
        snprintf(cmd, sizeof cmd, "ulimit -v %ld; %s timeout 120 %s %s", limit, env, gb_test_binary(), args);
        int rc = gb_test_sh(cmd, out, sizeof out);
        if (!CHECK(rc == 2 && strstr(out, "a NUL byte at line 1, column 1")))
            fprintf(stderr, "    %s -> %d: %.600s\n", cmd, rc, out);
    }
    CHECK(access(db, F_OK) != 0); /* no empty history left behind */
    unlink(big);
}

/* A cache named by its variable at a file of another kind: the suite being
 * run, a results file (GPUBENCH_FFTW_WISDOM, GPUBENCH_CPU_GEMM_CHOICE). Each
 * is left byte for byte as it was, with a warning naming it where the
 * cache would have been written; the run goes on and its results are
 * written; a path with nothing there gets the cache. */
TEST(hostile_a_cache_named_at_another_kind_of_file_never_replaces_it) {
    char dir[] = "/tmp/gb_cachekind_XXXXXX", cmd[2048];
    if (!CHECK(mkdtemp(dir) != NULL)) return;
    /* FFTW wisdom is saved by every run that plans; a GEMM choice only from a
     * whole measurement (one a busy machine cut short is not kept), so its
     * warning and its fresh file are not asked for: only that nothing else
     * is replaced */
    static const struct { const char *var, *kind; int always; } caches[] = {
        {"GPUBENCH_FFTW_WISDOM", "is not FFTW wisdom: left as it is", 1},
        {"GPUBENCH_CPU_GEMM_CHOICE", "is not a kept CPU GEMM choice: left as it is", 0},
    };
    for (size_t i = 0; i < sizeof caches / sizeof *caches; i++) {
        snprintf(cmd, sizeof cmd,
                 "B=$(realpath %3$s) && cd %1$s && printf '{\"name\":\"s\",\"benchmarks\":[{\"op\":\"fft\",\"sizes\":[16]},"
                 "{\"op\":\"matmul\",\"sizes\":[16]}]}' > s.json && cp s.json s.orig && "
                 "%2$s=s.json timeout 120 $B run s.json --backend cpu --no-peak --quiet --out r.json 2>&1; rc=$?; "
                 "cmp -s s.json s.orig || echo SUITE-CHANGED; cp r.json r.orig; "
                 "%2$s=r.json timeout 120 $B run s.json --backend cpu --no-peak --quiet --out r2.json 2>&1; "
                 "cmp -s r.json r.orig || echo RESULTS-CHANGED; rm -f fresh; "
                 "%2$s=fresh timeout 120 $B run s.json --backend cpu --no-peak --quiet --out r3.json >/dev/null 2>&1; "
                 "test -s fresh || echo NO-CACHE; exit $rc",
                 dir, caches[i].var, gb_test_binary());
        int rc = gb_test_sh(cmd, out, sizeof out);
        char want[160];
        snprintf(want, sizeof want, "s.json %s", caches[i].kind);
        int said = !caches[i].always || (strstr(out, want) && !strstr(out, "NO-CACHE"));
        if (!CHECK(rc == 0 && said && !strstr(out, "CHANGED")))
            fprintf(stderr, "    %s -> %d: %.1500s\n", caches[i].var, rc, out);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}
