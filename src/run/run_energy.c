/* run_energy.c — energy and clocks around the timed phases (docs/energy.md;
 * the arithmetic is core/energy.h, the counters system/energy_cpu.h for the
 * host backend and gb_backend.monitor_* for a device).
 *
 * At the start of the run each slot's meter is opened and probed at rest:
 * reads over GB_PROBE_S give the counter's update period and step (never
 * constants) and the idle power. A counter that is absent or does not
 * advance gives every result of that slot "not_measured" with the reason.
 *
 * A span samples a meter around one timed phase (gb_measure_visit): a
 * device's monitor from a thread of its own, polled every period/50 (at
 * least 1 ms), so the counter's updates are caught as they happen and the
 * clocks and clock-event reasons are seen all through the phase; the host's
 * RAPL is read only at the span's two ends on this thread (a polling thread
 * would take a core from the CPU side being timed; RAPL updates every ~1 ms,
 * so its ends cost little). Nothing is read inside a timed sample: the
 * device's samples are timed by CUDA events, the host's are not sampled
 * during at all.
 *
 * The energy phase (after the first visit's timed repetitions of timing 0):
 * when the span fell short of GB_ENERGY_TARGET, back-to-back repetitions
 * in a span long enough for the rest (gb_energy_needed_s), if that is cheap
 * (auto: at most GB_EXTEND_CASE_S for the case and GB_EXTEND_RUN_S for the
 * run; on: always); otherwise the result keeps the bound it reached. */
#include "run_internal.h"
#include "file_read.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "energy_cpu.h"
#include "op.h"

#define GB_PROBE_S 0.5         /* a device counter at rest: ~5 updates at 100 ms */
#define GB_PROBE_HOST_S 0.25   /* RAPL updates every ~1 ms */
#define GB_EXTEND_CASE_S 0.4   /* auto: the most an energy phase may add to one result */
#define GB_EXTEND_RUN_S 5.0    /* auto: and to the whole run: the default suite ran 304 s on an H200 with 15 s here (budget 300 s) */
#define GB_CLOCKS_EVERY_S 0.01 /* a span reads the clocks this often (the counter every poll) */

typedef enum { METER_NONE = 0, METER_HOST, METER_DEVICE } meter_kind;

typedef struct {
    meter_kind kind;
    int energy_ok, has_clocks;
    char why[GB_MSG_LEN];          /* energy not measured: why */
    gb_energy_probe probe;
    double resolution_j, power_limit_w, poll_s;
    char counter[64], boundary[64];
    gb_cpu_energy *cpu;
    const gb_backend *b;
    int device_pos;
} meter;

static meter meters[GB_MAX_BACKENDS];
static double extended_s; /* energy phases' time so far in this run */
/* GPUBENCH_ENERGY_LOG=FILE: every energy window is appended to FILE as a
 * JSON line with its wall-clock (Unix) times, so that an independent reader
 * of the same counter (scripts/dev/energy-gpu-check.sh) can be held against
 * it. A check's knob, not a result: the results file does not change. */
static FILE *energy_log;

static double unix_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int gb_energy_mode_parse(const char *text, int *mode) {
    if (!strcmp(text, "auto")) *mode = GB_ENERGY_AUTO;
    else if (!strcmp(text, "off")) *mode = GB_ENERGY_OFF;
    else if (!strcmp(text, "on")) *mode = GB_ENERGY_ON;
    else return GB_FAIL;
    return GB_OK;
}

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* One read of a meter: its energy counter (NAN: none) and, for a device, clocks. */
static int meter_read(meter *m, double *j, gb_monitor_sample *s) {
    *j = NAN;
    if (m->kind == METER_HOST) {
        char why[GB_MSG_LEN];
        return m->cpu && gb_cpu_energy_read(m->cpu, j, why, sizeof why) == GB_OK ? GB_OK : GB_FAIL;
    }
    if (m->kind != METER_DEVICE || m->b->monitor_read(m->device_pos, s) != GB_OK) return GB_FAIL;
    *j = s->energy_j;
    return GB_OK;
}

