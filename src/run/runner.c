/* runner.c — see runner.h. The one place where results are timed. */
#include "runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "concurrent.h"
#include "op.h"
#include "report.h"
#include "stats.h"
#include "timer.h"

volatile sig_atomic_t gb_interrupted = 0;

static double case_work(const gb_case *c) { return c->flops > 0 ? c->flops : c->bytes; }

/* The fastest sample: what projection is judged from, so that a moment of
 * contention on a busy machine does not skip the next size. */
static double fastest(const double *v, size_t n) {
    double m = n ? v[0] : 0;
    for (size_t i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

/* ---- host memory ---------------------------------------------------------- */

/* The process's resident bytes (what a prepare adds to it is what its state
 * holds on the host: buffers it touched, pinned mirrors). */
static double resident_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    double size, resident = 0;
    if (f && fscanf(f, "%lf %lf", &size, &resident) != 2) resident = 0;
    if (f) fclose(f);
    return resident * (double)sysconf(_SC_PAGESIZE);
}

static double host_available_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    if (f) fclose(f);
    if (kb > 0) return kb * 1024;
    return (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

/* ---- results entries ------------------------------------------------------
 * The runner fills the results model (results_model.h) in cfg->results.
 * Adding a case or a result may move the earlier ones (realloc), so cases
 * and results are named by index, never by a pointer kept across an add. An
 * out-of-memory while filling it is remembered and fails the next
 * checkpoint. */

static int model_oom;

static gb_case_result *case_at(gb_run_config *cfg, size_t ci) { return &cfg->results->cases[ci]; }

static void set_status(gb_result *r, gb_result_status status, const char *reason) {
    r->status = status;
    if (gb_set_string(&r->reason, reason ? reason : "") != GB_OK) model_oom = 1;
    r->has |= GB_R_HAS_REASON;
}

/* The device that measured a result: its slot's, when it has one and the
 * op runs on one device (a multi-GPU op's result spreads over the first
 * `gpus` devices: its backend annotates which). */
static int set_device(gb_result *r, const gb_backend_slot *slot, const gb_case_result *c) {
    const gb_op *op = gb_op_find(c->op);
    if (!slot->has_device || (op && op->multi_device)) return GB_OK;
    const gb_device_info *d = &slot->device;
    return gb_device_id_set(&r->device, d->index, d->name, d->uuid, d->pci_bus_id);
}

/* Append a result to case ci; its index, or -1 on out of memory. */
static long new_result(gb_run_config *cfg, size_t ci, const gb_backend_slot *slot, const char *timing,
                       gb_result_status status, const char *reason) {
    gb_case_result *c = case_at(cfg, ci);
    gb_result *r = gb_case_add_result(c);
    if (!r || gb_set_string(&r->backend, slot->name) != GB_OK || gb_set_string(&r->timing, timing) != GB_OK ||
        set_device(r, slot, c) != GB_OK) {
        model_oom = 1;
        return -1;
    }
    set_status(r, status, reason);
    return (long)(c->nresults - 1);
}

static void set_stats(gb_result *r, const double *samples, size_t n, const size_t *round_n, int rounds,
                      const gb_case *c) {
    double *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy) {
        model_oom = 1;
        return;
    }
    memcpy(copy, samples, n * sizeof *copy);
    free(r->samples);
    r->samples = copy;
    r->nsamples = n;
    r->has |= GB_R_HAS_SAMPLES;
    gb_stats st;
    gb_stats_compute(samples, n, &st);
    gb_stats_widen_to_rounds(samples, round_n, rounds, &st);
    gb_result_stats *s = &r->stats;
    s->present = 1;
    s->n = st.n;
    s->min = st.min;
    s->max = st.max;
    s->median = st.median;
    s->mean = st.mean;
    s->stddev = st.stddev;
    s->cv = st.cv;
    s->ci95_low = st.ci95_low;
    s->ci95_high = st.ci95_high;
    r->gflops = c->flops > 0 && st.median > 0 ? c->flops / st.median * 1e-9 : NAN;
    r->gbs = c->bytes > 0 && st.median > 0 ? c->bytes / st.median * 1e-9 : NAN;
    r->has |= GB_R_HAS_GFLOPS | GB_R_HAS_GBS;
}

static void set_verdict(gb_result *r, const gb_verdict *v) {
    gb_verification *o = &r->verification;
    o->present = 1;
    o->status = v->status == GB_VERIFY_PASSED ? GB_VS_PASSED
                : v->status == GB_VERIFY_FAILED ? GB_VS_FAILED : GB_VS_NOT_CHECKED;
    if (gb_set_string(&o->against, v->against) != GB_OK || gb_set_string(&o->metric, v->metric) != GB_OK ||
        gb_set_string(&o->detail, v->detail) != GB_OK)
        model_oom = 1;
    o->error = isfinite(v->error) ? v->error : NAN;
    o->tolerance = isfinite(v->tolerance) ? v->tolerance : NAN;
    o->has = GB_V_HAS_AGAINST | GB_V_HAS_METRIC | GB_V_HAS_ERROR | GB_V_HAS_TOLERANCE | GB_V_HAS_DETAIL;
}

/* ---- peaks ---------------------------------------------------------------- */

/* pct_of_peak and peak of a result: its rate against the ceiling its
 * backend named (gb_backend.ceiling), as measured into the run's peaks. */
static void set_pct_of_peak(gb_run_config *cfg, const gb_case *c, gb_result *r, const char *backend,
                            const char *key) {
    const gb_peaks *peaks = &cfg->results->runs[0].peaks;
    const gb_value *pv = NULL;
    for (size_t i = 0; key && i < peaks->n && !pv; i++)
        if (!strcmp(peaks->set[i].backend, backend)) pv = gb_kv_find(&peaks->set[i].values, key);
    double peak = pv ? gb_value_num(pv) : NAN, achieved = c->memory_bound ? r->gbs : r->gflops;
    free(r->peak);
    r->peak = NULL;
    r->pct_of_peak = NAN;
    r->has |= GB_R_HAS_PCT | GB_R_HAS_PEAK;
    if (peak > 0 && isfinite(achieved)) {
        r->pct_of_peak = 100.0 * achieved / peak;
        char full[64];
        snprintf(full, sizeof full, "%s.%s", backend, key);
        if (gb_set_string(&r->peak, full) != GB_OK) model_oom = 1;
    }
}

/* ---- measuring ------------------------------------------------------------ */

/* Every sample of one result (case × backend × timing), across rounds. */
typedef struct {
    size_t result;                  /* its index in its case's results (when measured) */
    gb_samples s;
    int again;                      /* measure it in the next round too */
    const char *backend;            /* its backend's name and the ceiling that bounds it */
    const char *ceiling;
} track;

/* The tracks of one case: per backend slot and timing. */
typedef struct {
    track t[GB_MAX_BACKENDS][GB_MAX_TIMINGS];
    size_t ci;                      /* the case's index in the results' cases */
    int again;                      /* some track is measured in the next round */
    gb_arrays inputs;               /* round 0's inputs, kept for later rounds when they fit */
    int have_inputs;
    void *state[GB_MAX_BACKENDS];   /* a slot's prepared state, kept for the next round (kept_states) */
    long host_twin;                 /* an earlier case that is this one's host work (host_twins); -1: none */
    int nshared;                    /* its host results copied here: shared[i] = {ours, the twin's} */
    size_t shared[GB_MAX_BACKENDS * GB_MAX_TIMINGS][2];
    double state_bytes[GB_MAX_BACKENDS];
    double visit_s;                 /* wall time of its last visit (for the estimate of time left) */
    int visits;
} case_tracks;

/* A backend or a library at work: the model is whole, and its lock is free
 * for the signal watchdog meanwhile (runner.h, gb_model_lock). */
#define OUTSIDE_MODEL(stmt) \
    do {                    \
        gb_model_unlock();  \
        stmt;               \
        gb_model_lock();    \
    } while (0)

/* One repetition as the stopping rule sees it: the cache flush (cold mode)
 * outside the backend's timer, then the backend's own timed run. */
typedef struct {
    const gb_backend *b;
    void *state;
    int timing, cache_cold;
} rep_ctx;

static int one_rep(void *ctx, double *seconds, gb_err *e) {
    rep_ctx *r = ctx;
    if (r->cache_cold && r->b->flush_caches) r->b->flush_caches();
    return r->b->run(r->state, r->timing, seconds, e);
}

/* Which kinds (op, backend slot, timing) have had a first visit: the
 * warm-up's time floor is for the first use of a library's thread pool in
 * this process (stopping.h). */
static unsigned char warm_kinds[GB_OP_COUNT][GB_MAX_BACKENDS][GB_MAX_TIMINGS];

const char *const gb_time_part_key[GB_T_PARTS] = {"samples_s", "timing_overhead_s", "warmup_s",
                                                   "setup_s",   "inputs_s",          "verify_s"};
const char *const gb_time_part_text[GB_T_PARTS] = {
    "timed samples", "between samples (syncs, restores, flushes)", "warm-up", "backend set-up and release",
    "making inputs", "fetching and verifying outputs"};

/* Add seconds to a part of the breakdown, overall and for the op. */
static void account(gb_run_config *cfg, gb_op_id op, gb_time_part part, double seconds) {
    if (!cfg->breakdown) return;
    cfg->breakdown->all[part] += seconds;
    cfg->breakdown->by_op[op][part] += seconds;
}

/* visit: GB_VISIT_FIRST on a first visit (the first of its kind in this
 * process warms up longer), GB_VISIT_AGAIN or GB_VISIT_KEPT on a later one. */
static int measure(gb_run_config *cfg, const gb_case *c, int slot, const gb_backend *b, void *state, int timing,
                   const gb_budget *budget, gb_visit visit, track *tr, int *capped, gb_err *e) {
    rep_ctx ctx = {b, state, timing, cfg->cache_cold};
    gb_visit_cost cost = {0};
    int adopted = tr->s.adopted_warmups;
    if (visit == GB_VISIT_FIRST && !warm_kinds[c->op_id][slot][timing]) visit = GB_VISIT_FIRST_OF_KIND;
    int status;
    OUTSIDE_MODEL(status = gb_measure_visit(budget, visit, one_rep, &ctx, &gb_host_clock, &gb_interrupted, &tr->s,
                                            capped, &cost, e));
    if (status == GB_OK) warm_kinds[c->op_id][slot][timing] = 1;
    if (cfg->breakdown) cfg->breakdown->adopted_warmups += tr->s.adopted_warmups - adopted;
    account(cfg, c->op_id, GB_T_WARMUP, cost.warmup_s);
    account(cfg, c->op_id, GB_T_SAMPLES, cost.samples_s);
    account(cfg, c->op_id, GB_T_BETWEEN, cost.timing_s - cost.samples_s);
    return status;
}

/* (Re)write a result's samples and everything computed from them. */
static void write_measurement(gb_run_config *cfg, size_t ci, const gb_case *c, const track *t) {
    gb_result *r = &case_at(cfg, ci)->results[t->result];
    r->warmup_reps = t->s.warmup_reps;
    r->has |= GB_R_HAS_WARMUP;
    size_t *sizes = malloc((t->s.rounds > 0 ? (size_t)t->s.rounds : 1) * sizeof *sizes);
    if (!sizes) {
        model_oom = 1;
        return;
    }
    for (int i = 0; i < t->s.rounds; i++) sizes[i] = (size_t)t->s.round_n[i];
    free(r->round_sizes);
    r->round_sizes = sizes;
    r->nrounds = (size_t)t->s.rounds;
    r->has |= GB_R_HAS_ROUNDS;
    set_stats(r, t->s.v, t->s.n, t->s.round_n, t->s.rounds, c);
    set_pct_of_peak(cfg, c, r, t->backend, t->ceiling);
}

/* ---- one case ------------------------------------------------------------- */

/* Append the case's entry to the results; its index in cases, or -1 on out
 * of memory. */
static long new_case(gb_run_config *cfg, const gb_case *c) {
    gb_case_result *o = gb_results_add_case(cfg->results);
    if (!o) goto oom;
    if (gb_set_string(&o->op, c->op->name) != GB_OK || gb_set_string(&o->dtype, gb_dtype_name(c->dtype)) != GB_OK ||
        gb_set_string(&o->label, c->label) != GB_OK || gb_set_string(&o->rate_kind, c->op->rate_kind) != GB_OK)
        goto oom;
    if (!(o->shape = malloc((c->rank > 0 ? (size_t)c->rank : 1) * sizeof *o->shape))) goto oom;
    for (int i = 0; i < c->rank; i++) o->shape[i] = (double)c->shape[i];
    o->rank = (size_t)c->rank;
    /* the params as the op writes them (gb_params_to_json): the model takes them from there */
    cJSON *params = gb_params_to_json(c);
    gb_err e = {{0}};
    int ok = params && gb_kvlist_from_cjson(&o->params, params, "params", &e) == GB_OK;
    cJSON_Delete(params);
    if (!ok) goto oom;
    o->flops = c->flops;
    o->bytes = c->bytes;
    o->has = GB_C_HAS_LABEL | GB_C_HAS_FLOPS | GB_C_HAS_BYTES | GB_C_HAS_RATE_KIND;
    return (long)(cfg->results->ncases - 1);
oom:
    model_oom = 1;
    return -1;
}

/* Does timing t of backend b apply to case ci's case (gb_backend.has_timing)?
 * A timing that does not gets no result at all. */
static int timing_applies(const gb_backend *b, const gb_case *c, int t) {
    return !b->has_timing || b->has_timing(c, t);
}

/* Add a result with the same status for every timing of a backend that
 * applies to the case. */
static void add_all_timings(gb_run_config *cfg, size_t ci, const gb_case *c, const gb_backend_slot *slot,
                            gb_result_status status, const char *reason) {
    if (!slot->b) return;
    for (int t = 0; t < slot->b->ntimings; t++)
        if (timing_applies(slot->b, c, t)) new_result(cfg, ci, slot, slot->b->timings[t], status, reason);
}

typedef struct {
    gb_arrays out;          /* the reference output: first backend that passed its own check */
    const char *from;
    int have;
} reference;

/* Add the seconds since t0 to a part of the breakdown. */
static void spent(gb_run_config *cfg, gb_op_id op, gb_time_part part, double t0) { account(cfg, op, part, gb_now() - t0); }

/* ---- backend states kept between rounds ------------------------------------
 * A later round used to prepare every result again (allocate, upload, plan)
 * and release it after: on the H100 host a third of a default run's set-up
 * time (31 s of 93 s), work the first visit had already done. So a slot's
 * prepared state stays alive until the case's next visit, while the states
 * kept fit in a quarter of the host memory free when the run started (each
 * counted at what its prepare added to the process's resident set: an op's
 * host_bytes counts every backend's arrays and the references, about three
 * times what one state holds). Device memory is not estimated: see the
 * retry below. A multi-GPU op keeps none (its
 * library routine allocates on every device per call) and releases all
 * before it runs. When a supports or prepare fails while states are kept
 * (a device that filled up), every kept state is released and it is tried
 * once more, so keeping never costs a result. A state is kept only while
 * its case's inputs are (a backend's state may point into them). Every
 * repetition restores
 * what it overwrites (backend.h), so a kept state runs as a fresh one would;
 * what differs is that each round reuses the same buffers (their placement
 * becomes part of the between-process noise compare measures) and that the
 * caches hold other cases' data, which GB_VISIT_KEPT's warm-up refills. */
typedef struct {
    const gb_suite *suite;
    case_tracks *tracks;
    double cap, used;
    long count;           /* states kept now */
} kept_states;
static kept_states kept; /* set by gb_runner_run */

static void release_state(gb_run_config *cfg, case_tracks *ct, int k, gb_op_id op) {
    if (!ct->state[k]) return;
    gb_backend_slot *slot = &cfg->backends->slot[k];
    gb_err e = {{0}};
    double t0 = gb_now();
    (void)gb_backends_use(slot, &e); /* on the device that holds it */
    OUTSIDE_MODEL(slot->b->release(ct->state[k]));
    spent(cfg, op, GB_T_SETUP, t0);
    ct->state[k] = NULL;
    kept.used -= ct->state_bytes[k];
    kept.count--;
    ct->state_bytes[k] = 0;
}

static void release_case_states(gb_run_config *cfg, case_tracks *ct, gb_op_id op) {
    for (int k = 0; k < GB_MAX_BACKENDS; k++) release_state(cfg, ct, k, op);
}

/* Release every kept state; 1 when there was any. */
static int release_all_kept(gb_run_config *cfg) {
    if (!kept.tracks || kept.count == 0) return 0;
    for (size_t i = 0; i < kept.suite->count; i++) release_case_states(cfg, &kept.tracks[i], kept.suite->items[i].c.op_id);
    kept.used = 0; /* exact again, whatever rounding the sums left */
    return 1;
}

/* Take slot k's kept state out of the cache (NULL: none). */
static void *take_state(case_tracks *ct, int k) {
    void *state = ct->state[k];
    if (state) {
        kept.used -= ct->state_bytes[k];
        kept.count--;
    }
    ct->state[k] = NULL;
    ct->state_bytes[k] = 0;
    return state;
}

/* Keep state (holding bytes of host memory) for the case's next visit when
 * `wanted` and it fits, else release it. */
static void keep_or_release(gb_run_config *cfg, case_tracks *ct, int k, const gb_case *c, void *state,
                            double bytes, int wanted) {
    if (wanted && !c->op->multi_device && kept.tracks && kept.used + bytes <= kept.cap) {
        ct->state[k] = state;
        ct->state_bytes[k] = bytes;
        kept.used += bytes;
        kept.count++;
        if (cfg->breakdown && kept.used > cfg->breakdown->kept_peak_bytes) cfg->breakdown->kept_peak_bytes = kept.used;
        return;
    }
    double t0 = gb_now();
    OUTSIDE_MODEL(cfg->backends->slot[k].b->release(state));
    spent(cfg, c->op_id, GB_T_SETUP, t0);
}

/* Make slot's device current and, when `check`, ask the backend whether it
 * supports the case (a device's free memory included); when that fails
 * while states are kept, once more after releasing them. */
static int use_slot(gb_run_config *cfg, gb_backend_slot *slot, const gb_case *c, int check, gb_err *e) {
    if (c->op->multi_device) release_all_kept(cfg);
    for (int attempt = 0;; attempt++) {
        int status = gb_backends_use(slot, e);
        if (status == GB_OK && check) status = slot->b->supports(c, e);
        if (status == GB_OK || status == GB_FATAL || attempt > 0 || !release_all_kept(cfg)) return status;
        memset(e, 0, sizeof *e);
    }
}

/* prepare on the current device, likewise once more after releasing the
 * kept states; *setup: the wall time of the prepare that counted, *bytes
 * the host memory its state holds. */
static int prepare_case(gb_run_config *cfg, gb_backend_slot *slot, const gb_case *c, const gb_arrays *in,
                        void **state, double *setup, double *bytes, gb_err *e) {
    for (int attempt = 0;; attempt++) {
        double t0 = gb_now(), rss0 = resident_bytes();
        int status;
        OUTSIDE_MODEL(status = slot->b->prepare(c, in, state, e));
        *setup = gb_now() - t0;
        *bytes = fmax(0, resident_bytes() - rss0);
        account(cfg, c->op_id, GB_T_SETUP, *setup);
        if (status == GB_OK || status == GB_FATAL || attempt > 0 || !release_all_kept(cfg)) return status;
        memset(e, 0, sizeof *e);
        status = gb_backends_use(slot, e); /* releasing may have switched devices */
        if (status != GB_OK) return status;
    }
}

/* The first visit of a case by one backend: prepare, measure every timing,
 * fetch and verify the output, record it all. */
static void run_backend(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot,
                        int slot_index, const gb_arrays *in, reference *ref, gb_rate_book *rates,
                        case_tracks *ct, int rounds) {
    const gb_case *c = &item->c;
    size_t ci = ct->ci;
    track *tracks = ct->t[slot_index];
    const gb_backend *b = slot->b;
    gb_err e = {{0}};

    if (slot->disabled) {
        char why[GB_MSG_LEN + 32];
        snprintf(why, sizeof why, "backend disabled: %s", slot->reason);
        add_all_timings(cfg, ci, c, slot, GB_RS_SKIPPED, why);
        return;
    }
    if (gb_interrupted) {
        add_all_timings(cfg, ci, c, slot, GB_RS_SKIPPED, "interrupted");
        return;
    }
    int status = use_slot(cfg, slot, c, 1, &e);
    if (status != GB_OK) {
        add_all_timings(cfg, ci, c, slot, status == GB_SKIP ? GB_RS_SKIPPED : GB_RS_ERROR, e.msg);
        if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        return;
    }
    const char *from = NULL;
    double projected = gb_rate_project(rates, item->benchmark, c->dtype, slot_index, case_work(c), &from);
    if (projected > item->budget.max_time_s) {
        char why[GB_MSG_LEN];
        snprintf(why, sizeof why,
                 "projected %.3g s per repetition (from the rate at %s) exceeds max_time_s %g; "
                 "raise max_time_s (or --max-time) to run it",
                 projected, from, item->budget.max_time_s);
        add_all_timings(cfg, ci, c, slot, GB_RS_SKIPPED, why);
        return;
    }

    void *state = NULL;
    double setup = 0, bytes = 0;
    status = prepare_case(cfg, slot, c, in, &state, &setup, &bytes, &e);
    if (status != GB_OK) {
        add_all_timings(cfg, ci, c, slot, status == GB_SKIP ? GB_RS_SKIPPED : GB_RS_ERROR, e.msg);
        if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        return;
    }

    gb_budget budget = gb_round_budget(&item->budget, rounds, 0);
    long made[GB_MAX_TIMINGS];
    int measured_any = 0, fatal = 0;
    for (int t = 0; t < b->ntimings; t++) {
        made[t] = -1;
        if (!timing_applies(b, c, t)) continue;
        long ri = made[t] = new_result(cfg, ci, slot, b->timings[t], GB_RS_OK, NULL);
        if (ri < 0) continue;
        gb_result *r = &case_at(cfg, ci)->results[ri];
        r->setup_s = setup;
        r->has |= GB_R_HAS_SETUP;
        if (fatal) { set_status(r, GB_RS_ERROR, e.msg); continue; }
        track *tr = &tracks[t];
        int capped;
        status = measure(cfg, c, slot_index, b, state, t, &budget, GB_VISIT_FIRST, tr, &capped, &e);
        r = &case_at(cfg, ci)->results[ri];
        if (status != GB_OK) {
            set_status(r, GB_RS_ERROR, e.msg);
            if (status == GB_FATAL) {
                fatal = 1;
                gb_backends_disable(slot, e.msg);
            }
        } else if (tr->s.n == 0) {
            set_status(r, GB_RS_SKIPPED, "interrupted");
        } else {
            tr->result = (size_t)ri;
            tr->backend = slot->name;
            /* the peaks are measured on the backend's first device only */
            tr->ceiling = b->ceiling && gb_backends_first_of_backend(slot) ? b->ceiling(c, t) : NULL;
            tr->again = !capped && rounds > 1;
            write_measurement(cfg, ci, c, tr);
            measured_any = 1;
            if (t == 0)
                gb_rate_record(rates, item->benchmark, c->dtype, slot_index, case_work(c),
                               fastest(tr->s.v, tr->s.n), c->label);
        }
    }

    /* Fetch and check the output of the last repetition. */
    double t0 = gb_now();
    gb_verdict v;
    memset(&v, 0, sizeof v);
    cJSON *extra = cJSON_CreateObject();
    gb_arrays out = {0};
    if (measured_any && !fatal) {
        OUTSIDE_MODEL(status = b->fetch(state, &out, &e));
        if (status != GB_OK) {
            v.status = GB_VERIFY_FAILED;
            snprintf(v.detail, sizeof v.detail, "fetching the output failed: %.200s", e.msg);
            if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        } else {
            OUTSIDE_MODEL(c->op->verify(c, in, &out, ref->have ? &ref->out : NULL, &v));
            if (ref->have && !v.against[0]) snprintf(v.against, sizeof v.against, "%s", ref->from);
        }
        if (b->annotate) b->annotate(state, extra);
    }
    double verify_s = gb_now() - t0;
    account(cfg, c->op_id, GB_T_VERIFY, verify_s);

    /* annotate() writes its facts as cJSON (the backend ABI): the model takes them from there */
    for (int t = 0; t < b->ntimings; t++) {
        if (made[t] < 0) continue;
        gb_result *r = &case_at(cfg, ci)->results[made[t]];
        if (r->status == GB_RS_OK && v.status == GB_VERIFY_FAILED) {
            set_status(r, GB_RS_FAILED, v.detail[0] ? v.detail : "verification failed");
            tracks[t].again = 0; /* a wrong answer is not timed further */
        }
        set_verdict(r, &v);
        if (measured_any && !fatal) {
            r->verify_s = verify_s;
            r->has |= GB_R_HAS_VERIFY;
        }
        if (gb_kvlist_from_cjson(&r->extra, extra, "extra", &e) != GB_OK) model_oom = 1;
    }
    cJSON_Delete(extra);
    int wanted = 0;
    for (int t = 0; t < b->ntimings; t++) wanted |= made[t] >= 0 && tracks[t].again;
    keep_or_release(cfg, ct, slot_index, c, state, bytes, wanted && !fatal && !slot->disabled);

    if (v.status == GB_VERIFY_PASSED && !ref->have) {
        ref->out = out;
        ref->from = slot->name;
        ref->have = 1;
    } else {
        gb_arrays_free(&out);
    }
}

/* A later visit: on the state kept from the last visit, or prepared again
 * (kept_states), measure the timings still taking part, keep or release.
 * The output was verified on the first visit. */
static void run_backend_again(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot,
                              int slot_index, const gb_arrays *in, case_tracks *ct, int round, int rounds) {
    const gb_backend *b = slot->b;
    size_t ci = ct->ci;
    track *tracks = ct->t[slot_index];
    int wanted = 0;
    for (int t = 0; t < b->ntimings; t++) wanted |= tracks[t].again;
    if (slot->disabled) /* a fatal error since: what earlier rounds measured stands */
        for (int t = 0; t < b->ntimings; t++) tracks[t].again = 0;
    if (!wanted || slot->disabled || gb_interrupted) {
        release_state(cfg, ct, slot_index, item->c.op_id);
        return;
    }
    gb_err e = {{0}};
    char why[GB_MSG_LEN + 32];
    double bytes = ct->state_bytes[slot_index], setup = 0;
    void *state = take_state(ct, slot_index);
    gb_visit visit = state ? GB_VISIT_KEPT : GB_VISIT_AGAIN;
    int prepared = use_slot(cfg, slot, &item->c, 0, &e);
    if (prepared == GB_OK && !state) prepared = prepare_case(cfg, slot, &item->c, in, &state, &setup, &bytes, &e);
    if (cfg->breakdown) {
        if (visit == GB_VISIT_KEPT) cfg->breakdown->kept_visits++;
        else cfg->breakdown->prepared_again++;
    }
    int status = prepared;
    if (prepared == GB_FATAL) gb_backends_disable(slot, e.msg);
    gb_budget budget = gb_round_budget(&item->budget, rounds, round);
    for (int t = 0; t < b->ntimings; t++) {
        track *tr = &tracks[t];
        if (!tr->again) continue;
        int capped = 0, measured = 0;
        if (status == GB_OK && !gb_interrupted) {
            status = measure(cfg, &item->c, slot_index, b, state, t, &budget, visit, tr, &capped, &e);
            measured = status == GB_OK;
        }
        if (status != GB_OK) {
            /* what earlier rounds measured stays, but the result says it broke */
            snprintf(why, sizeof why, "round %d: %s", round + 1, e.msg);
            set_status(&case_at(cfg, ci)->results[tr->result], GB_RS_ERROR, why);
            tr->again = 0;
            if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
            if (prepared == GB_OK && status != GB_FATAL) status = GB_OK; /* the next timing may work */
            continue;
        }
        if (measured) write_measurement(cfg, ci, &item->c, tr);
        tr->again = measured && !capped && !gb_interrupted && round + 1 < rounds;
    }
    int again = 0;
    for (int t = 0; t < b->ntimings; t++) again |= tracks[t].again;
    if (visit == GB_VISIT_KEPT || prepared == GB_OK)
        keep_or_release(cfg, ct, slot_index, &item->c, state, bytes, prepared == GB_OK && again && !slot->disabled);
}

/* The ok result of a slot (its backend, and its device when it has one) for a timing. */
static const gb_result *find_result(const gb_case_result *c, const gb_backend_slot *slot, const char *timing) {
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *r = &c->results[i];
        if (!strcmp(r->backend, slot->name) && !strcmp(r->timing, timing) && r->status == GB_RS_OK &&
            !r->concurrent.present &&
            (!slot->has_device || !r->device.present || r->device.index == slot->device.index))
            return r;
    }
    return NULL;
}

