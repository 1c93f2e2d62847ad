/* runner.c — see runner.h. The one place where results are timed. */
#include "runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "results_io.h"
#include "stats.h"
#include "timer.h"

volatile sig_atomic_t gb_interrupted = 0;

static double case_work(const gb_case *c) { return c->flops > 0 ? c->flops : c->bytes; }

/* ---- host memory ---------------------------------------------------------- */

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

/* ---- results entries ------------------------------------------------------ */

static cJSON *new_result(const char *backend, const char *timing, const char *status,
                         const char *reason) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "backend", backend);
    cJSON_AddStringToObject(r, "timing", timing);
    cJSON_AddStringToObject(r, "status", status);
    cJSON_AddStringToObject(r, "reason", reason ? reason : "");
    return r;
}

static void set_status(cJSON *r, const char *status, const char *reason) {
    cJSON_ReplaceItemInObjectCaseSensitive(r, "status", cJSON_CreateString(status));
    cJSON_ReplaceItemInObjectCaseSensitive(r, "reason", cJSON_CreateString(reason ? reason : ""));
}

static void add_number_or_null(cJSON *o, const char *key, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, key, v);
    else cJSON_AddNullToObject(o, key);
}

/* Samples as a raw JSON array with 6 significant digits: a timer's
 * resolution is far coarser than cJSON's 17 digits, and thousands of samples
 * per result would otherwise triple the file. */
static cJSON *samples_json(const double *samples, size_t n) {
    size_t cap = 16 * n + 3, len = 0;
    char *text = malloc(cap);
    if (!text) return cJSON_CreateDoubleArray(samples, (int)n);
    text[len++] = '[';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s%.6g", i ? "," : "", samples[i]);
    text[len++] = ']';
    text[len] = '\0';
    cJSON *raw = cJSON_CreateRaw(text);
    free(text);
    return raw;
}

static void add_stats(cJSON *r, const double *samples, size_t n, const size_t *round_n, int rounds,
                      const gb_case *c) {
    cJSON_AddItemToObject(r, "samples_s", samples_json(samples, n));
    gb_stats st;
    gb_stats_compute(samples, n, &st);
    gb_stats_widen_to_rounds(samples, round_n, rounds, &st);
    cJSON *s = cJSON_AddObjectToObject(r, "stats");
    cJSON_AddNumberToObject(s, "n", (double)st.n);
    cJSON_AddNumberToObject(s, "min", st.min);
    cJSON_AddNumberToObject(s, "median", st.median);
    cJSON_AddNumberToObject(s, "mean", st.mean);
    cJSON_AddNumberToObject(s, "stddev", st.stddev);
    cJSON_AddNumberToObject(s, "cv", st.cv);
    cJSON_AddNumberToObject(s, "ci95_low", st.ci95_low);
    cJSON_AddNumberToObject(s, "ci95_high", st.ci95_high);
    add_number_or_null(r, "gflops", c->flops > 0 && st.median > 0 ? c->flops / st.median * 1e-9 : NAN);
    add_number_or_null(r, "gbs", c->bytes > 0 && st.median > 0 ? c->bytes / st.median * 1e-9 : NAN);
}

static void add_verdict(cJSON *r, const gb_verdict *v) {
    cJSON *o = cJSON_AddObjectToObject(r, "verification");
    const char *st = v->status == GB_VERIFY_PASSED ? "passed"
                     : v->status == GB_VERIFY_FAILED ? "failed" : "not_checked";
    cJSON_AddStringToObject(o, "status", st);
    cJSON_AddStringToObject(o, "against", v->against);
    cJSON_AddStringToObject(o, "metric", v->metric);
    add_number_or_null(o, "error", v->error);
    add_number_or_null(o, "tolerance", v->tolerance);
    cJSON_AddStringToObject(o, "detail", v->detail);
}

/* ---- peaks ---------------------------------------------------------------- */

/* pct_of_peak and peak of a result: its rate against the ceiling its
 * backend named (gb_backend.ceiling), as measured into peaks.<backend>. */