/* Read the meter at rest for `seconds` every poll and probe the trace. */
static void probe(meter *m, double seconds, double poll) {
    size_t cap = (size_t)(seconds / poll) + 8, n = 0;
    gb_energy_read *r = malloc(cap * sizeof *r);
    if (!r) {
        snprintf(m->why, sizeof m->why, "out of memory");
        m->energy_ok = 0;
        return;
    }
    double t0 = gb_now();
    while (n < cap) {
        gb_monitor_sample s = {.want_clocks = 0};
        double j;
        if (meter_read(m, &j, &s) != GB_OK || !isfinite(j)) {
            snprintf(m->why, sizeof m->why, "the energy counter (%s) could not be read", m->counter);
            m->energy_ok = 0;
            free(r);
            return;
        }
        r[n++] = (gb_energy_read){gb_now(), j};
        if (r[n - 1].t - t0 >= seconds) break;
        sleep_s(poll);
    }
    char why[200];
    if (gb_energy_probe_trace(r, n, &m->probe, why, sizeof why) != GB_OK) {
        snprintf(m->why, sizeof m->why, "%s (%s)", why, m->counter);
        m->energy_ok = 0;
    } else {
        /* catch each update within a hundredth of its period (at least 1 ms): a 2% window is then 0.1 s
         * between two updates */
        m->poll_s = m->probe.period_s / 100 > 1e-3 ? m->probe.period_s / 100 : 1e-3;
    }
    free(r);
}

static void open_meter(gb_run_config *cfg, int k, meter *m) {
    const gb_backend_slot *slot = &cfg->backends->slot[k];
    memset(m, 0, sizeof *m);
    m->power_limit_w = NAN;
    if (!slot->selected || !slot->b) return;
    const gb_backend *b = slot->b;
    if (b->role == GB_ROLE_HOST) {
        m->kind = METER_HOST;
        if (cfg->energy == GB_ENERGY_OFF) return;
        char why[GB_MSG_LEN];
        if (gb_cpu_energy_open("", &m->cpu, why, sizeof why) != GB_OK) {
            snprintf(m->why, sizeof m->why, "%s", why);
            return;
        }
        m->energy_ok = 1;
        m->resolution_j = gb_cpu_energy_resolution(m->cpu);
        snprintf(m->counter, sizeof m->counter, "RAPL (%.50s)", gb_cpu_energy_domains(m->cpu));
        snprintf(m->boundary, sizeof m->boundary, "the CPU packages (and DRAM where a domain exists)");
        m->poll_s = 1.0; /* read at the ends only */
        probe(m, GB_PROBE_HOST_S, 1e-3);
        m->poll_s = 1.0;
        return;
    }
    if (!b->monitor_info || !b->monitor_read || !slot->has_device) {
        m->kind = METER_NONE;
        return;
    }
    gb_monitor_info info;
    m->kind = METER_DEVICE;
    m->b = b;
    m->device_pos = slot->device_pos;
    if (b->monitor_info(slot->device_pos, &info) != GB_OK) {
        /* no monitor on this device (no NVML): its results say why, with no clocks */
        snprintf(m->why, sizeof m->why, "%s", info.why);
        return;
    }
    m->has_clocks = info.has_clocks;
    m->power_limit_w = info.power_limit_w;
    m->poll_s = 0.01; /* clocks alone: every 10 ms */
    snprintf(m->counter, sizeof m->counter, "%s", info.counter);
    snprintf(m->boundary, sizeof m->boundary, "%s", info.boundary);
    if (cfg->energy == GB_ENERGY_OFF) return;
    if (!info.has_energy) {
        snprintf(m->why, sizeof m->why, "%s", info.why);
        return;
    }
    m->energy_ok = 1;
    m->resolution_j = info.resolution_j;
    probe(m, GB_PROBE_S, 1e-3);
}

