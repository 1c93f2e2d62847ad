/* test_files.c — the files gpubench writes, end to end with the binary
 * (README, Reliability: "Files, signals and exit codes"): nothing but a
 * regular file is replaced, the output is checked before anything is
 * measured, one run per --out, every signal and write error ends in a
 * valid results file or a clear non-zero exit, and no temp or lock file is
 * left behind. Each test works in a scratch directory of its own. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "testlib.h"

static char out[1 << 16];

static const char *scratch(char *dir, size_t len) {
    snprintf(dir, len, "/tmp/gb_files_XXXXXX");
    return mkdtemp(dir) ? dir : "/tmp";
}

static void rm_rf(const char *dir) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}

/* Run a shell script with $B the binary and $d the scratch directory. */
static int sh(const char *dir, const char *script) {
    static char cmd[8192];
    snprintf(cmd, sizeof cmd, "B=%s; d=%s; %s", gb_test_binary(), dir, script);
    return gb_test_sh(cmd, out, sizeof out);
}

/* A suite of n tiny CPU cases (elementwise on 1..100 squared, repeated):
 * each measured once, so the run's own costs — writing included — show. */
static void tiny_suite(const char *dir, const char *name, int n) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "{\"name\":\"tiny\",\"defaults\":{\"dtypes\":[\"float32\"],\"warmup\":0,\"min_warmup_s\":0,"
               "\"min_reps\":1,\"max_reps\":1,\"min_time_s\":0,\"max_time_s\":600,\"rounds\":1},\"benchmarks\":[");
    for (int i = 0; i < n; i += 100) {
        fprintf(f, "%s{\"op\":\"elementwise\",\"sizes\":[", i ? "," : "");
        /* [i/100 + 1, k]: every case its own (a suite may not make one case twice) */
        for (int k = 1; k <= 100 && i + k <= n; k++) fprintf(f, "%s[%d,%d]", k > 1 ? "," : "", i / 100 + 1, k);
        fprintf(f, "]}");
    }
    fprintf(f, "]}\n");
    fclose(f);
}

static cJSON *load(const char *path) { return gb_test_load_json(path); }

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* path is one whole results document of a run that ended: complete, with
 * n cases, summed up as n. */
static int complete_with(const char *path, int n) {
    cJSON *doc = load(path);
    const cJSON *sum = get(get(doc, "summary"), "cases");
    int ok = doc && cJSON_IsTrue(get(doc, "complete")) && cJSON_GetArraySize(get(doc, "cases")) == n &&
             cJSON_IsNumber(sum) && sum->valueint == n;
    cJSON_Delete(doc);
    return ok;
}

/* Temp files (.NAME.tmp.PID) and lock files left in dir. */
static int leftovers(const char *dir) {
    char cmd[512], n[64];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -c -e '\\.tmp\\.' -e '\\.lock$' || true", dir);
    gb_test_sh(cmd, n, sizeof n);
    return atoi(n);
}