static void add_pct_of_peak(cJSON *results, const gb_case *c, cJSON *r, const char *backend, const char *key) {
    const cJSON *peaks = cJSON_GetObjectItemCaseSensitive(results, "peaks");
    const cJSON *bp = peaks ? cJSON_GetObjectItemCaseSensitive(peaks, backend) : NULL;
    const cJSON *pv = key && bp ? cJSON_GetObjectItemCaseSensitive(bp, key) : NULL;
    const cJSON *achieved = cJSON_GetObjectItemCaseSensitive(r, c->memory_bound ? "gbs" : "gflops");
    if (cJSON_IsNumber(pv) && pv->valuedouble > 0 && cJSON_IsNumber(achieved)) {
        cJSON_AddNumberToObject(r, "pct_of_peak", 100.0 * achieved->valuedouble / pv->valuedouble);
        char full[64];
        snprintf(full, sizeof full, "%s.%s", backend, key);
        cJSON_AddStringToObject(r, "peak", full);
    } else {
        cJSON_AddNullToObject(r, "pct_of_peak");
        cJSON_AddNullToObject(r, "peak");
    }
}

/* ---- measuring ------------------------------------------------------------ */

/* Every sample of one result (case × backend × timing), across rounds. */
typedef struct {
    cJSON *result;                  /* its entry in the results document; NULL: none */
    gb_samples s;
    int again;                      /* measure it in the next round too */
    const char *backend;            /* its backend's name and the ceiling that bounds it */
    const char *ceiling;
} track;

/* The tracks of one case: per backend slot and timing. */
typedef struct {
    track t[GB_MAX_BACKENDS][GB_MAX_TIMINGS];
    cJSON *obj;                     /* the case's entry in the results document */
    int again;                      /* some track is measured in the next round */
    gb_arrays inputs;               /* round 0's inputs, kept for later rounds when they fit */
    int have_inputs;
    double visit_s;                 /* wall time of its last visit (for the estimate of time left) */
    int visits;
} case_tracks;

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

static int measure(gb_run_config *cfg, const gb_case *c, int slot, const gb_backend *b, void *state, int timing,
                   const gb_budget *budget, int again, track *tr, int *capped, gb_err *e) {
    rep_ctx ctx = {b, state, timing, cfg->cache_cold};
    gb_visit_cost cost = {0};
    gb_visit visit = again ? GB_VISIT_AGAIN : warm_kinds[c->op_id][slot][timing] ? GB_VISIT_FIRST : GB_VISIT_FIRST_OF_KIND;
    int status = gb_measure_visit(budget, visit, one_rep, &ctx, &gb_host_clock, &gb_interrupted, &tr->s, capped,
                                  &cost, e);
    if (status == GB_OK) warm_kinds[c->op_id][slot][timing] = 1;
    account(cfg, c->op_id, GB_T_WARMUP, cost.warmup_s);
    account(cfg, c->op_id, GB_T_SAMPLES, cost.samples_s);
    account(cfg, c->op_id, GB_T_BETWEEN, cost.timing_s - cost.samples_s);
    return status;
}

/* (Re)write a result's samples and everything computed from them. */
static void write_measurement(cJSON *results, const gb_case *c, const track *t) {
    static const char *const derived[] = {"warmup_reps", "round_sizes", "samples_s", "stats", "gflops",
                                          "gbs", "pct_of_peak", "peak", NULL};
    cJSON *r = t->result;
    for (int i = 0; derived[i]; i++) cJSON_DeleteItemFromObjectCaseSensitive(r, derived[i]);
    cJSON_AddNumberToObject(r, "warmup_reps", t->s.warmup_reps);
    cJSON *sizes = cJSON_AddArrayToObject(r, "round_sizes");
    for (int i = 0; i < t->s.rounds; i++) cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)t->s.round_n[i]));
    add_stats(r, t->s.v, t->s.n, t->s.round_n, t->s.rounds, c);
    add_pct_of_peak(results, c, r, t->backend, t->ceiling);
}

/* ---- one case ------------------------------------------------------------- */

