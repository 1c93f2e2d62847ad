/* history_series.c — one case's figures over time, per machine: what show,
 * bisect and publish draw from.
 *
 * A run's figure is the mean of the log medians of its rounds: the
 * "process mean" compare's statistics use (compare_stats.h), robust to a
 * slow sample and to one odd round. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history_internal.h"

static int grow(void **p, size_t n, size_t size) {
    if (n & (n - 1)) return 0; /* capacity doubles at powers of two */
    void *q = realloc(*p, (n ? 2 * n : 1) * size);
    if (!q) return -1;
    *p = q;
    return 0;
}

int gb_history_series_load(gb_history *h, const gb_history_filter *f, gb_history_series_set *out, gb_err *e) {
    memset(out, 0, sizeof *out);
    char where[1024], sql[4096];
    gb_hist_filter_sql(f, where, sizeof where);
    /* Oldest first: by commit time where it is known, then as added. */
    snprintf(sql, sizeof sql,
             "SELECT x.id, x.name, r.id, r.commit_sha, r.branch, coalesce(r.run_date, r.added_at), r.commit_time, m.key, r.hostname,"
             " m.gpu_name, m.cpu_model, x.median_s, x.ci95_low_s, x.ci95_high_s, x.pct_of_peak, x.verification"
             " FROM results x JOIN runs r ON x.run_id = r.id JOIN machines m ON r.machine_id = m.id"
             " WHERE x.status = 'ok' AND x.median_s > 0 AND %s"
             " ORDER BY x.name, m.key, r.commit_time IS NULL, r.commit_time, r.id",
             where);
    sqlite3 *db = gb_history_db(h);
    sqlite3_stmt *st = NULL, *rs = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT median_s FROM rounds WHERE result_id = ?1 AND median_s > 0", -1, &rs, NULL) !=
            SQLITE_OK) {
        sqlite3_finalize(st);
        return gb_hist_sqlerr(h, e, "reading the series");
    }
    gb_hist_filter_bind(st, 1, f);
    int rc, status = GB_OK;
    gb_history_series *cur = NULL;
    while (status == GB_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = gb_hist_col_text(st, 1), *key = gb_hist_col_text(st, 7);
        if (!gb_name_matches(f ? f->pattern : NULL, name)) continue;
        if (!cur || strcmp(cur->name, name) != 0 || strcmp(cur->machine_key, key) != 0) {
            if (grow((void **)&out->s, out->n, sizeof *out->s) != 0) {
                status = gb_errf(e, GB_FAIL, "out of memory");
                break;
            }
            cur = &out->s[out->n++];
            memset(cur, 0, sizeof *cur);
            snprintf(cur->name, sizeof cur->name, "%s", name);
            snprintf(cur->machine_key, sizeof cur->machine_key, "%s", key);
            const char *gpu = gb_hist_col_text(st, 9);
            snprintf(cur->hardware, sizeof cur->hardware, "%s", *gpu ? gpu : gb_hist_col_text(st, 10));
            snprintf(cur->machine, sizeof cur->machine, "%s (%s)", gb_hist_col_text(st, 8), cur->hardware);
        }
        if (grow((void **)&cur->p, cur->n, sizeof *cur->p) != 0) {
            status = gb_errf(e, GB_FAIL, "out of memory");
            break;
        }
        gb_history_point *p = &cur->p[cur->n++];
        memset(p, 0, sizeof *p);
        p->run_id = sqlite3_column_int64(st, 2);
        snprintf(p->commit, sizeof p->commit, "%s", gb_hist_col_text(st, 3));
        snprintf(p->branch, sizeof p->branch, "%s", gb_hist_col_text(st, 4));
        snprintf(p->added_at, sizeof p->added_at, "%s", gb_hist_col_text(st, 5));
        snprintf(p->commit_time, sizeof p->commit_time, "%s", gb_hist_col_text(st, 6));
        snprintf(p->host, sizeof p->host, "%s", gb_hist_col_text(st, 8));
        p->median = gb_hist_col_num(st, 11);
        p->lo = gb_hist_col_num(st, 12);
        p->hi = gb_hist_col_num(st, 13);
        p->pct = gb_hist_col_num(st, 14);
        p->ceiling_s = isfinite(p->pct) && p->pct > 0 ? p->median * p->pct / 100.0 : NAN;
        const char *v = gb_hist_col_text(st, 15);
        p->verified = strcmp(v, "passed") == 0 ? 1 : strcmp(v, "failed") == 0 ? 0 : -1;
        double sum = 0;
        size_t k = 0;
        sqlite3_reset(rs);
        sqlite3_bind_int64(rs, 1, sqlite3_column_int64(st, 0));
        while (sqlite3_step(rs) == SQLITE_ROW) {
            sum += log(sqlite3_column_double(rs, 0));
            k++;
        }
        p->value = k ? sum / (double)k : log(p->median);
    }
    if (status == GB_OK && rc != SQLITE_DONE) status = gb_hist_sqlerr(h, e, "reading the series");
    sqlite3_finalize(st);
    sqlite3_finalize(rs);
    if (status != GB_OK) gb_history_series_free(out);
    return status;
}

void gb_history_series_free(gb_history_series_set *s) {
    for (size_t i = 0; i < s->n; i++) free(s->s[i].p);
    free(s->s);
    memset(s, 0, sizeof *s);
}
