/* test_bounded.c — every file gpubench reads is a regular file of a bounded
 * size, checked before it is read, and no open blocks (file_read.h); a stop
 * signal ends a run within a bounded time even inside a library call that
 * does not return (run_signals.h). End to end with the binary. None of these
 * tests depends on speed: each asserts that the process ended (before a
 * generous bound, `timeout 20`) and what it left. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "testlib.h"

static char said[1 << 15];

/* A shell script (printf-style) in a fresh scratch directory $d, with $B the
 * binary, special files there ($d/fifo, $d/zero -> /dev/zero, $d/dir), a
 * results file $d/R.json and a suite $d/s.json. */
static int in_scratch(char *dir, size_t len, const char *fmt, ...) {
    char script[6144], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(script, sizeof script, fmt, ap);
    va_end(ap);
    if (!dir[0]) {
        snprintf(dir, len, "/tmp/gb_bounded_XXXXXX");
        if (!mkdtemp(dir)) return -1;
        snprintf(cmd, sizeof cmd,
                 "B=$(realpath %s) && cd %s && mkfifo fifo && ln -s /dev/zero zero && mkdir dir && "
                 "printf '{\"name\":\"s\",\"benchmarks\":[{\"op\":\"elementwise\",\"sizes\":[8]}]}\\n' > s.json && "
                 "$B run s.json --backend cpu --no-peak --quiet --out R.json > /dev/null 2>&1",
                 gb_test_binary(), dir);
        if (gb_test_sh(cmd, NULL, 0) != 0) return -1;
    }
    snprintf(cmd, sizeof cmd, "B=$(realpath %s); d=%s; cd $d && { %s; }", gb_test_binary(), dir, script);
    return gb_test_sh(cmd, said, sizeof said);
}

/* The scratch directory made (a failed CHECK when not). */
static int ready(char *dir, size_t len) {
    int ok = in_scratch(dir, len, "true") == 0;
    CHECK(ok);
    return ok;
}

static void cleanup(const char *dir) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}

/* Each reading command on each special file: exit 2 at once (timeout 20
 * would give 124), the file named and why. */
TEST(files_special_files_are_refused_by_every_reader_without_reading) {
    char dir[64] = "";
    if (!ready(dir, sizeof dir)) return;
    static const struct { const char *path, *why; } special[] = {
        {"/dev/zero", "not a regular file: a character device"},
        {"/dev/urandom", "not a regular file: a character device"},
        {"fifo", "not a regular file: a FIFO"},
        {"zero", "not a regular file: a character device"},
        {"dir", "not a regular file: a directory"},
    };
    static const char *const readers[] = {
        "$B validate %s",
        "$B run %s --backend cpu --no-peak --out o.json",
        "$B report %s",
        "$B report --fleet %s",
        "$B compare R.json %s",
        "$B compare R.json R.json --policy %s",
        "$B compare R.json R.json --confirm %s",
        "$B merge R.json %s -o m.json",
        "$B export %s --format gbench",
        "$B slurm %s --dir sl",
        "$B history add %s --db h.sqlite", /* hashed before it is loaded: the hash read it first, forever */
        "sh -c \"$B history add R.json --db hc.sqlite >/dev/null 2>&1; exec $B history check %s --db hc.sqlite\"",
        "$B history list --db %s",
    };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        for (size_t k = 0; k < sizeof readers / sizeof readers[0]; k++) {
            char cmd[256], want[128];
            snprintf(cmd, sizeof cmd, readers[k], special[i].path);
            snprintf(want, sizeof want, "%s: %s", special[i].path, special[i].why);
            int rc = in_scratch(dir, sizeof dir, "timeout 20 %s 2>&1", cmd);
            CHECK(rc == 2 && strstr(said, want) != NULL);
            if (rc != 2 || !strstr(said, want)) fprintf(stderr, "    %s (rc %d): %s\n", cmd, rc, said);
        }
    CHECK(in_scratch(dir, sizeof dir, "[ -p fifo ] && [ ! -e sl ] && [ ! -e m.json ] && [ ! -e o.json ]") == 0);
    cleanup(dir);
}

