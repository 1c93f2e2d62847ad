/* history_filter.c — what list, show, export (history_query.c) and the
 * series (history_series.c) share: the filter's WHERE clause and its bound
 * parameters, a time as text (a case pattern is core's gb_name_matches). Apart
 * from both, so that the query, which loads series, and the series do not
 * depend on each other. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "history_internal.h"

void gb_hist_time_text(double s, char *buf, size_t len) {
    if (!isfinite(s)) snprintf(buf, len, "-");
    else if (s < 1e-3) snprintf(buf, len, "%.3g us", s * 1e6);
    else if (s < 1) snprintf(buf, len, "%.4g ms", s * 1e3);
    else snprintf(buf, len, "%.4g s", s);
}

/* Runs r joined with machines m; parameters ?1..?5 (gb_hist_filter_bind).
 * "until" takes a prefix ("2026-11-30" includes that whole day). */
void gb_hist_filter_sql(const gb_history_filter *f, char *buf, size_t len) {
    (void)f;
    snprintf(buf, len,
             " (?1 IS NULL OR m.key = ?1 OR instr(m.hostname, ?1) > 0 OR instr(m.cpu_model, ?1) > 0"
             "  OR instr(m.gpu_name, ?1) > 0)"
             " AND (?2 IS NULL OR r.suite = ?2) AND (?3 IS NULL OR r.branch = ?3)"
             " AND (?4 IS NULL OR coalesce(r.run_date, r.added_at) >= ?4)"
             " AND (?5 IS NULL OR substr(coalesce(r.run_date, r.added_at), 1, length(?5)) <= ?5)");
}

int gb_hist_filter_bind(sqlite3_stmt *st, int first, const gb_history_filter *f) {
    static const gb_history_filter none;
    if (!f) f = &none;
    gb_hist_bind_text(st, first, f->machine);
    gb_hist_bind_text(st, first + 1, f->suite);
    gb_hist_bind_text(st, first + 2, f->branch);
    gb_hist_bind_text(st, first + 3, f->since);
    gb_hist_bind_text(st, first + 4, f->until);
    return SQLITE_OK;
}
