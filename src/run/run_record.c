/* run_record.c — recording into the results model: a case's entry, its results,
 * their samples, statistics, verdicts, peaks and speedups, and where the
 * run's time went (the breakdown). See runner.h. */
#include "run_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "op.h"
#include "stats.h"

volatile sig_atomic_t gb_interrupted = 0;

/* ---- results entries ------------------------------------------------------
 * The runner fills the results model (results_model.h) in cfg->results.
 * Adding a case or a result may move the earlier ones (realloc), so cases
 * and results are named by index, never by a pointer kept across an add. An
 * out-of-memory while filling it is remembered and fails the next
 * checkpoint. */

int gb_run_model_oom;

void gb_run_set_status(gb_result *r, gb_result_status status, const char *reason) {
    r->status = status;
    if (gb_set_string(&r->reason, reason ? reason : "") != GB_OK) gb_run_model_oom = 1;
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
long gb_run_new_result(gb_run_config *cfg, size_t ci, const gb_backend_slot *slot, const char *timing,
                       gb_result_status status, const char *reason) {
    gb_case_result *c = case_at(cfg, ci);
    gb_result *r = gb_case_add_result(c);
    if (!r || gb_set_string(&r->backend, slot->name) != GB_OK || gb_set_string(&r->timing, timing) != GB_OK ||
        set_device(r, slot, c) != GB_OK) {
        gb_run_model_oom = 1;
        return -1;
    }
    gb_run_set_status(r, status, reason);
    return (long)(c->nresults - 1);
}

void gb_run_set_stats(gb_result *r, const double *samples, size_t n, const size_t *round_n, int rounds,
                      const gb_case *c) {
    double *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy) {
        gb_run_model_oom = 1;
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

void gb_run_set_verdict(gb_result *r, const gb_verdict *v) {
    gb_verification *o = &r->verification;
    o->present = 1;
    o->status = v->status == GB_VERIFY_PASSED ? GB_VS_PASSED
                : v->status == GB_VERIFY_FAILED ? GB_VS_FAILED : GB_VS_NOT_CHECKED;
    if (gb_set_string(&o->against, v->against) != GB_OK || gb_set_string(&o->metric, v->metric) != GB_OK ||
        gb_set_string(&o->detail, v->detail) != GB_OK)
        gb_run_model_oom = 1;
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
        if (gb_set_string(&r->peak, full) != GB_OK) gb_run_model_oom = 1;
    }
}


const char *const gb_time_part_key[GB_T_PARTS] = {"samples_s", "timing_overhead_s", "warmup_s",
                                                   "setup_s",   "inputs_s",          "verify_s", "energy_s"};
const char *const gb_time_part_text[GB_T_PARTS] = {
    "timed samples", "between samples (syncs, restores, flushes)", "warm-up", "backend set-up and release",
    "making inputs", "fetching and verifying outputs", "energy (idle probe, energy phases)"};

/* Add seconds to a part of the breakdown, overall and for the op. */
void gb_run_account(gb_run_config *cfg, gb_op_id op, gb_time_part part, double seconds) {
    if (!cfg->breakdown) return;
    cfg->breakdown->all[part] += seconds;
    cfg->breakdown->by_op[op][part] += seconds;
}

/* (Re)write a result's samples and everything computed from them. */
/* A round whose median is GB_STALL_FACTOR times the median of the case's
 * other rounds' medians or more stalled: the VM took the CPUs, another
 * process ran, a pool slept. It is named in extra.stalled_rounds ([{round
 * (1-based), median_s, times_others, steal_cpu_s: the VM's steal time while
 * it measured, all CPUs}]) so that a reader sees why the spread is wide;
 * the result's median, over every sample, is barely moved by one round of
 * several, and the projection of the next size reads the fastest sample
 * (stopping.h), so a stall decides no skip. */
#define GB_STALL_FACTOR 3.0

static void note_stalled_rounds(gb_result *r, const track *t) {
    int n = t->s.rounds;
    if (n < 2 || n > GB_MAX_ROUNDS) return;
    double med[GB_MAX_ROUNDS], other[GB_MAX_ROUNDS];
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        size_t k = t->s.round_n[i];
        if (at + k > t->s.n || k == 0) return;
        med[i] = gb_median(t->s.v + at, k);
        at += k;
    }
    cJSON *list = NULL;
    for (int i = 0; i < n; i++) {
        int m = 0;
        for (int j = 0; j < n; j++)
            if (j != i) other[m++] = med[j];
        double others = gb_median(other, (size_t)m);
        if (!(others > 0) || med[i] < GB_STALL_FACTOR * others) continue;
        if (!list && !(list = cJSON_CreateArray())) return;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "round", i + 1);
        cJSON_AddNumberToObject(o, "median_s", med[i]);
        cJSON_AddNumberToObject(o, "times_others", med[i] / others);
        cJSON_AddNumberToObject(o, "steal_cpu_s", t->steal_s[i]);
        cJSON_AddItemToArray(list, o);
    }
    cJSON *extra = gb_kvlist_to_cjson(&r->extra);
    if (!extra) {
        cJSON_Delete(list);
        return;
    }
    int had = cJSON_GetObjectItemCaseSensitive(extra, "stalled_rounds") != NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(extra, "stalled_rounds");
    if (list) cJSON_AddItemToObject(extra, "stalled_rounds", list);
    gb_err e = {{0}};
    gb_kvlist copy = {0};
    if ((list || had) && gb_kvlist_from_cjson(&copy, extra, "extra", &e) == GB_OK) {
        gb_kvlist_free(&r->extra);
        r->extra = copy;
    } else if (list || had) {
        gb_run_model_oom = 1;
    }
    cJSON_Delete(extra);
}