/* A sparse file over its kind's limit is refused by its size, unread; the
 * limits are documented in file_read.h and docs/reliability.md. */
TEST(files_over_the_size_limit_is_refused_by_its_size) {
    char dir[64] = "";
    if (!ready(dir, sizeof dir)) return;
    int rc = in_scratch(dir, sizeof dir, "truncate -s 3G big.json && timeout 20 $B report big.json 2>&1");
    CHECK(rc == 2 && strstr(said, "big.json: 3.0 GiB, over the 2.0 GiB limit for a results file") != NULL);
    rc = in_scratch(dir, sizeof dir, "truncate -s 65M suite.json && timeout 20 $B validate suite.json 2>&1");
    CHECK(rc == 2 && strstr(said, "suite.json: 65.0 MiB, over the 64.0 MiB limit for a suite file") != NULL);
    rc = in_scratch(dir, sizeof dir, "truncate -s 17M p.json && timeout 20 $B compare R.json R.json --policy p.json 2>&1");
    CHECK(rc == 2 && strstr(said, "p.json: 17.0 MiB, over the 16.0 MiB limit for a compare policy") != NULL);
    /* standard input has no size: read up to the limit, refused past it */
    rc = in_scratch(dir, sizeof dir, "head -c 70000000 /dev/zero | timeout 20 $B validate - 2>&1");
    CHECK(rc == 2 && strstr(said, "<stdin>: more than 64.0 MiB, over the 64.0 MiB limit for a suite file") != NULL);
    cleanup(dir);
}

/* A cache gpubench reads and writes (FFTW wisdom, the kept CPU GEMM
 * choice), named by its variable as a FIFO, a link to /dev/zero or a
 * directory: the run goes on without it (`run` is the run's command, with
 * the variable set to %s, and what it checks after), says why in a warning
 * (`warning`), and leaves the special file as it was. */
static void cache_that_is_not_a_regular_file_is_skipped(const char *run, const char *warning) {
    char dir[64] = "";
    if (!ready(dir, sizeof dir)) return;
    static const struct { const char *path, *why; } special[] = {
        {"fifo", "fifo: not a regular file: a FIFO"},
        {"zero", "zero: not a regular file: a character device"},
        {"dir", "dir: not a regular file: a directory"},
    };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
        int rc = in_scratch(dir, sizeof dir, run, special[i].path);
        CHECK(rc == 0 && strstr(said, warning) && strstr(said, special[i].why));
        if (rc != 0 || !strstr(said, special[i].why)) fprintf(stderr, "    %s (rc %d): %s\n", special[i].path, rc, said);
    }
    CHECK(in_scratch(dir, sizeof dir, "[ -p fifo ] && [ -L zero ] && [ -d dir ]") == 0);
    cleanup(dir);
}

/* FFTW wisdom that is a FIFO (it blocked forever), a symbolic link to
 * /dev/zero (it spun at 100% CPU) or a directory. */
TEST(files_wisdom_that_is_not_a_regular_file_is_skipped_with_a_warning) {
    cache_that_is_not_a_regular_file_is_skipped("GPUBENCH_FFTW_WISDOM=%s timeout 20 $B run --op fft --sizes 16 --backend "
                                                "cpu --no-peak --quiet --out w.json 2>&1 >/dev/null",
                                                "FFTW wisdom not used");
}

/* SIGTERM to `compare --confirm` while a fresh process measures: the
 * comparison used to end at once and leave its child measuring on, orphaned,
 * with the temporary directory behind. Now the signal is passed on, the
 * child waited for, the directory removed, and the comparison ends of the
 * signal (143). The child is a fake (GPUBENCH_CONFIRM_CHILD) that only
 * sleeps, so nothing here depends on how fast anything measures. */
