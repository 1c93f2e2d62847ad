/* test_history.c — the history (src/history/): real SQLite files in temp
 * directories, the real gpubench binary for the command line, and results
 * files made from a fixture with deterministically scaled samples (no
 * timing, no clock: the "runs" are synthetic). */
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "history.h"
#include "testlib.h"

#define FIXTURE "tests/data/results_small.json"
/* fixture cases: 0 matmul 128, 1 matmul 512 (the step), 2 matmul 2048 (the
 * drift), 3 matmul 8192, 4 matmul 1024x2048x512 (the x1.2 of the A/A test) */
#define STEP_CASE 1
#define DRIFT_CASE 2
#define SLOW_CASE 4
#define STEP_AT 12
#define DRIFT_FROM 8

static char tmpdir[256];

static const char *tmp(const char *name) {
    /* a ring large enough that no test holds a path past its reuse */
    static char buf[256][512];
    static int k;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/gb_history_test_XXXXXX");
        if (!mkdtemp(tmpdir)) abort();
    }
    k = (k + 1) % 256;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

/* The temp directory goes when the runner ends. */
__attribute__((destructor)) static void remove_tmpdir(void) {
    if (!tmpdir[0]) return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "test_history: could not remove %s\n", tmpdir);
}

/* A deterministic between-run wobble of about +-1% for run i. */
static double jitter(unsigned i) { return 1.0 + 0.01 * ((double)((i * 2654435761u) % 2001u) / 1000.0 - 1.0); }

/* Run i of the synthetic history: the fixture with every result of case c
 * scaled by factor[c] and the whole run by jitter(i). 0 on success. */
static int make_run(const char *path, unsigned i, const double factor[5]) {
    gb_results r;
    gb_err e;
    if (gb_results_load(FIXTURE, &r, &e) != GB_OK) return -1;
    for (size_t c = 0; c < r.ncases; c++)
        for (size_t k = 0; k < r.cases[c].nresults; k++) {
            gb_result *x = &r.cases[c].results[k];
            double f = (c < 5 ? factor[c] : 1.0) * jitter(i);
            for (size_t s = 0; s < x->nsamples; s++) x->samples[s] *= f;
            gb_result_stats *st = &x->stats;
            st->min *= f; st->max *= f; st->median *= f; st->mean *= f;
            st->stddev *= f; st->ci95_low *= f; st->ci95_high *= f;
        }
    int rc = gb_results_write(&r, path, 0, &e);
    gb_results_free(&r);
    return rc == GB_OK ? 0 : -1;
}

/* The drift-and-step scenario's run i. */
static int make_scenario_run(const char *path, unsigned i) {
    double f[5] = {1, 1, 1, 1, 1};
    if (i >= STEP_AT) f[STEP_CASE] = 1.2;
    if (i >= DRIFT_FROM) f[DRIFT_CASE] = pow(1.02, (double)(i - DRIFT_FROM + 1));
    return make_run(path, i, f);
}

static int sh(const char *cmd, char *out, size_t cap) { return gb_test_sh(cmd, out, cap); }

static long count(const char *db, const char *sql) {
    sqlite3 *h;
    long v = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return v;
}

static int add(const char *db, const char *file, const char *commit) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s history add %s --db %s --commit %s --branch main >/dev/null 2>&1", gb_test_binary(),
             file, db, commit);
    return sh(cmd, NULL, 0);
}

TEST(history_sha256_matches_fips_vectors) {
    char hex[65];
    gb_sha256_hex("abc", 3, hex);
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    gb_sha256_hex("", 0, hex);
    CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    gb_sha256_hex(m, strlen(m), hex);
    CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
}

/* What CI's environment names (GITHUB_SHA, GITHUB_REF_NAME) is stored and
 * printed, so it must be UTF-8 without control characters like everything
 * else gpubench records: a byte that is not UTF-8 or a control character
 * becomes '?', in the database and in the line add prints. */
TEST(history_add_scrubs_the_commit_and_branch_it_reads_from_the_environment) {
    const char *db = tmp("env.sqlite");
    CHECK(make_scenario_run(tmp("env.json"), 0) == 0);
    char cmd[2048], out[1024];
    snprintf(cmd, sizeof cmd,
             "GITHUB_SHA=$(printf 'ab\\377') GITHUB_HEAD_REF= GITHUB_REF_NAME=$(printf 'b\\001r') %s history add %s --db %s",
             gb_test_binary(), tmp("env.json"), db);
    CHECK(sh(cmd, out, sizeof out) == 0 && strstr(out, "commit ab?)") != NULL);
    CHECK(count(db, "SELECT count(*) FROM runs WHERE commit_sha = 'ab?' AND branch = 'b?r'") == 1);
}

