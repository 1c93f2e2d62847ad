/* report_records.c — the report as records, for a writer that writes data
 * rather than a document (CSV, writer.h): one row per case (wide: the
 * table's columns in SI units), one per framework peer result and one per
 * crossover entry, told apart by the first column "record". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report_internal.h"

/* Columns: the case's, then per side (the host's "cpu_*"; the accelerator's
 * per timing, "gpu_device_*") the fields below, the speedups, notes, and the
 * crossover's. */
static const char *const csv_head[] = {"record", "op", "label", "shape", "size", "dtype", "params", "rate_kind",
                                       "rate_unit"};
static const char *const csv_side[] = {"status", "median_s", "ci95_low_s", "ci95_high_s", "rate", "pct_of_peak",
                                       "verification"};
static const char *const csv_tail[] = {"notes", "crossover_timing", "crossover_status", "crossover_size",
                                       "crossover_text"};

enum {
    NHEAD = sizeof csv_head / sizeof csv_head[0], NSIDE = sizeof csv_side / sizeof csv_side[0],
    NTAIL = sizeof csv_tail / sizeof csv_tail[0], NCSV = NHEAD + NSIDES * NSIDE + NACC + NTAIL
};

/* The columns for a document whose accelerator has sn->nacc timings (the
 * host's and each of those); returns how many (at most NCSV). */
static int csv_columns(const side_names *sn, char cols[NCSV][64]) {
    int c = 0;
    for (int i = 0; i < NHEAD; i++) snprintf(cols[c++], 64, "%s", csv_head[i]);
    for (int k = 0; k < 1 + sn->nacc; k++)
        for (int i = 0; i < NSIDE; i++) {
            if (k == SIDE_CPU) snprintf(cols[c++], 64, "cpu_%s", csv_side[i]);
            else snprintf(cols[c++], 64, "gpu_%.24s_%s", sn->name[k], csv_side[i]);
        }
    for (int j = 0; j < sn->nacc; j++) snprintf(cols[c++], 64, "speedup_%.24s", sn->name[SIDE_DEV + j]);
    for (int i = 0; i < NTAIL; i++) snprintf(cols[c++], 64, "%s", csv_tail[i]);
    return c;
}

static void csv_num(char *buf, size_t len, double v) {
    if (isnan(v)) buf[0] = '\0';
    else snprintf(buf, len, "%.6g", v);
}

/* One cell of record row r, column c: the text, or "" (an empty field). */
static void put(gb_table *t, long r, int c, const char *s) { gb_table_set(t, r, c, GB_CELL_PLAIN, "%s", s); }

static void put_num(gb_table *t, long r, int c, double v) {
    char buf[64];
    csv_num(buf, sizeof buf, v);
    put(t, r, c, buf);
}

/* The record's kind and its case's columns (csv_head) in row r; the next column. */
static int case_fields(gb_table *t, long r, const char *record, const row *w) {
    char buf[512];
    int c = 0;
    put(t, r, c++, record);
    put(t, r, c++, w->op);
    put(t, r, c++, w->label);
    gb_case_shape_text(w->c, buf, sizeof buf);
    put(t, r, c++, buf);
    put_num(t, r, c++, w->size > 0 ? w->size : NAN);
    put(t, r, c++, w->dtype);
    put(t, r, c++, w->params);
    put(t, r, c++, w->rate_kind);
    put(t, r, c++, !strcmp(w->rate_kind, "bytes") ? "GB/s" : "GFLOP/s");
    return c;
}

