/* history_add.c — a results file into the history, in one transaction.
 *
 * The file is read through the results model (never as raw JSON) and
 * stored as rows a SQL reader can use: the machine, the run (commit,
 * branch, suite, when) and per result its summary (median, interval, rate,
 * % of ceiling, verification, energy), the rounds (size and median: what
 * compare's statistics work from) and the samples themselves, so that
 * `history check` judges with compare's own code. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_strict.h"
#include "history_internal.h"
#include "stats.h"

int gb_hist_bind_text(sqlite3_stmt *st, int i, const char *s) {
    return s && *s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}
int gb_hist_bind_num(sqlite3_stmt *st, int i, double v) {
    return isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}
const char *gb_hist_col_text(sqlite3_stmt *st, int i) {
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}
double gb_hist_col_num(sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

void gb_history_machine_key(const gb_results *r, int run, char key[17]) {
    const gb_context *c = &r->runs[run].context;
    char text[1024], hex[65];
    snprintf(text, sizeof text, "%s\n%.0f\n%s", c->cpu_model, isfinite(c->cpu_logical_cpus) ? c->cpu_logical_cpus : 0,
             c->gpu_name);
    gb_sha256_hex(text, strlen(text), hex);
    memcpy(key, hex, 16);
    key[16] = 0;
}

/* A commit id safe to hand to git: hex only (it may come from a file). */
static int plain_commit(const char *s) {
    size_t n = strlen(s);
    if (n < 4 || n > 64) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i])) return 0;
    return 1;
}

/* The first line of a fixed git command's output, "" when git fails. */
static void git_line(const char *cmd, char *buf, size_t len) {
    buf[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (!fgets(buf, (int)len, p)) buf[0] = 0;
    if (pclose(p) != 0) buf[0] = 0;
    buf[strcspn(buf, "\r\n")] = 0;
}

static const char *env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

typedef struct {
    char commit[64], branch[128], commit_time[40];
} source_info;

static void resolve_source(const gb_history_source *src, const gb_results *r, source_info *si) {
    memset(si, 0, sizeof *si);
    const char *c = src && src->commit ? src->commit : env("GITHUB_SHA") ? env("GITHUB_SHA") : env("CI_COMMIT_SHA");
    const char *b = src && src->branch ? src->branch
                  : env("GITHUB_HEAD_REF") ? env("GITHUB_HEAD_REF")
                  : env("GITHUB_REF_NAME") ? env("GITHUB_REF_NAME") : env("CI_COMMIT_REF_NAME");
    int git = !(src && src->no_git);
    if (c) snprintf(si->commit, sizeof si->commit, "%s", c);
    else {
        /* the build's own commit: the code that measured (context.build.git_commit) */
        const char *ctx = r->runs[0].context.json;
        cJSON *doc = ctx ? cJSON_Parse(ctx) : NULL;
        const cJSON *gc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "build"), "git_commit");
        if (cJSON_IsString(gc) && strcmp(gc->valuestring, "unknown") != 0)
            snprintf(si->commit, sizeof si->commit, "%s", gc->valuestring);
        cJSON_Delete(doc);
        if (!si->commit[0] && git) git_line("git rev-parse HEAD 2>/dev/null", si->commit, sizeof si->commit);
    }
    if (b) snprintf(si->branch, sizeof si->branch, "%s", b);
    else if (git) {
        /* the checkout's branch names the commit only when it is that commit */
        char head[64];
        git_line("git rev-parse HEAD 2>/dev/null", head, sizeof head);
        size_t n = strlen(si->commit);
        if (n >= 7 && strncmp(head, si->commit, n) == 0)
            git_line("git rev-parse --abbrev-ref HEAD 2>/dev/null", si->branch, sizeof si->branch);
    }
    if (src && src->commit_time) snprintf(si->commit_time, sizeof si->commit_time, "%s", src->commit_time);
    else if (git && plain_commit(si->commit)) {
        char cmd[160];
        snprintf(cmd, sizeof cmd, "git show -s --format=%%cI %s 2>/dev/null", si->commit);
        git_line(cmd, si->commit_time, sizeof si->commit_time);
    }
    /* from the environment or git, perhaps cut mid-character: printed and
     * stored, so UTF-8 without control characters (the rest of what the
     * history stores comes from results files, checked when they are read) */
    gb_text_scrub(si->commit);
    gb_text_scrub(si->branch);
    gb_text_scrub(si->commit_time);
}

