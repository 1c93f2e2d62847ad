/* history_check.c — CI against the trend: a new run judged against the
 * last N runs of the same machine, by compare's statistics and policy.
 *
 * compare judges a baseline of several processes against a current one
 * (compare_stats.h): with N processes a side, each case's between-process
 * noise is measured, not assumed. The history holds each past run's samples
 * and rounds; here they become N baseline documents — copies of the
 * current file (so every case matches it exactly) whose results carry the
 * stored samples of the 1st, 2nd, ... Nth most recent run of that result
 * on this machine, and whose context and measured ceilings are that run's
 * own, as its file recorded them (never the current file's: the shift is
 * told apart from the machine by them) — and gb_compare_runs does the rest. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "history_internal.h"
#include "stats.h"

int gb_hist_load_samples(sqlite3_stmt *rs, long long result_id, const void *blob, size_t blen, gb_result *r) {
    if (blen == 0 || blen % 8) return -1;
    size_t n = blen / 8;
    double *x = malloc(n * sizeof *x);
    size_t *rounds = NULL, nr = 0, total = 0;
    if (!x) return -1;
    const unsigned char *b = blob;
    for (size_t i = 0; i < n; i++) {
        uint64_t u = 0;
        for (int k = 0; k < 8; k++) u |= (uint64_t)b[8 * i + k] << (8 * k);
        memcpy(&x[i], &u, 8);
    }
    sqlite3_reset(rs);
    sqlite3_bind_int64(rs, 1, result_id);
    while (sqlite3_step(rs) == SQLITE_ROW) {
        size_t *q = realloc(rounds, (nr + 1) * sizeof *rounds);
        if (!q) break;
        rounds = q;
        rounds[nr] = (size_t)sqlite3_column_int64(rs, 0);
        total += rounds[nr++];
    }
    if (total != n) { /* rounds that do not add up: one round of everything */
        free(rounds);
        rounds = NULL;
        nr = 0;
    }
    free(r->samples);
    free(r->round_sizes);
    r->samples = x;
    r->nsamples = n;
    r->round_sizes = rounds;
    r->nrounds = nr;
    r->has = nr ? r->has | GB_R_HAS_ROUNDS : r->has & ~(unsigned)GB_R_HAS_ROUNDS;
    r->status = GB_RS_OK;
    r->stats.median = gb_median(x, n);
    return 0;
}

void gb_hist_leave_out(gb_result *r) {
    free(r->samples);
    free(r->round_sizes);
    r->samples = NULL;
    r->round_sizes = NULL;
    r->nsamples = r->nrounds = 0;
    r->status = GB_RS_SKIPPED;
    gb_set_string(&r->reason, "no usable run of it on this machine in the history");
}

int gb_hist_run_provenance(gb_history *h, long long run_id, const char *suite_json, gb_run *run, gb_err *e) {
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(gb_history_db(h), "SELECT context_json, peaks_json FROM runs WHERE id = ?1", -1, &q, NULL) !=
        SQLITE_OK)
        return gb_hist_sqlerr(h, e, "reading a run's stored context"), -1;
    sqlite3_bind_int64(q, 1, run_id);
    int rc = 0;
    if (sqlite3_step(q) == SQLITE_ROW) {
        const char *ctx = (const char *)sqlite3_column_text(q, 0), *pk = (const char *)sqlite3_column_text(q, 1);
        cJSON *obj = cJSON_CreateObject();
        if (!obj) rc = -1, gb_errf(e, GB_FAIL, "out of memory");
        if (obj && ctx) cJSON_AddItemToObject(obj, "context", cJSON_Parse(ctx));
        if (obj && pk) cJSON_AddItemToObject(obj, "peaks", cJSON_Parse(pk));
        if (obj && suite_json) cJSON_AddItemToObject(obj, "suite", cJSON_Parse(suite_json));
        char name[96];
        snprintf(name, sizeof name, "%s: run %lld's stored context", gb_history_name(h), run_id);
        if (obj) rc = gb_run_set_provenance(run, obj, name, e) == GB_OK ? 0 : -1;
        cJSON_Delete(obj);
    }
    sqlite3_finalize(q);
    return rc;
}

/* Each baseline document j gets the context and ceilings of the machine's
 * j-th most recent run (the current file's suite kept). */
static int own_provenance(gb_history *h, const char *key, const char *sha, const char *suite_json, gb_results *base,
                          size_t nb, gb_err *e) {
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(gb_history_db(h),
                           "SELECT r.id FROM runs r JOIN machines m ON r.machine_id = m.id"
                           " WHERE m.key = ?1 AND r.file_sha256 IS NOT ?2 ORDER BY r.id DESC LIMIT ?3",
                           -1, &q, NULL) != SQLITE_OK)
        return gb_hist_sqlerr(h, e, "reading the baseline runs"), -1;
    gb_hist_bind_text(q, 1, key);
    gb_hist_bind_text(q, 2, sha);
    sqlite3_bind_int64(q, 3, (sqlite3_int64)nb);
    long long ids[GB_HISTORY_MAX_BASELINE];
    size_t n = 0;
    while (n < nb && n < GB_HISTORY_MAX_BASELINE && sqlite3_step(q) == SQLITE_ROW) ids[n++] = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    for (size_t j = 0; j < n; j++)
        if (gb_hist_run_provenance(h, ids[j], suite_json, &base[j].runs[0], e) != 0) return -1;
    return 0;
}

