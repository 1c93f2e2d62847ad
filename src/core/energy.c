/* energy.c — see energy.h: counter arithmetic on recorded traces. */
#include "energy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gb.h"
#include "stats.h"

double gb_energy_unwrap(double prev_raw, double prev_value, double raw, double range) {
    double d = raw - prev_raw;
    if (d < 0 && range > 0) d += range; /* one wrap since the last read */
    return prev_value + d;
}

int gb_energy_probe_trace(const gb_energy_read *r, size_t n, gb_energy_probe *out, char *why, size_t len) {
    *out = (gb_energy_probe){.period_s = NAN, .step_j = NAN, .power_w = NAN, .poll_s = NAN};
    if (n < 2) {
        snprintf(why, len, "too few reads of the counter (%zu)", n);
        return GB_FAIL;
    }
    double *gaps = malloc((n - 1) * sizeof *gaps), *steps = malloc((n - 1) * sizeof *steps),
           *periods = malloc((n - 1) * sizeof *periods);
    if (!gaps || !steps || !periods) {
        free(gaps), free(steps), free(periods);
        snprintf(why, len, "out of memory");
        return GB_FAIL;
    }
    size_t nchange = 0, nperiod = 0, first = 0, last = 0;
    int status = GB_OK;
    for (size_t i = 1; i < n; i++) {
        gaps[i - 1] = r[i].t - r[i - 1].t;
        if (r[i].j < r[i - 1].j) {
            snprintf(why, len, "counter went backwards at read %zu (%.6g J after %.6g J)", i, r[i].j, r[i - 1].j);
            status = GB_FAIL;
            break;
        }
        if (r[i].j == r[i - 1].j) continue;
        if (nchange > 0) periods[nperiod++] = r[i].t - r[last].t;
        else first = i;
        /* a step is the increment between two changes; the first change's
         * increment covers an unknown time before the trace and still is one step */
        steps[nchange++] = r[i].j - r[i - 1].j;
        last = i;
    }
    if (status == GB_OK) {
        out->changes = nchange;
        out->poll_s = gb_median(gaps, n - 1);
        if (nchange > 0) out->step_j = gb_median(steps, nchange);
        if (nperiod > 0) out->period_s = gb_median(periods, nperiod);
        if (nchange >= 2) {
            out->advancing = 1;
            out->power_w = (r[last].j - r[first].j) / (r[last].t - r[first].t);
        } else {
            snprintf(why, len, "counter does not advance: %zu reads over %.2f s, %s", n, r[n - 1].t - r[0].t,
                     nchange ? "one change" : "no change");
            status = GB_FAIL;
        }
    }
    free(gaps), free(steps), free(periods);
    return status;
}

int gb_energy_window_of(const gb_energy_read *r, size_t n, double period_s, gb_energy_window *w) {
    *w = (gb_energy_window){0};
    if (n < 2) return GB_FAIL;
    w->span_s = r[n - 1].t - r[0].t;
    /* ticks: reads that saw a change, each placed within its gap to the read before */
    size_t a = 0, b = 0;
    double ua = 0, ub = 0;
    for (size_t i = 1; i < n; i++) {
        if (r[i].j == r[i - 1].j) continue;
        double gap = r[i].t - r[i - 1].t;
        if (!a) a = i, ua = gap;
        b = i, ub = gap;
    }
    int tight = a && b > a && isfinite(period_s) && ua < period_s / 2 && ub < period_s / 2;
    if (tight) {
        w->synced = 1;
        w->energy_j = r[b].j - r[a].j;
        w->seconds = r[b].t - r[a].t;
        w->uncertainty_s = ua + ub;
    } else {
        w->energy_j = r[n - 1].j - r[0].j;
        w->seconds = w->span_s;
        w->uncertainty_s = 2 * (isfinite(period_s) ? period_s : w->span_s);
    }
    return w->seconds > 0 ? GB_OK : GB_FAIL;
}

const gb_energy_part *gb_energy_used(const gb_energy_sum *sum) {
    return sum->synced.windows > 0 ? &sum->synced : &sum->ends;
}

void gb_energy_add(gb_energy_sum *sum, const gb_energy_window *w, double reps) {
    gb_energy_part *s = w->synced ? &sum->synced : &sum->ends;
    s->energy_j += w->energy_j;
    s->seconds += w->seconds;
    s->uncertainty_s += w->uncertainty_s;
    s->span_s += w->span_s;
    s->reps += reps;
    s->windows++;
}

int gb_energy_estimate_of(const gb_energy_sum *sum, double resolution_j, double idle_w, gb_energy_estimate *out,
                          char *why, size_t len) {
    const gb_energy_part *s = gb_energy_used(sum);
    *out = (gb_energy_estimate){NAN, NAN, NAN, NAN, NAN, NAN};
    if (s->windows == 0 || s->seconds <= 0 || s->reps <= 0) {
        snprintf(why, len, "no span was measured");
        return GB_FAIL;
    }
    if (!(s->energy_j > 0)) {
        snprintf(why, len, "the counter did not advance over %.3f s of work", s->seconds);
        return GB_FAIL;
    }
    out->power_w = s->energy_j / s->seconds;
    out->j_per_op = out->power_w * s->span_s / s->reps;
    out->bound = s->uncertainty_s / s->seconds + s->windows * (resolution_j > 0 ? resolution_j : 0) / s->energy_j;
    if (isfinite(idle_w)) {
        out->above_idle_w = out->power_w - idle_w;
        out->above_idle_j_per_op = out->above_idle_w * s->span_s / s->reps;
        out->above_idle_bound = out->above_idle_w > 0 ? out->bound * out->power_w / out->above_idle_w : INFINITY;
    }
    return GB_OK;
}

double gb_energy_needed_s(const gb_energy_probe *p, double poll_s, double resolution_j, double power_w, double target) {
    double period = isfinite(p->period_s) && p->period_s > 0 ? p->period_s : 0;
    int synced = period > 0 && poll_s < period / 2;
    double edge = synced ? poll_s : period;   /* each end's uncertainty */
    double p_w = power_w > 0 ? power_w : isfinite(p->power_w) && p->power_w > 0 ? p->power_w : 0;
    double res = p_w > 0 ? resolution_j / p_w : 0;
    double w = (2 * edge + res) / target;
    return synced ? w + 2 * period : w;       /* waiting for the first and the last tick */
}

static const char *const clock_reason_names[GB_CLK_NREASONS] = {
    "gpu_idle", "applications_clocks_setting", "power_cap", "hw_slowdown", "sync_boost",
    "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "display_clock_setting"};

const char *gb_clock_reason_name(int i) { return i >= 0 && i < GB_CLK_NREASONS ? clock_reason_names[i] : "unknown"; }