void gb_run_energy_begin_run(gb_run_config *cfg) {
    double t0 = gb_now();
    extended_s = 0;
    const char *log = getenv("GPUBENCH_ENERGY_LOG");
    gb_err le = {{0}};
    if (log && *log && gb_open_append(log, &energy_log, &le) != GB_OK) /* a FIFO here hung the run */
        fprintf(stderr, "gpubench: warning: GPUBENCH_ENERGY_LOG=%s; no energy log\n", le.msg);
    for (int k = 0; k < cfg->backends->count && k < GB_MAX_BACKENDS; k++) open_meter(cfg, k, &meters[k]);
    if (cfg->breakdown) cfg->breakdown->all[GB_T_ENERGY] += gb_now() - t0;
}

void gb_run_energy_end_run(void) {
    if (energy_log) fclose(energy_log);
    energy_log = NULL;
    for (int k = 0; k < GB_MAX_BACKENDS; k++) {
        gb_cpu_energy_close(meters[k].cpu);
        memset(&meters[k], 0, sizeof meters[k]);
    }
}

int gb_run_energy_wanted(const gb_run_config *cfg, int k, int t) {
    /* timing 0 only (the CPU's host, the GPU's device timing: the op itself),
     * hot caches only (a cold-cache flush would be counted as the op's) */
    return cfg->energy != GB_ENERGY_OFF && t == 0 && !cfg->cache_cold && k < GB_MAX_BACKENDS &&
           meters[k].kind != METER_NONE;
}

/* ---- spans ------------------------------------------------------------------ */

struct gb_span {
    meter *m;
    double unix0, clocks_t; /* clocks_t: when the clocks were last read */
    int energy, threaded;
    pthread_t thread;
    atomic_int stop; /* set by the span's owner, read by its thread: an atomic, not a volatile (ThreadSanitizer: a race) */
    gb_energy_read *reads;
    size_t n, cap;
    int oom;
    double sm_sum, mem_sum;
    long sm_n, mem_n, samples;
    unsigned reasons;
};

static void span_sample(gb_span *sp) {
    double now = gb_now();
    gb_monitor_sample s = {.want_clocks = now - sp->clocks_t >= GB_CLOCKS_EVERY_S};
    double j;
    if (meter_read(sp->m, &j, &s) != GB_OK) return;
    double t = gb_now();
    if (s.want_clocks) sp->clocks_t = now;
    if (sp->energy && isfinite(j)) {
        if (sp->n == sp->cap) {
            size_t cap = sp->cap ? 2 * sp->cap : 256;
            gb_energy_read *more = realloc(sp->reads, cap * sizeof *more);
            if (!more) {
                sp->oom = 1;
                return;
            }
            sp->reads = more, sp->cap = cap;
        }
        sp->reads[sp->n++] = (gb_energy_read){t, j};
    }
    if (sp->m->kind != METER_DEVICE || !s.want_clocks) return;
    sp->samples++;
    if (isfinite(s.sm_mhz)) sp->sm_sum += s.sm_mhz, sp->sm_n++;
    if (isfinite(s.mem_mhz)) sp->mem_sum += s.mem_mhz, sp->mem_n++;
    if (s.has_reasons) sp->reasons |= s.reasons;
}

static void *span_thread(void *arg) {
    gb_span *sp = arg;
    while (!atomic_load(&sp->stop)) {
        sleep_s(sp->energy ? sp->m->poll_s : GB_CLOCKS_EVERY_S); /* clocks alone: every 10 ms */
        if (!atomic_load(&sp->stop)) span_sample(sp);
    }
    return NULL;
}

gb_span *gb_run_span_begin(int k, int energy) {
    if (k < 0 || k >= GB_MAX_BACKENDS) return NULL;
    meter *m = &meters[k];
    energy = energy && m->energy_ok;
    if (!energy && !(m->kind == METER_DEVICE && m->has_clocks)) return NULL;
    gb_span *sp = calloc(1, sizeof *sp);
    if (!sp) return NULL;
    sp->m = m;
    sp->energy = energy;
    sp->unix0 = unix_now();
    span_sample(sp);
    sp->threaded = m->kind == METER_DEVICE && pthread_create(&sp->thread, NULL, span_thread, sp) == 0;
    return sp;
}