static cJSON *new_case_object(const gb_case *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", c->op->name);
    cJSON_AddStringToObject(o, "dtype", gb_dtype_name(c->dtype));
    double shape[3];
    for (int i = 0; i < c->rank; i++) shape[i] = (double)c->shape[i];
    cJSON_AddItemToObject(o, "shape", cJSON_CreateDoubleArray(shape, c->rank));
    cJSON_AddStringToObject(o, "label", c->label);
    cJSON_AddItemToObject(o, "params", gb_params_to_json(c));
    cJSON_AddNumberToObject(o, "flops", c->flops);
    cJSON_AddNumberToObject(o, "bytes", c->bytes);
    cJSON_AddStringToObject(o, "rate_kind", c->op->rate_kind);
    cJSON_AddItemToObject(o, "results", cJSON_CreateArray());
    return o;
}

/* Add a result with the same status for every timing of a backend. */
static void add_all_timings(cJSON *results_arr, const gb_backend_slot *slot, const char *status,
                            const char *reason) {
    if (!slot->b) return;
    for (int t = 0; t < slot->b->ntimings; t++)
        cJSON_AddItemToArray(results_arr, new_result(slot->name, slot->b->timings[t], status, reason));
}

typedef struct {
    gb_arrays out;          /* the reference output: first backend that passed its own check */
    const char *from;
    int have;
} reference;

/* Add the seconds since t0 to a part of the breakdown. */
static void spent(gb_run_config *cfg, gb_op_id op, gb_time_part part, double t0) { account(cfg, op, part, gb_now() - t0); }

/* The first visit of a case by one backend: prepare, measure every timing,
 * fetch and verify the output, record it all. */
static void run_backend(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot,
                        int slot_index, const gb_arrays *in, reference *ref, gb_rate_book *rates,
                        cJSON *case_obj, track *tracks, int rounds) {
    const gb_case *c = &item->c;
    const gb_backend *b = slot->b;
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(case_obj, "results");
    gb_err e = {{0}};

    if (slot->disabled) {
        char why[GB_MSG_LEN + 32];
        snprintf(why, sizeof why, "backend disabled: %s", slot->reason);
        add_all_timings(arr, slot, "skipped", why);
        return;
    }
    if (gb_interrupted) {
        add_all_timings(arr, slot, "skipped", "interrupted");
        return;
    }
    int status = b->supports(c, &e);
    if (status != GB_OK) {
        add_all_timings(arr, slot, status == GB_SKIP ? "skipped" : "error", e.msg);
        if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        return;
    }
    const char *from = NULL;
    double projected = gb_rate_project(rates, item->benchmark, c->dtype, slot_index, case_work(c), &from);
    if (projected > item->budget.max_time_s) {
        char why[GB_MSG_LEN];
        snprintf(why, sizeof why,
                 "projected %.3g s per repetition (from the rate at %s) exceeds max_time_s %g; "
                 "raise max_time_s to run it",
                 projected, from, item->budget.max_time_s);
        add_all_timings(arr, slot, "skipped", why);
        return;
    }

    void *state = NULL;
    double t0 = gb_now();
    status = b->prepare(c, in, &state, &e);
    double setup = gb_now() - t0;
    account(cfg, c->op_id, GB_T_SETUP, setup);
    if (status != GB_OK) {
        add_all_timings(arr, slot, status == GB_SKIP ? "skipped" : "error", e.msg);
        if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        return;
    }

    gb_budget budget = gb_round_budget(&item->budget, rounds, 0);
    cJSON *made[GB_MAX_TIMINGS] = {0};
    int measured_any = 0, fatal = 0;
    for (int t = 0; t < b->ntimings; t++) {
        cJSON *r = new_result(slot->name, b->timings[t], "ok", NULL);
        made[t] = r;
        cJSON_AddItemToArray(arr, r);
        cJSON_AddNumberToObject(r, "setup_s", setup);
        if (fatal) { set_status(r, "error", e.msg); continue; }
        track *tr = &tracks[t];
        int capped;
        status = measure(cfg, c, slot_index, b, state, t, &budget, 0, tr, &capped, &e);
        if (status != GB_OK) {
            set_status(r, "error", e.msg);
            if (status == GB_FATAL) {
                fatal = 1;
                gb_backends_disable(slot, e.msg);
            }
        } else if (tr->s.n == 0) {
            set_status(r, "skipped", "interrupted");
        } else {
            tr->result = r;
            tr->backend = slot->name;
            tr->ceiling = b->ceiling ? b->ceiling(c, t) : NULL;
            tr->again = !capped && rounds > 1;
            write_measurement(cfg->results, c, tr);
            measured_any = 1;
            if (t == 0)
                gb_rate_record(rates, item->benchmark, c->dtype, slot_index, case_work(c),
                               gb_median(tr->s.v, tr->s.n), c->label);
        }
    }

    /* Fetch and check the output of the last repetition. */
    t0 = gb_now();
    gb_verdict v;
    memset(&v, 0, sizeof v);
    cJSON *extra = cJSON_CreateObject();
    gb_arrays out = {0};
    if (measured_any && !fatal) {
        status = b->fetch(state, &out, &e);
        if (status != GB_OK) {
            v.status = GB_VERIFY_FAILED;
            snprintf(v.detail, sizeof v.detail, "fetching the output failed: %.200s", e.msg);
            if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        } else {
            c->op->verify(c, in, &out, ref->have ? &ref->out : NULL, &v);
            if (ref->have && !v.against[0]) snprintf(v.against, sizeof v.against, "%s", ref->from);
        }
        if (b->annotate) b->annotate(state, extra);
    }
    spent(cfg, c->op_id, GB_T_VERIFY, t0);
    t0 = gb_now();
    b->release(state);
    spent(cfg, item->c.op_id, GB_T_SETUP, t0);

    for (int t = 0; t < b->ntimings; t++) {
        cJSON *r = made[t];
        if (!r) continue;
        const char *st = cJSON_GetObjectItemCaseSensitive(r, "status")->valuestring;
        if (strcmp(st, "ok") == 0 && v.status == GB_VERIFY_FAILED) {
            set_status(r, "failed", v.detail[0] ? v.detail : "verification failed");
            tracks[t].again = 0; /* a wrong answer is not timed further */
        }
        add_verdict(r, &v);
        cJSON_AddItemToObject(r, "extra", cJSON_Duplicate(extra, 1));
    }
    cJSON_Delete(extra);

    if (v.status == GB_VERIFY_PASSED && !ref->have) {
        ref->out = out;
        ref->from = slot->name;
        ref->have = 1;
    } else {
        gb_arrays_free(&out);
    }
}

