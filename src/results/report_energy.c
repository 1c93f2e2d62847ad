/* report_energy.c — energy and clocks in the report (docs/energy.md): the
 * columns of an op's table (the energy ratio next to the speedup, J/op of
 * each side, the GPU's watts and work per joule, its clocks and limits), the
 * sentence saying how to read them, the per-case line's words, and the CSV
 * records' columns. A document without any energy or clocks object gets
 * none of them, so its outputs are what they always were. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "report_internal.h"

static int has_energy(const gb_result *r) { return r && r->energy.present; }
static int has_clocks(const gb_result *r) { return r && r->clocks.present; }

int gb_report_doc_has_energy(const gb_results *r) {
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t j = 0; j < r->cases[i].nresults; j++)
            if (has_energy(&r->cases[i].results[j]) || has_clocks(&r->cases[i].results[j])) return 1;
    return 0;
}

/* A J/op whose bound is past this is not a figure a table should print: a
 * timed span of a few counter updates gave the default run bounds of
 * ±200-1750% (0.0137 J ±1753%). The JSON and the CSV keep it, with its bound. */
#define GB_ENERGY_SHOWN_BOUND 0.5

/* The share of the read span the op itself ran: its median time over the
 * span's time per repetition (J/op / W). Below GB_ENERGY_SHOWN_BUSY the
 * device mostly waited on the host between repetitions, and the J/op is
 * the idle board's, not the op's: on an H200, a 256³ GEMM of 21 µs read
 * 0.0047 J from back-to-back repetitions (busy 72%) and 0.050 J from the
 * timed samples alone (busy 5%), 10x apart, each inside its own bound. */
#define GB_ENERGY_SHOWN_BUSY 0.5

double gb_report_energy_busy(const gb_result *r) {
    if (!has_energy(r) || !r->energy.measured || !(r->energy.power_w > 0) || !(r->energy.j_per_op > 0) ||
        !(r->stats.median > 0))
        return NAN;
    return r->stats.median / (r->energy.j_per_op / r->energy.power_w);
}

static int shown(const gb_result *r) {
    double busy = gb_report_energy_busy(r);
    return has_energy(r) && r->energy.measured && r->energy.bound <= GB_ENERGY_SHOWN_BOUND &&
           !(busy < GB_ENERGY_SHOWN_BUSY);
}

/* "0.52", "0.52 ±9%" when the bound is past 2%, "–" when not measured or
 * past GB_ENERGY_SHOWN_BOUND: the sum of the n results' J/op (several
 * devices at once), within the widest of their bounds, "–" unless each is
 * shown. */
void gb_report_energy_joules(char *buf, size_t len, const gb_result *const *rs, size_t n) {
    double sum = 0, pm = 0;
    for (size_t i = 0; i < n; i++) {
        const gb_result *r = rs[i];
        if (!shown(r)) {
            snprintf(buf, len, "–");
            return;
        }
        sum += r->energy.j_per_op;
        /* the counter's bound and the op's own spread: two runs agree within it */
        double p = r->energy.bound + (isfinite(r->energy.spread) ? r->energy.spread : 0);
        if (p > pm) pm = p;
    }
    if (!n) {
        snprintf(buf, len, "–");
        return;
    }
    gb_fmt_sig(buf, len, sum);
    if (pm > 0.02 + 1e-9) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, " ±%.0f%%", pm * 100);
    }
}

static void fmt_joules(char *buf, size_t len, const gb_result *r) { gb_report_energy_joules(buf, len, &r, 1); }

/* Whether some result of r measured energy or sampled clocks: a run where
 * every counter was missing (a CPU-only run in a VM) gets no columns of
 * dashes and no paragraph on reading them, only the line saying why. */
static int doc_measured_any(const gb_results *r) {
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t j = 0; j < r->cases[i].nresults; j++) {
            const gb_result *x = &r->cases[i].results[j];
            if ((has_energy(x) && x->energy.measured) || has_clocks(x)) return 1;
        }
    return 0;
}