/* Stop sp and free it: its clocks into en (NULL: dropped), its synced
 * window into *w. GB_OK when the span had a window to give. */
static int span_close(gb_span *sp, track_energy *en, gb_energy_window *w, double *unix0) {
    if (sp->threaded) {
        atomic_store(&sp->stop, 1);
        pthread_join(sp->thread, NULL);
    }
    span_sample(sp);
    if (en) {
        en->samples += sp->samples;
        en->sm_sum += sp->sm_sum, en->sm_n += sp->sm_n;
        en->mem_sum += sp->mem_sum, en->mem_n += sp->mem_n;
        en->reasons |= sp->reasons;
    }
    int ok = sp->energy && !sp->oom && gb_energy_window_of(sp->reads, sp->n, sp->m->probe.period_s, w) == GB_OK;
    *unix0 = sp->unix0;
    free(sp->reads);
    free(sp);
    return ok ? GB_OK : GB_SKIP;
}

void gb_run_span_end(gb_span *sp, track_energy *en, double reps) {
    if (!sp) return;
    gb_energy_window w;
    double unix0;
    if (span_close(sp, en, &w, &unix0) == GB_OK && reps > 0) {
        gb_energy_add(&en->sum, &w, reps);
        if (energy_log && en->nlog < 4)
            en->log[en->nlog++] = (energy_window_log){unix0, unix_now(), w.energy_j, w.seconds, w.span_s, reps};
    }
}

/* ---- the energy phase ------------------------------------------------------------ */

static double bound_of(const meter *m, const gb_energy_sum *s) {
    gb_energy_estimate e;
    char why[160];
    return gb_energy_estimate_of(s, m->resolution_j, m->probe.power_w, &e, why, sizeof why) == GB_OK ? e.bound
                                                                                                       : INFINITY;
}

/* Back-to-back repetitions of timing 0 with the counter read on this thread
 * between batches of them (about every GB_PHASE_POLL_S: between repetitions,
 * never inside one), from the counter's first update after the start to its
 * first update once w_s more seconds have passed: one synced window, its two
 * ends placed within a batch (or a period, for a counter that updates faster
 * than the batches). GB_OK with *w and *reps (the repetitions between the two
 * updates), GB_SKIP when limit_s passed first, or the repetition's failure. */
#define GB_PHASE_POLL_S 1e-3
static int extension(meter *m, const gb_backend *b, void *state, double w_s, double rep_s, double limit_s,
                     gb_energy_window *w, double *reps_out, gb_err *e) {
    long batch = rep_s > 0 && rep_s < GB_PHASE_POLL_S ? (long)(GB_PHASE_POLL_S / rep_s) : 1;
    if (batch > 100000) batch = 100000;
    gb_monitor_sample s = {.want_clocks = 0};
    double j, prev_j, t0 = gb_now(), ta = NAN, ja = 0, ua = 0, reps = 0, reps_a = 0, period = m->probe.period_s;
    if (meter_read(m, &prev_j, &s) != GB_OK) return gb_errf(e, GB_SKIP, "the counter could not be read");
    double prev_t = gb_now();
    while (!gb_interrupted && prev_t - t0 < limit_s) {
        for (long i = 0; i < batch; i++) {
            double sec;
            int st = b->run(state, 0, &sec, e);
            if (st != GB_OK) return st;
            reps++;
        }
        if (meter_read(m, &j, &s) != GB_OK || !isfinite(j)) return gb_errf(e, GB_SKIP, "the counter could not be read");
        double t = gb_now(), gap = t - prev_t;
        double u = gap < period / 2 ? gap : gap + period; /* a counter faster than our reads lags by a period */
        if (j != prev_j) {
            if (isnan(ta)) {
                ta = t, ja = j, ua = u, reps_a = reps;
            } else if (t - ta >= w_s) {
                *w = (gb_energy_window){.energy_j = j - ja, .seconds = t - ta, .uncertainty_s = ua + u,
                                        .span_s = t - ta, .synced = 1};
                *reps_out = reps - reps_a;
                return *reps_out > 0 ? GB_OK : GB_SKIP;
            }
        }
        prev_t = t, prev_j = j;
    }
    return GB_SKIP;
}