static const char *in(const char *dir, const char *name) {
    static char p[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

/* ---- where the results go ---------------------------------------------------- */

TEST(files_out_onto_a_device_node_streams_and_never_replaces_it) {
    struct stat real_before, real_after;
    CHECK(stat("/dev/null", &real_before) == 0);
    char dir[64];
    scratch(dir, sizeof dir);
    /* a null device of our own: the real one is never put at risk */
    if (mknod(in(dir, "null"), S_IFCHR | 0666, makedev(1, 3)) != 0) {
        SKIP("mknod not permitted (needs root with CAP_MKNOD)");
        rm_rf(dir);
        return;
    }
    tiny_suite(dir, "s.json", 3);
    int rc = sh(dir, "$B run $d/s.json --backend cpu --no-peak --quiet --out $d/null > /dev/null && "
                     "$B run $d/s.json --backend cpu --no-peak --quiet --out $d/r.json > /dev/null && "
                     "$B merge $d/r.json -o $d/null && $B export $d/r.json --format gbench -o $d/null");
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", out);
    struct stat st;
    CHECK(lstat(in(dir, "null"), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
    CHECK(leftovers(dir) == 0);
    CHECK(stat("/dev/null", &real_after) == 0 && S_ISCHR(real_after.st_mode) &&
          real_after.st_rdev == real_before.st_rdev && real_after.st_ino == real_before.st_ino);
    rm_rf(dir);
}

/* A FIFO gets the one final document (no checkpoints streamed into it). */
TEST(files_out_onto_a_fifo_streams_one_document) {
    char dir[64];
    scratch(dir, sizeof dir);
    tiny_suite(dir, "s.json", 5);
    CHECK(mkfifo(in(dir, "fifo"), 0600) == 0);
    int rc = sh(dir, "cat $d/fifo > $d/got.json 2>/dev/null < /dev/null & r=$!; "
                     "$B run $d/s.json --backend cpu --no-peak --quiet --out $d/fifo > /dev/null; rc=$?; wait $r; "
                     "exit $rc");
    CHECK(rc == 0);
    CHECK(complete_with(in(dir, "got.json"), 5)); /* one whole document: cJSON_Parse fails on two */
    struct stat st;
    CHECK(lstat(in(dir, "fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(leftovers(dir) == 0);
    rm_rf(dir);
}

/* A symbolic link is followed: its target gets the results (made or
 * replaced in its own directory), the link stays; one into a directory that
 * does not exist is refused up front. */
TEST(files_out_through_a_symlink_writes_its_target) {
    char dir[64];
    scratch(dir, sizeof dir);
    tiny_suite(dir, "s.json", 2);
    int rc = sh(dir, "mkdir $d/keep && ln -s keep/real.json $d/link.json && "
                     "$B run $d/s.json --backend cpu --no-peak --quiet --out $d/link.json > /dev/null");
    CHECK(rc == 0);
    struct stat st;
    CHECK(lstat(in(dir, "link.json"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(complete_with(in(dir, "keep/real.json"), 2));
    CHECK(leftovers(dir) == 0 && leftovers(in(dir, "keep")) == 0);
    rc = sh(dir, "ln -s nowhere/x.json $d/dangling.json; $B run $d/s.json --backend cpu --out $d/dangling.json");
    CHECK(rc == 2);
    CHECK(strstr(out, "dangling.json: the directory ") && strstr(out, "/nowhere does not exist"));
    rm_rf(dir);
}

/* Defect 11: an output that cannot be written is found before the ceilings
 * and the first case (the ceilings are not skipped here: their message
 * would show), for run, merge, export and compare -o. */
TEST(files_unwritable_out_is_refused_before_anything_is_measured) {
    char dir[64];
    scratch(dir, sizeof dir);
    tiny_suite(dir, "s.json", 2);
    static const struct { const char *out, *expect; } bad[] = {
        {"$d/missing/r.json", "the directory"}, {"$d", "is a directory"}, {"/proc/gb-nope.json", "cannot write in /proc"}};
    for (int i = 0; i < 3; i++) {
        char script[512];
        snprintf(script, sizeof script, "$B run $d/s.json --backend cpu --out %s", bad[i].out);
        CHECK(sh(dir, script) == 2);
        CHECK(strstr(out, bad[i].expect) != NULL);
        CHECK(strstr(out, "ceilings") == NULL && strstr(out, "results: ") == NULL);
    }
    CHECK(sh(dir, "$B run $d/s.json --backend cpu --no-peak --quiet --out $d/r.json > /dev/null") == 0);
    CHECK(sh(dir, "$B merge $d/r.json -o $d/missing/m.json") == 2 && strstr(out, "does not exist"));
    CHECK(sh(dir, "$B export $d/r.json --format gbench -o $d") == 2 && strstr(out, "is a directory"));
    CHECK(sh(dir, "$B compare $d/r.json $d/r.json -o /proc/gb-nope.txt") == 2 && strstr(out, "cannot write in /proc"));
    rm_rf(dir);
}

/* ---- one run per --out ---------------------------------------------------------- */

TEST(files_second_run_on_the_same_out_is_refused_unless_forced) {
    char dir[64];
    scratch(dir, sizeof dir);
    tiny_suite(dir, "long.json", 20000);
    tiny_suite(dir, "s.json", 2);
    int rc = sh(dir,
                "$B run $d/long.json --backend cpu --no-peak --quiet --out $d/r.json > /dev/null 2>&1 & a=$!; "
                "for i in $(seq 1 2400); do [ -e $d/r.json.lock ] && break; sleep 0.05; done; "
                "echo holder=$a; "
                "$B run $d/s.json --backend cpu --no-peak --quiet --out $d/r.json > /dev/null 2> $d/second.err; "
                "echo second=$?; "
                "$B run $d/s.json --backend cpu --no-peak --quiet --force --out $d/r.json > /dev/null 2> $d/forced.err; "
                "echo forced=$?; "
                "kill -TERM $a; wait $a; echo first=$?; cat $d/second.err $d/forced.err");
    CHECK(rc == 0);
    long holder = 0;
    const char *h = strstr(out, "holder=");
    if (h) holder = atol(h + 7);
    char expect[128];
    snprintf(expect, sizeof expect, "another gpubench run is writing it (pid %ld, lock ", holder);
    CHECK(holder > 0 && strstr(out, expect) != NULL);
    CHECK(strstr(out, "second=2") != NULL);
    CHECK(strstr(out, "forced=0") != NULL && strstr(out, "--force:") != NULL);
    CHECK(strstr(out, "first=143") != NULL);
    CHECK(leftovers(dir) == 0); /* the lock file goes with its run */
    rm_rf(dir);
}

/* ---- signals and limits ------------------------------------------------------------ */

/* SIGTERM, SIGHUP, SIGINT: the results so far written, marked, 128+N, and
 * neither temp nor lock file left. */
TEST(files_stop_signals_leave_a_valid_file_and_no_temp_or_lock) {
    char dir[64];
    scratch(dir, sizeof dir);
    tiny_suite(dir, "long.json", 20000);
    static const struct { const char *sig; int code; } sigs[] = {{"TERM", 143}, {"HUP", 129}, {"INT", 130}};
    for (int i = 0; i < 3; i++) {
        char script[1024];
        snprintf(script, sizeof script,
                 "rm -f $d/r.json; $B run $d/long.json --backend cpu --no-peak --quiet --out $d/r.json "
                 "> /dev/null 2>&1 & a=$!; for i in $(seq 1 2400); do [ -e $d/r.json ] && break; sleep 0.05; done; "
                 "sleep 0.3; kill -%s $a; wait $a",
                 sigs[i].sig);
        CHECK(sh(dir, script) == sigs[i].code);
        cJSON *doc = load(in(dir, "r.json"));
        CHECK(doc && cJSON_IsTrue(get(doc, "interrupted")));
        char name[16];
        snprintf(name, sizeof name, "SIG%s", sigs[i].sig);
        const char *by = doc ? cJSON_GetStringValue(get(doc, "interrupted_by")) : NULL;
        CHECK(by && strcmp(by, name) == 0); /* a failure, not a crash of the test runner */
        CHECK(cJSON_GetArraySize(get(doc, "cases")) == 20000); /* every case listed */
        cJSON_Delete(doc);
        CHECK(leftovers(dir) == 0);
    }
    rm_rf(dir);
}

/* A suite of a tiny case (written as the first checkpoint), then one
 * repetition of a large matmul (464 GFLOP: seconds on a CI machine's CPU). */
static void slow_suite(const char *dir) {
    FILE *f = fopen(in(dir, "slow.json"), "w");
    if (!f) return;
    fputs("{\"name\":\"slow\",\"defaults\":{\"dtypes\":[\"float64\"],\"warmup\":0,\"min_warmup_s\":0,"
          "\"min_reps\":1,\"max_reps\":1,\"min_time_s\":0,\"max_time_s\":600,\"rounds\":1},"
          "\"benchmarks\":[{\"op\":\"elementwise\",\"sizes\":[8]},{\"op\":\"matmul\",\"sizes\":[6144]},"
          "{\"op\":\"reduction\",\"sizes\":[8,16]}]}\n",
          f);
    fclose(f);
}

/* Start slow.json and send SIGTERM once the matmul's inputs and output
 * (0.9 GB) are there: it is measuring. */
static const char *const slow_then_term =
    "$B run $d/slow.json --backend cpu --no-peak --quiet --threads 1 --out $d/r.json > /dev/null 2>&1 & a=$!; "
    "for i in $(seq 1 2400); do [ -e $d/r.json ] && break; sleep 0.05; done; "
    "for i in $(seq 1 2400); do "
    "  [ \"$(awk '/VmRSS/ {print $2}' /proc/$a/status 2>/dev/null || echo 0)\" -gt 850000 ] && break; "
    "  sleep 0.05; done; "
    "kill -TERM $a; ";

/* One SIGTERM inside a repetition that takes seconds: the run does not wait
 * for it (run_signals.h: the watchdog writes the results so far 1 s after
 * the signal): 143, a valid file marked interrupted with both cases, the
 * tiny one measured, no temp or lock file. Whether the repetition ends
 * before the watchdog or not, the same holds. */
TEST(files_first_signal_inside_a_long_repetition_ends_the_run) {
    char dir[64], cmd[2048];
    scratch(dir, sizeof dir);
    slow_suite(dir);
    snprintf(cmd, sizeof cmd, "%s s=$(date +%%s%%N); wait $a; rc=$?; e=$(date +%%s%%N); "
             "echo \"ended $(( (e - s) / 1000000 )) ms after the signal\" >&2; exit $rc", slow_then_term);
    CHECK(sh(dir, cmd) == 143);
    cJSON *doc = load(in(dir, "r.json"));
    const cJSON *cases = get(doc, "cases"), *first = cJSON_GetArrayItem(cases, 0);
    CHECK(doc && cJSON_IsFalse(get(doc, "complete")) && cJSON_IsTrue(get(doc, "interrupted")) &&
          cJSON_GetArraySize(cases) == 2);
    const char *by = doc ? cJSON_GetStringValue(get(doc, "interrupted_by")) : NULL;
    CHECK(by && !strcmp(by, "SIGTERM"));
    const char *st = cJSON_GetStringValue(get(cJSON_GetArrayItem(get(first, "results"), 0), "status"));
    CHECK(st && !strcmp(st, "ok"));
    /* the two reduction cases after the matmul were never listed (stopped
     * inside its call): the summary counts them, and report says so */
    const cJSON *nr = get(get(doc, "summary"), "not_reached");
    CHECK(cJSON_IsNumber(nr) && nr->valueint == 2);
    cJSON_Delete(doc);
    CHECK(leftovers(dir) == 0);
    CHECK(sh(dir, "$B report $d/r.json > $d/report.txt") == 0); /* the project's own reader takes it */
    CHECK(sh(dir, "tr '\\n' ' ' < $d/report.txt | grep -q '2 cases not reached: the run was interrupted inside a call'") == 0);
    rm_rf(dir);
}

/* A second signal a second or more after the first stops at once, if the
 * watchdog has not ended the run already: 143 either way, the results file
 * valid (the watchdog's, or the last checkpoint), no lock or temp file. */
TEST(files_second_signal_stops_at_once_and_removes_the_lock) {
    char dir[64], cmd[2048];
    scratch(dir, sizeof dir);
    slow_suite(dir);
    snprintf(cmd, sizeof cmd, "%s sleep 1.3; kill -TERM $a 2>/dev/null; wait $a", slow_then_term);
    CHECK(sh(dir, cmd) == 143);
    cJSON *doc = load(in(dir, "r.json"));
    CHECK(doc && cJSON_IsFalse(get(doc, "complete")) && cJSON_GetArraySize(get(doc, "cases")) >= 1);
    cJSON_Delete(doc);
    CHECK(leftovers(dir) == 0);
    rm_rf(dir);
}

/* SIGKILL runs no code: the last checkpoint is a valid file; the lock file
 * it leaves blocks nobody (the kernel dropped the lock), and the next run
 * removes a temp file of the dead process. */
TEST(files_sigkill_leaves_a_valid_file_and_the_next_run_cleans_up) {
    char dir[64];
    scratch(dir, sizeof dir);
    tiny_suite(dir, "long.json", 20000);
    tiny_suite(dir, "s.json", 2);
    int rc = sh(dir, "$B run $d/long.json --backend cpu --no-peak --quiet --out $d/r.json > /dev/null 2>&1 & a=$!; "
                     "for i in $(seq 1 2400); do [ -e $d/r.json ] && break; sleep 0.05; done; "
                     "kill -KILL $a; wait $a; echo killed=$?; touch $d/.r.json.tmp.$a");
    CHECK(rc == 0 && strstr(out, "killed=137") != NULL);
    cJSON *doc = load(in(dir, "r.json"));
    CHECK(doc && cJSON_IsFalse(get(doc, "complete")) && cJSON_GetArraySize(get(doc, "cases")) > 0);
    cJSON_Delete(doc);
    CHECK(leftovers(dir) >= 1); /* its temp (made above) and maybe its lock file */
    CHECK(sh(dir, "$B run $d/s.json --backend cpu --no-peak --quiet --out $d/r.json > /dev/null") == 0);
    CHECK(leftovers(dir) == 0);
    CHECK(complete_with(in(dir, "r.json"), 2));
    rm_rf(dir);
}

/* Defect 8: `gpubench run ... | head` — the reader going away stops the run
 * as an interruption: results written, "interrupted_by": "SIGPIPE", 141. */
TEST(files_sigpipe_stops_the_run_and_writes_its_results) {
    char dir[64];
    scratch(dir, sizeof dir);
    tiny_suite(dir, "long.json", 20000);
    int rc = sh(dir, "{ $B run $d/long.json --backend cpu --no-peak --out $d/r.json 2> $d/err; echo $? > $d/rc; } "
                     "| head -1 > /dev/null; cat $d/rc $d/err");
    CHECK(rc == 0);
    CHECK(atoi(out) == 141);
    CHECK(strstr(out, "interrupted by SIGPIPE") != NULL);
    cJSON *doc = load(in(dir, "r.json"));
    CHECK(doc && cJSON_IsTrue(get(doc, "interrupted")) &&
          strcmp(cJSON_GetStringValue(get(doc, "interrupted_by")), "SIGPIPE") == 0);
    CHECK(cJSON_GetArraySize(get(doc, "cases")) == 20000);
    cJSON_Delete(doc);
    CHECK(leftovers(dir) == 0);
    rm_rf(dir);
}

/* `ulimit -f`: a clear message, a non-zero exit, no temp file (SIGXFSZ is
 * ignored, the write fails with EFBIG). */
TEST(files_file_size_limit_is_a_clear_error_without_temp_files) {
    char dir[64];
    scratch(dir, sizeof dir);
    tiny_suite(dir, "s.json", 300);
    int rc = sh(dir, "ulimit -f 16; $B run $d/s.json --backend cpu --no-peak --quiet --out $d/r.json > /dev/null");
    CHECK(rc == 2);
    CHECK(strstr(out, "r.json: cannot write: File too large: over the file size limit of this shell (ulimit -f)"));
    CHECK(strstr(out, "results: NOT written to") != NULL);
    CHECK(leftovers(dir) == 0);
    /* merge and export: the same error path, the same clean-up */
    rc = sh(dir, "ulimit -f 16; $B merge tests/data/results_h100.json -o $d/m.json");
    CHECK(rc == 2 && strstr(out, "m.json: cannot write: File too large") != NULL);
    rc = sh(dir, "ulimit -f 16; $B export tests/data/results_h100.json --format gbench -o $d/g.json");
    CHECK(rc == 2 && strstr(out, "g.json: cannot write: File too large") != NULL);
    CHECK(leftovers(dir) == 0);
    rm_rf(dir);
}

/* Neither this run nor a library may start where its address space is
 * tight: a sanitizer build reserves terabytes at start, and a library
 * preloaded ahead of its runtime stops it. 1 (and skipped) there. */
static int sanitizer_build(void) {
    char probe[1024];
    snprintf(probe, sizeof probe, "grep -qa __asan_init %s", gb_test_binary());
    if (gb_test_sh(probe, NULL, 0) != 0) return 0;
    SKIP("a sanitizer build cannot start under ulimit -v or with a library preloaded ahead of its runtime");
    return 1;
}

/* A library that ends the process while the run starts: libgomp does when
 * it cannot start its threads. Exit 2 with its message and gpubench's, the
 * lock and temporary files removed, no results file (nothing was measured)
 * -- never a process hung in OpenBLAS's exit handler, which joins worker
 * threads stuck retrying mmap (on the 16-core GPU host such a run was still
 * there when `timeout` killed it). The limit is computed, not fixed (a fixed
 * 300000 KiB held 16 threads on one machine and not on another): the same
 * run on one thread, its peak address space measured, plus 128 MiB; each
 * libgomp thread is given a 64 MiB stack, so the 15 more threads of
 * --threads 16 (960 MiB) cannot fit and the third of them fails to start. */
TEST(files_a_library_ending_the_run_at_its_start_leaves_no_lock) {
    if (sanitizer_build()) return;
    char dir[64], cmd[1024];
    scratch(dir, sizeof dir);
    static const char env[] = "OPENBLAS_NUM_THREADS=2 OMP_STACKSIZE=64M";
    static const char args[] = "run --op matmul --sizes 64 --backend cpu --no-peak";
    snprintf(cmd, sizeof cmd, "%s %s %s --threads 1 --out %s/one.json", env, gb_test_binary(), args, dir);
    long peak = gb_test_vm_peak_kib(cmd);
    if (!CHECK(peak > 0)) {
        rm_rf(dir);
        return;
    }
    snprintf(cmd, sizeof cmd,
             "(ulimit -v %ld; exec env %s timeout -s KILL 120 $B %s --threads 16 --out $d/r.json) > /dev/null",
             peak + 128L * 1024, env, args);
    int rc = sh(dir, cmd);
    if (!CHECK(strstr(out, "libgomp: Thread creation failed") != NULL)) fprintf(stderr, "    %d: %.600s\n", rc, out);
    CHECK(rc == 2); /* not 137: nothing hung until the timeout killed it */
    CHECK(strstr(out, "gpubench run: a library ended the process during the run") != NULL);
    CHECK(strstr(out, "before the run's first case: no results written") != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/r.json", dir);
    CHECK(access(path, F_OK) != 0);
    CHECK(leftovers(dir) == 0);
    rm_rf(dir);
}

/* A library that ends the process in the middle of a run (exit() inside
 * its call): the results measured so far are written, marked
 * "library-exit", nothing of the run's is left behind, exit 2. The library
 * is FFTW's fftw_execute, replaced by a preloaded one that exits, so the
 * elementwise case before the FFT is measured and the FFT never returns. */
TEST(files_a_library_ending_the_run_leaves_its_results_and_no_lock) {
    if (sanitizer_build()) return;
    char dir[64];
    scratch(dir, sizeof dir);
    int rc = sh(dir, "printf '#include <stdlib.h>\nvoid fftw_execute(const void *plan) { (void)plan; exit(3); }\n' "
                     "> $d/exits.c && cc -shared -fPIC -o $d/exits.so $d/exits.c && "
                     "printf '{\"name\":\"x\",\"benchmarks\":[{\"op\":\"elementwise\",\"sizes\":[64]},"
                     "{\"op\":\"fft\",\"sizes\":[64]}],\"defaults\":{\"dtypes\":[\"float64\"]}}' > $d/s.json && "
                     "LD_PRELOAD=$d/exits.so timeout -s KILL 120 $B run $d/s.json --backend cpu --no-peak "
                     "--out $d/r.json > /dev/null");
    CHECK(rc == 2); /* not 137: nothing hung until the timeout killed it */
    if (!CHECK(strstr(out, "gpubench run: a library ended the process during the run") != NULL))
        fprintf(stderr, "    %d: %.600s\n", rc, out);
    char path[128];
    snprintf(path, sizeof path, "%s/r.json", dir);
    cJSON *doc = load(path);
    CHECK(doc && cJSON_IsTrue(get(doc, "interrupted")) &&
          strcmp(cJSON_GetStringValue(get(doc, "interrupted_by")), "library-exit") == 0);
    /* the elementwise case measured before the FFT, the FFT not */
    const cJSON *cases = get(doc, "cases");
    const cJSON *first = cJSON_GetArrayItem(cases, 0), *second = cJSON_GetArrayItem(cases, 1);
    const char *first_status = cJSON_GetStringValue(get(cJSON_GetArrayItem(get(first, "results"), 0), "status"));
    const char *second_status = cJSON_GetStringValue(get(cJSON_GetArrayItem(get(second, "results"), 0), "status"));
    CHECK(first_status && strcmp(first_status, "ok") == 0);
    CHECK(second_status == NULL || strcmp(second_status, "ok") != 0);
    cJSON_Delete(doc);
    CHECK(leftovers(dir) == 0);
    rm_rf(dir);
}

/* ---- write errors ------------------------------------------------------------------ */

/* Defect 11: a full standard output is an error, for every command. */
TEST(files_full_stdout_is_an_error_for_every_command) {
    static const char *const cmds[] = {
        "report tests/data/results_small.json",
        "compare tests/data/results_small.json tests/data/results_small.json",
        "export tests/data/results_small.json --format gbench",
        "merge tests/data/results_small.json -o -",
        "list",
        "info",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char script[512];
        snprintf(script, sizeof script, "$B %s > /dev/full", cmds[i]);
        int rc = sh(".", script);
        CHECK(rc == 2);
        if (rc != 2) fprintf(stderr, "    %s: exit %d\n", cmds[i], rc);
        /* the reason where the failing write is the last one (the report's
         * renderer writes past stdio's buffer: its errno is gone by then) */
        CHECK(strstr(out, "No space left on device") || strstr(out, "cannot write standard output") ||
              strstr(out, "writing the report to standard output failed"));
    }
}

/* `run --plot` into a directory that cannot be made fails the run, as
 * `report --plot` does (it exited 0 after a traceback). */
TEST(files_run_plot_failure_exits_non_zero) {
    char dir[64];
    scratch(dir, sizeof dir);
    tiny_suite(dir, "s.json", 2);
    CHECK(sh(dir, "$B run $d/s.json --backend cpu --no-peak --quiet --out $d/r.json --plot /proc/gb-nope > /dev/null")
          == 2);
    CHECK(strstr(out, "--plot") != NULL);
    rm_rf(dir);
}

/* ---- scale ------------------------------------------------------------------------- */

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Writing the results file scales with the cases, not cases × rewrites
 * (defect 5): 10,000 tiny cases give a valid, complete file. The times are
 * printed for the record, not asserted (a shared machine). */
TEST(files_large_tiny_case_suite_is_written_valid_and_complete) {
    char dir[64];
    scratch(dir, sizeof dir);
    static const int sizes[] = {1000, 10000};
    double took[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        char name[32], script[512];
        snprintf(name, sizeof name, "s%d.json", sizes[i]);
        tiny_suite(dir, name, sizes[i]);
        snprintf(script, sizeof script, "$B run $d/%s --backend cpu --no-peak --quiet --out $d/r.json > /dev/null",
                 name);
        double t0 = now_s();
        CHECK(sh(dir, script) == 0);
        took[i] = now_s() - t0;
        CHECK(complete_with(in(dir, "r.json"), sizes[i]));
        CHECK(leftovers(dir) == 0);
    }
    fprintf(stderr, "(1,000 cases %.1f s, 10,000 cases %.1f s: %.1fx) ", took[0], took[1],
            took[0] > 0 ? took[1] / took[0] : 0);
    rm_rf(dir);
}
