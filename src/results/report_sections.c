/* report_sections.c — the report's sections after the per-op tables: the
 * crossover (where along each size sweep the GPU wins), strong scaling over
 * GPUs, and every device at once. Each builds a table (report_table.h) and
 * hands it, with its heading and how to read it, to the format's writer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report_internal.h"

void gb_report_crossover_section(const gb_writer *wr, FILE *out, const gb_results *results, const gb_crossover_entry *xs,
                              size_t nx, const char *ops, int color, int narrow) {
    gb_table t;
    gb_table_init(&t);
    if (narrow) t.wrap = GB_REPORT_COLUMNS; /* the sentences break onto lines of their own */
    int c_op = gb_table_col(&t, "op", GB_ALIGN_LEFT), c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT),
        c_p = gb_table_col(&t, "params", GB_ALIGN_LEFT), c_t = gb_table_col(&t, "timing", GB_ALIGN_LEFT),
        c_s = gb_table_col(&t, "GPU wins at", GB_ALIGN_RIGHT),
        c_h = gb_table_col(&t, "where each side wins", GB_ALIGN_TEXT);
    int geo = 0;
    for (size_t i = 0; i < nx; i++) {
        const gb_crossover_entry *x = &xs[i];
        if (!gb_rdoc_selected(ops, x->op)) continue;
        long r = gb_table_row(&t);
        if (r < 0) break;
        char params[256], timing[64];
        gb_report_params_text(&x->params, " ", NULL, params, sizeof params);
        int is_geo = !strcmp(x->size_measure, "geometric_mean_of_shape");
        geo |= is_geo;
        if (results->merged)
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s (%s)", x->op, gb_results_run_name(results, x->run));
        else
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s", x->op);
        gb_table_set(&t, r, c_dt, GB_CELL_PLAIN, "%s", x->dtype);
        gb_table_set(&t, r, c_p, GB_CELL_PLAIN, "%s", *params ? params : "–");
        /* end_to_end reads "end-to-end" */
        snprintf(timing, sizeof timing, "%s", x->timing);
        for (char *p = timing; *p; p++)
            if (*p == '_') *p = '-';
        if (x->device >= 0) gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s gpu%ld", timing, x->device);
        else gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s", timing);
        /* Green when the GPU wins at every size tested, yellow when at none. */
        char *sizes = gb_crossover_gpu_sizes(x), *text = gb_crossover_text(x);
        int ns = (int)x->sign_changes;
        int gpu_first = !strcmp(x->status, "below_smallest");
        gb_cell_class cls = ns == 0 ? (gpu_first ? GB_CELL_GOOD : GB_CELL_WARN) : GB_CELL_PLAIN;
        gb_table_set(&t, r, c_s, cls, "%s%s", sizes ? sizes : "?", is_geo ? "*" : "");
        gb_table_set(&t, r, c_h, GB_CELL_PLAIN, "%s", text ? text : "?");
        free(sizes);
        free(text);
    }
    wr->heading(out, 2, "Crossover: where the GPU wins", color);
    if (t.nrows == 0) {
        wr->para(out, "No crossover: no case has both a CPU and a GPU time.", 0);
    } else {
        wr->para(out,
             "Cases of one op, dtype and params are ordered by size; the GPU wins a size where its speedup is "
             "above 1×, the CPU elsewhere. \"GPU wins at\" lists the tested sizes the GPU wins; the sentence "
             "names every change of winner along the sweep, each crossing interpolated linearly in log(size) "
             "against log(speedup) between the two tested sizes around it.",
             0);
        wr->table(out, &t, color);
        if (geo)
            wr->para(out,
                 "* size is the geometric mean of the shape's dimensions (the sweep includes non-square shapes); "
                 "n for square ones.",
                 0);
    }
    gb_table_free(&t);
}

/* The strong-scaling table (report.h: gb_scaling_compute), when the
 * document has cases with a "gpus" param. */