void gb_report_energy_columns(gb_table *t, const rdoc *d, size_t a, size_t b, energy_layout *L) {
    memset(L, -1, sizeof *L);
    int energy = 0, cpu_energy = 0, clocks = 0;
    for (size_t i = a; i < b; i++)
        for (int k = 0; k < NSIDES; k++) {
            const gb_result *x = d->rows[i].s[k].r;
            energy |= has_energy(x) && x->energy.measured;
            cpu_energy |= k == SIDE_CPU && has_energy(x) && x->energy.measured;
            clocks |= has_clocks(x);
        }
    /* the ratio only where some row has one (both sides measured): a run
     * whose CPU has no counter gets no column of dashes */
    int ratio = 0;
    for (size_t i = a; i < b && !ratio; i++) {
        const gb_result *cpu = d->rows[i].s[SIDE_CPU].r, *gpu = d->rows[i].s[SIDE_DEV].r;
        ratio = shown(cpu) && shown(gpu);
    }
    if (energy) {
        if (ratio) L->ratio = gb_table_col(t, d->narrow ? "×J" : "energy ratio", GB_ALIGN_RIGHT);
        if (cpu_energy) L->j[0] = gb_table_col(t, "CPU J/op", GB_ALIGN_RIGHT); /* a VM's CPU: the line says why */
        if (d->gpu_cols) {
            L->j[1] = gb_table_col(t, "GPU J/op", GB_ALIGN_RIGHT);
            L->watts = gb_table_col(t, "GPU W", GB_ALIGN_RIGHT);
            const char *unit = !strcmp(d->rows[a].rate_kind, "bytes") ? "GPU GB/J" : "GPU GFLOP/J";
            L->per_j = gb_table_col(t, unit, GB_ALIGN_RIGHT);
        }
    }
    if (clocks && d->gpu_cols) L->clocks = gb_table_col(t, "GPU clocks", GB_ALIGN_LEFT);
}

void gb_report_energy_cells(gb_table *t, long r, const row *w, const energy_layout *L) {
    char buf[GB_CELL_LEN];
    const gb_result *cpu = w->s[SIDE_CPU].r, *gpu = w->s[SIDE_DEV].r;
    if (L->ratio >= 0) {
        double ratio = gpu && has_energy(gpu) ? gpu->energy.energy_ratio : NAN;
        if (isnan(ratio)) ratio = gb_result_energy_ratio(cpu, gpu);
        if (!shown(cpu) || !shown(gpu)) ratio = NAN;
        gb_fmt_speedup(buf, sizeof buf, ratio);
        gb_table_set(t, r, L->ratio, gb_rdoc_speedup_class(ratio), "%s", buf);
    }
    for (int j = 0; j < 2; j++) {
        if (L->j[j] < 0) continue;
        fmt_joules(buf, sizeof buf, j ? gpu : cpu);
        gb_table_set(t, r, L->j[j], GB_CELL_PLAIN, "%s", buf);
    }
    int ok = shown(gpu);
    if (L->watts >= 0) {
        gb_fmt_sig(buf, sizeof buf, ok ? gpu->energy.power_w : NAN);
        gb_table_set(t, r, L->watts, GB_CELL_PLAIN, "%s", buf);
    }
    if (L->per_j >= 0) {
        gb_fmt_sig(buf, sizeof buf, !ok ? NAN : !strcmp(w->rate_kind, "bytes") ? gpu->energy.gb_per_j
                                                                                 : gpu->energy.gflop_per_j);
        gb_table_set(t, r, L->per_j, GB_CELL_PLAIN, "%s", buf);
    }
    if (L->clocks >= 0) {
        if (!has_clocks(gpu) || isnan(gpu->clocks.sm_mhz)) {
            gb_table_set(t, r, L->clocks, GB_CELL_PLAIN, "–");
            return;
        }
        const gb_result_clocks *c = &gpu->clocks;
        int limited = c->power_limited == 1 || c->thermal_limited == 1;
        gb_table_set(t, r, L->clocks, limited ? GB_CELL_WARN : GB_CELL_PLAIN, "%.0f MHz%s%s", c->sm_mhz,
                     c->power_limited == 1 ? " power-capped" : "", c->thermal_limited == 1 ? " thermal" : "");
    }
}

void gb_report_energy_note(const gb_writer *wr, FILE *out, const gb_results *r) {
    if (!gb_report_doc_has_energy(r)) return;
    if (doc_measured_any(r))
        wr->para(out,
             "Energy: J/op is the energy the whole boundary of each counter used per repetition, idle power "
             "included (the GPU board by NVML; the CPU packages and DRAM by RAPL), from the GPU's device timing "
             "and the CPU's host timing; \"±N%\" is its error bound past 2%: the counter's, plus the spread of the "
             "op's own time over the same repetitions. Energy "
             "ratio = CPU J/op / GPU J/op: above 1× the GPU spends less energy per operation. GPU W is the mean "
             "power while it ran; GFLOP/J or GB/J the work per joule. \"–\": not measured (the JSON says why: a "
             "CPU in a VM usually has no RAPL), or its bound is past ±50% (a timed span of a few counter "
             "updates), or the op ran less than half of the span it was read over (launch-bound: the figure "
             "would be the idle board's); the JSON and the CSV keep the figure with its bound. GPU clocks: the mean SM clock during the timed repetitions, "
             "\"power-capped\" or \"thermal\" when the device held its clocks back. The JSON also has the "
             "above-idle figures (docs/energy.md).",
             0);
    /* why each backend's energy was not measured, once per distinct reason:
     * only beside energy that was measured (a CPU-only run in a VM said "cpu
     * energy not measured" under every table; the JSON keeps why) */
    if (!doc_measured_any(r)) return;
    char seen[3][GB_MSG_LEN + 96];
    int n = 0;
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t j = 0; j < r->cases[i].nresults; j++) {
            const gb_result *x = &r->cases[i].results[j];
            if (!has_energy(x) || x->energy.measured || !*x->energy.reason || n == 3) continue;
            char line[GB_MSG_LEN + 96];
            snprintf(line, sizeof line, "%s energy not measured: %s.", x->backend, x->energy.reason);
            int dup = 0;
            for (int k = 0; k < n && !dup; k++) dup = !strncmp(seen[k], line, sizeof seen[k] - 1);
            if (dup) continue;
            snprintf(seen[n++], sizeof seen[0], "%s", line);
            wr->para(out, line, 0);
        }
}

