/* test_results_io.c — reading and checking results files (through the
 * model), and writing JSON atomically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "results_io.h"
#include "results_model.h"
#include "testlib.h"

static const char *write_tmp(const char *name, const char *text) {
    static char path[256];
    snprintf(path, sizeof path, "/tmp/gb_rio_%d_%s", (int)getpid(), name);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

/* Load path through the model; the message in e. */
static int load(const char *path, gb_err *e) {
    gb_results r;
    int rc = gb_results_load(path, &r, e);
    gb_results_free(&r);
    return rc;
}

TEST(results_load_rejects_missing_schema) {
    gb_err e = {{0}};
    const char *p = write_tmp("noschema.json", "{\"cases\": []}");
    CHECK(load(p, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "not a gpubench results file (no \"schema\")") != NULL);
    CHECK(strncmp(e.msg, p, strlen(p)) == 0);
    unlink(p);
}

TEST(results_load_rejects_other_schema_version) {
    gb_err e = {{0}};
    const char *p = write_tmp("v7.json", "{\"schema\": \"gpubench-results\", \"schema_version\": 7, \"cases\": []}");
    CHECK(load(p, &e) == GB_FAIL);
    CHECK(strstr(e.msg, ": schema_version 7, this gpubench reads 1") != NULL);
    unlink(p);
}

TEST(results_load_names_line_of_malformed_json) {
    gb_err e = {{0}};
    const char *p = write_tmp("bad.json", "{\n  \"schema\": \"gpubench-results\",\n  \"op\" matmul\n}\n");
    CHECK(load(p, &e) == GB_FAIL);
    CHECK(strstr(e.msg, ": line 3, column 8: malformed JSON near '") != NULL);
    unlink(p);
}

TEST(results_load_reports_unreadable_file) {
    gb_err e = {{0}};
    CHECK(load("/nonexistent/r.json", &e) == GB_FAIL);
    CHECK(strstr(e.msg, "/nonexistent/r.json: cannot open") != NULL);
}

TEST(results_load_checks_case_run_index) {
    gb_err e = {{0}};
    const char *p = write_tmp("runs.json", "{\"schema\": \"gpubench-results\", \"schema_version\": 1,"
                              " \"runs\": [{\"name\": \"a\"}], \"cases\": [{\"run\": 1}]}");
    CHECK(load(p, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "cases[0].run") != NULL);
    unlink(p);
}

TEST(results_write_atomic_round_trips_and_replaces) {
    gb_err e = {{0}};
    char path[256];
    snprintf(path, sizeof path, "/tmp/gb_rio_%d_out.json", (int)getpid());
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", GB_RESULTS_SCHEMA);
    cJSON_AddNumberToObject(doc, "schema_version", GB_RESULTS_SCHEMA_VERSION);
    cJSON_AddArrayToObject(doc, "cases");
    CHECK(gb_json_write_atomic(doc, path, &e) == GB_OK);
    cJSON_AddStringToObject(doc, "note", "second");
    CHECK(gb_json_write_atomic(doc, path, &e) == GB_OK);
    cJSON *back = NULL;
    CHECK(gb_json_read_file(path, &back, &e) == GB_OK);
    CHECK(back && cJSON_Compare(doc, back, 1));
    cJSON_Delete(back);
    gb_results r;
    CHECK(gb_results_load(path, &r, &e) == GB_OK);
    CHECK(r.nruns == 1 && !r.merged && r.ncases == 0);
    gb_results_free(&r);
    cJSON_Delete(doc);
    unlink(path);
    /* no temp file left behind */
    char out[512];
    snprintf(path, sizeof path, "ls -a /tmp | grep -c '^.gb_rio_%d_out.json.tmp' || true", (int)getpid());
    gb_test_sh(path, out, sizeof out);
    CHECK(atoi(out) == 0);
}

TEST(results_write_atomic_reports_missing_directory) {
    gb_err e = {{0}};
    cJSON *doc = cJSON_CreateObject();
    CHECK(gb_json_write_atomic(doc, "/nonexistent-dir/r.json", &e) == GB_FAIL);
    CHECK(strstr(e.msg, "/nonexistent-dir/r.json: the directory /nonexistent-dir does not exist") != NULL);
    cJSON_Delete(doc);
}

/* ---- the one writer: what it does to each kind of target (results_io.h) ---- */

/* A fresh directory under /tmp for one test; "" when none could be made. */
static const char *scratch(char *dir, size_t len) {
    snprintf(dir, len, "/tmp/gb_rio_w_XXXXXX");
    return mkdtemp(dir) ? dir : "";
}

static int count_temps(const char *dir) {
    char cmd[1024], out[64];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -c '\\.tmp\\.' || true", dir);
    gb_test_sh(cmd, out, sizeof out);
    return atoi(out);
}

static void rm_rf(const char *dir) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