/* The longest name whose journal files (NAME-journal, -wal, -shm) fit the
 * file system holds a history; one byte more is refused before anything is
 * made (a 255-byte name failed inside SQLite and left an empty file). */
TEST(history_db_names_up_to_the_journal_s_room_work_and_longer_are_refused_up_front) {
    CHECK(make_scenario_run(tmp("long.json"), 0) == 0);
    char name[300], cmd[2048], out[2048];
    for (int bytes = 247; bytes <= 248; bytes++) {
        memset(name, 'h', (size_t)bytes - 7);
        snprintf(name + bytes - 7, 8, ".sqlite");
        snprintf(cmd, sizeof cmd,
                 "B=$(realpath %s) && cd %s && { $B history add long.json --db %s 2>&1; echo rc=$?; [ -e %s ] && echo made; true; }",
                 gb_test_binary(), tmp(""), name, name);
        CHECK(sh(cmd, out, sizeof out) == 0);
        if (bytes == 247) CHECK(strstr(out, "added as run 1") && strstr(out, "rc=0"));
        else if (!CHECK(strstr(out, "a name of 248 bytes") && strstr(out, "at most 247") && strstr(out, "rc=2") &&
                   !strstr(out, "made"))) fprintf(stderr, "    %s\n", out);
    }
}

TEST(history_add_list_show_export_prune) {
    const char *db = tmp("basic.sqlite");
    char out[65536], cmd[2048];
    for (unsigned i = 0; i < 3; i++) {
        char f[64];
        snprintf(f, sizeof f, "basic%u.json", i);
        CHECK(make_scenario_run(tmp(f), i) == 0);
        char c[16];
        snprintf(c, sizeof c, "c%02u", i);
        CHECK(add(db, tmp(f), c) == 0);
    }
    CHECK(count(db, "SELECT count(*) FROM runs") == 3);
    CHECK(count(db, "SELECT count(*) FROM results") == 45);
    CHECK(count(db, "SELECT count(*) FROM rounds") == 45);
    CHECK(count(db, "SELECT count(*) FROM results WHERE samples IS NULL OR length(samples) != 8 * n_samples") == 0);
    snprintf(cmd, sizeof cmd, "%s history list --db %s", gb_test_binary(), db);
    CHECK(sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "3 runs") != NULL && strstr(out, "c01") != NULL && strstr(out, "main") != NULL);
    snprintf(cmd, sizeof cmd, "%s history list --db %s --branch other", gb_test_binary(), db);
    CHECK(sh(cmd, out, sizeof out) == 0 && strstr(out, "0 runs") != NULL);
    snprintf(cmd, sizeof cmd, "%s history show 'matmul/float32/512x512x512/*/cpu/host' --db %s", gb_test_binary(), db);
    CHECK(sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "matmul/float32/512x512x512/math=default/cpu/host") != NULL && strstr(out, "c02") != NULL);
    CHECK(strstr(out, "\u2581") != NULL || strstr(out, "\u2588") != NULL || strstr(out, "\u2584") != NULL);
    snprintf(cmd, sizeof cmd, "%s history export --db %s --format csv > %s", gb_test_binary(), db, tmp("e.csv"));
    CHECK(sh(cmd, NULL, 0) == 0);
    char *csv = gb_test_slurp(tmp("e.csv"), NULL);
    int lines = 0;
    for (char *p = csv; p && *p; p++) lines += *p == '\n';
    CHECK(lines == 46); /* header + 45 results */
    free(csv);
    snprintf(cmd, sizeof cmd, "%s history export cpu/host --db %s --format json > %s", gb_test_binary(), db, tmp("e.json"));
    CHECK(sh(cmd, NULL, 0) == 0);
    cJSON *j = gb_test_load_json(tmp("e.json"));
    CHECK(cJSON_GetArraySize(j) == 15);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "median_s")));
    cJSON_Delete(j);
    /* the same bytes again: refused, nothing added */
    CHECK(add(db, tmp("basic1.json"), "c01") == 2);
    CHECK(count(db, "SELECT count(*) FROM runs") == 3);
    snprintf(cmd, sizeof cmd, "%s history prune --keep 2 --db %s", gb_test_binary(), db);
    CHECK(sh(cmd, out, sizeof out) == 0 && strstr(out, "pruned 1 run") != NULL);
    CHECK(count(db, "SELECT count(*) FROM runs") == 2);
    CHECK(count(db, "SELECT count(*) FROM results") == 30);
    CHECK(count(db, "SELECT count(*) FROM rounds") == 30);
    CHECK(count(db, "SELECT min(commit_sha = 'c01') FROM runs WHERE id = (SELECT min(id) FROM runs)") == 1);
    /* a reader never creates a history */
    snprintf(cmd, sizeof cmd, "%s history list --db %s 2>&1", gb_test_binary(), tmp("none.sqlite"));
    CHECK(sh(cmd, out, sizeof out) == 2 && access(tmp("none.sqlite"), F_OK) != 0);
}

