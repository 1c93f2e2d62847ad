/* history_query.c — list, show, export and prune: what a person or a
 * spreadsheet asks of a history. Filters are bound parameters of one fixed
 * WHERE clause (history_filter.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history_internal.h"
#include "report_table.h"

static int prepare(gb_history *h, const char *head, const char *tail, const gb_history_filter *f, sqlite3_stmt **st,
                   gb_err *e) {
    char where[1024], sql[4096];
    gb_hist_filter_sql(f, where, sizeof where);
    snprintf(sql, sizeof sql, "%s WHERE %s %s", head, where, tail);
    if (sqlite3_prepare_v2(gb_history_db(h), sql, -1, st, NULL) != SQLITE_OK) return gb_hist_sqlerr(h, e, "query");
    gb_hist_filter_bind(*st, 1, f);
    return GB_OK;
}

static void short_commit(const char *c, char *buf, size_t len) { snprintf(buf, len, "%.12s", *c ? c : "-"); }

int gb_history_list(gb_history *h, const gb_history_filter *f, FILE *out, gb_err *e) {
    sqlite3_stmt *st = NULL;
    if (prepare(h,
                "SELECT r.id, coalesce(r.run_date, r.added_at), r.hostname, m.gpu_name, m.cpu_model, r.suite, r.commit_sha,"
                " r.branch, (SELECT count(*) FROM results x WHERE x.run_id = r.id), m.key"
                " FROM runs r JOIN machines m ON r.machine_id = m.id",
                "ORDER BY r.id", f, &st, e) != GB_OK)
        return GB_FAIL;
    fprintf(out, "%5s  %-20s  %-16s  %-28s  %-12s  %-12s  %-14s  %s\n", "run", "measured", "machine", "gpu / cpu",
            "suite", "commit", "branch", "results");
    int rc, rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char commit[16];
        short_commit(gb_hist_col_text(st, 6), commit, sizeof commit);
        const char *gpu = gb_hist_col_text(st, 3);
        fprintf(out, "%5lld  %-20.20s  %-16.16s  %-28.28s  %-12.12s  %-12s  %-14.14s  %d\n",
                (long long)sqlite3_column_int64(st, 0), gb_hist_col_text(st, 1), gb_hist_col_text(st, 2),
                *gpu ? gpu : gb_hist_col_text(st, 4), gb_hist_col_text(st, 5), commit, gb_hist_col_text(st, 7),
                sqlite3_column_int(st, 8));
        rows++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return gb_hist_sqlerr(h, e, "listing runs");
    fprintf(out, "%d run%s\n", rows, rows == 1 ? "" : "s");
    return GB_OK;
}

/* ▁▂▃▄▅▆▇█ over the series' medians (low: fast), one character a run. */
static void sparkline(const gb_history_series *s, FILE *out) {
    static const char *const bars[8] = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < s->n; i++) {
        if (s->p[i].median < lo) lo = s->p[i].median;
        if (s->p[i].median > hi) hi = s->p[i].median;
    }
    for (size_t i = 0; i < s->n; i++) {
        int k = hi > lo ? (int)((s->p[i].median - lo) / (hi - lo) * 7.0 + 0.5) : 3;
        fputs(bars[k < 0 ? 0 : k > 7 ? 7 : k], out);
    }
}


int gb_history_show(gb_history *h, const gb_history_filter *f, int color, FILE *out, gb_err *e) {
    gb_history_series_set set;
    if (gb_history_series_load(h, f, &set, e) != GB_OK) return GB_FAIL;
    if (set.n == 0) {
        gb_history_series_free(&set);
        return gb_errf(e, GB_FAIL, "%s: no case matches '%s'", gb_history_name(h), f && f->pattern ? f->pattern : "");
    }
    for (size_t k = 0; k < set.n; k++) {
        const gb_history_series *s = &set.s[k];
        gb_changepoint cp;
        gb_history_series_changepoint(s, GB_DEFAULT_THRESHOLD, &cp);
        fprintf(out, "%s%s%s  @ %s [%s]\n  ", color ? "\033[1m" : "", s->name, color ? "\033[0m" : "", s->machine,
                s->machine_key);
        sparkline(s, out);
        fprintf(out, "  (%zu run%s, oldest first)\n", s->n, s->n == 1 ? "" : "s");
        fprintf(out, "  %5s  %-12s  %-25s  %11s  %-25s  %8s  %8s\n", "run", "commit", "time", "median",
                "95% interval", "vs first", "% ceil");
        for (size_t i = 0; i < s->n; i++) {
            const gb_history_point *p = &s->p[i];
            char med[32], lo[32], hi[32], iv[80], commit[16], pct[16];
            gb_hist_time_text(p->median, med, sizeof med);
            gb_hist_time_text(p->lo, lo, sizeof lo);
            gb_hist_time_text(p->hi, hi, sizeof hi);
            snprintf(iv, sizeof iv, "%s .. %s", lo, hi);
            short_commit(p->commit, commit, sizeof commit);
            if (isfinite(p->pct)) snprintf(pct, sizeof pct, "%.1f", p->pct);
            else snprintf(pct, sizeof pct, "-");
            const char *mark = cp.step && i == cp.step_at
                                   ? (cp.step_same_build ? "  <- step (within one commit's runs: the machine)" : "  <- step")
                               : cp.drift && i == cp.drift_from
                                   ? (cp.drift_same_build ? "  <- drift starts (within one commit's runs: the machine)"
                                                          : "  <- drift starts")
                                   : "";
            fprintf(out, "  %5lld  %-12s  %-25.25s  %11s  %-25s  %+7.1f%%  %8s%s\n", p->run_id, commit,
                    *p->commit_time ? p->commit_time : p->added_at, med, iv,
                    (exp(p->value - s->p[0].value) - 1) * 100, pct, mark);
        }
        fprintf(out, "\n");
    }
    gb_history_series_free(&set);
    return GB_OK;
}