/* A later visit: prepare again (fresh buffers), measure the timings still
 * taking part, release. The output was verified on the first visit. */
static void run_backend_again(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot,
                              int slot_index, const gb_arrays *in, track *tracks, int round, int rounds) {
    const gb_backend *b = slot->b;
    int wanted = 0;
    for (int t = 0; t < b->ntimings; t++) wanted |= tracks[t].again;
    if (slot->disabled) /* a fatal error since: what earlier rounds measured stands */
        for (int t = 0; t < b->ntimings; t++) tracks[t].again = 0;
    if (!wanted || slot->disabled || gb_interrupted) return;
    gb_err e = {{0}};
    char why[GB_MSG_LEN + 32];
    void *state = NULL;
    double t0 = gb_now();
    int prepared = b->prepare(&item->c, in, &state, &e), status = prepared;
    spent(cfg, item->c.op_id, GB_T_SETUP, t0);
    if (prepared == GB_FATAL) gb_backends_disable(slot, e.msg);
    gb_budget budget = gb_round_budget(&item->budget, rounds, round);
    for (int t = 0; t < b->ntimings; t++) {
        track *tr = &tracks[t];
        if (!tr->again) continue;
        int capped = 0, measured = 0;
        if (status == GB_OK && !gb_interrupted) {
            status = measure(cfg, &item->c, slot_index, b, state, t, &budget, 1, tr, &capped, &e);
            measured = status == GB_OK;
        }
        if (status != GB_OK) {
            /* what earlier rounds measured stays, but the result says it broke */
            snprintf(why, sizeof why, "round %d: %s", round + 1, e.msg);
            set_status(tr->result, "error", why);
            tr->again = 0;
            if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
            if (prepared == GB_OK && status != GB_FATAL) status = GB_OK; /* the next timing may work */
            continue;
        }
        if (measured) write_measurement(cfg->results, &item->c, tr);
        tr->again = measured && !capped && !gb_interrupted && round + 1 < rounds;
    }
    t0 = gb_now();
    if (prepared == GB_OK) b->release(state);
    spent(cfg, item->c.op_id, GB_T_SETUP, t0);
}