static char *slurp(const char *p, size_t *n) { return gb_test_slurp(p, n); }

TEST(history_corrupt_or_foreign_db_refused_untouched) {
    char out[4096], cmd[2048];
    const char *bad = tmp("corrupt.sqlite");
    FILE *f = fopen(bad, "wb");
    for (int i = 0; i < 4096; i++) fputc((i * 7 + 3) & 0xff, f);
    fclose(f);
    CHECK(make_scenario_run(tmp("cf.json"), 0) == 0);
    size_t n0, n1;
    char *before = slurp(bad, &n0);
    snprintf(cmd, sizeof cmd, "%s history add %s --db %s 2>&1", gb_test_binary(), tmp("cf.json"), bad);
    CHECK(sh(cmd, out, sizeof out) == 2);
    CHECK(strstr(out, "not an SQLite database") != NULL);
    char *after = slurp(bad, &n1);
    CHECK(n0 == n1 && memcmp(before, after, n0) == 0);
    free(before);
    free(after);
    /* another application's database */
    const char *foreign = tmp("foreign.sqlite");
    sqlite3 *h;
    CHECK(sqlite3_open(foreign, &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h, "CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('mine')", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);
    before = slurp(foreign, &n0);
    snprintf(cmd, sizeof cmd, "%s history add %s --db %s 2>&1", gb_test_binary(), tmp("cf.json"), foreign);
    CHECK(sh(cmd, out, sizeof out) == 2);
    CHECK(strstr(out, "not a gpubench history") != NULL);
    after = slurp(foreign, &n1);
    CHECK(n0 == n1 && memcmp(before, after, n0) == 0);
    free(before);
    free(after);
    /* a newer schema than this build reads */
    const char *newer = tmp("newer.sqlite");
    gb_err e;
    gb_history *hh = gb_history_open(newer, 1, &e);
    CHECK(hh != NULL);
    gb_history_close(hh);
    CHECK(sqlite3_open(newer, &h) == SQLITE_OK);
    sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL);
    sqlite3_close(h);
    CHECK(gb_history_open(newer, 1, &e) == NULL && strstr(e.msg, "newer") != NULL);
}

static int die_after_five(void *ud, size_t done) {
    (void)ud;
    if (done == 5) raise(SIGKILL);
    return 0;
}
static int stop_after_five(void *ud, size_t done) {
    (void)ud;
    return done == 5;
}

