/* fleet_render.c — a fleet (fleet.h: gb_fleet_result) through the format
 * writers (writer.h): as a document (the terminal table, Markdown, an HTML
 * page: a heading, the table, the columns' lines, notes) or, to a writer of
 * records (CSV), one line per case and column; or as JSON (fleet_json.c).
 * This file says what is shown, the writers how. Every format reads the same
 * structs gb_fleet_judge filled, so they cannot disagree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_internal.h"
#include "format.h"
#include "writer.h"

/* "1.52 SLOW", "0.71 fast", "1.00 ref", "1.07 ?", "failed", "-" */
static void cell_text(const gb_fleet_cell *cell, char *buf, size_t len) {
    if (!cell->present) {
        snprintf(buf, len, "-");
        return;
    }
    const char *verdict = cell->verdict;
    double rel = gb_json_num(cell->relative);
    if (!isfinite(rel)) {
        snprintf(buf, len, "%s", cell->status);
        return;
    }
    const char *tag = !strcmp(verdict, "slow")        ? " " GB_MK_STRONG "SLOW" GB_MK_STRONG
                      : !strcmp(verdict, "fast")      ? " fast"
                      : !strcmp(verdict, "reference") ? " ref"
                      : !strcmp(verdict, "unsure")    ? " ?"
                                                      : "";
    snprintf(buf, len, "%.2f%s", rel, tag);
}

static void spread_text(const gb_fleet_row *row, char *buf, size_t len) {
    double s = gb_json_num(row->spread);
    if (isfinite(s)) snprintf(buf, len, "%.1f%%", 100.0 * s);
    else snprintf(buf, len, "-");
}

static void verdict_text(const gb_fleet_verdict *v, char *buf, size_t len);

/* A column's line: how many of its cases were slow or fast, its median
 * relative time, its device; NULL out of memory. */
static char *column_text(const gb_fleet_column *col) {
    double mrel = gb_json_num(col->median_relative);
    char rel[32] = "-", nm[64] = "";
    if (isfinite(mrel)) snprintf(rel, sizeof rel, "%.2f", mrel);
    if (col->not_measured > 0) snprintf(nm, sizeof nm, "; %.0f not measured", (double)col->not_measured);
    const gb_device_id *dev = col->device;
    char devtxt[300] = "";
    if (dev && *gb_json_str(dev->name))
        snprintf(devtxt, sizeof devtxt, " (%s%s%s)", dev->name, *gb_json_str(dev->pci_bus_id) ? ", " : "",
                 gb_json_str(dev->pci_bus_id));
    char *s = NULL, over[160];
    verdict_text(&col->verdict, over, sizeof over);
    if (asprintf(&s, GB_MK_CODE "%s" GB_MK_CODE ": %s; slow in %.0f of %.0f compared cases, fast in %.0f; median "
                     "relative time %s%s%s",
                 col->name, over, (double)col->slow, (double)col->compared, (double)col->fast, rel, nm, devtxt) < 0)
        return NULL;
    return s;
}

/* A column's or node's verdict over all its cases: "1.31x the fleet median
 * [1.27, 1.35] over 34 cases -- SLOW". */
static void verdict_text(const gb_fleet_verdict *v, char *buf, size_t len) {
    if (!v->shift.n) {
        snprintf(buf, len, "not judged (nothing else measured its cases)");
        return;
    }
    const char *tag = !strcmp(v->verdict, "slow")     ? GB_MK_DASH GB_MK_STRONG "SLOW" GB_MK_STRONG
                      : !strcmp(v->verdict, "fast")   ? GB_MK_DASH "fast"
                      : !strcmp(v->verdict, "differ") ? GB_MK_DASH "the two differ (which one is slow, two cannot tell)"
                      : !strcmp(v->verdict, "unsure") ? GB_MK_DASH "not established"
                                                      : "";
    snprintf(buf, len, "%.2fx the fleet median [%.2f, %.2f] over %zu case%s%s", v->shift.ratio, v->shift.ratio_lo,
             v->shift.ratio_hi, v->shift.n, v->shift.n == 1 ? "" : "s", tag);
}

