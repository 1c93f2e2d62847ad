/* history.h — every run kept in one SQLite file (docs/history.md).
 *
 * A history is an SQLite database (application_id GB_HISTORY_APP_ID, schema
 * version in PRAGMA user_version, migrated forward when opened). Runs are
 * added from results files through the results model (results_model.h),
 * one transaction a file: an interrupted add leaves the database as it was.
 * WAL lets a reader (publish, show) read while an add writes; a busy
 * timeout makes concurrent adds (a CI matrix) wait for each other rather
 * than fail. Every statement binds its values: no SQL is ever built from a
 * file's or a user's text.
 *
 * A file that is not an SQLite database, or one that is not a gpubench
 * history (another application_id, or tables of its own), is refused with
 * the reason and never written. */
#ifndef GB_HISTORY_H
#define GB_HISTORY_H
#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "gb.h"
#include "compare.h"
#include "results_model.h"

/* 'GPBH': what PRAGMA application_id says in every history. */
#define GB_HISTORY_APP_ID 0x47504248
/* The schema this build writes; older ones are migrated forward. */
#define GB_HISTORY_SCHEMA_VERSION 3
#define GB_HISTORY_DEFAULT_PATH "results/history.sqlite"
/* How long a writer waits for another's transaction (milliseconds). */
#define GB_HISTORY_BUSY_MS 60000

typedef struct gb_history gb_history;

/* The path to use: explicit (--db) if not NULL, else $GPUBENCH_HISTORY, else
 * GB_HISTORY_DEFAULT_PATH. */
const char *gb_history_path(const char *explicit_path);

/* Open (creating when the file does not exist or is empty, and create is
 * set) and bring the schema up to date. NULL with the reason in e:
 *   "h.sqlite: not an SQLite database (file is not a database)"
 *   "h.sqlite: an SQLite database, but not a gpubench history (application_id 0x0, 3 tables)"
 *   "h.sqlite: schema version 9 is newer than this gpubench's (2)" */
gb_history *gb_history_open(const char *path, int create, gb_err *e);
void gb_history_close(gb_history *h);
/* The underlying handle (struct sqlite3 *), for queries in this room. */
struct sqlite3 *gb_history_db(gb_history *h);
const char *gb_history_name(const gb_history *h);

/* The SQL of migration step v (v-1 -> v, v = 1..GB_HISTORY_SCHEMA_VERSION);
 * NULL outside. Tests build old databases with it. */
const char *gb_history_migration_sql(int v);

/* ---- adding ------------------------------------------------------------- */

/* Where the code measured came from. NULL fields are looked up: the commit
 * from $GITHUB_SHA, $CI_COMMIT_SHA, the file's context.build.git_commit, or
 * `git rev-parse HEAD` in the working directory; the branch from
 * $GITHUB_HEAD_REF / $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME, or git; the
 * commit time from git (`git show -s --format=%cI`). */
typedef struct {
    const char *commit, *branch, *commit_time;
    int no_git;          /* do not run git (tests) */
} gb_history_source;

/* Called after each result is inserted; a non-zero return rolls the add
 * back (the add then fails with "stopped"). May be NULL. */
typedef int (*gb_history_progress)(void *ud, size_t results_done);

/* What one add did. */
typedef struct {
    int duplicate;          /* the file's bytes are already stored: nothing added */
    long long run_id;       /* the first run added (or the one that holds the duplicate) */
    size_t runs, results;
    char sha256[65];
    char commit[64];
} gb_history_added;

/* Add the results file at path (all its runs: a merged file holds several).
 * GB_OK (also for a duplicate: out->duplicate), or GB_FAIL with the reason;
 * on failure the database is as it was. */
int gb_history_add(gb_history *h, const char *path, const gb_history_source *src, gb_history_progress cb,
                   void *ud, gb_history_added *out, gb_err *e);