TEST(history_interrupted_add_leaves_db_as_it_was) {
    const char *db = tmp("interrupt.sqlite");
    CHECK(make_scenario_run(tmp("i0.json"), 0) == 0);
    CHECK(make_scenario_run(tmp("i1.json"), 1) == 0);
    CHECK(add(db, tmp("i0.json"), "c00") == 0);
    /* killed mid-transaction (SIGKILL: no handler, no cleanup) */
    pid_t pid = fork();
    if (pid == 0) {
        gb_err e;
        gb_history *h = gb_history_open(db, 1, &e);
        gb_history_added a;
        gb_history_source src = {.commit = "c01", .no_git = 1};
        if (h) gb_history_add(h, tmp("i1.json"), &src, die_after_five, NULL, &a, &e);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CHECK(count(db, "SELECT count(*) FROM runs") == 1);
    CHECK(count(db, "SELECT count(*) FROM results") == 15);
    CHECK(count(db, "SELECT count(*) FROM rounds") == 15);
    /* stopped by a failing step: rolled back, and the reason says so */
    gb_err e;
    gb_history *h = gb_history_open(db, 1, &e);
    CHECK(h != NULL);
    gb_history_added a;
    gb_history_source src = {.commit = "c01", .no_git = 1};
    CHECK(gb_history_add(h, tmp("i1.json"), &src, stop_after_five, NULL, &a, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "nothing added") != NULL);
    CHECK(count(db, "SELECT count(*) FROM runs") == 1);
    CHECK(count(db, "SELECT count(*) FROM results") == 15);
    /* and the file can still be added: nothing of it was kept */
    CHECK(gb_history_add(h, tmp("i1.json"), &src, NULL, NULL, &a, &e) == GB_OK && !a.duplicate && a.results == 15);
    gb_history_close(h);
    CHECK(count(db, "SELECT count(*) FROM runs") == 2);
    CHECK(count(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'") == 0);
}

TEST(history_parallel_adds_from_8_processes_lose_nothing) {
    const char *db = tmp("parallel.sqlite");
    char cmd[8192], out[4096];
    int len = snprintf(cmd, sizeof cmd, "fail=0; pids=''; ");
    for (unsigned i = 0; i < 8; i++) {
        char f[32];
        snprintf(f, sizeof f, "p%u.json", i);
        CHECK(make_scenario_run(tmp(f), 100 + i) == 0);
        len += snprintf(cmd + len, sizeof cmd - (size_t)len, "%s history add %s --db %s --commit p%u >%s.log 2>&1 & pids=\"$pids $!\"; ",
                        gb_test_binary(), tmp(f), db, i, tmp(f));
    }
    /* each add's own words, shown when one failed: the failure this test
     * once caught in CI ("database is locked" at once, from the switch to
     * WAL) was otherwise told only as a count */
    snprintf(cmd + len, sizeof cmd - (size_t)len, "for p in $pids; do wait $p || fail=1; done; "
             "[ $fail = 0 ] || cat %s/p?.json.log; echo fail=$fail", tmpdir);
    CHECK(sh(cmd, out, sizeof out) == 0);
    if (!CHECK(strstr(out, "fail=0") != NULL)) fprintf(stderr, "%s", out);
    CHECK(count(db, "SELECT count(*) FROM runs") == 8);
    CHECK(count(db, "SELECT count(DISTINCT commit_sha) FROM runs") == 8);
    CHECK(count(db, "SELECT count(*) FROM results") == 8 * 15);
    CHECK(count(db, "SELECT count(*) FROM machines") == 1);
}

TEST(history_migrates_a_version_1_database) {
    const char *db = tmp("v1.sqlite");
    sqlite3 *h;
    CHECK(sqlite3_open(db, &h) == SQLITE_OK);
    char pragma[80];
    snprintf(pragma, sizeof pragma, "PRAGMA application_id = %d; PRAGMA user_version = 1", GB_HISTORY_APP_ID);
    CHECK(sqlite3_exec(h, gb_history_migration_sql(1), NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_exec(h, pragma, NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_exec(h,
                       "INSERT INTO machines (id, key) VALUES (1, 'k');"
                       "INSERT INTO runs (id, file_sha256, added_at, machine_id, commit_sha) VALUES (1, 'x', '2026-01-01', 1, 'old');"
                       "INSERT INTO results (run_id, name, status) VALUES (1, 'a/b', 'ok');",
                       NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);
    CHECK(count(db, "SELECT count(*) FROM pragma_table_info('results') WHERE name = 'energy_j'") == 0);
    CHECK(make_scenario_run(tmp("m0.json"), 0) == 0);
    CHECK(add(db, tmp("m0.json"), "new") == 0);
    CHECK(count(db, "PRAGMA user_version") == GB_HISTORY_SCHEMA_VERSION);
    CHECK(count(db, "SELECT count(*) FROM pragma_table_info('results') WHERE name = 'energy_j'") == 1);
    CHECK(count(db, "SELECT count(*) FROM runs WHERE commit_sha = 'old'") == 1);
    CHECK(count(db, "SELECT count(*) FROM runs") == 2);
}

/* The verdict compare gave the result named name, from a check's JSON. */
static const char *verdict_of(const cJSON *doc, const char *name) {
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "comparisons")) {
        const cJSON *n = cJSON_GetObjectItem(c, "name");
        if (cJSON_IsString(n) && strncmp(n->valuestring, name, strlen(name)) == 0)
            return cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
    }
    return "";
}

static int count_verdict(const cJSON *doc, const char *verdict) {
    int n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "comparisons")) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
        n += v && strcmp(v, verdict) == 0;
    }
    return n;
}

static cJSON *check_json(const char *db, const char *file, int *rc) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s history check %s --db %s --format json > %s 2>/dev/null", gb_test_binary(), file, db,
             tmp("check.json"));
    *rc = sh(cmd, NULL, 0);
    return gb_test_load_json(tmp("check.json"));
}

