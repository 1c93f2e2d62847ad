/* fleet_render.c — the fleet document as a terminal table, Markdown, CSV
 * (one line per case and column) or JSON. Every format reads the document
 * gb_fleet_build made, so they cannot disagree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "report_table.h"

int gb_fleet_format_parse(const char *s) {
    static const char *names[] = {"table", "md", "csv", "json"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

/* A member as a string ("" when it is not one) or a number (NAN). */
static const char *s_of(const cJSON *o, const char *k) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return s ? s : "";
}
static double n_of(const cJSON *o, const char *k) { return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k)); }

static const cJSON *arr(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* "1.52 SLOW", "0.71 fast", "1.00 ref", "1.07 ?", "failed", "-" */
static void cell_text(const cJSON *cell, int md, char *buf, size_t len) {
    if (!cJSON_IsObject(cell)) {
        snprintf(buf, len, "-");
        return;
    }
    const char *verdict = s_of(cell, "verdict");
    double rel = n_of(cell, "relative");
    if (!isfinite(rel)) {
        snprintf(buf, len, "%s", s_of(cell, "status"));
        return;
    }
    const char *tag = !strcmp(verdict, "slow")        ? (md ? " **SLOW**" : " SLOW")
                      : !strcmp(verdict, "fast")      ? " fast"
                      : !strcmp(verdict, "reference") ? " ref"
                      : !strcmp(verdict, "unsure")    ? " ?"
                                                      : "";
    snprintf(buf, len, "%.2f%s", rel, tag);
}

static void spread_text(const cJSON *row, char *buf, size_t len) {
    double s = n_of(row, "spread");
    if (isfinite(s)) snprintf(buf, len, "%.1f%%", 100.0 * s);
    else snprintf(buf, len, "-");
}

static void column_line(const cJSON *col, int md, FILE *out) {
    double mrel = n_of(col, "median_relative");
    char rel[32] = "-";
    if (isfinite(mrel)) snprintf(rel, sizeof rel, "%.2f", mrel);
    const cJSON *dev = arr(col, "device");
    char devtxt[300] = "";
    if (cJSON_IsObject(dev) && *s_of(dev, "name"))
        snprintf(devtxt, sizeof devtxt, " (%s%s%s)", s_of(dev, "name"), *s_of(dev, "pci_bus_id") ? ", " : "",
                 s_of(dev, "pci_bus_id"));
    int flagged = cJSON_IsTrue(arr(col, "flagged_slow"));
    fprintf(out, "%s%s%s%s: slow in %.0f of %.0f compared cases, fast in %.0f; median relative time %s",
            md ? "- " : "  ", md ? "`" : "", s_of(col, "name"), md ? "`" : "", n_of(col, "slow"), n_of(col, "compared"),
            n_of(col, "fast"), rel);
    if (n_of(col, "not_measured") > 0) fprintf(out, "; %.0f not measured", n_of(col, "not_measured"));
    fprintf(out, "%s%s\n", devtxt, flagged ? (md ? " — **SLOW**" : "  SLOW") : "");
}

static void render_table(const cJSON *doc, int md, FILE *out) {
    const cJSON *cols = arr(doc, "columns"), *rows = arr(doc, "rows");
    int ncol = cJSON_GetArraySize(cols), nrow = cJSON_GetArraySize(rows);
    const cJSON *m = arr(doc, "method");
    fprintf(out, "%sFleet: %d column%s, %d case%s, timing \"%s\"%s\n\n", md ? "### " : "", ncol, ncol == 1 ? "" : "s",
            nrow, nrow == 1 ? "" : "s", s_of(doc, "timing"), md ? "" : "");
    fprintf(out,
            "Each cell: the case's median time on that column relative to the case's reference column (ref: the\n"
            "column with the median of the medians). SLOW / fast: beyond the %.0f%% threshold and the measured noise\n"
            "(as `gpubench compare` with one run a side: round medians, the between-process noise learnt from all\n"
            "of the column's cases, Holm at alpha %g); ?: not established. spread: slowest / fastest.\n\n",
            100.0 * n_of(m, "threshold"), n_of(m, "alpha"));
    size_t wname = 4;
    const cJSON *row, *col;
    cJSON_ArrayForEach(row, rows) if (strlen(s_of(row, "name")) > wname) wname = strlen(s_of(row, "name"));
    int *w = calloc((size_t)ncol + 1, sizeof *w);
    if (!w) return;
    int i = 0;
    cJSON_ArrayForEach(col, cols) {
        w[i] = (int)strlen(s_of(col, "name"));
        if (w[i] < 9) w[i] = 9;
        i++;
    }
    char buf[64];
    if (md) {
        fprintf(out, "| case |");
        cJSON_ArrayForEach(col, cols) fprintf(out, " %s |", s_of(col, "name"));
        fprintf(out, " spread |\n|---|");
        for (i = 0; i < ncol; i++) fprintf(out, "---:|");
        fprintf(out, "---:|\n");
    } else {
        fprintf(out, "%-*s", (int)wname, "case");
        i = 0;
        cJSON_ArrayForEach(col, cols) fprintf(out, "  %-*s", w[i++], s_of(col, "name"));
        fprintf(out, "  spread\n");
    }
    cJSON_ArrayForEach(row, rows) {
        if (md) fprintf(out, "| %s |", s_of(row, "name"));
        else fprintf(out, "%-*s", (int)wname, s_of(row, "name"));
        const cJSON *cell;
        i = 0;
        cJSON_ArrayForEach(cell, arr(row, "cells")) {
            cell_text(cell, md, buf, sizeof buf);
            if (md) fprintf(out, " %s |", buf);
            else fprintf(out, "  %-*s", w[i], buf);
            i++;
        }
        spread_text(row, buf, sizeof buf);
        if (md) fprintf(out, " %s |\n", buf);
        else fprintf(out, "  %s\n", buf);
    }
    free(w);
    fprintf(out, "\n%sColumns:\n%s", md ? "**" : "", md ? "**\n\n" : "");
    cJSON_ArrayForEach(col, cols) column_line(col, md, out);
    const cJSON *notes = arr(doc, "notes"), *note;
    if (cJSON_GetArraySize(notes) > 0) {
        fprintf(out, "\n%sNotes (nodes that failed, incomplete runs):\n%s", md ? "**" : "", md ? "**\n\n" : "");
        cJSON_ArrayForEach(note, notes) fprintf(out, "%s%s\n", md ? "- " : "  ", note->valuestring);
    }
    /* Cells that could not be compared, with why (a failed or skipped case). */
    int header = 0;
    cJSON_ArrayForEach(row, rows) {
        const cJSON *cell;
        int k = 0;
        cJSON_ArrayForEach(cell, arr(row, "cells")) {
            if (cJSON_IsObject(cell) && !isfinite(n_of(cell, "relative"))) {
                if (!header++) fprintf(out, "\n%sNot compared:\n%s", md ? "**" : "", md ? "**\n\n" : "");
                fprintf(out, "%s%s on %s: %s\n", md ? "- " : "  ", s_of(row, "name"),
                        s_of(cJSON_GetArrayItem(cols, k), "name"), s_of(cell, "reason"));
            }
            k++;
        }
    }
}

static void csv_num(double v, FILE *out) {
    if (isfinite(v)) fprintf(out, "%.6g", v);
}

static void render_csv(const cJSON *doc, FILE *out) {
    fprintf(out, "case,op,dtype,shape,params,backend,timing,column,hostname,device_index,device_uuid,status,median_s,"
                 "relative,verdict,change,ci_low,ci_high,p_value,reason\n");
    const cJSON *cols = arr(doc, "columns"), *row;
    cJSON_ArrayForEach(row, arr(doc, "rows")) {
        const cJSON *cell;
        int k = 0;
        char *shape = cJSON_PrintUnformatted(arr(row, "shape"));
        char *params = arr(row, "params") ? cJSON_PrintUnformatted(arr(row, "params")) : NULL;
        cJSON_ArrayForEach(cell, arr(row, "cells")) {
            const cJSON *col = cJSON_GetArrayItem(cols, k++), *dev = arr(col, "device");
            if (!cJSON_IsObject(cell)) continue;
            const char *fields[] = {s_of(row, "name"), s_of(row, "op"),     s_of(row, "dtype"),    shape ? shape : "",
                                    params ? params : "", s_of(row, "backend"), s_of(row, "timing"), s_of(col, "name"),
                                    s_of(col, "hostname")};
            for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
                gb_csv_field(fields[f], out);
                fputc(',', out);
            }
            if (cJSON_IsObject(dev)) fprintf(out, "%.0f", n_of(dev, "index"));
            fputc(',', out);
            gb_csv_field(cJSON_IsObject(dev) ? s_of(dev, "uuid") : "", out);
            fputc(',', out);
            gb_csv_field(s_of(cell, "status"), out);
            const char *num[] = {"median_s", "relative"};
            for (int f = 0; f < 2; f++) { fputc(',', out); csv_num(n_of(cell, num[f]), out); }
            fputc(',', out);
            gb_csv_field(s_of(cell, "verdict"), out);
            const char *stat[] = {"change", "ci_low", "ci_high", "p_value"};
            for (int f = 0; f < 4; f++) { fputc(',', out); csv_num(n_of(cell, stat[f]), out); }
            fputc(',', out);
            gb_csv_field(s_of(cell, "reason"), out);
            fputc('\n', out);
        }
        free(shape);
        free(params);
    }
}

void gb_fleet_render_doc(const cJSON *fleet, gb_fleet_format f, FILE *out) {
    if (f == GB_FLEET_JSON) {
        char *text = cJSON_Print(fleet);
        if (text) fprintf(out, "%s\n", text);
        free(text);
    } else if (f == GB_FLEET_CSV) {
        render_csv(fleet, out);
    } else {
        render_table(fleet, f == GB_FLEET_MD, out);
    }
}