/* The machine key of run i of r: what "the same machine" means in a history
 * (CPU model, logical CPUs, GPU name: not the hostname, which a CI runner
 * changes every job). 16 hex digits into key[17]. */
void gb_history_machine_key(const gb_results *r, int run, char key[17]);

/* ---- queries (history_query.c) ------------------------------------------ */

typedef struct {
    const char *machine;     /* substring of hostname, CPU or GPU, or the machine key; NULL: any */
    const char *suite, *branch;
    const char *since, *until; /* ISO dates compared as text (added_at); NULL: open */
    const char *pattern;     /* a case name glob (fnmatch) or substring; NULL: any */
} gb_history_filter;

int gb_history_list(gb_history *h, const gb_history_filter *f, FILE *out, gb_err *e);
/* The trend of every series whose name matches f->pattern. */
int gb_history_show(gb_history *h, const gb_history_filter *f, int color, FILE *out, gb_err *e);
typedef enum { GB_HIST_CSV = 0, GB_HIST_JSON } gb_history_format;
int gb_history_export(gb_history *h, const gb_history_filter *f, gb_history_format fmt, FILE *out, gb_err *e);
/* Keep the newest keep runs of each machine (keep > 0), and/or drop runs
 * added more than older_than_days ago (> 0). *removed: runs deleted. */
int gb_history_prune(gb_history *h, long keep, double older_than_days, long *removed, gb_err *e);

/* ---- one series over time (history_series.c) ---------------------------- */

/* One run's figure for one series. */
typedef struct {
    long long run_id;
    char commit[48], branch[64], commit_time[32];
    char added_at[32];       /* when it was measured (context.date), else when added */
    char host[64];           /* the hostname that measured it */
    double value;            /* mean of the log round medians (the process mean compare uses) */
    double median, lo, hi;   /* seconds: the run's median and its 95% interval */
    double ceiling_s;        /* the time at 100% of the ceiling (median * pct/100); NAN: none */
    double pct;              /* % of ceiling; NAN */
    int verified;            /* 1 passed, 0 failed, -1 not checked */
} gb_history_point;

typedef struct {
    char name[512];
    char machine_key[17], machine[256];
    char hardware[192];      /* the GPU, else the CPU */
    size_t n;
    gb_history_point *p;     /* oldest first (commit time, then the order added) */
} gb_history_series;

typedef struct {
    size_t n;
    gb_history_series *s;
} gb_history_series_set;

/* Every series matching f, per machine. */
int gb_history_series_load(gb_history *h, const gb_history_filter *f, gb_history_series_set *out, gb_err *e);
void gb_history_series_free(gb_history_series_set *s);

/* ---- change points (history_bisect.c) ----------------------------------- */

typedef struct {
    int step;                /* a step was found */
    size_t step_at;          /* the first point after it (index into the series) */
    double step_change;      /* ratio - 1 (0.2 = 20% slower) */
    int drift;               /* a drift was found */
    size_t drift_from;       /* its first slower point */
    double drift_per_point;  /* ratio - 1 per point */
    double drift_total;      /* ratio - 1 from its start to the last point */
    double noise;            /* residual standard deviation (log) */
    /* the step (the drift) lies between runs of one commit: the machine
     * changed, not the code (gb_history_series_changepoint only) */
    int step_same_build, drift_same_build;
} gb_changepoint;

/* Fit a flat series, a step, a drift (flat, then a constant slope) and a
 * step with a drift to the log values x[0..n), pick by BIC and keep only
 * slowdowns (or speedups) beyond threshold (0.05 = 5%). */
void gb_history_changepoint(const double *x, size_t n, double threshold, gb_changepoint *out);
/* The same over a series' figures (value); out all zero on out of memory. */
void gb_history_series_changepoint(const gb_history_series *s, double threshold, gb_changepoint *out);
/* Print each matching series' step or drift; 0 none slower, 1 a slowdown
 * found, GB_FAIL with the reason in e. */