/* speedup = the host backend's median / an accelerator's median, for each
 * of the accelerator's timings, when both are ok; keyed by the timing's name. */
static void add_speedups(gb_case_result *c, const gb_backend_set *set) {
    const gb_result *host = NULL;
    for (int k = 0; k < set->count && !host; k++) {
        const gb_backend *b = set->slot[k].b;
        if (b && b->role == GB_ROLE_HOST) host = find_result(c, &set->slot[k], b->timings[0]);
    }
    if (!host) return;
    /* from an earlier round */
    for (size_t i = 0; i < c->nspeedups; i++) free(c->speedups[i].timing);
    c->nspeedups = 0;
    c->has &= ~(unsigned)GB_C_HAS_SPEEDUP;
    for (int k = 0; k < set->count; k++) {
        const gb_backend *b = set->slot[k].b;
        /* the case's speedup is against the backend's first device; the
         * others' are their medians' ratios (report: one row per device) */
        if (!b || b->role != GB_ROLE_ACCELERATOR || !gb_backends_first_of_backend(&set->slot[k])) continue;
        for (int t = 0; t < b->ntimings; t++) {
            double ratio = gb_result_speedup(host, find_result(c, &set->slot[k], b->timings[t]));
            if (isnan(ratio)) continue;
            gb_speedup *more = realloc(c->speedups, (c->nspeedups + 1) * sizeof *more);
            if (!more) {
                model_oom = 1;
                return;
            }
            c->speedups = more;
            if (!(more[c->nspeedups].timing = strdup(b->timings[t]))) {
                model_oom = 1;
                return;
            }
            more[c->nspeedups++].value = ratio;
            c->has |= GB_C_HAS_SPEEDUP;
        }
    }
}