int gb_report_records(const rdoc *d, const gb_crossover_entry *xs, size_t nx, const char *ops, gb_table *t) {
    char cols[NCSV][64], buf[512];
    int ncsv = csv_columns(&d->sn, cols);
    gb_table_init(t);
    for (int i = 0; i < ncsv; i++)
        if (gb_table_col(t, cols[i], GB_ALIGN_LEFT) < 0) return -1;
    int nenergy = gb_report_energy_csv_columns(d->r, t); /* after the crossover's: appended */
    if (nenergy < 0) return -1;
    /* the frameworks' records ("peer"), when there are any: their time in
     * the columns of their side (cpu_* or gpu_device_*), their name and what
     * they leave on the table in two columns of their own, appended */
    int c_peer = -1, c_vs = -1;
    if (gb_report_doc_has_peers(d->r)) {
        c_peer = gb_table_col(t, "peer", GB_ALIGN_LEFT);
        c_vs = gb_table_col(t, "peer_vs_library", GB_ALIGN_LEFT);
        if (c_peer < 0 || c_vs < 0) return -1;
    }
    for (size_t i = 0; i < d->n; i++) {
        const row *w = &d->rows[i];
        long r = gb_table_row(t);
        if (r < 0) return -1;
        int c = case_fields(t, r, "case", w);
        char notes_buf[512] = "";
        for (int k = 0; k < 1 + d->sn.nacc; k++) {
            const side *s = &w->s[k];
            put(t, r, c++, s->status);
            put_num(t, r, c++, s->median);
            put_num(t, r, c++, s->lo);
            put_num(t, r, c++, s->hi);
            put_num(t, r, c++, s->rate);
            put_num(t, r, c++, s->pct);
            put(t, r, c++, s->verif);
            if (s->r && strcmp(s->status, "ok")) {
                char why[400];
                gb_rdoc_why_not_ok(s, why, sizeof why);
                size_t l = strlen(notes_buf);
                snprintf(notes_buf + l, sizeof notes_buf - l, "%s%s %s: %s", l ? "; " : "", s->backend,
                         d->sn.word[k], why);
            }
        }
        for (int j = 0; j < d->sn.nacc; j++) put_num(t, r, c++, w->speedup[j]);
        put(t, r, c++, notes_buf);
        c += NTAIL - 1; /* the crossover's columns: empty on a case */
        if (nenergy > 0) gb_report_energy_csv_cells(t, r, c, w);
    }
    for (size_t i = 0; c_peer >= 0 && i < d->n; i++) {
        const row *w = &d->rows[i];
        peer_view v[16];
        int n = w->device > 0 ? 0 : gb_report_peer_views(d->r, w, v, 16);
        for (int k = 0; k < n; k++) {
            long r = gb_table_row(t);
            if (r < 0) return -1;
            int c = case_fields(t, r, "peer", w);
            const gb_result *x = v[k].r;
            int at = c + (v[k].on_gpu ? NSIDE : 0); /* the cpu_* block, or the gpu_device_* one */
            if (v[k].on_gpu && d->sn.nacc == 0) at = -1; /* a file with no accelerator columns */
            if (at >= 0) {
                put(t, r, at, gb_result_status_name(x->status));
                put_num(t, r, at + 1, v[k].median);
                put_num(t, r, at + 2, x->stats.present && x->stats.n >= 2 ? x->stats.ci95_low : NAN);
                put_num(t, r, at + 3, x->stats.present && x->stats.n >= 2 ? x->stats.ci95_high : NAN);
                put_num(t, r, at + 4, !strcmp(w->rate_kind, "bytes") ? x->gbs : x->gflops);
                put_num(t, r, at + 5, x->pct_of_peak);
                put(t, r, at + 6, x->verification.present ? gb_verify_status_name(x->verification.status) : "");
            }
            put(t, r, ncsv - NTAIL, x->status == GB_RS_OK ? "" : x->reason);
            put(t, r, c_peer, v[k].framework);
            put_num(t, r, c_vs, v[k].vs_library);
        }
    }
    for (size_t i = 0; i < nx; i++) {
        const gb_crossover_entry *x = &xs[i];
        if (!gb_rdoc_selected(ops, x->op)) continue;
        long r = gb_table_row(t);
        if (r < 0) return -1;
        put(t, r, 0, "crossover");
        put(t, r, 1, x->op);
        put(t, r, 5, x->dtype);
        gb_report_params_text(&x->params, " ", NULL, buf, sizeof buf);
        put(t, r, 6, buf);
        if (x->device >= 0) gb_table_set(t, r, ncsv - 4, GB_CELL_PLAIN, "%s gpu%ld", x->timing, x->device);
        else put(t, r, ncsv - 4, x->timing);
        put(t, r, ncsv - 3, x->status);
        put_num(t, r, ncsv - 2, x->size);
        if (!strcmp(x->size_measure, "geometric_mean_of_shape"))
            put(t, r, ncsv - 5, "size is the geometric mean of the shape");
        char *text = gb_crossover_text(x);
        put(t, r, ncsv - 1, text ? text : "?");
        free(text);
    }
    return 0;
}
