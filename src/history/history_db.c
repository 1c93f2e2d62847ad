/* history_db.c — opening a history: is the file ours, bring its schema up
 * to date, and the connection settings every command relies on.
 *
 * Nothing is written before the file is known to be a gpubench history (or
 * an empty file / no file, which becomes one): a corrupt file or another
 * application's database is refused untouched. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history.h"
#include "file_read.h"
#include "history_internal.h"

struct gb_history {
    sqlite3 *db;
    char *path;
};

/* The schema, as the steps that built it. Step 1 is the first schema; each
 * later step moves a database of version v-1 to v. A step is never edited
 * once released: a new column is a new step. */
static const char *const MIGRATIONS[GB_HISTORY_SCHEMA_VERSION] = {
    /* 1: machines, runs, results with their samples, rounds */
    "CREATE TABLE machines ("
    "  id INTEGER PRIMARY KEY,"
    "  key TEXT NOT NULL UNIQUE,"          /* gb_history_machine_key */
    "  hostname TEXT, cpu_model TEXT, logical_cpus INTEGER, gpu_name TEXT, gpu_driver TEXT,"
    "  libraries_json TEXT);"
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  file_sha256 TEXT NOT NULL,"
    "  file_run INTEGER NOT NULL DEFAULT 0,"  /* which run of a merged file */
    "  source_path TEXT,"
    "  added_at TEXT NOT NULL,"            /* UTC, ISO 8601 */
    "  run_date TEXT,"                     /* context.date: when it was measured */
    "  machine_id INTEGER NOT NULL REFERENCES machines(id),"
    "  hostname TEXT,"
    "  suite TEXT,"
    "  commit_sha TEXT, branch TEXT, commit_time TEXT,"
    "  build_commit TEXT, gpubench_version TEXT,"
    "  complete INTEGER, interrupted INTEGER,"
    "  context_json TEXT,"
    "  UNIQUE (file_sha256, file_run));"
    "CREATE TABLE results ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"                /* op/dtype/label[/params]/backend/timing[/gpuN] */
    "  op TEXT, dtype TEXT, label TEXT, shape_json TEXT, params_json TEXT,"
    "  backend TEXT, timing TEXT, device INTEGER, concurrent_devices INTEGER,"
    "  status TEXT NOT NULL, reason TEXT,"
    "  median_s REAL, ci95_low_s REAL, ci95_high_s REAL, n_samples INTEGER, n_rounds INTEGER,"
    "  flops REAL, bytes REAL, gflops REAL, gbs REAL, pct_of_peak REAL, peak TEXT,"
    "  verification TEXT, verify_error REAL,"
    "  samples BLOB);"                     /* float64 little-endian seconds, in the order taken */
    "CREATE TABLE rounds ("
    "  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    "  round INTEGER NOT NULL, n INTEGER NOT NULL, median_s REAL,"
    "  PRIMARY KEY (result_id, round)) WITHOUT ROWID;"
    "CREATE INDEX results_by_name ON results(name, run_id);"
    "CREATE INDEX results_by_run ON results(run_id);"
    "CREATE INDEX runs_by_machine ON runs(machine_id, id);",
    /* 2: energy, where a backend measured it (extra.energy_j) */
    "ALTER TABLE results ADD COLUMN energy_j REAL;",
    /* 3: the run's measured ceilings as its file records them, so that a
     * check judges each baseline run's shift by its own ceilings */
    "ALTER TABLE runs ADD COLUMN peaks_json TEXT;",
};

const char *gb_history_migration_sql(int v) {
    return v >= 1 && v <= GB_HISTORY_SCHEMA_VERSION ? MIGRATIONS[v - 1] : NULL;
}

sqlite3 *gb_history_db(gb_history *h) { return h->db; }
const char *gb_history_name(const gb_history *h) { return h->path; }

const char *gb_history_path(const char *explicit_path) {
    if (explicit_path && *explicit_path) return explicit_path;
    const char *env = getenv("GPUBENCH_HISTORY");
    return env && *env ? env : GB_HISTORY_DEFAULT_PATH;
}