static void now_iso(char *buf, size_t len) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Samples as float64 little-endian, whatever the host's byte order. */
static unsigned char *samples_blob(const gb_result *r, size_t *len) {
    *len = r->nsamples * 8;
    unsigned char *b = malloc(*len ? *len : 1);
    if (!b) return NULL;
    for (size_t i = 0; i < r->nsamples; i++) {
        uint64_t u;
        memcpy(&u, &r->samples[i], 8);
        for (int k = 0; k < 8; k++) b[8 * i + k] = (unsigned char)(u >> (8 * k));
    }
    return b;
}

static double energy_of(const gb_result *r) {
    const gb_value *v = gb_kv_find(&r->extra, "energy_j");
    return v ? gb_value_num(v) : NAN;
}

static long long machine_id(gb_history *h, const gb_results *r, int run, gb_err *e) {
    const gb_context *c = &r->runs[run].context;
    char key[17];
    gb_history_machine_key(r, run, key);
    sqlite3 *db = gb_history_db(h);
    sqlite3_stmt *st = NULL;
    long long id = -1;
    char *libs = gb_kvlist_json(&c->libraries);
    char *driver = gb_value_json(&c->f_gpu_driver);
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO machines (key, hostname, cpu_model, logical_cpus, gpu_name, gpu_driver, libraries_json) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(key) DO UPDATE SET hostname = excluded.hostname, "
                           "gpu_driver = excluded.gpu_driver, libraries_json = excluded.libraries_json RETURNING id",
                           -1, &st, NULL) == SQLITE_OK) {
        gb_hist_bind_text(st, 1, key);
        gb_hist_bind_text(st, 2, c->hostname);
        gb_hist_bind_text(st, 3, c->cpu_model);
        gb_hist_bind_num(st, 4, c->cpu_logical_cpus);
        gb_hist_bind_text(st, 5, c->gpu_name);
        gb_hist_bind_text(st, 6, driver);
        gb_hist_bind_text(st, 7, libs);
        if (sqlite3_step(st) == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
    }
    if (id < 0) gb_hist_sqlerr(h, e, "adding the machine");
    sqlite3_finalize(st);
    free(libs);
    free(driver);
    return id;
}

/* One result and its rounds. */
static int add_result(gb_history *h, sqlite3_stmt *ins, sqlite3_stmt *rnd, long long run_id, const gb_case_result *c,
                      const gb_result *r, gb_err *e) {
    char name[512], shape[256];
    gb_result_name(c, r, NULL, name, sizeof name);
    gb_case_shape_text(c, shape, sizeof shape);
    char *params = gb_kvlist_json(&c->params);
    size_t blen = 0;
    unsigned char *blob = samples_blob(r, &blen);
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
    int i = 1;
    sqlite3_bind_int64(ins, i++, run_id);
    gb_hist_bind_text(ins, i++, name);
    gb_hist_bind_text(ins, i++, c->op);
    gb_hist_bind_text(ins, i++, c->dtype);
    gb_hist_bind_text(ins, i++, c->label);
    gb_hist_bind_text(ins, i++, shape);
    gb_hist_bind_text(ins, i++, params);
    gb_hist_bind_text(ins, i++, r->backend);
    gb_hist_bind_text(ins, i++, r->timing);
    if (r->device.present) sqlite3_bind_int64(ins, i++, r->device.index);
    else sqlite3_bind_null(ins, i++);
    if (r->concurrent.present) sqlite3_bind_int64(ins, i++, r->concurrent.devices);
    else sqlite3_bind_null(ins, i++);
    gb_hist_bind_text(ins, i++, gb_result_status_name(r->status));
    gb_hist_bind_text(ins, i++, r->reason);
    gb_hist_bind_num(ins, i++, r->stats.median);
    gb_hist_bind_num(ins, i++, r->stats.ci95_low);
    gb_hist_bind_num(ins, i++, r->stats.ci95_high);
    sqlite3_bind_int64(ins, i++, (sqlite3_int64)r->nsamples);
    sqlite3_bind_int64(ins, i++, (sqlite3_int64)(r->nrounds ? r->nrounds : r->nsamples > 0));
    gb_hist_bind_num(ins, i++, c->flops);
    gb_hist_bind_num(ins, i++, c->bytes);
    gb_hist_bind_num(ins, i++, r->gflops);
    gb_hist_bind_num(ins, i++, r->gbs);
    gb_hist_bind_num(ins, i++, r->pct_of_peak);
    gb_hist_bind_text(ins, i++, r->peak);
    gb_hist_bind_text(ins, i++, r->verification.present ? gb_verify_status_name(r->verification.status) : NULL);
    gb_hist_bind_num(ins, i++, r->verification.error);
    if (blob && blen) sqlite3_bind_blob(ins, i++, blob, (int)blen, SQLITE_TRANSIENT);
    else sqlite3_bind_null(ins, i++);
    gb_hist_bind_num(ins, i++, energy_of(r));
    int rc = sqlite3_step(ins);
    free(params);
    free(blob);
    if (rc != SQLITE_DONE) return gb_hist_sqlerr(h, e, "adding a result");
    long long rid = sqlite3_last_insert_rowid(gb_history_db(h));
    /* rounds: a file without "rounds" is one round of all its samples */
    size_t nr = r->nrounds ? r->nrounds : (r->nsamples ? 1 : 0), at = 0;
    for (size_t k = 0; k < nr; k++) {
        size_t n = r->nrounds ? r->round_sizes[k] : r->nsamples;
        if (at + n > r->nsamples) break;
        sqlite3_reset(rnd);
        sqlite3_bind_int64(rnd, 1, rid);
        sqlite3_bind_int64(rnd, 2, (sqlite3_int64)k);
        sqlite3_bind_int64(rnd, 3, (sqlite3_int64)n);
        gb_hist_bind_num(rnd, 4, n ? gb_median(r->samples + at, n) : NAN);
        if (sqlite3_step(rnd) != SQLITE_DONE) return gb_hist_sqlerr(h, e, "adding a round");
        at += n;
    }
    return GB_OK;
}