TEST(history_check_and_bisect_find_the_step_and_the_drift) {
    const char *all = tmp("scenario.sqlite"), *before = tmp("before_step.sqlite");
    for (unsigned i = 0; i < 20; i++) {
        char f[32], c[16];
        snprintf(f, sizeof f, "s%02u.json", i);
        snprintf(c, sizeof c, "c%02u", i);
        CHECK(make_scenario_run(tmp(f), i) == 0);
        CHECK(add(all, tmp(f), c) == 0);
        if (i < STEP_AT) CHECK(add(before, tmp(f), c) == 0);
    }
    char cmd[2048], out[16384];
    snprintf(cmd, sizeof cmd, "%s history bisect 'matmul/float32/512x512x512/*/cpu/host' --db %s", gb_test_binary(), all);
    CHECK(sh(cmd, out, sizeof out) == 1);
    CHECK(strstr(out, "step: +2") != NULL && strstr(out, "commit c12") != NULL);
    CHECK(strstr(out, "drift") == NULL);
    snprintf(cmd, sizeof cmd, "%s history bisect 'matmul/float32/2048x2048x2048/*/cpu/host' --db %s", gb_test_binary(), all);
    CHECK(sh(cmd, out, sizeof out) == 1);
    CHECK(strstr(out, "drift: +2.0") != NULL && strstr(out, "commit c08") != NULL);
    CHECK(strstr(out, "step:") == NULL);
    snprintf(cmd, sizeof cmd, "%s history bisect 'matmul/float32/8192x8192x8192/*' --db %s", gb_test_binary(), all);
    CHECK(sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "no step or drift") != NULL);
    /* the same runs, all of one commit: the step is the machine's, and no
     * commit is named to blame (exit 0) */
    const char *one = tmp("one_commit.sqlite");
    for (unsigned i = 0; i < 20; i++) {
        char f[32];
        snprintf(f, sizeof f, "s%02u.json", i);
        CHECK(add(one, tmp(f), "c00") == 0);
    }
    snprintf(cmd, sizeof cmd, "%s history bisect 'matmul/float32/512x512x512/*/cpu/host' --db %s", gb_test_binary(), one);
    CHECK(sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "step: +2") != NULL && strstr(out, "the machine changed, not the code") != NULL);
    snprintf(cmd, sizeof cmd, "%s history bisect 'matmul/float32/2048x2048x2048/*/cpu/host' --db %s", gb_test_binary(), one);
    CHECK(sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "drift: +2.0") != NULL && strstr(out, "the machine changed, not the code") != NULL);
    /* show and the dashboard say the same, from the same finding */
    snprintf(cmd, sizeof cmd, "%s history show 'matmul/float32/512x512x512/*/cpu/host' --db %s", gb_test_binary(), one);
    CHECK(sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "<- step (within one commit's runs: the machine)") != NULL);
    snprintf(cmd, sizeof cmd, "%s history publish %s --db %s >/dev/null 2>&1", gb_test_binary(), tmp("one_site"), one);
    CHECK(sh(cmd, NULL, 0) == 0);
    size_t len = 0;
    char *index = gb_test_slurp(tmp("one_site/index.html"), &len);
    CHECK(index && strstr(index, "between runs of c00") && strstr(index, "(the machine, not the code)"));
    free(index);
    /* the run of the step against the twelve before it */
    int rc;
    cJSON *doc = check_json(before, tmp("s12.json"), &rc);
    CHECK(rc == 1);
    CHECK(strcmp(verdict_of(doc, "matmul/float32/512x512x512/math=default/cpu/host"), "regression") == 0);
    CHECK(strcmp(verdict_of(doc, "matmul/float32/8192x8192x8192/math=default/cpu/host"), "same") == 0);
    cJSON_Delete(doc);
}

/* n same-build runs STEM0.json ... added with commits STEM0 ...: run i of
 * the fixture with jitter(first + i); 0 when every one was made and added. */
static int add_flat_runs(const char *db, const char *stem, unsigned n, unsigned first) {
    double flat[5] = {1, 1, 1, 1, 1};
    for (unsigned i = 0; i < n; i++) {
        char f[64], c[32];
        snprintf(f, sizeof f, "%s%u.json", stem, i);
        snprintf(c, sizeof c, "%s%u", stem, i);
        if (make_run(tmp(f), first + i, flat) != 0 || add(db, tmp(f), c) != 0) return -1;
    }
    return 0;
}

TEST(history_check_flags_a_1_2x_slowdown_and_not_an_a_a_run) {
    const char *db = tmp("aa.sqlite");
    double flat[5] = {1, 1, 1, 1, 1}, slow[5] = {1, 1, 1, 1, 1.2};
    CHECK(add_flat_runs(db, "aa", 8, 200) == 0);
    CHECK(make_run(tmp("aa_ninth.json"), 208, flat) == 0);
    CHECK(make_run(tmp("aa_slow.json"), 208, slow) == 0);
    int rc;
    cJSON *doc = check_json(db, tmp("aa_ninth.json"), &rc);
    CHECK(rc == 0);
    CHECK(count_verdict(doc, "regression") == 0 && count_verdict(doc, "improvement") == 0);
    CHECK(count_verdict(doc, "same") == 15);
    cJSON_Delete(doc);
    doc = check_json(db, tmp("aa_slow.json"), &rc);
    CHECK(rc == 1);
    CHECK(count_verdict(doc, "regression") == 3); /* the case's three results */
    CHECK(strcmp(verdict_of(doc, "matmul/float32/1024x2048x512/math=default/cpu/host"), "regression") == 0);
    cJSON_Delete(doc);
    /* the file checked is itself in the history: it is not its own baseline */
    CHECK(add(db, tmp("aa_slow.json"), "a9") == 0);
    doc = check_json(db, tmp("aa_slow.json"), &rc);
    CHECK(rc == 1 && count_verdict(doc, "regression") == 3);
    cJSON_Delete(doc);
    /* bad input: exit 2 */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s history check tests/data/not_results.json --db %s >/dev/null 2>&1", gb_test_binary(), db);
    CHECK(sh(cmd, NULL, 0) == 2);
}