/* Rewrite the results file with what is measured so far (atomically: a
 * killed run leaves a valid file). A whole rewrite grows with the run — on
 * the H100 host the default suite's 264 rewrites took 12.7 s — so after the
 * first one it is done at most every GB_CHECKPOINT_MIN_S and at most 5% of
 * the time (20 × the last write's cost apart), and always when asked
 * (`now`: the end of a round but the last, which cmd_run's final write
 * follows at once) and once at an interruption (the cases after it are only
 * listed, quickly, and the final write follows: forcing a write for each
 * made an interrupted 10,000-case run rewrite its file thousands of times).
 * So writing costs grow with the cases, not with cases × rewrites: 10,000
 * tiny cases take about ten times as long as 1,000 (README, Reliability). */
#define GB_CHECKPOINT_MIN_S 5.0
static double last_end = -1, last_cost = 0; /* the last write of this run (reset by gb_runner_run) */
static int interruption_written;            /* likewise */

static int checkpoint(gb_run_config *cfg, int now, gb_err *e) {
    gb_progress_tick(); /* a case done (or listed, after an interruption) */
    if (model_oom) return gb_errf(e, GB_FAIL, "out of memory for the results");
    if (!cfg->out_path) return GB_OK;
    if (gb_interrupted && !interruption_written) now = interruption_written = 1;
    double t0 = gb_now(), gap = 20 * last_cost > GB_CHECKPOINT_MIN_S ? 20 * last_cost : GB_CHECKPOINT_MIN_S;
    if (!now && last_end >= 0 && t0 - last_end < gap) return GB_OK;
    gb_results_summarize(cfg->results);
    int status = gb_results_write(cfg->results, cfg->out_path, GB_WRITE_SAMPLES_6G, e);
    last_end = gb_now();
    last_cost = last_end - t0;
    if (cfg->breakdown) cfg->breakdown->write_s += last_cost;
    return status;
}

