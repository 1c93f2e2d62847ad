/* fleet_render.c — a fleet (fleet.h: gb_fleet_result) as a terminal table,
 * Markdown, CSV (one line per case and column, through the CSV writer,
 * writer_csv.c) or JSON (fleet_json.c). Every format reads the same structs
 * gb_fleet_judge filled, so they cannot disagree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "format.h"
#include "writer.h"

int gb_fleet_format_parse(const char *s) {
    static const char *names[] = {"table", "md", "csv", "json"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

/* "1.52 SLOW", "0.71 fast", "1.00 ref", "1.07 ?", "failed", "-" */
static void cell_text(const gb_fleet_cell *cell, int md, char *buf, size_t len) {
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
    const char *tag = !strcmp(verdict, "slow")        ? (md ? " **SLOW**" : " SLOW")
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

static void column_line(const gb_fleet_column *col, int md, FILE *out) {
    double mrel = gb_json_num(col->median_relative);
    char rel[32] = "-";
    if (isfinite(mrel)) snprintf(rel, sizeof rel, "%.2f", mrel);
    const gb_device_id *dev = col->device;
    char devtxt[300] = "";
    if (dev && *gb_json_str(dev->name))
        snprintf(devtxt, sizeof devtxt, " (%s%s%s)", dev->name, *gb_json_str(dev->pci_bus_id) ? ", " : "",
                 gb_json_str(dev->pci_bus_id));
    fprintf(out, "%s%s%s%s: slow in %.0f of %.0f compared cases, fast in %.0f; median relative time %s",
            md ? "- " : "  ", md ? "`" : "", col->name, md ? "`" : "", (double)col->slow, (double)col->compared,
            (double)col->fast, rel);
    if (col->not_measured > 0) fprintf(out, "; %.0f not measured", (double)col->not_measured);
    fprintf(out, "%s%s\n", devtxt, col->flagged_slow ? (md ? " — **SLOW**" : "  SLOW") : "");
}

static void render_table(const gb_fleet_result *doc, int md, FILE *out) {
    int ncol = (int)doc->ncol, nrow = (int)doc->nrow;
    fprintf(out, "%sFleet: %d column%s, %d case%s, timing \"%s\"%s\n\n", md ? "### " : "", ncol, ncol == 1 ? "" : "s",
            nrow, nrow == 1 ? "" : "s", doc->timing, md ? "" : "");
    fprintf(out,
            "Each cell: the case's median time on that column relative to the case's reference column (ref: the\n"
            "column with the median of the medians). SLOW / fast: beyond the %.0f%% threshold and the measured noise\n"
            "(as `gpubench compare` with one run a side: round medians, the between-process noise learnt from all\n"
            "of the column's cases, Holm at alpha %g); ?: not established. spread: slowest / fastest.\n\n",
            100.0 * doc->rule.threshold, doc->rule.alpha);
    size_t wname = 4;
    for (size_t r = 0; r < doc->nrow; r++)
        if (strlen(doc->rows[r].name) > wname) wname = strlen(doc->rows[r].name);
    int *w = calloc((size_t)ncol + 1, sizeof *w);
    if (!w) return;
    for (int i = 0; i < ncol; i++) {
        w[i] = (int)strlen(doc->columns[i].name);
        if (w[i] < 9) w[i] = 9;
    }
    char buf[64];
    if (md) {
        fprintf(out, "| case |");
        for (int i = 0; i < ncol; i++) fprintf(out, " %s |", doc->columns[i].name);
        fprintf(out, " spread |\n|---|");
        for (int i = 0; i < ncol; i++) fprintf(out, "---:|");
        fprintf(out, "---:|\n");
    } else {
        fprintf(out, "%-*s", (int)wname, "case");
        for (int i = 0; i < ncol; i++) fprintf(out, "  %-*s", w[i], doc->columns[i].name);
        fprintf(out, "  spread\n");
    }
    for (size_t r = 0; r < doc->nrow; r++) {
        const gb_fleet_row *row = &doc->rows[r];
        if (md) fprintf(out, "| %s |", row->name);
        else fprintf(out, "%-*s", (int)wname, row->name);
        for (int i = 0; i < ncol; i++) {
            cell_text(&row->cells[i], md, buf, sizeof buf);
            if (md) fprintf(out, " %s |", buf);
            else fprintf(out, "  %-*s", w[i], buf);
        }
        spread_text(row, buf, sizeof buf);
        if (md) fprintf(out, " %s |\n", buf);
        else fprintf(out, "  %s\n", buf);
    }
    free(w);
    fprintf(out, "\n%sColumns:\n%s", md ? "**" : "", md ? "**\n\n" : "");
    for (int i = 0; i < ncol; i++) column_line(&doc->columns[i], md, out);
    if (doc->notes.n > 0) {
        fprintf(out, "\n%sNotes (nodes that failed, incomplete runs):\n%s", md ? "**" : "", md ? "**\n\n" : "");
        for (size_t k = 0; k < doc->notes.n; k++) fprintf(out, "%s%s\n", md ? "- " : "  ", doc->notes.item[k]);
    }
    /* Cells that could not be compared, with why (a failed or skipped case). */
    int header = 0;
    for (size_t r = 0; r < doc->nrow; r++) {
        const gb_fleet_row *row = &doc->rows[r];
        for (int k = 0; k < ncol; k++) {
            const gb_fleet_cell *cell = &row->cells[k];
            if (cell->present && !isfinite(gb_json_num(cell->relative))) {
                if (!header++) fprintf(out, "\n%sNot compared:\n%s", md ? "**" : "", md ? "**\n\n" : "");
                fprintf(out, "%s%s on %s: %s\n", md ? "- " : "  ", row->name, doc->columns[k].name,
                        cell->has_reason ? cell->reason : "");
            }
        }
    }
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
static void render_csv(const gb_fleet_result *doc, FILE *out) {
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
    gb_writer_csv.table(out, &t, 0);
    gb_table_free(&t);
}

void gb_fleet_render_result(const gb_fleet_result *fleet, gb_fleet_format f, FILE *out) {
    if (f == GB_FLEET_JSON) {
        cJSON *doc = gb_fleet_result_json(fleet);
        char *text = doc ? cJSON_Print(doc) : NULL;
        if (text) fprintf(out, "%s\n", text);
        free(text);
        cJSON_Delete(doc);
    } else if (f == GB_FLEET_CSV) {
        render_csv(fleet, out);
    } else {
        render_table(fleet, f == GB_FLEET_MD, out);
    }
}