static double num_at(const cJSON *o, const char *a, const char *b) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* calibrate: nine same-build runs judged each against the other eight flag
 * nothing and come out same; x1.2 made in each case of each run is flagged
 * every time, with no other case flagged beside it; a tenth run slower in
 * one case is the one run that flags, and names it. */
TEST(history_calibrate_counts_same_build_alarms_and_what_a_slowdown_does) {
    const char *db = tmp("cal.sqlite");
    double slow[5] = {1, 1, 1, 1, 1.2};
    CHECK(add_flat_runs(db, "cal", 9, 300) == 0);
    char cmd[2048], out[16384];
    snprintf(cmd, sizeof cmd, "%s history calibrate %s --db %s --inject 1.2 --min-time 0 -f json > %s",
             gb_test_binary(), tmp("cal0.json"), db, tmp("cal-out.json"));
    CHECK(sh(cmd, NULL, 0) == 0);
    cJSON *doc = gb_test_load_json(tmp("cal-out.json"));
    CHECK(doc != NULL);
    CHECK(num_at(doc, "summary", "runs") == 9 && num_at(doc, "summary", "runs_flagging") == 0);
    CHECK(num_at(doc, "summary", "long_judged") == 9 * 15 && num_at(doc, "summary", "long_same") == 9 * 15);
    CHECK(num_at(doc, "inject", "judged") == 9 * 15 && num_at(doc, "inject", "flagged") == 9 * 15);
    CHECK(num_at(doc, "inject", "missed") == 0 && num_at(doc, "inject", "others_flagged") == 0);
    cJSON_Delete(doc);
    /* a tenth run with one case 1.2x slower: the last 9 + 1 runs, and it alone flags */
    CHECK(make_run(tmp("cal_slow.json"), 309, slow) == 0);
    CHECK(add(db, tmp("cal_slow.json"), "cal9") == 0);
    snprintf(cmd, sizeof cmd, "%s history calibrate %s --db %s", gb_test_binary(), tmp("cal0.json"), db);
    CHECK(sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "Runs flagging a case: 1 of 9") != NULL);
    CHECK(strstr(out, "first flagged: matmul/float32/1024x2048x512/math=default/cpu/host") != NULL);
    /* bad input: exit 2, naming what */
    for (int i = 0; i < 3; i++) {
        static const char *const bad[] = {"1", "0.8", "1.2x"};
        snprintf(cmd, sizeof cmd, "%s history calibrate %s --db %s --inject %s", gb_test_binary(), tmp("cal0.json"),
                 db, bad[i]);
        CHECK(sh(cmd, out, sizeof out) == 2 && strstr(out, "--inject") != NULL);
    }
    snprintf(cmd, sizeof cmd, "%s history calibrate %s --db %s --min-time 10", gb_test_binary(), tmp("cal0.json"), db);
    CHECK(sh(cmd, out, sizeof out) == 2 && strstr(out, "--min-time") != NULL);
    const char *two = tmp("cal2.sqlite");
    CHECK(add(two, tmp("cal0.json"), "cal0") == 0 && add(two, tmp("cal1.json"), "cal1") == 0);
    snprintf(cmd, sizeof cmd, "%s history calibrate %s --db %s", gb_test_binary(), tmp("cal0.json"), two);
    CHECK(sh(cmd, out, sizeof out) == 2 && strstr(out, "2 runs of this machine") != NULL &&
          strstr(out, "3 or more") != NULL);
}