int gb_report_scaling_section(const gb_writer *wr, FILE *out, const gb_results *results, const char *ops, int color) {
    gb_scaling_row *rows = NULL;
    size_t n = 0;
    gb_err e = {{0}};
    if (gb_scaling_compute(results, &rows, &n, &e) != GB_OK) return -1;
    gb_table t;
    gb_table_init(&t);
    int c_op = gb_table_col(&t, "op", GB_ALIGN_LEFT), c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT),
        c_sz = gb_table_col(&t, "size", GB_ALIGN_LEFT), c_p = gb_table_col(&t, "params", GB_ALIGN_LEFT),
        c_t = gb_table_col(&t, "timing", GB_ALIGN_LEFT), c_g = gb_table_col(&t, "gpus", GB_ALIGN_RIGHT),
        c_m = gb_table_col(&t, "median ms", GB_ALIGN_RIGHT), c_s = gb_table_col(&t, "speedup", GB_ALIGN_RIGHT),
        c_e = gb_table_col(&t, "efficiency", GB_ALIGN_RIGHT);
    int other_base = 0;
    for (size_t i = 0; i < n; i++) {
        const gb_scaling_row *w = &rows[i];
        if (!gb_rdoc_selected(ops, w->op)) continue;
        long r = gb_table_row(&t);
        if (r < 0) break;
        char buf[64];
        if (results->merged)
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s (%s)", w->op, gb_results_run_name(results, w->run));
        else
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s", w->op);
        gb_table_set(&t, r, c_dt, GB_CELL_PLAIN, "%s", w->dtype);
        gb_table_set(&t, r, c_sz, GB_CELL_PLAIN, "%s", w->label);
        gb_table_set(&t, r, c_p, GB_CELL_PLAIN, "%s", *w->params ? w->params : "–");
        gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s", w->timing);
        gb_table_set(&t, r, c_g, GB_CELL_PLAIN, "%d%s", w->gpus, w->base_gpus != 1 ? "*" : "");
        other_base |= w->base_gpus != 1;
        gb_fmt_sig(buf, sizeof buf, w->median_s * 1e3);
        gb_table_set(&t, r, c_m, GB_CELL_PLAIN, "%s", buf);
        gb_fmt_speedup(buf, sizeof buf, w->speedup);
        gb_table_set(&t, r, c_s, GB_CELL_PLAIN, "%s", buf);
        gb_table_set(&t, r, c_e, w->efficiency >= 0.8 ? GB_CELL_GOOD : w->efficiency < 0.5 ? GB_CELL_WARN : GB_CELL_PLAIN,
                     "%.0f%%", 100 * w->efficiency);
    }
    free(rows);
    if (t.nrows > 0) {
        wr->heading(out, 2, "Strong scaling over GPUs", color);
        wr->para(out,
             "The same problem on more devices (the multi-GPU routines' \"gpus\" param): speedup = the median on "
             "one device / the median on gpus devices; parallel efficiency = speedup / gpus (80% and above green, "
             "below 50% yellow). Compare with the single-GPU op and the CPU in the tables above.",
             0);
        wr->table(out, &t, color);
        if (other_base)
            wr->para(out, "* the series has no gpus = 1 point: speedup and efficiency are over its fewest devices.", 0);
    }
    gb_table_free(&t);
    return 0;
}

/* The same device's result for the same timing, measured alone. */
static const gb_result *alone_of(const gb_case_result *c, const gb_result *x) {
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *r = &c->results[i];
        if (!r->concurrent.present && r->device.present && r->device.index == x->device.index &&
            !strcmp(r->backend, x->backend) && !strcmp(r->timing, x->timing))
            return r;
    }
    return NULL;
}

/* The most devices of one concurrent group the section sums (a file's
 * results are untrusted: a larger group's total is a dash, not a sum). */
#define GB_REPORT_MAX_LANES 64

/* --devices-concurrent: each device's median alone and with every device
 * at once, and the group's aggregate rate. */