TEST(files_sigterm_to_compare_confirm_ends_its_child_and_removes_its_directory) {
    char dir[64] = "";
    if (!ready(dir, sizeof dir)) return;
    int rc = in_scratch(dir, sizeof dir,
                        "mkdir t && printf '#!/bin/sh\\necho $$ > %%s/child.pid\\nexec sleep 60\\n' \"$d\" > fake.sh && "
                        "chmod +x fake.sh && { GPUBENCH_CONFIRM_CHILD=$d/fake.sh TMPDIR=$d/t timeout 30 $B compare R.json "
                        "R.json --confirm s.json --confirm-unsure >/dev/null 2>&1 & p=$!; "
                        "for i in $(seq 200); do [ -s child.pid ] && break; sleep 0.1; done; kill -TERM $p; wait $p; "
                        "echo rc=$?; }; kill -0 $(cat child.pid) 2>/dev/null && echo child-alive; "
                        "echo left=$(ls t | wc -l)");
    CHECK(rc == 0 && strstr(said, "rc=143") && !strstr(said, "child-alive") && strstr(said, "left=0"));
    if (!strstr(said, "rc=143") || strstr(said, "child-alive") || !strstr(said, "left=0")) fprintf(stderr, "    %s\n", said);
    in_scratch(dir, sizeof dir, "[ -s child.pid ] && kill $(cat child.pid) 2>/dev/null; true");
    cleanup(dir);
}

/* The kept CPU GEMM library choice (GPUBENCH_CPU_GEMM_CHOICE): a FIFO
 * there blocked the run on opening it to read, then to write the new
 * choice. The choice is measured instead. */
TEST(files_kept_gemm_choice_that_is_not_a_regular_file_is_skipped_with_a_warning) {
    cache_that_is_not_a_regular_file_is_skipped("GPUBENCH_CPU_GEMM_CHOICE=%s timeout 20 $B run --op matmul --sizes 16 "
                                                "--backend cpu --no-peak --quiet --out k.json 2>&1 >/dev/null && "
                                                "grep -q 'library_choice.*measured' k.json",
                                                "kept CPU GEMM choice not used");
}

/* The address space (KiB) these runs are given under `ulimit -v`: computed
 * from what the runtime needs on this machine, not a fixed figure. A fixed
 * 300000 KiB stopped holding once the runtime grew with the CPU count:
 * OpenMP OpenBLAS reserves a 128 MiB buffer per thread when it loads and
 * retries the malloc without end when it fails (2 CPUs: 256 MiB of buffers
 * alone), each thread adds a stack and a malloc arena. So a small CPU run is
 * started without a limit and its peak virtual size (VmPeak, sampled until
 * it exits) taken; the limit is that plus half again and 256 MiB: the
 * runtime starts and a small case runs, and a case that needs gigabytes
 * (16384² float64: 6 GiB of operands) cannot be allocated. 0 when it cannot
 * be measured or leaves no room under those gigabytes. */
static long runtime_vm_limit_kib(const char *dir) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s run --op matmul --sizes 64 --backend cpu --no-peak --rounds 1 --quiet --out %s/vm.json",
             gb_test_binary(), dir);
    long peak = gb_test_vm_peak_kib(cmd);
    if (peak <= 0) return 0;
    long limit = peak + peak / 2 + 256L * 1024;
    return limit < 4L * 1024 * 1024 ? limit : 0;
}

/* A scratch directory for a run under `ulimit -v`, with the limit computed
 * above into *limit; 0 (skipped) in a sanitizer build, which reserves
 * terabytes of address space at start, or when no limit fits. */