static const char *const EXPORT_COLS[] = {
    "run_id", "added_at", "run_date", "machine_key", "hostname", "cpu_model", "gpu_name", "suite", "commit_sha",
    "branch", "commit_time", "name", "op", "dtype", "label", "shape", "params", "backend", "timing", "device", "status",
    "median_s", "ci95_low_s", "ci95_high_s", "n_samples", "n_rounds", "gflops", "gbs", "pct_of_peak", "verification",
    "energy_j"};
#define NCOLS (sizeof EXPORT_COLS / sizeof *EXPORT_COLS)

int gb_history_export(gb_history *h, const gb_history_filter *f, gb_history_format fmt, FILE *out, gb_err *e) {
    sqlite3_stmt *st = NULL;
    if (prepare(h,
                "SELECT r.id, r.added_at, r.run_date, m.key, r.hostname, m.cpu_model, m.gpu_name, r.suite, r.commit_sha,"
                " r.branch, r.commit_time, x.name, x.op, x.dtype, x.label, x.shape_json, x.params_json, x.backend, x.timing,"
                " x.device, x.status, x.median_s, x.ci95_low_s, x.ci95_high_s, x.n_samples, x.n_rounds, x.gflops, x.gbs,"
                " x.pct_of_peak, x.verification, x.energy_j"
                " FROM results x JOIN runs r ON x.run_id = r.id JOIN machines m ON r.machine_id = m.id",
                "ORDER BY r.id, x.id", f, &st, e) != GB_OK)
        return GB_FAIL;
    cJSON *arr = fmt == GB_HIST_JSON ? cJSON_CreateArray() : NULL;
    if (fmt == GB_HIST_CSV)
        for (size_t i = 0; i < NCOLS; i++) fprintf(out, "%s%s", EXPORT_COLS[i], i + 1 < NCOLS ? "," : "\n");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *pat = f ? f->pattern : NULL;
        if (!gb_name_matches(pat, gb_hist_col_text(st, 11))) continue;
        cJSON *o = arr ? cJSON_CreateObject() : NULL;
        for (size_t i = 0; i < NCOLS; i++) {
            int t = sqlite3_column_type(st, (int)i);
            if (arr) {
                cJSON *v = t == SQLITE_NULL ? cJSON_CreateNull()
                         : t == SQLITE_INTEGER || t == SQLITE_FLOAT ? cJSON_CreateNumber(sqlite3_column_double(st, (int)i))
                         : cJSON_CreateString(gb_hist_col_text(st, (int)i));
                cJSON_AddItemToObject(o, EXPORT_COLS[i], v);
            } else {
                char num[40];
                if (t == SQLITE_FLOAT) snprintf(num, sizeof num, "%.9g", sqlite3_column_double(st, (int)i));
                gb_csv_field(t == SQLITE_FLOAT ? num : gb_hist_col_text(st, (int)i), out);
                fputc(i + 1 < NCOLS ? ',' : '\n', out);
            }
        }
        if (arr) cJSON_AddItemToArray(arr, o);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        cJSON_Delete(arr);
        return gb_hist_sqlerr(h, e, "exporting");
    }
    if (arr) {
        char *text = cJSON_Print(arr);
        cJSON_Delete(arr);
        if (!text) return gb_errf(e, GB_FAIL, "out of memory");
        fprintf(out, "%s\n", text);
        free(text);
    }
    return GB_OK;
}

int gb_history_prune(gb_history *h, long keep, double older_than_days, long *removed, gb_err *e) {
    *removed = 0;
    sqlite3 *db = gb_history_db(h);
    if (gb_hist_exec(h, "BEGIN IMMEDIATE", e) != GB_OK) return GB_FAIL;
    int status = GB_OK;
    if (keep > 0) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db,
                               "DELETE FROM runs WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER"
                               " (PARTITION BY machine_id ORDER BY id DESC) AS rn FROM runs) WHERE rn > ?1)",
                               -1, &st, NULL) != SQLITE_OK)
            status = gb_hist_sqlerr(h, e, "pruning");
        else {
            sqlite3_bind_int64(st, 1, keep);
            if (sqlite3_step(st) != SQLITE_DONE) status = gb_hist_sqlerr(h, e, "pruning");
            else *removed += sqlite3_changes(db);
        }
        sqlite3_finalize(st);
    }
    if (status == GB_OK && older_than_days > 0) {
        char cutoff[32];
        time_t t = time(NULL) - (time_t)(older_than_days * 86400);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(cutoff, sizeof cutoff, "%Y-%m-%dT%H:%M:%SZ", &tm);
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, "DELETE FROM runs WHERE added_at < ?1", -1, &st, NULL) != SQLITE_OK)
            status = gb_hist_sqlerr(h, e, "pruning");
        else {
            gb_hist_bind_text(st, 1, cutoff);
            if (sqlite3_step(st) != SQLITE_DONE) status = gb_hist_sqlerr(h, e, "pruning");
            else *removed += sqlite3_changes(db);
        }
        sqlite3_finalize(st);
    }
    if (status == GB_OK) status = gb_hist_exec(h, "DELETE FROM machines WHERE id NOT IN (SELECT machine_id FROM runs)", e);
    if (status != GB_OK) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        *removed = 0;
        return status;
    }
    if (gb_hist_exec(h, "COMMIT", e) != GB_OK) return GB_FAIL;
    /* give the space back: a CI cache should shrink when it is pruned */
    if (*removed > 0) return gb_hist_exec(h, "VACUUM", e);
    return GB_OK;
}