int gb_hist_sqlerr(gb_history *h, gb_err *e, const char *what) {
    return gb_errf(e, GB_FAIL, "%s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
}

static long pragma_int(sqlite3 *db, const char *pragma, int *rc) {
    sqlite3_stmt *st = NULL;
    long v = 0;
    *rc = sqlite3_prepare_v2(db, pragma, -1, &st, NULL);
    if (*rc == SQLITE_OK) {
        *rc = sqlite3_step(st);
        if (*rc == SQLITE_ROW) {
            v = (long)sqlite3_column_int64(st, 0);
            *rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return v;
}

int gb_hist_exec(gb_history *h, const char *sql, gb_err *e) {
    char *msg = NULL;
    if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        gb_errf(e, GB_FAIL, "%s: %s", h->path, msg ? msg : sqlite3_errmsg(h->db));
        sqlite3_free(msg);
        return GB_FAIL;
    }
    return GB_OK;
}

/* Create or migrate inside one write transaction: two processes opening a new
 * file at once both see version 0 only if neither has committed, and the
 * second then waits (busy timeout), re-reads and finds it done. */
static int bring_up_to_date(gb_history *h, gb_err *e) {
    if (gb_hist_exec(h, "BEGIN IMMEDIATE", e) != GB_OK) return GB_FAIL;
    int rc;
    long app = pragma_int(h->db, "PRAGMA application_id", &rc);
    long ver = rc == SQLITE_OK ? pragma_int(h->db, "PRAGMA user_version", &rc) : 0;
    long tables = rc == SQLITE_OK ? pragma_int(h->db, "SELECT count(*) FROM sqlite_master", &rc) : 0;
    int status = GB_OK;
    if (rc != SQLITE_OK) status = gb_hist_sqlerr(h, e, "reading the schema");
    else if (app == 0 && tables == 0) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA application_id = %d", GB_HISTORY_APP_ID);
        status = gb_hist_exec(h, sql, e);
        ver = 0;
    } else if (app != GB_HISTORY_APP_ID)
        status = gb_errf(e, GB_FAIL, "%s: an SQLite database, but not a gpubench history (application_id 0x%lx, %ld tables)",
                         h->path, app, tables);
    else if (ver > GB_HISTORY_SCHEMA_VERSION)
        status = gb_errf(e, GB_FAIL, "%s: schema version %ld is newer than this gpubench's (%d): use a newer gpubench",
                         h->path, ver, GB_HISTORY_SCHEMA_VERSION);
    else if (ver < 1 && tables > 0)
        status = gb_errf(e, GB_FAIL, "%s: a gpubench history without a schema version (damaged?)", h->path);
    for (long v = ver + 1; status == GB_OK && v <= GB_HISTORY_SCHEMA_VERSION; v++) {
        char sql[48];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %ld", v);
        status = gb_hist_exec(h, MIGRATIONS[v - 1], e);
        if (status == GB_OK) status = gb_hist_exec(h, sql, e);
    }
    if (status == GB_OK) return gb_hist_exec(h, "COMMIT", e);
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return status;
}

/* SQLite keeps its journal beside the database, named after it: NAME-journal
 * while the history is made, then NAME-wal and NAME-shm. A name that leaves
 * no room for those cannot hold a history: refused before anything is made
 * (a 255-byte name failed with "unable to open database file", leaving an
 * empty file). */
static int name_fits_journal(const char *path, gb_err *e) {
    char copy[PATH_MAX], dcopy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(dcopy, sizeof dcopy, "%s", path);
    const char *base = basename(copy), *dir = dirname(dcopy);
    long max = pathconf(dir, _PC_NAME_MAX);
    if (max <= 0) max = NAME_MAX;
    size_t room = (size_t)max - strlen("-journal");
    if (strlen(base) <= room) return GB_OK;
    return gb_errf(e, GB_FAIL, "%s: a name of %zu bytes: SQLite keeps its journal beside the history as "
                   "NAME-journal, NAME-wal and NAME-shm, which must fit this file system's %ld bytes: at most %zu",
                   path, strlen(base), max, room);
}

/* The journal mode, as this connection sees the file ("wal", "delete", ...). */
static void journal_mode(sqlite3 *db, const char *sql, char *mode, size_t size, int *rc) {
    sqlite3_stmt *st = NULL;
    mode[0] = 0;
    *rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (*rc == SQLITE_OK) {
        *rc = sqlite3_step(st);
        if (*rc == SQLITE_ROW) {
            const unsigned char *text = sqlite3_column_text(st, 0);
            snprintf(mode, size, "%s", text ? (const char *)text : "");
            *rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
}

/* WAL: readers (publish, show) go on while an add writes. Persistent in the
 * file, so once one writer has switched it nothing is left to do. Switching
 * needs the file to itself, and SQLite does not call the busy handler for it
 * (it upgrades a read lock it already holds: waiting there could deadlock):
 * two adds opening a new history at once got "database is locked" at once,
 * about 1 time in 20 with 8 parallel adds under load. So the switch is
 * retried here, within the same budget the busy handler has. */
static int switch_to_wal(gb_history *h, gb_err *e) {
    char mode[16];
    int rc;
    journal_mode(h->db, "PRAGMA journal_mode", mode, sizeof mode, &rc);
    if (rc == SQLITE_OK && strcmp(mode, "wal") != 0) {
        long waited_ms = 0, step_ms = 1;
        for (;;) {
            journal_mode(h->db, "PRAGMA journal_mode = WAL", mode, sizeof mode, &rc);
            if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= GB_HISTORY_BUSY_MS) break;
            usleep((useconds_t)step_ms * 1000);
            waited_ms += step_ms;
            step_ms = step_ms < 64 ? step_ms * 2 : 64;
        }
    }
    /* A file system without WAL (no shared memory) keeps its rollback
     * journal: the history still works, readers then wait for a writer. */
    return rc == SQLITE_OK ? GB_OK : gb_hist_sqlerr(h, e, "switching to the WAL journal");
}

/* "file:PATH?immutable=1", with the characters a URI gives a meaning to
 * (%, ?, #) and any byte outside printable ASCII percent-encoded; 0 when it
 * does not fit. */
static int immutable_uri(const char *path, char *uri, size_t size) {
    static const char suffix[] = "?immutable=1";
    size_t n = (size_t)snprintf(uri, size, "file:");
    const unsigned char *p = (const unsigned char *)path;
    for (; *p && n + 4 < size; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7f) n += (size_t)snprintf(uri + n, size - n, "%%%02X", *p);
        else uri[n++] = (char)*p;
    }
    if (*p || n + sizeof suffix > size) return 0;
    memcpy(uri + n, suffix, sizeof suffix);
    return 1;
}

gb_history *gb_history_open(const char *path, int create, gb_err *e) {
    if (name_fits_journal(path, e) != GB_OK) return NULL;
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && !S_ISREG(sb.st_mode)) { /* SQLite says only "disk I/O error" of a FIFO or a device */
        gb_errf(e, GB_FAIL, "%s: not a regular file: %s", path, gb_file_kind_name(sb.st_mode));
        return NULL;
    }
    if (!exists && !create) {
        gb_errf(e, GB_FAIL, "%s: no history there (add runs with `gpubench history add`)", path);
        return NULL;
    }
    gb_history *h = calloc(1, sizeof *h);
    if (!h || !(h->path = strdup(path))) {
        free(h);
        gb_errf(e, GB_FAIL, "%s: out of memory", path);
        return NULL;
    }
    char uri[PATH_MAX * 3 + 32];
    const char *name = path;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (!create && access(path, W_OK) != 0) {
        /* A file this user may not write (a read-only checkout, another
         * user's history in a shared directory): opened read-only, and with
         * no -wal beside it (no writer between checkpoints) as immutable, so
         * the reader creates no -wal/-shm of its own there, which would lock
         * the owner out of the next add. */
        flags = SQLITE_OPEN_READONLY;
        char wal[PATH_MAX + 8];
        snprintf(wal, sizeof wal, "%s-wal", path);
        if (access(wal, F_OK) != 0 && immutable_uri(path, uri, sizeof uri)) {
            name = uri;
            flags |= SQLITE_OPEN_URI;
        }
    }
    if (sqlite3_open_v2(name, &h->db, flags, NULL) != SQLITE_OK) {
        gb_errf(e, GB_FAIL, "%s: cannot open: %s", path, h->db ? sqlite3_errmsg(h->db) : "out of memory");
        gb_history_close(h);
        return NULL;
    }
    sqlite3_extended_result_codes(h->db, 1);
    sqlite3_busy_timeout(h->db, GB_HISTORY_BUSY_MS);
    /* Read before anything writes: a file that is not a database fails here
     * (SQLITE_NOTADB), with nothing changed. The three reads below are one
     * read transaction, one snapshot: read one by one, another process
     * creating the file could commit between them, and this one would see
     * application_id 0 (before) with its tables (after) and call the new
     * history "not a gpubench history" (seen with 8 parallel adds under
     * load). */
    int rc = sqlite3_exec(h->db, "BEGIN", NULL, NULL, NULL);
    long app = rc == SQLITE_OK ? pragma_int(h->db, "PRAGMA application_id", &rc) : 0;
    if (rc != SQLITE_OK) {
        gb_errf(e, GB_FAIL, "%s: not an SQLite database (%s)", path, sqlite3_errmsg(h->db));
        gb_history_close(h);
        return NULL;
    }
    long tables = pragma_int(h->db, "SELECT count(*) FROM sqlite_master", &rc);
    long ver = rc == SQLITE_OK ? pragma_int(h->db, "PRAGMA user_version", &rc) : 0;
    int read_rc = rc;
    sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
    rc = read_rc;
    if (rc != SQLITE_OK || (app != GB_HISTORY_APP_ID && !(app == 0 && tables == 0))) {
        if (rc != SQLITE_OK) gb_errf(e, GB_FAIL, "%s: not an SQLite database (%s)", path, sqlite3_errmsg(h->db));
        else gb_errf(e, GB_FAIL, "%s: an SQLite database, but not a gpubench history (application_id 0x%lx, %ld tables)",
                     path, app, tables);
        gb_history_close(h);
        return NULL;
    }
    /* A current history is only read here: a reader (list, show, publish)
     * works on a file it may not write (a read-only checkout). */
    int current = rc == SQLITE_OK && app == GB_HISTORY_APP_ID && ver == GB_HISTORY_SCHEMA_VERSION;
    if ((create && switch_to_wal(h, e) != GB_OK) ||
        gb_hist_exec(h, "PRAGMA foreign_keys = ON", e) != GB_OK ||
        gb_hist_exec(h, "PRAGMA synchronous = NORMAL", e) != GB_OK || (!current && bring_up_to_date(h, e) != GB_OK)) {
        gb_history_close(h);
        return NULL;
    }
    return h;
}

void gb_history_close(gb_history *h) {
    if (!h) return;
    sqlite3_close_v2(h->db);
    free(h->path);
    free(h);
}