/* " gpu 0.52 J/op power-capped": what the runner's line adds for a case. */
void gb_report_energy_line(const row *w, char *buf, size_t len) {
    buf[0] = '\0';
    size_t off = 0;
    const char *who[2] = {"cpu", "gpu"};
    for (int j = 0; j < 2; j++) {
        const gb_result *r = w->s[j ? SIDE_DEV : SIDE_CPU].r;
        if (!shown(r) || off >= len) continue;
        char v[GB_CELL_LEN];
        fmt_joules(v, sizeof v, r);
        off += (size_t)snprintf(buf + off, len - off, "  %s %s J/op", who[j], v);
    }
    const gb_result *g = w->s[SIDE_DEV].r;
    if (has_clocks(g) && off < len && (g->clocks.power_limited == 1 || g->clocks.thermal_limited == 1))
        snprintf(buf + off, len - off, "  %s", g->clocks.power_limited == 1 ? "power-capped" : "thermally limited");
}

/* ---- the CSV records -------------------------------------------------------- */

static const char *const csv_energy[] = {"cpu_energy_status", "cpu_j_per_op",       "cpu_power_w",
                                         "gpu_energy_status", "gpu_j_per_op",       "gpu_above_idle_j_per_op",
                                         "gpu_power_w",       "gpu_idle_w",         "gpu_energy_bound",
                                         "gpu_gflop_per_j",   "gpu_gb_per_j",       "energy_ratio",
                                         "gpu_sm_mhz",        "gpu_mem_mhz",        "gpu_clock_limits"};
#define NCSV_ENERGY (int)(sizeof csv_energy / sizeof csv_energy[0])

int gb_report_energy_csv_columns(const gb_results *r, gb_table *t) {
    if (!gb_report_doc_has_energy(r)) return 0;
    for (int i = 0; i < NCSV_ENERGY; i++)
        if (gb_table_col(t, csv_energy[i], GB_ALIGN_LEFT) < 0) return -1;
    return NCSV_ENERGY;
}

static void cell_num(gb_table *t, long r, int c, double v) {
    if (isnan(v)) gb_table_set(t, r, c, GB_CELL_PLAIN, "%s", "");
    else gb_table_set(t, r, c, GB_CELL_PLAIN, "%.6g", v);
}

static const char *status_of(const gb_result *r) {
    return !has_energy(r) ? "" : r->energy.measured ? "measured" : "not_measured";
}

void gb_report_energy_csv_cells(gb_table *t, long r, int c, const row *w) {
    const gb_result *cpu = w->s[SIDE_CPU].r, *gpu = w->s[SIDE_DEV].r;
    int cm = has_energy(cpu) && cpu->energy.measured, gm = has_energy(gpu) && gpu->energy.measured;
    gb_table_set(t, r, c++, GB_CELL_PLAIN, "%s", status_of(cpu));
    cell_num(t, r, c++, cm ? cpu->energy.j_per_op : NAN);
    cell_num(t, r, c++, cm ? cpu->energy.power_w : NAN);
    gb_table_set(t, r, c++, GB_CELL_PLAIN, "%s", status_of(gpu));
    const double v[] = {gm ? gpu->energy.j_per_op : NAN, gm ? gpu->energy.above_idle_j_per_op : NAN,
                        gm ? gpu->energy.power_w : NAN,  gm ? gpu->energy.idle_w : NAN,
                        gm ? gpu->energy.bound : NAN,    gm ? gpu->energy.gflop_per_j : NAN,
                        gm ? gpu->energy.gb_per_j : NAN, gb_result_energy_ratio(cpu, gpu)};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) cell_num(t, r, c++, v[i]);
    int clk = has_clocks(gpu);
    cell_num(t, r, c++, clk ? gpu->clocks.sm_mhz : NAN);
    cell_num(t, r, c++, clk ? gpu->clocks.mem_mhz : NAN);
    gb_table_set(t, r, c, GB_CELL_PLAIN, "%s",
                 !clk ? "" : gpu->clocks.power_limited == 1 && gpu->clocks.thermal_limited == 1 ? "power thermal"
                             : gpu->clocks.power_limited == 1                                 ? "power"
                             : gpu->clocks.thermal_limited == 1                               ? "thermal"
                                                                                               : "none");
}