int gb_history_bisect(gb_history *h, const gb_history_filter *f, double threshold, FILE *out, gb_err *e);

/* ---- CI against the trend (history_check.c) ----------------------------- */

/* The most baseline runs: compare's limit of processes a side (GB_MAX_PROCS). */
#define GB_HISTORY_MAX_BASELINE 64

typedef struct {
    size_t baseline_runs;    /* the last N runs of the same machine and case (default 8) */
    gb_compare_options cmp;  /* compare's rule and policy */
    int verbose;             /* compare's --verbose table */
    /* --confirm (cmp.confirm_runs > 0): called after the first judgement
     * with the baseline documents (n of them) and the current one contiguous
     * in docs, to replace *cmp by the judgement with its second stage (the
     * CLI re-measures the suspects: the history cannot run anything). 0, or
     * -1 with e filled. NULL: no second stage. */
    int (*confirm)(gb_compare_result **cmp, const gb_results **docs, const char **names, size_t n,
                   gb_compare_options *o, void *ctx, gb_err *e);
    void *confirm_ctx;
} gb_history_check_options;

/* Judge the results file at cur_path against the history: per result, a
 * baseline of the last baseline_runs runs of the same machine and series
 * (the file itself excluded, by its hash, if it was added already). The
 * baseline is handed to compare as baseline_runs documents (the current
 * file's cases with the stored samples and rounds), so the verdicts are
 * compare's own. Writes compare's report to out through the format writer
 * w (writer.h), or its JSON document when w is NULL — here, while the
 * documents the comparison borrows from are alive — and returns compare's
 * exit code (0, 1 or 2), or -1 with the reason (bad file, no history for
 * this machine, out of memory). */
struct gb_writer;
int gb_history_check(gb_history *h, const char *cur_path, const gb_history_check_options *o,
                     const struct gb_writer *w, FILE *out, gb_err *e);

/* ---- how the gate does on this history (history_calibrate.c) ------------ */

typedef struct {
    size_t baseline_runs;     /* each run is judged against this many others (default 8) */
    gb_compare_options cmp;   /* compare's rule and policy, as check */
    double inject;            /* 0: none; else each long case of each run made this much slower in turn */
    double min_time_s;        /* a long case: its baseline median takes this long or more */
    /* called before each run is judged (done of total) and once at the end
     * (done == total); may be NULL. A run with inject takes ~0.1 s a case. */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
} gb_history_calibrate_options;

/* What `history check` makes of this machine's own runs, measured on the
 * history alone (nothing is run): the last baseline_runs + 1 runs of the
 * machine of the results file at template_path, each judged against the
 * others as check would judge it (the template gives the cases; its own
 * samples are not used). Same-build runs should flag nothing: what they
 * flag is the gate's false alarms on this machine's noise; how many long
 * cases come out "same" says what a green check is worth. With inject, the
 * samples of one long case of one run at a time are scaled by it and the
 * judgement repeated: how often a slowdown of that size is flagged, marked
 * a suspect (what `check --confirm` would re-measure) or missed, per case.
 * Prints a table, or a JSON document (json set). 0, or -1 with the reason
 * (bad file, fewer than 3 runs of this machine, out of memory). */
int gb_history_calibrate(gb_history *h, const char *template_path, const gb_history_calibrate_options *o, int json,
                         FILE *out, gb_err *e);

/* ---- the dashboard (history_publish.c) ---------------------------------- */

int gb_history_publish(gb_history *h, const gb_history_filter *f, const char *dir, double threshold,
                       size_t *pages, gb_err *e);

/* ---- sha256.c ------------------------------------------------------------ */

/* SHA-256 of a file's bytes as 64 hex digits. GB_OK, or GB_FAIL naming path. */
int gb_sha256_file(const char *path, char hex[65], gb_err *e);
void gb_sha256_hex(const void *data, size_t len, char hex[65]);
#endif