/* A device's extension: repetitions back to back for run_s while a span's
 * own thread reads the counter, as in the timed phase. Not on this thread:
 * an NVML energy read can take milliseconds on a VM, and reads between
 * batches left the GPU idle that long each time (a TF32 GEMM 4096 of
 * 0.38 ms read 190 W on one H200 VM and 512 W on another, its J/op 2x
 * apart, far outside either bound). run_s of w_s + two periods puts a
 * window of at least w_s between the first and the last update. */
static int extension_threaded(int k, const gb_backend *b, void *state, double run_s, gb_energy_window *w,
                              double *reps_out, gb_err *e) {
    gb_span *sp = gb_run_span_begin(k, 1);
    if (!sp) return gb_errf(e, GB_SKIP, "the counter could not be read");
    double t0 = gb_now(), reps = 0, unix0 = 0;
    int st = GB_OK;
    while (!gb_interrupted && gb_now() - t0 < run_s) {
        double sec;
        if ((st = b->run(state, 0, &sec, e)) != GB_OK) break;
        reps++;
    }
    if (span_close(sp, NULL, w, &unix0) != GB_OK || st != GB_OK || reps <= 0)
        return st != GB_OK ? st : GB_SKIP;
    *reps_out = reps; /* J/op: the window's power over the span's time per repetition, as a timed span */
    return GB_OK;
}

/* The window an energy phase still needs toward GB_ENERGY_TARGET after
 * the windows in sum (*w_s), and what it costs (the return, seconds). */
static double phase_cost(const meter *m, const gb_energy_sum *sum, double *w_s_out) {
    /* The window still needed, W: the synced windows so far and the new one's
     * two ends (a batch each) must satisfy (U + 2 poll + resolution / P) /
     * (S + W) <= target. It costs W plus, on average, a period for the
     * updates at its ends (two at most: the loop's limit). */
    const gb_energy_part *p = &sum->synced;
    double power = p->seconds > 0 ? p->energy_j / p->seconds : m->probe.power_w;
    double res = power > 0 ? m->resolution_j / power : 0;
    /* each end of the new window is placed within one read gap: on a GPU the
     * span thread's, a poll plus the read itself, as the probe measured it
     * (an NVML read takes about a millisecond on a VM: planned with the
     * poll alone, --energy on fell short of 2%, at 2.1-5.4% on an H200);
     * aimed at 90% of the target, since the gaps vary around the probe's */
    int threaded = m->kind == METER_DEVICE;
    double gap = threaded && isfinite(m->probe.poll_s) && m->probe.poll_s > GB_PHASE_POLL_S ? m->probe.poll_s
                                                                                           : GB_PHASE_POLL_S;
    double aim = 0.9 * GB_ENERGY_TARGET;
    double w_s = (p->uncertainty_s + 2 * gap + res) / aim - p->seconds;
    double min_w = 2 * gap / aim;
    if (w_s < min_w) w_s = min_w;
    double period = isfinite(m->probe.period_s) ? m->probe.period_s : 0;
    *w_s_out = w_s;
    return threaded ? w_s + 2 * period + 0.01 : w_s + period;
}

/* Whether an energy phase of `cost` seconds may run: always with --energy
 * on; in auto when it is cheap for the case and the run. */
static int phase_affordable(int mode, double cost) {
    return mode == GB_ENERGY_ON || (cost <= GB_EXTEND_CASE_S && extended_s + cost <= GB_EXTEND_RUN_S);
}

/* An energy phase's window (started at t0) into en. */
static void add_phase_window(track_energy *en, const gb_energy_window *w, double reps, double t0) {
    gb_energy_add(&en->sum, w, reps);
    en->extended = 1;
    if (energy_log && en->nlog < 4)
        en->log[en->nlog++] = (energy_window_log){unix_now() - (gb_now() - t0), unix_now(), w->energy_j, w->seconds,
                                                  w->span_s, reps};
}