/* ---- inputs kept between rounds --------------------------------------------
 * Inputs are made before the clock, from the case's seed, and no backend
 * writes to them (prepare copies what it needs), so a later round can reuse
 * round 0's instead of making them again. They are kept while all kept
 * inputs fit in a quarter of the host memory that was free when the run
 * started; a case beyond that makes its inputs again, as before. */
typedef struct {
    double cap, used;
} input_cache;

static size_t arrays_bytes(const gb_arrays *a) {
    size_t total = 0;
    for (int i = 0; i < a->count; i++) total += a->item[i].count * gb_elem_size(a->item[i].elem);
    return total;
}

static void keep_or_free_inputs(input_cache *cache, case_tracks *ct, gb_arrays *in) {
    double bytes = (double)arrays_bytes(in);
    if (ct->again && cache->used + bytes <= cache->cap) {
        ct->inputs = *in;
        ct->have_inputs = 1;
        cache->used += bytes;
    } else {
        gb_arrays_free(in);
    }
    memset(in, 0, sizeof *in);
}

static void drop_inputs(input_cache *cache, case_tracks *ct) {
    if (!ct->have_inputs) return;
    cache->used -= (double)arrays_bytes(&ct->inputs);
    gb_arrays_free(&ct->inputs);
    ct->have_inputs = 0;
}

