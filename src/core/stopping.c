/* stopping.c — see stopping.h. */
#include "stopping.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "timer.h"

static double host_now(void *ctx) {
    (void)ctx;
    return gb_now();
}
const gb_clock gb_host_clock = {host_now, NULL};

void gb_samples_free(gb_samples *s) {
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int push_sample(gb_samples *s, double v) {
    if (s->n == s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 64;
        double *n = realloc(s->v, ncap * sizeof *n);
        if (!n) return GB_FAIL;
        s->v = n;
        s->cap = ncap;
    }
    s->v[s->n++] = v;
    return GB_OK;
}

gb_budget gb_round_budget(const gb_budget *b, int rounds, int round) {
    gb_budget r = *b;
    r.min_reps = b->min_reps / rounds + (round < b->min_reps % rounds ? 1 : 0);
    if (r.min_reps < 1) r.min_reps = 1;
    r.max_reps = b->max_reps / rounds; /* rounded down: the total stays within max_reps */
    if (r.max_reps < r.min_reps) r.max_reps = r.min_reps;
    r.min_time_s = b->min_time_s / rounds;
    return r;
}

/* A first repetition within GB_WARMUP_STABLE of its visit's median. */
static int at_speed(double first_rep, double median) {
    return first_rep > 0 && median > 0 && first_rep <= (1 + GB_WARMUP_STABLE) * median;
}

static int stable(double a, double b) {
    double hi = a > b ? a : b, lo = a > b ? b : a;
    return hi > 0 && (hi - lo) <= GB_WARMUP_STABLE * hi;
}

/* Does the warm-up's last repetition (last) count as a sample, now that the
 * first timed one lasted first_timed? (stopping.h, step 2) */
static int adoptable(gb_visit visit, int warmed, double last, double first_timed) {
    if (visit == GB_VISIT_FIRST_OF_KIND || warmed == 0 || last < GB_ADOPT_MIN_S) return 0;
    double hi = fmax(last, first_timed);
    return fabs(last - first_timed) <= GB_ADOPT_WITHIN * hi;
}

/* Is the warm-up over after w repetitions, the last two lasting last and
 * prev, spent seconds in all? (stopping.h, step 1) */
static int warmup_done(const gb_budget *b, gb_visit visit, const gb_samples *s, int w, double last, double prev,
                       double spent) {
    if (b->warmup == 0 && b->min_warmup_s <= 0) return 1;
    if (visit == GB_VISIT_AGAIN && s->first_rep_at_speed) return 1;
    if (visit == GB_VISIT_KEPT && (s->first_rep_at_speed || s->kept_rep_at_speed))
        return s->first_rep_s >= GB_KEPT_CACHE_S || w >= 1; /* caches refilled by one pass */
    if (w == 0) return 0;
    if (b->min_warmup_s > 0 && last >= b->min_warmup_s) return 1; /* one long repetition is enough */
    if (visit == GB_VISIT_FIRST_OF_KIND) return w >= b->warmup && spent >= b->min_warmup_s;
    if (w < b->warmup) return 0;
    return spent >= b->min_warmup_s || w < 2 || stable(last, prev);
}

int gb_measure_visit(const gb_budget *b, gb_visit visit, gb_rep_fn rep, void *ctx, const gb_clock *clk,
                     volatile sig_atomic_t *stop, gb_samples *out, int *capped, gb_visit_cost *cost,
                     gb_err *e) {
    double start = clk->now(clk->ctx), seconds;
    size_t first = out->n;
    *capped = 0;
    double warm_cap = 0.25 * b->max_time_s, last = 0, prev = 0, kept_first = 0, adopted = 0;
    int warmed = 0; /* warm-up repetitions in this visit */
    for (int w = 0;; w++) {
        double spent = clk->now(clk->ctx) - start;
        if (warmup_done(b, visit, out, w, last, prev, spent) || *stop) break;
        if (w > 0 && spent > warm_cap) break;
        int status = rep(ctx, &seconds, e);
        if (status != GB_OK) return status;
        prev = last;
        last = seconds; /* the backend's own clock, as the samples are timed */
        if (w == 0 && visit != GB_VISIT_AGAIN && visit != GB_VISIT_KEPT) out->first_rep_s = seconds;
        if (w == 0 && visit == GB_VISIT_KEPT) kept_first = seconds;
        out->warmup_reps++;
        warmed++;
    }
    double timing_start = clk->now(clk->ctx), timed = 0;
    int status = GB_OK;
    for (;;) {
        size_t got = out->n - first;
        if (*stop && got > 0) break;
        status = rep(ctx, &seconds, e);
        if (status != GB_OK) break;
        if (!(seconds >= 0) || !isfinite(seconds)) {
            status = gb_errf(e, GB_FAIL, "backend returned an invalid time (%g s)", seconds);
            break;
        }
        if (push_sample(out, seconds) != GB_OK) {
            status = gb_errf(e, GB_FAIL, "out of memory for samples");
            break;
        }
        got++;
        timed += seconds;
        if (got == 1 && adoptable(visit, warmed, last, seconds)) {
            /* the warm-up's last repetition ran at speed: it counts, in the order it ran */
            if (push_sample(out, seconds) != GB_OK) {
                status = gb_errf(e, GB_FAIL, "out of memory for samples");
                break;
            }
            out->v[out->n - 2] = last;
            got++;
            timed += last;
            adopted = last;
            out->warmup_reps--;
            out->adopted_warmups++;
        }
        int enough = ((int)got >= b->min_reps && timed >= b->min_time_s) || (int)got >= b->max_reps;
        if (enough || *stop) break;
        if (clk->now(clk->ctx) - start >= b->max_time_s) {
            *capped = 1;
            break;
        }
    }
    if (cost) { /* an adopted repetition moves from the warm-up to the samples */
        cost->warmup_s += timing_start - start - adopted;
        cost->timing_s += clk->now(clk->ctx) - timing_start + adopted;
        cost->samples_s += timed;
    }
    if (status != GB_OK) return status;
    out->round_n[out->rounds++] = out->n - first;
    /* Did the first repetition after prepare (or, on a kept state, after a
     * round away) run at speed? Then a later round needs no warm-up. */
    double med = gb_median(out->v + first, out->n - first);
    if (visit == GB_VISIT_KEPT && kept_first > 0) out->kept_rep_at_speed = at_speed(kept_first, med);
    if (visit != GB_VISIT_AGAIN && visit != GB_VISIT_KEPT) out->first_rep_at_speed = at_speed(out->first_rep_s, med);
    return GB_OK;
}

/* ---- projection ------------------------------------------------------------ */

typedef struct {
    int benchmark, dtype, backend;
    double rate;    /* work units per second, from the fastest repetition */
    char label[64]; /* the size it was measured at */
} rate_memo;

struct gb_rate_book {
    rate_memo *memo;
    size_t n, cap;
};

gb_rate_book *gb_rate_book_new(void) { return calloc(1, sizeof(gb_rate_book)); }

void gb_rate_book_free(gb_rate_book *b) {
    if (!b) return;
    free(b->memo);
    free(b);
}

static rate_memo *rate_find(const gb_rate_book *b, int bench, int dtype, int backend) {
    for (size_t i = 0; i < b->n; i++)
        if (b->memo[i].benchmark == bench && b->memo[i].dtype == dtype && b->memo[i].backend == backend)
            return &b->memo[i];
    return NULL;
}

void gb_rate_record(gb_rate_book *b, int bench, int dtype, int backend, double work, double seconds,
                    const char *label) {
    if (!b || !(seconds >= GB_PROJECTION_MIN_S) || !(work > 0)) return;
    rate_memo *m = rate_find(b, bench, dtype, backend);
    if (!m) {
        if (b->n == b->cap) {
            size_t ncap = b->cap ? 2 * b->cap : 16;
            rate_memo *nm = realloc(b->memo, ncap * sizeof *nm);
            if (!nm) return;
            b->memo = nm;
            b->cap = ncap;
        }
        m = &b->memo[b->n++];
        m->benchmark = bench;
        m->dtype = dtype;
        m->backend = backend;
    }
    m->rate = work / seconds;
    snprintf(m->label, sizeof m->label, "%s", label);
}

void gb_rate_revise(gb_rate_book *b, int bench, int dtype, int backend, double work, double seconds,
                    const char *label) {
    rate_memo *m = b ? rate_find(b, bench, dtype, backend) : NULL;
    if (!m || strcmp(m->label, label) != 0 || !(work > 0) || !(seconds > 0)) return;
    if (seconds < GB_PROJECTION_MIN_S) m->rate = 0; /* nothing known: gb_rate_project answers 0 */
    else if (work / seconds > m->rate) m->rate = work / seconds;
}

double gb_rate_project(const gb_rate_book *b, int bench, int dtype, int backend, double work,
                       const char **from) {
    const rate_memo *m = b ? rate_find(b, bench, dtype, backend) : NULL;
    if (!m || !(m->rate > 0)) return 0;
    if (from) *from = m->label;
    return work / m->rate;
}