/* One energy phase toward GB_ENERGY_TARGET; 0 when it did not run (auto
 * and too dear, or the counter could not be read). */
static int extend_once(gb_run_config *cfg, const gb_case *c, int k, const gb_backend *b, void *state, track *tr) {
    meter *m = &meters[k];
    int threaded = m->kind == METER_DEVICE;
    double w_s, cost = phase_cost(m, &tr->en.sum, &w_s);
    double period = isfinite(m->probe.period_s) ? m->probe.period_s : 0;
    if (!phase_affordable(cfg->energy, cost)) return 0;
    double rep_s = tr->s.n ? tr->s.v[tr->s.n - 1] : 0, reps = 0, t0 = gb_now();
    gb_err e = {{0}};
    gb_energy_window w;
    int status;
    if (threaded)
        OUTSIDE_MODEL(status = extension_threaded(k, b, state, cost, &w, &reps, &e));
    else
        OUTSIDE_MODEL(status = extension(m, b, state, w_s, rep_s, w_s + 3 * period + 0.1, &w, &reps, &e));
    if (status == GB_OK) add_phase_window(&tr->en, &w, reps, t0);
    double spent = gb_now() - t0;
    extended_s += spent;
    gb_run_account(cfg, c->op_id, GB_T_ENERGY, spent);
    return status == GB_OK;
}

void gb_run_energy_phase(gb_run_config *cfg, const gb_case *c, int k, const gb_backend *b, void *state, track *tr) {
    meter *m = &meters[k];
    tr->en.tried = 1; /* measured, or not_measured with the reason */
    if (!m->energy_ok || gb_interrupted) return;
    /* auto: one phase, if cheap; on ("every case to 2%"): again while the
     * read gaps came out wider than planned (one phase left an H200's
     * GEMM 1024 at 2.8%), three phases at most */
    for (int tries = 0; tries < (cfg->energy == GB_ENERGY_ON ? 3 : 1) && !gb_interrupted; tries++)
        if (bound_of(m, &tr->en.sum) <= GB_ENERGY_TARGET || !extend_once(cfg, c, k, b, state, tr)) return;
}

/* ---- the energy phase of a concurrent group (concurrent.h's phase hooks) ---- */

/* A lane's wish: the cost of the phase its window still needs, as alone
 * (one phase in auto, three at most with --energy on); 0 when its bound is
 * reached, too dear, or it measures no energy. Read on the lane's thread
 * while the run's thread waits for the group: extended_s does not move. */
double gb_run_energy_lane_want(void *ctx) {
    gb_lane_energy *l = ctx;
    const meter *m = &meters[l->k];
    if (!l->energy || !m->energy_ok || gb_interrupted || l->tries >= (l->mode == GB_ENERGY_ON ? 3 : 1)) return 0;
    if (bound_of(m, &l->en.sum) <= GB_ENERGY_TARGET) return 0;
    double w_s, cost = phase_cost(m, &l->en.sum, &w_s);
    return phase_affordable(l->mode, cost) ? cost : 0;
}

/* The group's phase on this lane: back-to-back repetitions for `seconds`
 * (the longest wish of the group), its counter read by a span's thread as
 * alone; a lane that measures no energy only works, so that its device
 * loads the others' as in the timed repetitions. */
void gb_run_energy_lane_phase(void *ctx, const gb_backend *b, void *state, double seconds) {
    gb_lane_energy *l = ctx;
    double t0 = gb_now(), reps = 0;
    l->tries++;
    gb_err e = {{0}};
    gb_energy_window w;
    if (l->energy && meters[l->k].energy_ok) {
        if (extension_threaded(l->k, b, state, seconds, &w, &reps, &e) == GB_OK)
            add_phase_window(&l->en, &w, reps, t0);
    } else {
        while (!gb_interrupted && gb_now() - t0 < seconds) {
            double sec;
            if (b->run(state, 0, &sec, &e) != GB_OK) break;
        }
    }
    l->phase_s += gb_now() - t0;
}