TEST(history_publish_writes_index_and_case_pages) {
    const char *db = tmp("pub.sqlite");
    for (unsigned i = 0; i < 20; i++) {
        char f[32], c[16];
        snprintf(f, sizeof f, "pub%02u.json", i);
        snprintf(c, sizeof c, "c%02u", i);
        CHECK(make_scenario_run(tmp(f), i) == 0);
        CHECK(add(db, tmp(f), c) == 0);
    }
    char cmd[2048], out[4096];
    snprintf(cmd, sizeof cmd, "%s history publish %s --db %s", gb_test_binary(), tmp("site"), db);
    CHECK(sh(cmd, out, sizeof out) == 0 && strstr(out, "15 case pages") != NULL);
    char *index = gb_test_slurp(tmp("site/index.html"), NULL);
    CHECK(index && strstr(index, "step +20") != NULL && strstr(index, "drift +2.") != NULL && strstr(index, "%/run</span><span>from c08") != NULL);
    CHECK(index && strstr(index, "http") == NULL); /* nothing fetched at view time */
    free(index);
    snprintf(cmd, sizeof cmd, "ls %s/case-*.html | wc -l", tmp("site"));
    CHECK(sh(cmd, out, sizeof out) == 0 && atoi(out) == 15); /* one a result series */
    /* a DIR that is a file (the database itself, given by mistake) is
     * refused before anything is read or written, and left as it was */
    snprintf(cmd, sizeof cmd, "cp %s %s.before && %s history publish %s --db %s 2>&1; echo rc=$?; cmp %s %s.before",
             db, db, gb_test_binary(), db, db, db, db);
    CHECK(sh(cmd, out, sizeof out) == 0 && strstr(out, "not a directory: publish writes its pages into a directory") &&
          strstr(out, "rc=2"));
    /* a history whose own name is a page publish writes (index.html,
     * case-*.html) in the directory it publishes into, named directly or
     * through a link: refused, the database untouched (it was replaced) */
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s && cp %s %s/index.html && cp %s %s/case-0.html && ln -sf %s/index.html %s && "
             "%s history publish %s --db %s/index.html 2>&1; %s history publish %s --db %s/case-0.html 2>&1; "
             "%s history publish %s/ --db %s 2>&1; cmp %s %s/index.html && cmp %s %s/case-0.html && echo untouched",
             tmp("pubdb"), db, tmp("pubdb"), db, tmp("pubdb"), tmp("pubdb"), tmp("pubdb.link"), gb_test_binary(),
             tmp("pubdb"), tmp("pubdb"), gb_test_binary(), tmp("pubdb"), tmp("pubdb"), gb_test_binary(), tmp("pubdb"),
             tmp("pubdb.link"), db, tmp("pubdb"), db, tmp("pubdb"));
    CHECK(sh(cmd, out, sizeof out) == 0 && strstr(out, "is index.html there, a page publish writes") &&
          strstr(out, "is case-0.html there") && strstr(out, "untouched"));
}

/* A commit is text from the command line or a results file: markup in it
 * reaches every page escaped — the case pages' chart points and tables, the
 * index's "found" cell — never as a tag (issue #41). */
TEST(history_publish_escapes_markup_in_commits) {
    const char *db = tmp("pubx.sqlite");
    for (unsigned i = 0; i < 20; i++) {
        char f[32], c[64];
        snprintf(f, sizeof f, "pubx%02u.json", i);
        snprintf(c, sizeof c, "'<b>&x%02u'", i);
        CHECK(make_scenario_run(tmp(f), i) == 0);
        CHECK(add(db, tmp(f), c) == 0);
    }
    char cmd[2048], out[4096];
    snprintf(cmd, sizeof cmd, "%s history publish %s --db %s", gb_test_binary(), tmp("sitex"), db);
    CHECK(sh(cmd, out, sizeof out) == 0);
    char *index = gb_test_slurp(tmp("sitex/index.html"), NULL);
    CHECK(index && strstr(index, "<b>") == NULL && strstr(index, "from &lt;b&gt;&amp;x08") != NULL);
    free(index);
    snprintf(cmd, sizeof cmd, "cat %s/case-*.html | grep -c '<b>'", tmp("sitex"));
    CHECK(sh(cmd, out, sizeof out) != 0 && atoi(out) == 0);
    snprintf(cmd, sizeof cmd, "cat %s/case-*.html | grep -c '<title>run 1, &lt;b&gt;&amp;x00'", tmp("sitex"));
    CHECK(sh(cmd, out, sizeof out) == 0 && atoi(out) > 0);
}

/* Dates and day counts read strictly, with a range: "yesterday" matched no
 * run and exited 0, "0x10" was 16 days, 1e300 days overflowed time_t
 * (undefined behaviour, issue #41). Refused with exit 2 before the database
 * is touched; an ISO time with an offset is taken. */