/* A node's line: status, verdict, job and attempt, the health NVML saw. */
static char *node_text(const gb_fleet_node *n) {
    char over[160], job[160] = "", health[400] = "";
    verdict_text(&n->verdict, over, sizeof over);
    if (n->job && n->job->present) {
        char task[32] = "";
        if (isfinite(n->job->array_task_id)) snprintf(task, sizeof task, " task %.0f", n->job->array_task_id);
        snprintf(job, sizeof job, "; job %s%s%s%s, attempt %.0f", gb_json_str(n->job->array_job_id ? n->job->array_job_id
                                                                                                : n->job->job_id),
                 task, n->job->partition ? " on " : "", n->job->partition ? n->job->partition : "",
                 isfinite(n->job->attempt) ? n->job->attempt : 1.0);
    }
    gb_fleet_node_health_text(n->health_json, health, sizeof health);
    char *s = NULL;
    int rc = !strcmp(n->status, "no_results")
                 ? asprintf(&s, GB_MK_CODE "%s" GB_MK_CODE " (%s): NOT IN THE TABLE" GB_MK_DASH "%s%s%s", n->name,
                            gb_json_str(n->hostname), n->reason, job, health)
                 : asprintf(&s, GB_MK_CODE "%s" GB_MK_CODE " (%s): %s%s, %zu column%s%s%s%s", n->name,
                            gb_json_str(n->hostname), !strcmp(n->status, "incomplete") ? "incomplete, " : "", over,
                            n->columns, n->columns == 1 ? "" : "s", job, health, "");
    return rc < 0 ? NULL : s;
}