static int ready_for_ulimit_v(char *dir, size_t len, long *limit) {
    if (!ready(dir, len)) return 0;
    if (in_scratch(dir, len, "grep -qa __asan_init $B") == 0) {
        SKIP("this build cannot start under ulimit -v (a sanitizer build)");
        cleanup(dir);
        return 0;
    }
    *limit = runtime_vm_limit_kib(dir);
    if (*limit > 0) return 1;
    SKIP("the runtime's address space could not be measured, or leaves no room under 4 GiB");
    cleanup(dir);
    return 0;
}

/* Under `ulimit -v`, SIGTERM, sent once the run has said it measures (its
 * handlers and watchdog are in place), ends it: 143, within the bound, the
 * results so far written, valid, marked interrupted by SIGTERM, no temp or
 * lock file. Where a library retries an allocation without end inside its
 * call (OpenBLAS does, when its buffer does not fit), the signal must end
 * the run stuck there; where it does not, twenty rounds of a 2048³ GEMM
 * (seconds a round on 16 CPUs, more on 2) keep the run measuring when the
 * signal comes, and the same must hold. */
TEST(files_sigterm_ends_a_run_stuck_in_a_library_under_ulimit_v) {
    char dir[64] = "";
    long limit = 0;
    if (!ready_for_ulimit_v(dir, sizeof dir, &limit)) return;
    int rc = in_scratch(
        dir, sizeof dir,
        "sh -c 'ulimit -v %ld; exec \"$0\" run --op matmul --sizes 1024,2048 --dtype float64 --backend cpu "
        "--rounds 20 --max-time 120s --peak fresh --out r.json' $B > /dev/null 2> err & a=$!; "
        "for i in $(seq 1 2400); do grep -q 'measuring cpu ceilings' err && break; sleep 0.05; done; sleep 1; "
        "s=$(date +%%s%%N); kill -TERM $a; "
        "for i in $(seq 1 400); do kill -0 $a 2>/dev/null || break; sleep 0.05; done; "
        "e=$(date +%%s%%N); kill -KILL $a 2>/dev/null; wait $a; rc=$?; "
        "echo \"ended $(( (e - s) / 1000000 )) ms after the signal, exit $rc\"; "
        "ls -a | grep -c -e '\\.tmp\\.' -e '\\.lock$'; exit $rc",
        limit);
    CHECK(rc == 143);
    CHECK(strstr(said, "exit 143\n0\n") != NULL); /* ended before the 20 s bound, nothing left behind */
    if (rc != 143) fprintf(stderr, "    %s\n", said);
    char path[128];
    snprintf(path, sizeof path, "%s/r.json", dir);
    cJSON *doc = gb_test_load_json(path);
    const char *by = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "interrupted_by"));
    CHECK(doc && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "interrupted")) && by && !strcmp(by, "SIGTERM"));
    cJSON_Delete(doc);
    CHECK(in_scratch(dir, sizeof dir, "$B report r.json > /dev/null") == 0); /* gpubench's own reader takes it */
    cleanup(dir);
}

/* A run that finishes under `ulimit -v` exits: its one case is skipped for
 * want of memory, the results are written, and the process ends (OpenBLAS's
 * shutdown joined worker threads that retry mmap without end: the finished
 * run never exited, and a SLURM task ran to its time limit). */
TEST(files_a_finished_run_under_ulimit_v_exits) {
    char dir[64] = "";
    long limit = 0;
    if (!ready_for_ulimit_v(dir, sizeof dir, &limit)) return;
    int rc = in_scratch(dir, sizeof dir,
                        "sh -c 'ulimit -v %ld; exec timeout -s KILL 60 \"$0\" run --op matmul --sizes 16384 "
                        "--dtype float64 --backend cpu --no-peak --quiet --out r.json' $B > /dev/null 2>&1",
                        limit);
    CHECK(rc == 0);
    char path[128];
    snprintf(path, sizeof path, "%s/r.json", dir);
    cJSON *doc = gb_test_load_json(path);
    CHECK(doc && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "complete")));
    cJSON_Delete(doc);
    cleanup(dir);
}