double gb_run_energy_lanes_spent(gb_run_config *cfg, const gb_case *c, const gb_lane_energy *le, int n) {
    double spent = 0;
    for (int j = 0; j < n; j++)
        if (le[j].phase_s > spent) spent = le[j].phase_s;
    extended_s += spent;
    gb_run_account(cfg, c->op_id, GB_T_ENERGY, spent);
    return spent;
}

/* ---- into the model ----------------------------------------------------------------- */

static void log_windows(const gb_case *c, const gb_result *r, track_energy *en) {
    for (int i = 0; energy_log && i < en->nlog; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "op", c->op->name);
        cJSON_AddStringToObject(o, "dtype", gb_dtype_name(c->dtype));
        cJSON_AddStringToObject(o, "label", c->label);
        cJSON_AddStringToObject(o, "backend", r->backend);
        cJSON_AddStringToObject(o, "timing", r->timing);
        if (r->device.present) cJSON_AddNumberToObject(o, "device", (double)r->device.index);
        cJSON_AddNumberToObject(o, "unix_start", en->log[i].unix0);
        cJSON_AddNumberToObject(o, "unix_end", en->log[i].unix1);
        cJSON_AddNumberToObject(o, "energy_j", en->log[i].energy_j);
        cJSON_AddNumberToObject(o, "seconds", en->log[i].seconds);
        cJSON_AddNumberToObject(o, "span_s", en->log[i].span_s);
        cJSON_AddNumberToObject(o, "reps", en->log[i].reps);
        char *text = cJSON_PrintUnformatted(o);
        if (text) fprintf(energy_log, "%s\n", text);
        free(text);
        cJSON_Delete(o);
    }
    if (energy_log) fflush(energy_log);
    en->nlog = 0;
}

static int set_str(char **field, const char *v) {
    if (gb_set_string(field, v) != GB_OK) gb_run_model_oom = 1;
    return 0;
}

void gb_run_energy_lane_hook(void *ctx, int begin, int reps) {
    gb_lane_energy *l = ctx;
    if (begin) {
        l->en.tried = l->energy && meters[l->k].kind != METER_NONE;
        l->span = gb_run_span_begin(l->k, l->energy);
    } else {
        gb_run_span_end(l->span, &l->en, reps);
        l->span = NULL;
    }
}