static const cJSON *find_result(const cJSON *arr, const char *backend, const char *timing) {
    const cJSON *r;
    cJSON_ArrayForEach(r, arr) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "backend");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "timing");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "status");
        if (cJSON_IsString(b) && cJSON_IsString(t) && strcmp(b->valuestring, backend) == 0 &&
            strcmp(t->valuestring, timing) == 0 && cJSON_IsString(s) && strcmp(s->valuestring, "ok") == 0)
            return r;
    }
    return NULL;
}

static double median_of(const cJSON *r) {
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(r, "stats");
    const cJSON *m = st ? cJSON_GetObjectItemCaseSensitive(st, "median") : NULL;
    return cJSON_IsNumber(m) ? m->valuedouble : NAN;
}

/* speedup = the host backend's median / an accelerator's median, for each
 * of the accelerator's timings, when both are ok; keyed by the timing's name. */
static void add_speedups(cJSON *case_obj, const gb_backend_set *set) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(case_obj, "results");
    const cJSON *host = NULL;
    for (int k = 0; k < set->count && !host; k++) {
        const gb_backend *b = set->slot[k].b;
        if (b && b->role == GB_ROLE_HOST) host = find_result(arr, set->slot[k].name, b->timings[0]);
    }
    if (!host) return;
    cJSON_DeleteItemFromObjectCaseSensitive(case_obj, "speedup"); /* from an earlier round */
    cJSON *sp = NULL;
    for (int k = 0; k < set->count; k++) {
        const gb_backend *b = set->slot[k].b;
        if (!b || b->role != GB_ROLE_ACCELERATOR) continue;
        for (int t = 0; t < b->ntimings; t++) {
            const cJSON *g = find_result(arr, set->slot[k].name, b->timings[t]);
            double a = median_of(host), m = g ? median_of(g) : NAN;
            if (!(a > 0 && m > 0)) continue;
            if (!sp) sp = cJSON_AddObjectToObject(case_obj, "speedup");
            cJSON_AddNumberToObject(sp, b->timings[t], a / m);
        }
    }
}

int gb_runner_summarize(cJSON *results) {
    int cases = 0, total = 0, ok = 0, skipped = 0, failed = 0, errors = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(results, "cases")) {
        cases++;
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(c, "results")) {
            const char *st = cJSON_GetObjectItemCaseSensitive(r, "status")->valuestring;
            total++;
            if (!strcmp(st, "ok")) ok++;
            else if (!strcmp(st, "skipped")) skipped++;
            else if (!strcmp(st, "failed")) failed++;
            else errors++;
        }
    }
    cJSON *sum = cJSON_CreateObject();
    cJSON_AddNumberToObject(sum, "cases", cases);
    cJSON_AddNumberToObject(sum, "results", total);
    cJSON_AddNumberToObject(sum, "ok", ok);
    cJSON_AddNumberToObject(sum, "skipped", skipped);
    cJSON_AddNumberToObject(sum, "failed", failed);
    cJSON_AddNumberToObject(sum, "errors", errors);
    if (cJSON_GetObjectItemCaseSensitive(results, "summary"))
        cJSON_ReplaceItemInObjectCaseSensitive(results, "summary", sum);
    else
        cJSON_AddItemToObject(results, "summary", sum);
    return failed + errors;
}

