/* history_internal.h — what the files of the history room share; not an
 * interface for other modules (history.h is). */
#ifndef GB_HISTORY_INTERNAL_H
#define GB_HISTORY_INTERNAL_H
#include <sqlite3.h>

#include "history.h"

/* Fill e with "PATH: what: sqlite's message"; returns GB_FAIL. */
int gb_hist_sqlerr(gb_history *h, gb_err *e, const char *what);
/* Run SQL without parameters (fixed text only: never built from data). */
int gb_hist_exec(gb_history *h, const char *sql, gb_err *e);
/* Bind text, or NULL when s is NULL or empty. */
int gb_hist_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Bind a number, or NULL when it is not finite. */
int gb_hist_bind_num(sqlite3_stmt *st, int i, double v);
/* A column as text, "" when NULL. */
const char *gb_hist_col_text(sqlite3_stmt *st, int i);
/* A column as a number, NAN when NULL. */
double gb_hist_col_num(sqlite3_stmt *st, int i);
/* The WHERE clause text (fixed, with ?-parameters) and its binding for a
 * filter over runs r joined with machines m. */
void gb_hist_filter_sql(const gb_history_filter *f, char *buf, size_t len);
int gb_hist_filter_bind(sqlite3_stmt *st, int first, const gb_history_filter *f);
/* A time in seconds as people read it: "37.1 us", "5.564 ms", "1.2 s"; "-"
 * when not finite. */
void gb_hist_time_text(double s, char *buf, size_t len);

/* A stored result's samples as the results model holds them (history_check.c,
 * shared with history_calibrate.c). rounds: a statement of GB_HIST_ROUNDS_SQL.
 * Replaces r's samples and rounds with those of the stored result result_id
 * (its samples blob given) and marks it ok; 0, or -1 (a bad blob, out of
 * memory: leave the result out then). */
#define GB_HIST_ROUNDS_SQL "SELECT n FROM rounds WHERE result_id = ?1 ORDER BY round"
int gb_hist_load_samples(sqlite3_stmt *rounds, long long result_id, const void *blob, size_t blen, gb_result *r);
/* A result no stored run holds: skipped, with the reason, so compare leaves
 * it out. */
void gb_hist_leave_out(gb_result *r);
/* The stored run run_id's own context and measured ceilings, as its file
 * recorded them (a run stored before ceilings were kept has none), onto run,
 * with suite_json (the template's suite, may be NULL) as its suite: a
 * baseline document made from a template is then that run's, not a copy of
 * the template's. 0, or -1 with e set. */
int gb_hist_run_provenance(gb_history *h, long long run_id, const char *suite_json, gb_run *run, gb_err *e);
#endif