void gb_report_concurrent_section(const gb_writer *wr, FILE *out, const gb_results *results, const char *ops, int color) {
    gb_table t;
    gb_table_init(&t);
    int c_op = gb_table_col(&t, "op", GB_ALIGN_LEFT), c_sz = gb_table_col(&t, "size", GB_ALIGN_LEFT),
        c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT), c_t = gb_table_col(&t, "timing", GB_ALIGN_LEFT),
        c_d = gb_table_col(&t, "device", GB_ALIGN_RIGHT), c_a = gb_table_col(&t, "alone ms", GB_ALIGN_RIGHT),
        c_o = gb_table_col(&t, "at once ms", GB_ALIGN_RIGHT), c_s = gb_table_col(&t, "at once / alone", GB_ALIGN_RIGHT),
        c_g = gb_table_col(&t, "aggregate rate", GB_ALIGN_RIGHT);
    /* energy (docs/energy.md): each device's J/op at once, and all devices' together */
    int c_j = -1, c_jt = -1;
    for (size_t i = 0; i < results->ncases && c_j < 0; i++)
        for (size_t j = 0; j < results->cases[i].nresults && c_j < 0; j++)
            if (results->cases[i].results[j].concurrent.present && results->cases[i].results[j].energy.present) {
                c_j = gb_table_col(&t, "J/op", GB_ALIGN_RIGHT);
                c_jt = gb_table_col(&t, "all devices J/op", GB_ALIGN_RIGHT);
            }
    for (size_t i = 0; i < results->ncases; i++) {
        const gb_case_result *c = &results->cases[i];
        if (!gb_rdoc_selected(ops, c->op)) continue;
        for (size_t j = 0; j < c->nresults; j++) {
            const gb_result *x = &c->results[j];
            if (!x->concurrent.present) continue;
            const gb_result *a = alone_of(c, x);
            long r = gb_table_row(&t);
            if (r < 0) break;
            char buf[64];
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s", c->op);
            gb_table_set(&t, r, c_sz, GB_CELL_PLAIN, "%s", c->label);
            gb_table_set(&t, r, c_dt, GB_CELL_PLAIN, "%s", c->dtype);
            gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s", x->timing);
            gb_table_set(&t, r, c_d, GB_CELL_PLAIN, "gpu%ld of %ld", x->device.index, x->concurrent.devices);
            double ma = a && a->status == GB_RS_OK && a->stats.present ? a->stats.median : NAN;
            double mo = x->status == GB_RS_OK && x->stats.present ? x->stats.median : NAN;
            gb_fmt_sig(buf, sizeof buf, ma * 1e3);
            gb_table_set(&t, r, c_a, GB_CELL_PLAIN, "%s", buf);
            if (x->status != GB_RS_OK) gb_table_set(&t, r, c_o, GB_CELL_BAD, "%s", gb_result_status_name(x->status));
            else {
                gb_fmt_sig(buf, sizeof buf, mo * 1e3);
                gb_table_set(&t, r, c_o, GB_CELL_PLAIN, "%s", buf);
            }
            double ratio = mo / ma;
            if (ratio > 0) gb_table_set(&t, r, c_s, ratio > 1.1 ? GB_CELL_WARN : GB_CELL_PLAIN, "%.2f×", ratio);
            else gb_table_set(&t, r, c_s, GB_CELL_PLAIN, "–");
            int bytes = !strcmp(c->rate_kind, "bytes");
            double agg = bytes ? x->concurrent.aggregate_gbs : x->concurrent.aggregate_gflops;
            gb_fmt_sig(buf, sizeof buf, agg);
            gb_table_set(&t, r, c_g, GB_CELL_PLAIN, "%s %s", buf, isnan(agg) ? "" : bytes ? "GB/s" : "GFLOP/s");
            if (c_j >= 0) {
                const gb_result *group[GB_REPORT_MAX_LANES];
                size_t ng = 0, nall = 0;
                for (size_t k = 0; k < c->nresults; k++) {
                    /* the group: this case's results of the same timing at once */
                    const gb_result *y = &c->results[k];
                    if (y->concurrent.present && !strcmp(y->timing, x->timing) && !strcmp(y->backend, x->backend) &&
                        nall++ < GB_REPORT_MAX_LANES)
                        group[ng++] = y;
                }
                gb_report_energy_joules(buf, sizeof buf, &x, 1);
                gb_table_set(&t, r, c_j, GB_CELL_PLAIN, "%s", buf);
                gb_report_energy_joules(buf, sizeof buf, group, nall > ng ? 0 : ng);
                gb_table_set(&t, r, c_jt, GB_CELL_PLAIN, "%s", buf);
            }
        }
    }
    if (t.nrows > 0) {
        wr->heading(out, 2, "All devices at once", color);
        wr->para(out,
             "--devices-concurrent: the same case on every listed device together (a host thread each, every "
             "repetition started behind a barrier). \"at once / alone\" above 1.1× (yellow) is a device slowed by "
             "what it shares with the others: a PCIe switch, host memory, power. The aggregate rate is every "
             "device's work over its own median, summed.",
             0);
        if (c_j >= 0)
            wr->para(out,
                     "J/op: each device's energy per repetition at once, from its own counter; all devices: their "
                     "sum, one concurrent repetition's, within the widest of their bounds (docs/energy.md). A dash: "
                     "not measured, or not within the bounds the tables show.",
                     0);
        wr->table(out, &t, color);
    }
    gb_table_free(&t);
}