static int checkpoint(gb_run_config *cfg, gb_err *e) {
    if (!cfg->out_path) return GB_OK;
    double t0 = gb_now();
    gb_runner_summarize(cfg->results);
    char why[GB_MSG_LEN];
    int failed = gb_results_write_atomic(cfg->results, cfg->out_path, why, sizeof why) != 0;
    if (cfg->breakdown) cfg->breakdown->write_s += gb_now() - t0;
    if (failed) return gb_errf(e, GB_FAIL, "%s", why);
    return GB_OK;
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

/* ---- visits ------------------------------------------------------------------ */

/* Round 0 of a case: inputs, every backend, verification. */
static void first_visit(const gb_suite *s, size_t i, gb_run_config *cfg, gb_rate_book *rates,
                        case_tracks *tracks, gb_arrays *in) {
    case_tracks *ct = &tracks[i];
    const gb_plan_item *item = &s->items[i];
    const gb_case *c = &item->c;
    cJSON *case_obj = new_case_object(c);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(cfg->results, "cases"), case_obj);
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(case_obj, "results");
    ct->obj = case_obj;

    if (gb_interrupted) {
        for (int k = 0; k < cfg->backends->count; k++)
            if (cfg->backends->slot[k].selected) add_all_timings(arr, &cfg->backends->slot[k], "skipped", "interrupted");
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
        made = c->op->make_inputs(c, in, &err);
    spent(cfg, item->c.op_id, GB_T_INPUTS, t0);
    if (made != GB_OK) {
        for (int k = 0; k < cfg->backends->count; k++)
            if (cfg->backends->slot[k].selected)
                add_all_timings(arr, &cfg->backends->slot[k], made == GB_FAIL && need <= avail ? "error" : "skipped", err.msg);
        return;
    }
    reference ref = {0};
    for (int k = 0; k < cfg->backends->count; k++) {
        gb_backend_slot *slot = &cfg->backends->slot[k];
        if (!slot->selected) continue;
        show_progress(cfg, s, tracks, i, 0, slot->name);
        run_backend(cfg, item, slot, k, in, &ref, rates, case_obj, ct->t[k], s->rounds);
    }
    if (ref.have) gb_arrays_free(&ref.out);
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
        int status = item->c.op->make_inputs(&item->c, &made_now, &err);
        spent(cfg, item->c.op_id, GB_T_INPUTS, t0);
        if (status != GB_OK) {
            /* it worked in round 0: keep those samples, say why the rounds stop */
            for (int k = 0; k < cfg->backends->count; k++)
                for (int t = 0; t < GB_MAX_TIMINGS; t++)
                    if (ct->t[k][t].again) {
                        char why[GB_MSG_LEN + 32];
                        snprintf(why, sizeof why, "round %d: %s", round + 1, err.msg);
                        set_status(ct->t[k][t].result, "error", why);
                        ct->t[k][t].again = 0;
                    }
            gb_arrays_free(&made_now);
            return;
        }
        in = &made_now;
    }
    for (int k = 0; k < cfg->backends->count; k++) {
        gb_backend_slot *slot = &cfg->backends->slot[k];
        if (!slot->selected || !slot->b) continue;
        show_progress(cfg, s, tracks, i, round, slot->name);
        run_backend_again(cfg, item, slot, k, in, ct->t[k], round, s->rounds);
    }
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
    if (cfg->started <= 0) cfg->started = gb_now();
    input_cache cache = {.cap = 0.25 * host_available_bytes(), .used = 0};
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
                ct->again = !gb_interrupted && case_again(ct);
                keep_or_free_inputs(&cache, ct, &in);
            } else {
                if (!ct->again || gb_interrupted) continue;
                next_visit(s, i, round, cfg, tracks);
                ct->again = !gb_interrupted && case_again(ct);
            }
            ct->visit_s = gb_now() - t0;
            ct->visits = round + 1;
            add_speedups(ct->obj, cfg->backends);
            if (cfg->progress) fprintf(stderr, "\r\033[K");
            if (round == 0 && !cfg->quiet && cfg->lines) {
                gb_report_case_line(ct->obj, cfg->lines);
                fflush(cfg->lines);
            }
            if (!ct->again) {
                drop_inputs(&cache, ct);
                free_tracks(ct);
            }
            status = checkpoint(cfg, e);
        }
        if (gb_interrupted) break;
    }
    for (size_t i = 0; i < s->count; i++) {
        drop_inputs(&cache, &tracks[i]);
        free_tracks(&tracks[i]);
    }
    free(tracks);
    gb_rate_book_free(rates);
    return status;
}