TEST(file_write_follows_a_symlink_and_keeps_the_link) {
    char dir[64], link[128], target[128];
    scratch(dir, sizeof dir);
    snprintf(link, sizeof link, "%s/link.json", dir);
    snprintf(target, sizeof target, "%s/sub/real.json", dir);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir %s/sub && echo old > %s && chmod 640 %s && ln -s sub/real.json %s", dir, target,
             target, link);
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    gb_err e = {{0}};
    CHECK(gb_file_write(link, "new\n", 4, &e) == GB_OK);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode)); /* still a link */
    CHECK(stat(target, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0640); /* permissions kept */
    const char *got = slurp(target);
    CHECK(got && strcmp(got, "new\n") == 0);
    snprintf(cmd, sizeof cmd, "%s/sub", dir);
    CHECK(count_temps(dir) == 0 && count_temps(cmd) == 0);
    /* a link to a file not made yet: the file is made where it points */
    snprintf(cmd, sizeof cmd, "ln -s sub/later.json %s/ahead.json", dir);
    gb_test_sh(cmd, NULL, 0);
    snprintf(link, sizeof link, "%s/ahead.json", dir);
    CHECK(gb_file_write(link, "x", 1, &e) == GB_OK);
    snprintf(cmd, sizeof cmd, "%s/sub/later.json", dir);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode) && stat(cmd, &st) == 0 && st.st_size == 1);
    /* one into a directory that does not exist is refused, naming it */
    snprintf(cmd, sizeof cmd, "ln -s nowhere/x.json %s/dangling.json", dir);
    gb_test_sh(cmd, NULL, 0);
    snprintf(link, sizeof link, "%s/dangling.json", dir);
    CHECK(gb_file_write(link, "x", 1, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "dangling.json: the directory ") && strstr(e.msg, "/nowhere does not exist"));
    CHECK(gb_output_check(link, &e) == GB_FAIL);
    /* a loop of links is refused */
    snprintf(cmd, sizeof cmd, "ln -s loop2 %s/loop1 && ln -s loop1 %s/loop2", dir, dir);
    gb_test_sh(cmd, NULL, 0);
    snprintf(link, sizeof link, "%s/loop1", dir);
    CHECK(gb_output_check(link, &e) == GB_FAIL && strstr(e.msg, "too many levels of symbolic links"));
    rm_rf(dir);
}

TEST(file_write_streams_to_a_fifo_and_never_replaces_it) {
    char dir[64], fifo[128], got[128], cmd[512];
    scratch(dir, sizeof dir);
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(got, sizeof got, "%s/got", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    /* the reader, detached from the test's output so the shell returns */
    snprintf(cmd, sizeof cmd, "cat %s > %s 2>/dev/null < /dev/null &", fifo, got);
    gb_test_sh(cmd, NULL, 0);
    gb_err e = {{0}};
    CHECK(gb_output_check(fifo, &e) == GB_OK);
    CHECK(gb_file_write(fifo, "through the pipe\n", 17, &e) == GB_OK);
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    /* the reader may be slow to run on a busy machine: up to 120 s (a bound against a hang only) */
    for (int i = 0; i < 6000 && !(slurp(got) && strlen(slurp(got)) == 17); i++) usleep(20000);
    const char *text = slurp(got);
    CHECK(text && strcmp(text, "through the pipe\n") == 0);
    CHECK(count_temps(dir) == 0);
    rm_rf(dir);
}

/* As root a device node can be made in a scratch directory: the writer
 * must write to it and leave it a device (the real /dev/null is never
 * written; it is checked unchanged). */
TEST(file_write_to_a_device_node_never_replaces_it) {
    struct stat before, after;
    CHECK(stat("/dev/null", &before) == 0);
    char dir[64], dev[128];
    scratch(dir, sizeof dir);
    snprintf(dev, sizeof dev, "%s/null", dir);
    if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        SKIP("mknod not permitted here (not root, or no CAP_MKNOD)");
        rm_rf(dir);
        return;
    }
    gb_err e = {{0}};
    CHECK(gb_output_check(dev, &e) == GB_OK);
    CHECK(gb_file_write(dev, "discarded", 9, &e) == GB_OK);
    struct stat st;
    CHECK(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
    CHECK(count_temps(dir) == 0);
    CHECK(stat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev &&
          after.st_ino == before.st_ino);
    rm_rf(dir);
}

TEST(file_write_refuses_a_directory_and_a_missing_directory) {
    char dir[64], path[128];
    scratch(dir, sizeof dir);
    gb_err e = {{0}};
    CHECK(gb_file_write(dir, "x", 1, &e) == GB_FAIL);
    CHECK(strstr(e.msg, ": is a directory") != NULL);
    CHECK(gb_output_check(dir, &e) == GB_FAIL);
    snprintf(path, sizeof path, "%s/no/such/r.json", dir);
    CHECK(gb_output_check(path, &e) == GB_FAIL);
    CHECK(strstr(e.msg, "does not exist") != NULL);
    /* a file system that takes no new files (proc) fails the check itself */
    CHECK(gb_output_check("/proc/gb-nope.json", &e) == GB_FAIL);
    CHECK(strstr(e.msg, "/proc/gb-nope.json: cannot write in /proc") != NULL);
    rm_rf(dir);
}

/* Temp files are named .NAME.tmp.PID: the check before a write removes
 * those of processes that are gone, and keeps a live one's. */
TEST(file_check_removes_stale_temp_files_of_dead_processes) {
    char dir[64], path[128], cmd[512], out[64];
    scratch(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/r.json", dir);
    /* a pid that existed and is gone: a shell that printed its own and ended */
    gb_test_sh("sh -c 'echo $$'", out, sizeof out);
    long dead = atol(out);
    snprintf(cmd, sizeof cmd, "touch %s/.r.json.tmp.%ld %s/.r.json.tmp.1 %s/.other.json.tmp.%ld", dir, dead, dir, dir,
             dead);
    gb_test_sh(cmd, NULL, 0);
    gb_err e = {{0}};
    CHECK(gb_output_check(path, &e) == GB_OK);
    char p[256];
    snprintf(p, sizeof p, "%s/.r.json.tmp.%ld", dir, dead);
    CHECK(access(p, F_OK) != 0); /* stale: removed */
    snprintf(p, sizeof p, "%s/.r.json.tmp.1", dir);
    CHECK(access(p, F_OK) == 0); /* pid 1 lives: kept */
    snprintf(p, sizeof p, "%s/.other.json.tmp.%ld", dir, dead);
    CHECK(access(p, F_OK) == 0); /* another target's: not ours to judge */
    CHECK(access(path, F_OK) != 0); /* the check leaves nothing of its own */
    rm_rf(dir);
}