int gb_history_check(gb_history *h, const char *cur_path, const gb_history_check_options *o,
                     const struct gb_writer *w, FILE *out, gb_err *e) {
    size_t nb = o->baseline_runs ? o->baseline_runs : 8;
    if (nb > GB_HISTORY_MAX_BASELINE) nb = GB_HISTORY_MAX_BASELINE;
    char sha[65];
    if (gb_sha256_file(cur_path, sha, e) != GB_OK) return -1;
    gb_results cur;
    if (gb_results_load(cur_path, &cur, e) != GB_OK) return -1;
    if (cur.nruns != 1) {
        gb_results_free(&cur);
        gb_errf(e, GB_FAIL, "%s: a merged file (%zu runs): check one run's file at a time", cur_path, cur.nruns);
        return -1;
    }
    char key[17];
    gb_history_machine_key(&cur, 0, key);
    gb_results *base = calloc(nb, sizeof *base);
    const gb_results **bp = calloc(nb, sizeof *bp);
    const char **names = calloc(nb, sizeof *names);
    char (*namebuf)[64] = calloc(nb, sizeof *namebuf);
    sqlite3 *db = gb_history_db(h);
    sqlite3_stmt *q = NULL, *rs = NULL;
    int rc = -1;
    size_t loaded = 0, found = 0, deepest = 0;
    if (!base || !bp || !names || !namebuf) {
        gb_errf(e, GB_FAIL, "out of memory");
        goto out;
    }
    for (; loaded < nb; loaded++) {
        if (gb_results_load(cur_path, &base[loaded], e) != GB_OK) goto out;
        snprintf(namebuf[loaded], sizeof namebuf[loaded], "history[-%zu]", loaded + 1);
        names[loaded] = namebuf[loaded];
        bp[loaded] = &base[loaded];
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT x.id, x.samples FROM results x JOIN runs r ON x.run_id = r.id"
                           " JOIN machines m ON r.machine_id = m.id"
                           " WHERE m.key = ?1 AND x.name = ?2 AND x.status = 'ok' AND x.samples IS NOT NULL"
                           " AND r.file_sha256 IS NOT ?3 ORDER BY r.id DESC LIMIT ?4",
                           -1, &q, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, GB_HIST_ROUNDS_SQL, -1, &rs, NULL) != SQLITE_OK) {
        gb_hist_sqlerr(h, e, "reading the baseline");
        goto out;
    }
    for (size_t i = 0; i < cur.ncases; i++) {
        const gb_case_result *c = &cur.cases[i];
        for (size_t k = 0; k < c->nresults; k++) {
            char name[512];
            gb_result_name(c, &c->results[k], NULL, name, sizeof name);
            sqlite3_reset(q);
            gb_hist_bind_text(q, 1, key);
            gb_hist_bind_text(q, 2, name);
            gb_hist_bind_text(q, 3, sha);
            sqlite3_bind_int64(q, 4, (sqlite3_int64)nb);
            size_t j = 0;
            while (j < nb && sqlite3_step(q) == SQLITE_ROW) {
                gb_result *br = &base[j].cases[i].results[k];
                if (gb_hist_load_samples(rs, sqlite3_column_int64(q, 0), sqlite3_column_blob(q, 1),
                                 (size_t)sqlite3_column_bytes(q, 1), br) == 0)
                    j++;
            }
            if (j) found++;
            if (j > deepest) deepest = j;
            for (; j < nb; j++) gb_hist_leave_out(&base[j].cases[i].results[k]);
        }
    }
    if (found && own_provenance(h, key, sha, cur.runs[0].suite_json, base, deepest, e) != 0) goto out;
    if (found == 0) {
        gb_errf(e, GB_FAIL, "%s: no run of this machine (%s, key %s) in the history %s holds any of its results",
                cur_path, cur.runs[0].context.gpu_name[0] ? cur.runs[0].context.gpu_name : cur.runs[0].context.cpu_model,
                key, gb_history_name(h));
        goto out;
    }
    {
        const gb_results *cp = &cur;
        const char *cn = cur_path;
        /* as many baseline processes as the deepest history holds */
        gb_compare_result *cmp = gb_compare_judge_runs(bp, names, deepest, &cp, &cn, 1, &o->cmp);
        if (!cmp) {
            gb_errf(e, GB_FAIL, "out of memory");
            goto out;
        }
        if (o->confirm && o->cmp.confirm_runs > 0) {
            /* the second stage: the baseline documents and the current one, contiguous */
            const gb_results **all = calloc(deepest + 1, sizeof *all);
            const char **alln = calloc(deepest + 1, sizeof *alln);
            gb_compare_options co = o->cmp;
            int bad = !all || !alln;
            for (size_t j = 0; !bad && j < deepest; j++) all[j] = bp[j], alln[j] = names[j];
            if (!bad) all[deepest] = cp, alln[deepest] = cn;
            if (bad) gb_errf(e, GB_FAIL, "out of memory");
            else bad = o->confirm(&cmp, all, alln, deepest, &co, o->confirm_ctx, e) != 0;
            free(all);
            free(alln);
            if (bad) {
                gb_compare_result_free(cmp);
                goto out;
            }
        }
        if (w) gb_compare_render_verbose(cmp, w, out, o->verbose);
        else gb_compare_print_json(cmp, out);
        rc = cmp->exit_code;
        gb_compare_result_free(cmp);
    }
out:
    sqlite3_finalize(q);
    sqlite3_finalize(rs);
    for (size_t j = 0; j < loaded; j++) gb_results_free(&base[j]);
    free(base);
    free(bp);
    free(names);
    free(namebuf);
    gb_results_free(&cur);
    return rc;
}