static long long add_run(gb_history *h, const gb_results *r, int run, const char *path, const char *sha,
                         const source_info *si, gb_err *e) {
    long long mid = machine_id(h, r, run, e);
    if (mid < 0) return -1;
    const gb_run *ru = &r->runs[run];
    char added[32];
    now_iso(added, sizeof added);
    sqlite3_stmt *st = NULL;
    long long id = -1;
    char *ctx_build = NULL, *peaks = NULL;
    if (ru->context.json) {
        cJSON *doc = cJSON_Parse(ru->context.json);
        const cJSON *gc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "build"), "git_commit");
        if (cJSON_IsString(gc)) ctx_build = strdup(gc->valuestring);
        cJSON_Delete(doc);
    }
    if (sqlite3_prepare_v2(gb_history_db(h),
                           "INSERT INTO runs (file_sha256, file_run, source_path, added_at, run_date, machine_id, hostname, "
                           "suite, commit_sha, branch, commit_time, build_commit, gpubench_version, complete, interrupted, "
                           "context_json, peaks_json) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)",
                           -1, &st, NULL) == SQLITE_OK) {
        gb_hist_bind_text(st, 1, sha);
        sqlite3_bind_int(st, 2, run);
        gb_hist_bind_text(st, 3, path);
        gb_hist_bind_text(st, 4, added);
        gb_hist_bind_text(st, 5, ru->context.date);
        sqlite3_bind_int64(st, 6, mid);
        gb_hist_bind_text(st, 7, ru->context.hostname);
        gb_hist_bind_text(st, 8, ru->suite_name);
        gb_hist_bind_text(st, 9, si->commit);
        gb_hist_bind_text(st, 10, si->branch);
        gb_hist_bind_text(st, 11, si->commit_time);
        gb_hist_bind_text(st, 12, ctx_build);
        gb_hist_bind_text(st, 13, r->gpubench_version);
        if (r->complete >= 0) sqlite3_bind_int(st, 14, r->complete);
        if (r->interrupted >= 0) sqlite3_bind_int(st, 15, r->interrupted);
        gb_hist_bind_text(st, 16, ru->context.json);
        if (ru->peaks.present) {
            cJSON *pk = gb_peaks_to_cjson(&ru->peaks);
            peaks = pk ? cJSON_PrintUnformatted(pk) : NULL;
            cJSON_Delete(pk);
        }
        gb_hist_bind_text(st, 17, peaks);
        if (sqlite3_step(st) == SQLITE_DONE) id = sqlite3_last_insert_rowid(gb_history_db(h));
    }
    if (id < 0) gb_hist_sqlerr(h, e, "adding the run");
    sqlite3_finalize(st);
    free(ctx_build);
    free(peaks);
    return id;
}