TEST(history_dates_and_durations_are_strict_with_a_range) {
    const char *db = tmp("dates.sqlite");
    CHECK(make_scenario_run(tmp("d0.json"), 0) == 0);
    CHECK(add(db, tmp("d0.json"), "d0") == 0);
    static const char *const bad[] = {
        "add %s --commit-time 'next tuesday'", "list --since yesterday", "list --until 2026-02-30",
        "prune --older-than 0x10", "prune --older-than inf", "prune --older-than ' 5'", "prune --older-than 1e300",
        "prune --older-than -1", "list --since '2026-11-30 '",
    };
    char cmd[2048], out[4096], args[512];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(args, sizeof args, bad[i], tmp("d0.json"));
        snprintf(cmd, sizeof cmd, "%s history %s --db %s 2>&1", gb_test_binary(), args, db);
        int rc = sh(cmd, out, sizeof out);
        if (!CHECK(rc == 2 && strstr(out, "expected"))) fprintf(stderr, "    %s -> %d: %s\n", args, rc, out);
    }
    CHECK(count(db, "SELECT count(*) FROM runs") == 1);
    snprintf(cmd, sizeof cmd, "%s history list --since 2000-01-01T10:00:00+01:00 --db %s", gb_test_binary(), db);
    CHECK(sh(cmd, out, sizeof out) == 0 && strstr(out, "1 run") != NULL);
    snprintf(cmd, sizeof cmd, "%s history prune --older-than 36500 --db %s", gb_test_binary(), db);
    CHECK(sh(cmd, out, sizeof out) == 0 && count(db, "SELECT count(*) FROM runs") == 1);
}

TEST(history_changepoint_stays_quiet_on_noise_and_short_series) {
    /* 20 runs of +-3% deterministic noise: no step, no drift */
    double x[20];
    for (unsigned i = 0; i < 20; i++) x[i] = log(1.0 + 0.03 * ((double)((i * 2654435761u) % 2001u) / 1000.0 - 1.0));
    gb_changepoint cp;
    gb_history_changepoint(x, 20, 0.05, &cp);
    CHECK(!cp.step && !cp.drift);
    /* five runs say nothing, whatever they hold */
    double y[5] = {0, 0.3, 0.1, 0.4, 0.2};
    gb_history_changepoint(y, 5, 0.05, &cp);
    CHECK(!cp.step && !cp.drift);
    /* a clean 30% step in the same noise is found where it is */
    for (unsigned i = 10; i < 20; i++) x[i] += log(1.3);
    gb_history_changepoint(x, 20, 0.05, &cp);
    CHECK(cp.step && cp.step_at == 10 && !cp.drift);
    CHECK_NEAR(cp.step_change, 0.3, 0.03);
}

TEST(history_readers_go_on_while_an_add_holds_the_write_lock) {
    const char *db = tmp("wal.sqlite");
    CHECK(make_scenario_run(tmp("w0.json"), 0) == 0);
    CHECK(add(db, tmp("w0.json"), "w0") == 0);
    CHECK(count(db, "SELECT journal_mode = 'wal' FROM pragma_journal_mode") == 1);
    /* a writer in the middle of its transaction (as an add is) */
    sqlite3 *w;
    CHECK(sqlite3_open(db, &w) == SQLITE_OK);
    CHECK(sqlite3_exec(w, "BEGIN IMMEDIATE; INSERT INTO machines (key) VALUES ('held')", NULL, NULL, NULL) == SQLITE_OK);
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd, "%s history list --db %s", gb_test_binary(), db);
    CHECK(sh(cmd, out, sizeof out) == 0 && strstr(out, "1 run") != NULL);
    snprintf(cmd, sizeof cmd, "%s history publish %s --db %s", gb_test_binary(), tmp("walsite"), db);
    CHECK(sh(cmd, out, sizeof out) == 0 && strstr(out, "15 case pages") != NULL);
    sqlite3_exec(w, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(w);
}

TEST(history_run_flag_adds_the_run_and_refuses_a_foreign_db_before_running) {
    const char *db = tmp("run.sqlite");
    char cmd[2048], out[16384];
    snprintf(cmd, sizeof cmd,
             "%s run --op matmul --sizes 32 --dtype float32 --backend cpu --quiet --min-time 1ms --max-time 5ms "
             "--out %s --history=%s 2>&1", gb_test_binary(), tmp("run.json"), db);
    CHECK(sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "history: added as run 1") != NULL);
    CHECK(count(db, "SELECT count(*) FROM runs") == 1);
    CHECK(count(db, "SELECT count(*) FROM results WHERE name LIKE 'matmul/float32/32x32x32/%/cpu/host'") == 1);
    /* a file that is not a history: refused before anything runs */
    const char *bad = tmp("run-bad.sqlite");
    FILE *f = fopen(bad, "w");
    fputs("not a database, and long enough to be read as one's header ............................", f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "%s run --op matmul --sizes 32 --dtype float32 --backend cpu --quiet --min-time 1ms --max-time 5ms "
             "--out %s --history=%s 2>&1", gb_test_binary(), tmp("run-bad.json"), bad);
    CHECK(sh(cmd, out, sizeof out) == 2);
    CHECK(strstr(out, "not an SQLite database") != NULL);
    CHECK(access(tmp("run-bad.json"), F_OK) != 0);
}