/* ---- progress on a terminal ------------------------------------------------ */

static void fmt_duration(char *buf, size_t len, double s) {
    if (s < 60) snprintf(buf, len, "%.0fs", s);
    else if (s < 3600) snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

/* Seconds left: each visit still to come is priced at the case's own last
 * visit, and a case not yet visited at the mean first visit so far. */
static double time_left(const gb_suite *s, const case_tracks *tracks, int round) {
    double first_sum = 0, left = 0;
    size_t first_n = 0;
    for (size_t i = 0; i < s->count; i++)
        if (tracks[i].visits > 0) first_sum += tracks[i].visit_s, first_n++;
    double mean_first = first_n ? first_sum / (double)first_n : 0;
    for (size_t i = 0; i < s->count; i++) {
        const case_tracks *ct = &tracks[i];
        if (ct->visits == 0) left += mean_first * (double)s->rounds;
        else if (ct->again) left += ct->visit_s * (double)(s->rounds - ct->visits);
    }
    (void)round;
    return left;
}

static void show_progress(const gb_run_config *cfg, const gb_suite *s, const case_tracks *tracks, size_t i,
                          int round, const char *backend) {
    if (!cfg->progress) return;
    const gb_case *c = &s->items[i].c;
    char elapsed[32], left[32];
    fmt_duration(elapsed, sizeof elapsed, gb_now() - cfg->started);
    fmt_duration(left, sizeof left, time_left(s, tracks, round));
    fprintf(stderr, "\r\033[K[round %d/%d] [%zu/%zu] %s %s %s%s%s  %s elapsed, ~%s left", round + 1, s->rounds,
            i + 1, s->count, c->op->name, c->label, gb_dtype_name(c->dtype), backend ? ": " : "",
            backend ? backend : "", elapsed, left);
    fflush(stderr);
}

/* ---- host results shared between cases --------------------------------------
 * A param that only accelerators read (gb_op.accelerator_params: matmul's
 * math, elementwise's fast_math) makes a second case that, for a
 * host backend, is the first one again: same op, dtype, shape, seed, budget
 * and other params, so the same inputs and the same computation (the CPU
 * has no TF32). Measuring it twice cost the default suite 6 s on the H100
 * host (the CPU SGEMM 8192 of the tf32 entry). So such a case's host
 * results are copies of its twin's, refreshed after each of its visits and
 * at the end, and say so in extra.same_as; its accelerator results are
 * verified by the op's own check, there being no host output of its own. */

static int same_budget(const gb_budget *a, const gb_budget *b) {
    return a->warmup == b->warmup && a->min_warmup_s == b->min_warmup_s && a->min_reps == b->min_reps &&
           a->max_reps == b->max_reps && a->min_time_s == b->min_time_s && a->max_time_s == b->max_time_s;
}

/* Param p of case c differs from d's (both of the same op). */
static int param_differs(const gb_param_spec *p, const gb_params *c, const gb_params *d) {
    const char *u = (const char *)c + p->offset, *v = (const char *)d + p->offset;
    return p->type == GB_PARAM_DOUBLE ? *(const double *)u != *(const double *)v : *(const int *)u != *(const int *)v;
}

static int accelerator_only(const gb_op *op, const gb_param_spec *p) {
    for (const char *const *k = op->accelerator_params; k && *k; k++)
        if (!strcmp(*k, p->key)) return 1;
    return 0;
}

static int same_host_work(const gb_plan_item *a, const gb_plan_item *b) {
    const gb_case *x = &a->c, *y = &b->c;
    if (x->op_id != y->op_id || x->dtype != y->dtype || x->rank != y->rank || x->seed != y->seed ||
        memcmp(x->shape, y->shape, sizeof x->shape) != 0 || !same_budget(&a->budget, &b->budget))
        return 0;
    for (const gb_param_spec *p = x->op->params; p && p->key; p++)
        if (!accelerator_only(x->op, p) && param_differs(p, &x->params, &y->params)) return 0;
    return 1;
}

/* Each case's twin: the first earlier case of the same host work, looked
 * for only where an accelerator-only param is not at its default (a
 * handful of cases, not every pair of a 10,000-case suite). */
static void host_twins(const gb_suite *s, case_tracks *tracks) {
    gb_params defaults;
    gb_params_default(&defaults);
    for (size_t i = 0; i < s->count; i++) {
        tracks[i].host_twin = -1;
        int special = 0;
        for (const gb_param_spec *p = s->items[i].c.op->params; p && p->key; p++)
            special |= accelerator_only(s->items[i].c.op, p) && param_differs(p, &s->items[i].c.params, &defaults);
        for (size_t j = 0; special && j < i && tracks[i].host_twin < 0; j++)
            if (tracks[j].host_twin < 0 && same_host_work(&s->items[j], &s->items[i])) tracks[i].host_twin = (long)j;
    }
}

/* Copy (again) the twin's results of host slot into case ct; a new copy
 * is appended on the first call. */
static void share_host_results(gb_run_config *cfg, const gb_suite *s, case_tracks *tracks, case_tracks *ct,
                               const gb_backend_slot *slot) {
    const case_tracks *twin = &tracks[ct->host_twin];
    const gb_case *tc = &s->items[ct->host_twin].c;
    cJSON *params = gb_params_to_json(tc);
    char *ptext = params ? cJSON_PrintUnformatted(params) : NULL;
    char same_as[256];
    snprintf(same_as, sizeof same_as, "%s %s %s %s", tc->op->name, gb_dtype_name(tc->dtype), tc->label,
             ptext ? ptext : "");
    free(ptext);
    cJSON_Delete(params);
    gb_err e = {{0}};
    for (size_t r = 0; r < case_at(cfg, twin->ci)->nresults; r++) {
        if (strcmp(case_at(cfg, twin->ci)->results[r].backend, slot->name) != 0) continue;
        int k = 0;
        while (k < ct->nshared && ct->shared[k][1] != r) k++;
        if (k == ct->nshared) {
            if (k == GB_MAX_BACKENDS * GB_MAX_TIMINGS) continue;
            long d = new_result(cfg, ct->ci, slot, "", GB_RS_OK, NULL);
            if (d < 0) continue;
            ct->shared[k][0] = (size_t)d;
            ct->shared[k][1] = r;
            ct->nshared++;
        }
        gb_result *ours = &case_at(cfg, ct->ci)->results[ct->shared[k][0]];
        cJSON *extra = NULL;
        if (gb_result_copy(ours, &case_at(cfg, twin->ci)->results[r]) != GB_OK ||
            !(extra = gb_kvlist_to_cjson(&ours->extra)) || !cJSON_AddStringToObject(extra, "same_as", same_as) ||
            gb_kvlist_from_cjson(&ours->extra, extra, "extra", &e) != GB_OK)
            model_oom = 1;
        cJSON_Delete(extra);
    }
}

/* Refresh every case's shared host results (their twins measured on). */
static void refresh_shared(gb_run_config *cfg, const gb_suite *s, case_tracks *tracks, case_tracks *ct) {
    if (ct->host_twin < 0 || ct->nshared == 0) return;
    for (int k = 0; k < cfg->backends->count; k++)
        if (cfg->backends->slot[k].b && cfg->backends->slot[k].b->role == GB_ROLE_HOST)
            share_host_results(cfg, s, tracks, ct, &cfg->backends->slot[k]);
}

/* ---- visits ------------------------------------------------------------------ */

/* Does a case run on this slot? Every selected one, except that a
 * multi-GPU op runs once per backend (on its first slot: the routine itself
 * spreads over the devices), not once per device. */
static int visits_slot(const gb_case *c, const gb_backend_slot *slot) {
    return slot->selected && (!c->op->multi_device || gb_backends_first_of_backend(slot));
}

/* Round 0 of a case: inputs, every backend, verification. */
static void first_visit(const gb_suite *s, size_t i, gb_run_config *cfg, gb_rate_book *rates,
                        case_tracks *tracks, gb_arrays *in) {
    case_tracks *ct = &tracks[i];
    const gb_plan_item *item = &s->items[i];
    const gb_case *c = &item->c;
    long made_case = new_case(cfg, c);
    if (made_case < 0) return;
    size_t ci = ct->ci = (size_t)made_case;

    if (gb_interrupted) {
        for (int k = 0; k < cfg->backends->count; k++)
            if (visits_slot(c, &cfg->backends->slot[k])) add_all_timings(cfg, ci, c, &cfg->backends->slot[k], GB_RS_SKIPPED, "interrupted");
        return;
    }
    double need = c->op->host_bytes(c), avail = host_available_bytes();
    gb_err err = {{0}};
    int made = GB_FAIL;
    double t0 = gb_now();
    if (need > avail)
        snprintf(err.msg, sizeof err.msg, "needs %.2f GiB of host memory, %.2f GiB available",
                 need / 1073741824.0, avail / 1073741824.0);
    else
        OUTSIDE_MODEL(made = c->op->make_inputs(c, in, &err));
    spent(cfg, item->c.op_id, GB_T_INPUTS, t0);
    if (made != GB_OK) {
        for (int k = 0; k < cfg->backends->count; k++)
            if (visits_slot(c, &cfg->backends->slot[k]))
                add_all_timings(cfg, ci, c, &cfg->backends->slot[k],
                                made == GB_FAIL && need <= avail ? GB_RS_ERROR : GB_RS_SKIPPED, err.msg);
        return;
    }
    reference ref = {0};
    for (int k = 0; k < cfg->backends->count; k++) {
        gb_backend_slot *slot = &cfg->backends->slot[k];
        if (!visits_slot(c, slot)) continue;
        if (ct->host_twin >= 0 && slot->b && slot->b->role == GB_ROLE_HOST) {
            share_host_results(cfg, s, tracks, ct, slot);
            continue;
        }
        show_progress(cfg, s, tracks, i, 0, slot->name);
        run_backend(cfg, item, slot, k, in, &ref, rates, ct, s->rounds);
    }
    if (ref.have) gb_arrays_free(&ref.out);
}

/* ---- all devices at once (--devices-concurrent) ------------------------------ */

/* Repetitions of a concurrent measurement: the case's min_reps, at least 3. */
#define GB_CONCURRENT_MIN_REPS 3

/* Record one lane of a concurrent measurement as a result of its device,
 * marked with the group's size and aggregate rates. */
static void record_lane(gb_run_config *cfg, size_t ci, const gb_case *c, const gb_concurrent_lane *l, int timing,
                        int nlanes, double agg_gflops, double agg_gbs) {
    const gb_backend *b = l->slot->b;
    int ok = l->status == GB_OK && l->n > 0;
    gb_result_status status = ok ? GB_RS_OK : l->status == GB_OK || l->status == GB_SKIP ? GB_RS_SKIPPED : GB_RS_ERROR;
    long ri = new_result(cfg, ci, l->slot, b->timings[timing], status,
                         ok ? NULL : l->status == GB_OK ? "interrupted" : l->err.msg);
    if (ri < 0) return;
    gb_result *r = &case_at(cfg, ci)->results[ri];
    r->concurrent.present = 1;
    r->concurrent.devices = nlanes;
    r->concurrent.aggregate_gflops = agg_gflops;
    r->concurrent.aggregate_gbs = agg_gbs;
    gb_verdict v;
    memset(&v, 0, sizeof v);
    v.status = GB_VERIFY_NOT_CHECKED;
    v.error = v.tolerance = NAN;
    snprintf(v.detail, sizeof v.detail, "verified when the device ran the case alone");
    set_verdict(r, &v);
    if (!ok) return;
    size_t round_n = (size_t)l->n;
    set_stats(r, l->samples, (size_t)l->n, &round_n, 1, c);
    r->nrounds = 1;
    if ((r->round_sizes = malloc(sizeof *r->round_sizes))) r->round_sizes[0] = round_n;
    else model_oom = 1;
    r->has |= GB_R_HAS_ROUNDS;
}

/* Run case i on every device of each accelerator backend at once, for each
 * of its timings, after its visit in turn (round 0). */
static void concurrent_visit(const gb_plan_item *item, size_t ci, gb_run_config *cfg, const gb_arrays *in) {
    const gb_case *c = &item->c;
    gb_backend_set *set = cfg->backends;
    if (c->op->multi_device || gb_interrupted) return;
    int reps = item->budget.min_reps > GB_CONCURRENT_MIN_REPS ? item->budget.min_reps : GB_CONCURRENT_MIN_REPS;
    double *buf = malloc((size_t)reps * GB_MAX_BACKENDS * sizeof *buf);
    if (!buf) {
        model_oom = 1;
        return;
    }
    for (int k = 0; k < set->count; k++) {
        if (!set->slot[k].has_device || set->slot[k].device_pos != 0) continue; /* once per backend */
        gb_concurrent_lane lanes[GB_MAX_BACKENDS];
        int n = 0;
        for (int j = 0; j < set->count; j++) {
            gb_backend_slot *d = &set->slot[j];
            if (d->b == set->slot[k].b && d->has_device && d->selected && !d->disabled) {
                memset(&lanes[n], 0, sizeof lanes[n]);
                lanes[n].slot = d;
                lanes[n].samples = buf + (size_t)n * (size_t)reps;
                n++;
            }
        }
        const gb_backend *b = set->slot[k].b;
        for (int t = 0; t < b->ntimings && n > 0 && !gb_interrupted; t++) {
            if (!timing_applies(b, c, t)) continue; /* as alone: no result for a timing the op lacks */
            gb_err e = {{0}};
            double t0 = gb_now();
            int warmup = item->budget.warmup > 1 ? item->budget.warmup : 1;
            int cst;
            OUTSIDE_MODEL(cst = gb_concurrent_measure(c, in, lanes, n, t, warmup, reps, &gb_interrupted, &e));
            if (cst != GB_OK)
                for (int j = 0; j < n; j++) lanes[j].status = gb_errf(&lanes[j].err, GB_FAIL, "%s", e.msg);
            spent(cfg, c->op_id, GB_T_SAMPLES, t0);
            /* every device's work over its own median, summed */
            double gflops = 0, gbs = 0;
            int all_ok = 1;
            for (int j = 0; j < n; j++) {
                gb_stats st;
                if (lanes[j].status != GB_OK || lanes[j].n == 0) {
                    all_ok = 0;
                    continue;
                }
                gb_stats_compute(lanes[j].samples, (size_t)lanes[j].n, &st);
                gflops += c->flops / st.median * 1e-9;
                gbs += c->bytes / st.median * 1e-9;
            }
            for (int j = 0; j < n; j++)
                record_lane(cfg, ci, c, &lanes[j], t, n, all_ok && c->flops > 0 ? gflops : NAN,
                            all_ok && c->bytes > 0 ? gbs : NAN);
        }
    }
    free(buf);
}

/* Round 1, 2, ... of a case: the same inputs (same seed), kept from round 0
 * or made again. */
static void next_visit(const gb_suite *s, size_t i, int round, gb_run_config *cfg, case_tracks *tracks) {
    case_tracks *ct = &tracks[i];
    const gb_plan_item *item = &s->items[i];
    gb_arrays made_now = {0};
    const gb_arrays *in = &ct->inputs;
    if (!ct->have_inputs) {
        gb_err err = {{0}};
        double t0 = gb_now();
        int status;
        OUTSIDE_MODEL(status = item->c.op->make_inputs(&item->c, &made_now, &err));
        spent(cfg, item->c.op_id, GB_T_INPUTS, t0);
        if (status != GB_OK) {
            /* it worked in round 0: keep those samples, say why the rounds stop */
            for (int k = 0; k < cfg->backends->count; k++)
                for (int t = 0; t < GB_MAX_TIMINGS; t++)
                    if (ct->t[k][t].again) {
                        char why[GB_MSG_LEN + 32];
                        snprintf(why, sizeof why, "round %d: %s", round + 1, err.msg);
                        set_status(&case_at(cfg, ct->ci)->results[ct->t[k][t].result], GB_RS_ERROR, why);
                        ct->t[k][t].again = 0;
                    }
            gb_arrays_free(&made_now);
            return;
        }
        in = &made_now;
    }
    for (int k = 0; k < cfg->backends->count; k++) {
        gb_backend_slot *slot = &cfg->backends->slot[k];
        if (!visits_slot(&item->c, slot) || !slot->b) continue;
        show_progress(cfg, s, tracks, i, round, slot->name);
        run_backend_again(cfg, item, slot, k, in, ct, round, s->rounds);
    }
    refresh_shared(cfg, s, tracks, ct);
    if (!ct->have_inputs) release_case_states(cfg, ct, item->c.op_id); /* they read made_now */
    gb_arrays_free(&made_now);
}

static int case_again(const case_tracks *ct) {
    for (int k = 0; k < GB_MAX_BACKENDS; k++)
        for (int t = 0; t < GB_MAX_TIMINGS; t++)
            if (ct->t[k][t].again) return 1;
    return 0;
}

static void free_tracks(case_tracks *ct) {
    for (int k = 0; k < GB_MAX_BACKENDS; k++)
        for (int t = 0; t < GB_MAX_TIMINGS; t++) gb_samples_free(&ct->t[k][t].s);
}

int gb_runner_run(const gb_suite *s, gb_run_config *cfg, gb_err *e) {
    gb_rate_book *rates = gb_rate_book_new();
    case_tracks *tracks = calloc(s->count ? s->count : 1, sizeof *tracks);
    if (!tracks || !rates) {
        free(tracks);
        gb_rate_book_free(rates);
        return gb_errf(e, GB_FAIL, "out of memory for %zu cases", s->count);
    }
    gb_model_lock(); /* let go of around each backend call (OUTSIDE_MODEL) */
    if (cfg->started <= 0) cfg->started = gb_now();
    last_end = -1; /* the run's first visit is written at once */
    last_cost = 0;
    interruption_written = 0;
    model_oom = 0;
    input_cache cache = {.cap = cfg->keep_bytes > 0 ? cfg->keep_bytes : 0.25 * host_available_bytes(), .used = 0};
    /* --devices-concurrent prepares the case on every device at once: nothing kept there */
    kept = (kept_states){.suite = s, .tracks = tracks, .cap = cfg->concurrent ? 0 : cache.cap, .used = 0};
    host_twins(s, tracks);
    int status = GB_OK;
    /* Round 0 visits every case and prints its line as soon as it is
     * measured (later rounds refine it in the final table); later rounds
     * revisit, in the same order, the results that did not hit max_time_s
     * (stopping.h). */
    for (int round = 0; round < s->rounds && status == GB_OK; round++) {
        for (size_t i = 0; i < s->count && status == GB_OK; i++) {
            case_tracks *ct = &tracks[i];
            double t0 = gb_now();
            if (round == 0) {
                show_progress(cfg, s, tracks, i, 0, NULL);
                gb_arrays in = {0};
                first_visit(s, i, cfg, rates, tracks, &in);
                if (cfg->concurrent && in.count > 0) concurrent_visit(&s->items[i], ct->ci, cfg, &in);
                ct->again = !gb_interrupted && case_again(ct);
                keep_or_free_inputs(&cache, ct, &in);
                /* a state may read its case's inputs (prepare need not copy
                 * them: the CPU backend's do not), so it lives only as long
                 * as they do */
                if (!ct->have_inputs) release_case_states(cfg, ct, s->items[i].c.op_id);
            } else {
                if (!ct->again || gb_interrupted) continue;
                next_visit(s, i, round, cfg, tracks);
                ct->again = !gb_interrupted && case_again(ct);
            }
            ct->visit_s = gb_now() - t0;
            ct->visits = round + 1;
            if (model_oom) status = gb_errf(e, GB_FAIL, "out of memory for the results");
            if (status != GB_OK) break;
            gb_case_result *cr = case_at(cfg, ct->ci);
            add_speedups(cr, cfg->backends);
            if (cfg->progress) fprintf(stderr, "\r\033[K");
            if (round == 0 && !cfg->quiet && cfg->lines) {
                gb_report_case(cfg->results, cr, cfg->lines);
                fflush(cfg->lines);
            }
            if (!ct->again) {
                drop_inputs(&cache, ct);
                release_case_states(cfg, ct, s->items[i].c.op_id);
                free_tracks(ct);
            }
            status = checkpoint(cfg, i + 1 == s->count && round + 1 < s->rounds, e);
        }
        if (gb_interrupted) break;
    }
    for (size_t i = 0; i < s->count; i++) {
        if (tracks[i].nshared > 0) { /* the twin's last rounds, where this case had none */
            refresh_shared(cfg, s, tracks, &tracks[i]);
            add_speedups(case_at(cfg, tracks[i].ci), cfg->backends);
        }
        drop_inputs(&cache, &tracks[i]);
        release_case_states(cfg, &tracks[i], s->items[i].c.op_id);
        free_tracks(&tracks[i]);
    }
    if (model_oom && status == GB_OK) status = gb_errf(e, GB_FAIL, "out of memory for the results");
    kept = (kept_states){0};
    free(tracks);
    gb_rate_book_free(rates);
    gb_model_unlock();
    return status;
}