/* The run already holding these bytes, or 0. */
static long long stored_as(gb_history *h, const char *sha) {
    sqlite3_stmt *st = NULL;
    long long id = 0;
    if (sqlite3_prepare_v2(gb_history_db(h), "SELECT min(id) FROM runs WHERE file_sha256 = ?1", -1, &st, NULL) ==
        SQLITE_OK) {
        gb_hist_bind_text(st, 1, sha);
        if (sqlite3_step(st) == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return id;
}

int gb_history_add(gb_history *h, const char *path, const gb_history_source *src, gb_history_progress cb, void *ud,
                   gb_history_added *out, gb_err *e) {
    memset(out, 0, sizeof *out);
    gb_results r; /* loaded before hashed: a file that is plainly not JSON is refused from its first bytes */
    if (gb_results_load(path, &r, e) != GB_OK) return GB_FAIL;
    if (gb_sha256_file(path, out->sha256, e) != GB_OK) {
        gb_results_free(&r);
        return GB_FAIL;
    }
    for (size_t run = 0; run < r.nruns; run++) { /* GPUBENCH_FAULT_SLOW: not the machine's times */
        cJSON *ctx = r.runs[run].context.json ? cJSON_Parse(r.runs[run].context.json) : NULL;
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(ctx, "fault_slow");
        int made_slow = cJSON_IsString(f);
        if (made_slow)
            gb_errf(e, GB_FAIL,
                    "%s: context.fault_slow: made slower on purpose (GPUBENCH_FAULT_SLOW=%.80s), not the machine's "
                    "times; not added",
                    path, f->valuestring);
        cJSON_Delete(ctx);
        if (made_slow) {
            gb_results_free(&r);
            return GB_FAIL;
        }
    }
    source_info si;
    resolve_source(src, &r, &si);
    snprintf(out->commit, sizeof out->commit, "%s", si.commit);
    sqlite3 *db = gb_history_db(h);
    sqlite3_stmt *ins = NULL, *rnd = NULL;
    /* IMMEDIATE: take the write lock now, so the duplicate check and the
     * inserts see one state (another add waits on the busy timeout). */
    int status = gb_hist_exec(h, "BEGIN IMMEDIATE", e);
    if (status != GB_OK) {
        gb_results_free(&r);
        return status;
    }
    long long dup = stored_as(h, out->sha256);
    if (dup > 0) {
        out->duplicate = 1;
        out->run_id = dup;
        goto done;
    }
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO results (run_id, name, op, dtype, label, shape_json, params_json, backend, timing, "
                           "device, concurrent_devices, status, reason, median_s, ci95_low_s, ci95_high_s, n_samples, "
                           "n_rounds, flops, bytes, gflops, gbs, pct_of_peak, peak, verification, verify_error, samples, "
                           "energy_j) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &ins, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO rounds (result_id, round, n, median_s) VALUES (?1, ?2, ?3, ?4)", -1, &rnd,
                           NULL) != SQLITE_OK) {
        status = gb_hist_sqlerr(h, e, "preparing the inserts");
        goto done;
    }
    for (size_t run = 0; run < r.nruns && status == GB_OK; run++) {
        long long rid = add_run(h, &r, (int)run, path, out->sha256, &si, e);
        if (rid < 0) {
            status = GB_FAIL;
            break;
        }
        if (out->run_id == 0) out->run_id = rid;
        out->runs++;
        for (size_t i = 0; i < r.ncases && status == GB_OK; i++) {
            const gb_case_result *c = &r.cases[i];
            if ((size_t)c->run != run) continue;
            for (size_t k = 0; k < c->nresults && status == GB_OK; k++) {
                status = add_result(h, ins, rnd, rid, c, &c->results[k], e);
                if (status == GB_OK) out->results++;
                if (status == GB_OK && cb && cb(ud, out->results) != 0)
                    status = gb_errf(e, GB_FAIL, "%s: stopped after %zu results; nothing added", path, out->results);
            }
        }
    }
done:
    sqlite3_finalize(ins);
    sqlite3_finalize(rnd);
    if (status == GB_OK) status = gb_hist_exec(h, "COMMIT", e);
    if (status != GB_OK) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        out->runs = out->results = 0;
        out->run_id = 0;
    }
    gb_results_free(&r);
    return status;
}