void gb_run_write_measurement(gb_run_config *cfg, size_t ci, const gb_case *c, const track *t) {
    gb_result *r = &case_at(cfg, ci)->results[t->result];
    r->warmup_reps = t->s.warmup_reps;
    r->has |= GB_R_HAS_WARMUP;
    size_t *sizes = malloc((t->s.rounds > 0 ? (size_t)t->s.rounds : 1) * sizeof *sizes);
    if (!sizes) {
        gb_run_model_oom = 1;
        return;
    }
    for (int i = 0; i < t->s.rounds; i++) sizes[i] = (size_t)t->s.round_n[i];
    free(r->round_sizes);
    r->round_sizes = sizes;
    r->nrounds = (size_t)t->s.rounds;
    r->has |= GB_R_HAS_ROUNDS;
    gb_run_set_stats(r, t->s.v, t->s.n, t->s.round_n, t->s.rounds, c);
    set_pct_of_peak(cfg, c, r, t->backend, t->ceiling);
    note_stalled_rounds(r, t);
}

/* ---- one case ------------------------------------------------------------- */

/* Append the case's entry to the results; its index in cases, or -1 on out
 * of memory. */
long gb_run_new_case(gb_run_config *cfg, const gb_case *c) {
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
    gb_run_model_oom = 1;
    return -1;
}

/* Add a result with the same status for every timing of a backend that
 * applies to the case. */
void gb_run_add_all_timings(gb_run_config *cfg, size_t ci, const gb_case *c, const gb_backend_slot *slot,
                            gb_result_status status, const char *reason) {
    if (!slot->b) return;
    for (int t = 0; t < slot->b->ntimings; t++)
        if (timing_applies(slot->b, c, t)) gb_run_new_result(cfg, ci, slot, slot->b->timings[t], status, reason);
}
/* Add the seconds since t0 to a part of the breakdown. */
void gb_run_spent(gb_run_config *cfg, gb_op_id op, gb_time_part part, double t0) { gb_run_account(cfg, op, part, gb_now() - t0); }
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
 * of the accelerator's timings, when both are ok; keyed by the timing's name.
 * The libraries' alone: a framework peer on the GPU (CuPy, PyTorch, JAX)
 * has its own timing "host" too, and a speedup of each made the key "host"
 * twice, a file gpubench's own reader refused (the peers' speedups are the
 * report's, report_peers.c). */
void gb_run_add_speedups(gb_case_result *c, const gb_backend_set *set) {
    const gb_result *host = NULL;
    for (int k = 0; k < set->count && !host; k++) {
        const gb_backend *b = set->slot[k].b;
        if (b && !set->slot[k].peer && b->role == GB_ROLE_HOST) host = find_result(c, &set->slot[k], b->timings[0]);
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
        if (!b || set->slot[k].peer || b->role != GB_ROLE_ACCELERATOR || !gb_backends_first_of_backend(&set->slot[k]))
            continue;
        for (int t = 0; t < b->ntimings; t++) {
            double ratio = gb_result_speedup(host, find_result(c, &set->slot[k], b->timings[t]));
            if (isnan(ratio)) continue;
            gb_speedup *more = realloc(c->speedups, (c->nspeedups + 1) * sizeof *more);
            if (!more) {
                gb_run_model_oom = 1;
                return;
            }
            c->speedups = more;
            if (!(more[c->nspeedups].timing = strdup(b->timings[t]))) {
                gb_run_model_oom = 1;
                return;
            }
            more[c->nspeedups++].value = ratio;
            c->has |= GB_C_HAS_SPEEDUP;
        }
    }
}