void gb_run_energy_record(gb_run_config *cfg, size_t ci, const gb_case *c, int k, track_energy *en, size_t ri) {
    gb_result *r = &case_at(cfg, ci)->results[ri];
    const meter *m = &meters[k];
    if (en->samples > 0) {
        gb_result_clocks *x = &r->clocks;
        gb_result_clocks_free(x);
        x->present = 1;
        x->samples = en->samples;
        x->sm_mhz = en->sm_n ? en->sm_sum / (double)en->sm_n : NAN;
        x->mem_mhz = en->mem_n ? en->mem_sum / (double)en->mem_n : NAN;
        x->reasons.present = 1;
        unsigned seen = en->reasons & ~(unsigned)GB_CLK_IDLE; /* idle between repetitions is normal */
        x->reasons.item = calloc(GB_CLK_NREASONS, sizeof *x->reasons.item);
        for (int i = 0; x->reasons.item && i < GB_CLK_NREASONS; i++)
            if (seen & (1u << i) && !(x->reasons.item[x->reasons.n++] = strdup(gb_clock_reason_name(i))))
                gb_run_model_oom = 1;
        x->power_limited = (seen & GB_CLK_POWER_LIMITS) != 0;
        x->thermal_limited = (seen & GB_CLK_THERMAL_LIMITS) != 0;
    }
    if (cfg->energy == GB_ENERGY_OFF || !en->tried) return;
    log_windows(c, r, en);
    gb_result_energy *x = &r->energy;
    gb_result_energy_free(x);
    x->present = 1;
    x->j_per_op = x->above_idle_j_per_op = x->power_w = x->above_idle_w = x->idle_w = x->bound = NAN;
    x->gflop_per_j = x->gb_per_j = x->energy_ratio = x->seconds = x->spread = NAN;
    x->power_limit_w = m->power_limit_w;
    set_str(&x->counter, m->counter);
    set_str(&x->boundary, m->boundary);
    set_str(&x->phase, "");
    gb_energy_estimate est;
    char why[GB_MSG_LEN];
    if (!m->energy_ok) {
        set_str(&x->reason, m->why);
        return;
    }
    if (gb_energy_estimate_of(&en->sum, m->resolution_j, m->probe.power_w, &est, why, sizeof why) != GB_OK) {
        char full[GB_MSG_LEN + 96];
        snprintf(full, sizeof full, "%s; the counter updates every %.3g s and the phase was not extended", why,
                 m->probe.period_s);
        set_str(&x->reason, full);
        return;
    }
    set_str(&x->reason, "");
    set_str(&x->phase, en->extended ? "timed+energy" : "timed");
    x->measured = 1;
    x->j_per_op = est.j_per_op;
    x->power_w = est.power_w;
    x->bound = est.bound;
    x->idle_w = m->probe.power_w;
    x->above_idle_w = est.above_idle_w;
    x->above_idle_j_per_op = est.above_idle_j_per_op;
    x->seconds = gb_energy_used(&en->sum)->seconds;
    /* the op's own spread over the same repetitions: on an H200 a bfloat16
     * GEMM 1024 ran 17.8 us in one run and 15.7 us in the next, and its J/op
     * (0.0060 +-4.7%, 0.0053 +-4.6%) with it; the counter's bound alone
     * made the two disagree */
    const gb_result_stats *st = &r->stats;
    if (st->median > 0 && isfinite(st->ci95_low) && isfinite(st->ci95_high)) {
        double up = st->ci95_high / st->median - 1, down = 1 - st->ci95_low / st->median;
        x->spread = up > down ? up : down;
        if (x->spread < 0) x->spread = 0;
    }
    if (c->flops > 0) x->gflop_per_j = c->flops * 1e-9 / est.j_per_op;
    if (c->bytes > 0) x->gb_per_j = c->bytes * 1e-9 / est.j_per_op;
}

void gb_run_energy_ratios(gb_case_result *c) {
    const gb_result *host = NULL;
    for (size_t i = 0; i < c->nresults && !host; i++)
        if (c->results[i].energy.measured && gb_results_backend(NULL, 0, c->results[i].backend)->role == GB_ROLE_HOST)
            host = &c->results[i];
    for (size_t i = 0; i < c->nresults; i++) {
        gb_result *r = &c->results[i];
        if (r->energy.present && r != host)
            r->energy.energy_ratio = gb_result_energy_ratio(host, r);
    }
}

/* ---- warnings --------------------------------------------------------------------- */

int gb_run_energy_warnings(const gb_results *res, cJSON *warnings) {
    int added = 0;
    for (int kind = 0; kind < 2; kind++) {
        char list[400] = "";
        int n = 0;
        for (size_t i = 0; i < res->ncases; i++)
            for (size_t j = 0; j < res->cases[i].nresults; j++) {
                const gb_result *r = &res->cases[i].results[j];
                if (!r->clocks.present || !(kind ? r->clocks.thermal_limited == 1 : r->clocks.power_limited == 1))
                    continue;
                size_t len = strlen(list);
                if (n < 4)
                    snprintf(list + len, sizeof list - len, "%s%s %s %s (%s %s)", n ? ", " : "", res->cases[i].op,
                             res->cases[i].dtype, res->cases[i].label, r->backend, r->timing);
                n++;
            }
        if (!n) continue;
        char msg[600];
        snprintf(msg, sizeof msg,
                 "%d result%s ran %s during %s timed repetitions (clock-event reason %s): %s%s; %s times are "
                 "those of a device held below its clocks (docs/energy.md)",
                 n, n == 1 ? "" : "s", kind ? "thermally limited" : "power-limited", n == 1 ? "its" : "their",
                 kind ? "sw/hw thermal slowdown" : "power_cap", list, n > 4 ? ", ..." : "", n == 1 ? "its" : "their");
        cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
        added++;
    }
    return added;
}