/* A caption after a blank line, then its items (owned; NULL ones left out). */
static void captioned_list(const gb_writer *w, FILE *out, const char *caption, char **items, size_t n) {
    const char *blank = "";
    w->lines(out, GB_LINE_TEXT, &blank, 1);
    w->lines(out, GB_LINE_CAPTION, &caption, 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (items[i]) items[k++] = items[i];
    w->lines(out, GB_LINE_ITEM, (const char *const *)items, (int)k);
    for (size_t i = 0; i < k; i++) free(items[i]);
}

/* The cases' table: a case a row, a column (node, device) a column. */
static void cases_table(const gb_fleet_result *doc, const gb_writer *w, FILE *out) {
    gb_table t;
    gb_table_init(&t);
    t.markup = t.no_rule = t.md_compact = 1;
    gb_table_col(&t, "case", GB_ALIGN_LEFT);
    for (size_t i = 0; i < doc->ncol; i++) {
        int c = gb_table_col(&t, doc->columns[i].name, GB_ALIGN_TAGGED);
        int len = (int)strlen(doc->columns[i].name);
        if (c >= 0) t.width[c] = len < 9 ? 9 : len; /* a wider cell pushes its row on */
    }
    int spread = gb_table_col(&t, "spread", GB_ALIGN_TAGGED);
    char buf[64];
    for (size_t r = 0; r < doc->nrow; r++) {
        const gb_fleet_row *row = &doc->rows[r];
        long l = gb_table_row(&t);
        if (l < 0) break;
        gb_table_set(&t, l, 0, GB_CELL_PLAIN, "%s", row->name);
        for (size_t i = 0; i < doc->ncol; i++) {
            cell_text(&row->cells[i], buf, sizeof buf);
            gb_table_set(&t, l, (int)i + 1, GB_CELL_PLAIN, "%s", buf);
        }
        spread_text(row, buf, sizeof buf);
        gb_table_set(&t, l, spread, GB_CELL_PLAIN, "%s", buf);
    }
    w->table(out, &t, 0);
    gb_table_free(&t);
}

static void render_document(const gb_fleet_result *doc, const gb_writer *w, FILE *out) {
    int ncol = (int)doc->ncol, nrow = (int)doc->nrow;
    char *s = NULL;
    w->begin(out, "gpubench fleet");
    if (asprintf(&s, "Fleet: %d column%s, %d case%s, timing \"%s\"", ncol, ncol == 1 ? "" : "s", nrow,
                 nrow == 1 ? "" : "s", doc->timing) >= 0) {
        w->lines(out, GB_LINE_HEADING, (const char *const *)&s, 1);
        free(s);
    }
    w->gap(out);
    if (asprintf(&s,
                 "Each cell: the case's median time on that column relative to the case's reference column (ref: the\n"
                 "column with the median of the medians). SLOW / fast: beyond the %.0f%% threshold and the measured noise\n"
                 "(as `gpubench compare` with one run a side: round medians, the between-process noise learnt from all\n"
                 "of the column's cases, Holm at alpha %g); ?: not established. spread: slowest / fastest.\n"
                 "A column or node is judged over all its cases: the median of their times relative to each case's\n"
                 "fleet median, with a 95%% interval from the cases; SLOW when the whole interval is beyond the\n"
                 "threshold (one slow case does not make a slow node); in a fleet of two, only that the two differ.",
                 100.0 * doc->rule.threshold, doc->rule.alpha) >= 0) {
        const char *para[2] = {s, ""};
        w->lines(out, GB_LINE_TEXT, para, 2);
        free(s);
    }
    cases_table(doc, w, out);
    w->gap(out);
    char **items = calloc(doc->ncol + doc->notes.n + doc->nrow * doc->ncol + 1, sizeof *items);
    if (!items) return;
    const char *colon = "Columns:";
    w->lines(out, GB_LINE_CAPTION, &colon, 1);
    for (size_t i = 0; i < doc->ncol; i++) items[i] = column_text(&doc->columns[i]);
    size_t k = 0;
    for (size_t i = 0; i < doc->ncol; i++)
        if (items[i]) items[k++] = items[i];
    w->lines(out, GB_LINE_ITEM, (const char *const *)items, (int)k);
    for (size_t i = 0; i < k; i++) free(items[i]);
    /* every node, with or without a column, and its health */
    if (doc->nnode > 0) {
        char **nl = calloc(doc->nnode + 1, sizeof *nl);
        if (nl) {
            for (size_t i = 0; i < doc->nnode; i++) nl[i] = node_text(&doc->nodes[i]);
            captioned_list(w, out, "Nodes (every run of the files, over all its cases):", nl, doc->nnode);
            free(nl);
        }
    }
    /* under a node or GPU judged slow as a whole, its cases beyond the
     * threshold (with each cell's own verdict) */
    for (size_t i = 0; i < doc->ncol; i++) {
        const gb_fleet_column *col = &doc->columns[i];
        if (!col->flagged_slow && strcmp(col->verdict.verdict, "differ")) continue;
        size_t n = 0;
        for (size_t r = 0; r < doc->nrow; r++)
            if (isfinite(doc->rows[r].cells[i].relative) && doc->rows[r].cells[i].relative > 1.0 + doc->rule.threshold &&
                asprintf(&items[n], "%s: %.2f (%s)", doc->rows[r].name, doc->rows[r].cells[i].relative,
                         doc->rows[r].cells[i].verdict) >= 0)
                n++;
        char *cap = NULL;
        if (n && asprintf(&cap, "Slow cases of %s:", col->name) >= 0) {
            captioned_list(w, out, cap, items, n);
            free(cap);
        } else {
            for (size_t j = 0; j < n; j++) free(items[j]);
        }
    }
    if (doc->notes.n > 0) {
        for (size_t i = 0; i < doc->notes.n; i++) items[i] = strdup(doc->notes.item[i]);
        captioned_list(w, out, "Notes (nodes that failed or are not in the table, incomplete runs):", items, doc->notes.n);
    }
    /* Cells that could not be compared, with why (a failed or skipped case). */
    size_t n = 0;
    for (size_t r = 0; r < doc->nrow; r++) {
        const gb_fleet_row *row = &doc->rows[r];
        for (size_t c = 0; c < doc->ncol; c++) {
            const gb_fleet_cell *cell = &row->cells[c];
            if (cell->present && !isfinite(gb_json_num(cell->relative)) &&
                asprintf(&items[n++], "%s on %s: %s", row->name, doc->columns[c].name,
                         cell->has_reason ? cell->reason : "") < 0)
                items[n - 1] = NULL;
        }
    }
    if (n) captioned_list(w, out, "Not compared:", items, n);
    free(items);
    w->end(out);
}

/* A number of a CSV line: empty when there is none. */
static void put_num(gb_table *t, long r, int c, double v) {
    if (isfinite(v)) gb_table_set(t, r, c, GB_CELL_PLAIN, "%.6g", v);
}

static const char *const csv_cols[] = {"case", "op", "dtype", "shape", "params", "backend", "timing", "column",
                                       "hostname", "device_index", "device_uuid", "status", "median_s", "relative",
                                       "verdict", "change", "ci_low", "ci_high", "p_value", "reason"};

/* One line per case and column with a result, through the CSV writer. The
 * fleet's lines have always ended with LF (the report's with CRLF): kept. */
static void render_csv(const gb_fleet_result *doc, const gb_writer *w, FILE *out) {
    gb_table t;
    gb_table_init(&t);
    t.eol = "\n";
    for (size_t i = 0; i < sizeof csv_cols / sizeof *csv_cols; i++) gb_table_col(&t, csv_cols[i], GB_ALIGN_LEFT);
    for (size_t r = 0; r < doc->nrow; r++) {
        const gb_fleet_row *row = &doc->rows[r];
        cJSON *js = gb_case_shape_to_cjson(row->c);
        cJSON *jp = row->c->params.present ? gb_kvlist_to_cjson(&row->c->params) : NULL;
        char *shape = js ? cJSON_PrintUnformatted(js) : NULL;
        char *params = jp ? cJSON_PrintUnformatted(jp) : NULL;
        cJSON_Delete(js);
        cJSON_Delete(jp);
        for (size_t k = 0; k < doc->ncol; k++) {
            const gb_fleet_cell *cell = &row->cells[k];
            const gb_fleet_column *col = &doc->columns[k];
            if (!cell->present) continue;
            long l = gb_table_row(&t);
            if (l < 0) break;
            const char *fields[] = {row->name,    row->c->op, row->c->dtype, shape ? shape : "", params ? params : "",
                                    row->backend, row->timing, col->name,    gb_json_str(col->hostname)};
            int c = 0;
            for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
                gb_table_set(&t, l, c++, GB_CELL_PLAIN, "%s", fields[f]);
            if (col->device) gb_table_set(&t, l, c, GB_CELL_PLAIN, "%.0f", (double)col->device->index);
            c++;
            gb_table_set(&t, l, c++, GB_CELL_PLAIN, "%s", col->device ? gb_json_str(col->device->uuid) : "");
            gb_table_set(&t, l, c++, GB_CELL_PLAIN, "%s", cell->status);
            put_num(&t, l, c++, cell->median_s);
            put_num(&t, l, c++, cell->relative);
            gb_table_set(&t, l, c++, GB_CELL_PLAIN, "%s", cell->verdict);
            const double stat[] = {cell->change, cell->ci_low, cell->ci_high, cell->p_value};
            for (int f = 0; f < 4; f++) put_num(&t, l, c++, cell->judged ? stat[f] : NAN);
            gb_table_set(&t, l, c++, GB_CELL_PLAIN, "%s", cell->has_reason ? cell->reason : "");
        }
        free(shape);
        free(params);
    }
    w->table(out, &t, 0);
    gb_table_free(&t);
}

void gb_fleet_render_result(const gb_fleet_result *fleet, const gb_writer *w, FILE *out) {
    if (w->records) render_csv(fleet, w, out);
    else render_document(fleet, w, out);
}

void gb_fleet_print_json(const gb_fleet_result *fleet, FILE *out) {
    cJSON *doc = gb_fleet_result_json(fleet);
    char *text = doc ? cJSON_Print(doc) : NULL;
    if (text) fprintf(out, "%s\n", text);
    free(text);
    cJSON_Delete(doc);
}
