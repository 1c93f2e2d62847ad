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

/* ---- projection of a case's cost from the previous size ------------------ */

/* Rate (work per second) last measured per benchmark, dtype and backend, so
 * a sweep can skip a size it cannot afford before spending the budget. */
typedef struct {
    int benchmark, dtype, backend;
    double rate;      /* work units per second, from the median */
    char label[64];   /* the size it was measured at */
} rate_memo;

typedef struct {
    rate_memo *memo;
    size_t n, cap;
} rate_book;

#define GB_PROJECTION_MIN_S 1e-3

static double case_work(const gb_case *c) { return c->flops > 0 ? c->flops : c->bytes; }

static rate_memo *rate_find(rate_book *b, int bench, int dtype, int backend) {
    for (size_t i = 0; i < b->n; i++)
        if (b->memo[i].benchmark == bench && b->memo[i].dtype == dtype && b->memo[i].backend == backend)
            return &b->memo[i];
    return NULL;
}

static void rate_store(rate_book *b, int bench, int dtype, int backend, double rate, const char *label) {
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
    m->rate = rate;
    snprintf(m->label, sizeof m->label, "%s", label);
}

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

const char *gb_peak_key(const char *backend, const char *timing, const char *op_name,
                        const char *rate_kind, const char *dtype, const cJSON *params) {
    if (strcmp(timing, "end_to_end") == 0) return NULL;
    if (strcmp(rate_kind, "bytes") == 0) return strcmp(backend, "cpu") == 0 ? "triad_gbs" : "d2d_copy_gbs";
    const cJSON *math = params ? cJSON_GetObjectItemCaseSensitive(params, "math") : NULL;
    if (strcmp(backend, "cpu") != 0 && strcmp(op_name, "matmul") == 0 && cJSON_IsString(math) &&
        strcmp(math->valuestring, "tf32") == 0 && strcmp(dtype, "float32") == 0)
        return "gemm_tf32_gflops";
    return strcmp(dtype, "float32") == 0 ? "gemm_float32_gflops" : "gemm_float64_gflops";
}

static void add_pct_of_peak(cJSON *results, cJSON *case_obj, cJSON *r) {
    const cJSON *peaks = cJSON_GetObjectItemCaseSensitive(results, "peaks");
    const char *backend = cJSON_GetObjectItemCaseSensitive(r, "backend")->valuestring;
    const char *timing = cJSON_GetObjectItemCaseSensitive(r, "timing")->valuestring;
    const char *rate_kind = cJSON_GetObjectItemCaseSensitive(case_obj, "rate_kind")->valuestring;
    const char *key = gb_peak_key(backend, timing,
                                  cJSON_GetObjectItemCaseSensitive(case_obj, "op")->valuestring, rate_kind,
                                  cJSON_GetObjectItemCaseSensitive(case_obj, "dtype")->valuestring,
                                  cJSON_GetObjectItemCaseSensitive(case_obj, "params"));
    const cJSON *bp = peaks ? cJSON_GetObjectItemCaseSensitive(peaks, backend) : NULL;
    const cJSON *pv = key && bp ? cJSON_GetObjectItemCaseSensitive(bp, key) : NULL;
    const cJSON *achieved = cJSON_GetObjectItemCaseSensitive(r, strcmp(rate_kind, "bytes") == 0 ? "gbs" : "gflops");
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
    double *samples;
    size_t n, cap;
    size_t round_n[GB_MAX_ROUNDS];  /* samples taken in each round, in order */
    int rounds;                     /* rounds measured */
    int warmup_reps;
    int again;                      /* measure it in the next round too */
} track;

/* The tracks of one case: per backend slot and timing. */
typedef struct {
    track t[GB_MAX_BACKENDS][GB_MAX_TIMINGS];
    cJSON *obj;                     /* the case's entry in the results document */
    int again;                      /* some track is measured in the next round */
} case_tracks;

static int push_sample(track *s, double v) {
    if (s->n == s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 64;
        double *n = realloc(s->samples, ncap * sizeof *n);
        if (!n) return GB_FAIL;
        s->samples = n;
        s->cap = ncap;
    }
    s->samples[s->n++] = v;
    return GB_OK;
}

/* One round's share of a case's budget: the repetitions and the minimum
 * time are split over the rounds, so rounds cost warm-ups, not a multiple
 * of the run; max_time_s stays a per-visit cap. */
static gb_budget round_budget(const gb_budget *b, int rounds) {
    gb_budget r = *b;
    r.min_reps = (b->min_reps + rounds - 1) / rounds;
    if (r.min_reps < 1) r.min_reps = 1;
    r.max_reps = b->max_reps / rounds; /* rounded down: the total stays within max_reps */
    if (r.max_reps < r.min_reps) r.max_reps = r.min_reps;
    r.min_time_s = b->min_time_s / rounds;
    return r;
}

/* The stopping rule (runner.h), for one visit: appends this round's samples
 * to out and records their count. *capped is set when max_time_s, not the
 * budget, ended the visit: such a case is not visited again. Wall-clock
 * accounting uses the host clock around each repetition so that the budget
 * counts what the user waits for. */
static int measure(const gb_backend *b, void *state, int timing, const gb_budget *budget,
                   int cache_cold, track *out, int *capped, gb_err *e) {
    double start = gb_now(), seconds;
    size_t first = out->n;
    *capped = 0;
    /* Warm up for `warmup` repetitions and min_warmup_s, whichever is
     * longer, within a quarter of the budget. The time floor is there
     * because some effects outlast a fixed count of fast repetitions: on the
     * H100 host the first ~50 ms of 16-thread OpenBLAS GEMMs at 512 ran 40×
     * slower than the rest. */
    double warm_cap = 0.25 * budget->max_time_s;
    for (int w = 0; !gb_interrupted; w++) {
        double spent = gb_now() - start;
        if (w >= budget->warmup && spent >= budget->min_warmup_s) break;
        if (w > 0 && spent > warm_cap) break;
        if (budget->warmup == 0 && budget->min_warmup_s <= 0) break;
        if (cache_cold && b->flush_caches) b->flush_caches();
        int status = b->run(state, timing, &seconds, e);
        if (status != GB_OK) return status;
        out->warmup_reps++;
    }
    double timed = 0;
    for (;;) {
        size_t got = out->n - first;
        if (gb_interrupted && got > 0) break;
        if (cache_cold && b->flush_caches) b->flush_caches();
        int status = b->run(state, timing, &seconds, e);
        if (status != GB_OK) return status;
        if (!(seconds >= 0) || !isfinite(seconds))
            return gb_errf(e, GB_FAIL, "backend returned an invalid time (%g s)", seconds);
        if (push_sample(out, seconds) != GB_OK) return gb_errf(e, GB_FAIL, "out of memory for samples");
        got++;
        timed += seconds;
        int enough = ((int)got >= budget->min_reps && timed >= budget->min_time_s) ||
                     (int)got >= budget->max_reps;
        if (enough || gb_interrupted) break;
        if (gb_now() - start >= budget->max_time_s) { *capped = 1; break; }
    }
    out->round_n[out->rounds++] = out->n - first;
    return GB_OK;
}

/* (Re)write a result's samples and everything computed from them. */
static void write_measurement(cJSON *results, cJSON *case_obj, const gb_case *c, const track *t) {
    static const char *const derived[] = {"warmup_reps", "round_sizes", "samples_s", "stats", "gflops",
                                          "gbs", "pct_of_peak", "peak", NULL};
    cJSON *r = t->result;
    for (int i = 0; derived[i]; i++) cJSON_DeleteItemFromObjectCaseSensitive(r, derived[i]);
    cJSON_AddNumberToObject(r, "warmup_reps", t->warmup_reps);
    cJSON *sizes = cJSON_AddArrayToObject(r, "round_sizes");
    for (int i = 0; i < t->rounds; i++) cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)t->round_n[i]));
    add_stats(r, t->samples, t->n, t->round_n, t->rounds, c);
    add_pct_of_peak(results, case_obj, r);
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

/* The first visit of a case by one backend: prepare, measure every timing,
 * fetch and verify the output, record it all. */
static void run_backend(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot,
                        int slot_index, const gb_arrays *in, reference *ref, rate_book *rates,
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
    rate_memo *memo = rate_find(rates, item->benchmark, c->dtype, slot_index);
    if (memo && memo->rate > 0) {
        double projected = case_work(c) / memo->rate;
        if (projected > item->budget.max_time_s) {
            char why[GB_MSG_LEN];
            snprintf(why, sizeof why,
                     "projected %.3g s per repetition (from the rate at %s) exceeds max_time_s %g; "
                     "raise max_time_s to run it",
                     projected, memo->label, item->budget.max_time_s);
            add_all_timings(arr, slot, "skipped", why);
            return;
        }
    }

    void *state = NULL;
    double t0 = gb_now();
    status = b->prepare(c, in, &state, &e);
    double setup = gb_now() - t0;
    if (status != GB_OK) {
        add_all_timings(arr, slot, status == GB_SKIP ? "skipped" : "error", e.msg);
        if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        return;
    }

    gb_budget budget = round_budget(&item->budget, rounds);
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
        status = measure(b, state, t, &budget, cfg->cache_cold, tr, &capped, &e);
        if (status != GB_OK) {
            set_status(r, "error", e.msg);
            if (status == GB_FATAL) {
                fatal = 1;
                gb_backends_disable(slot, e.msg);
            }
        } else if (tr->n == 0) {
            set_status(r, "skipped", "interrupted");
        } else {
            tr->result = r;
            tr->again = !capped && rounds > 1;
            write_measurement(cfg->results, case_obj, c, tr);
            measured_any = 1;
            /* Below a millisecond a repetition is mostly fixed overhead
             * (launches, thread wake-ups): its rate would predict absurd
             * times for larger sizes, so it is not used for projection. */
            double med = gb_median(tr->samples, tr->n);
            if (t == 0 && med >= GB_PROJECTION_MIN_S)
                rate_store(rates, item->benchmark, c->dtype, slot_index, case_work(c) / med, c->label);
        }
    }

    /* Fetch and check the output of the last repetition. */
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
    b->release(state);

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
                              const gb_arrays *in, cJSON *case_obj, track *tracks, int round, int rounds) {
    const gb_backend *b = slot->b;
    int wanted = 0;
    for (int t = 0; t < b->ntimings; t++) wanted |= tracks[t].again;
    if (slot->disabled) /* a fatal error since: what earlier rounds measured stands */
        for (int t = 0; t < b->ntimings; t++) tracks[t].again = 0;
    if (!wanted || slot->disabled || gb_interrupted) return;
    gb_err e = {{0}};
    char why[GB_MSG_LEN + 32];
    void *state = NULL;
    int prepared = b->prepare(&item->c, in, &state, &e), status = prepared;
    if (prepared == GB_FATAL) gb_backends_disable(slot, e.msg);
    gb_budget budget = round_budget(&item->budget, rounds);
    for (int t = 0; t < b->ntimings; t++) {
        track *tr = &tracks[t];
        if (!tr->again) continue;
        int capped = 0, measured = 0;
        if (status == GB_OK && !gb_interrupted) {
            status = measure(b, state, t, &budget, cfg->cache_cold, tr, &capped, &e);
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
        if (measured) write_measurement(cfg->results, case_obj, &item->c, tr);
        tr->again = measured && !capped && !gb_interrupted && round + 1 < rounds;
    }
    if (prepared == GB_OK) b->release(state);
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

/* speedup = CPU median / GPU median, for each GPU timing, when both are ok. */
static void add_speedups(cJSON *case_obj) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(case_obj, "results");
    const cJSON *cpu = find_result(arr, "cpu", "host");
    if (!cpu) return;
    cJSON_DeleteItemFromObjectCaseSensitive(case_obj, "speedup"); /* from an earlier round */
    cJSON *sp = NULL;
    static const char *const timings[] = {"device", "end_to_end"};
    for (int i = 0; i < 2; i++) {
        const cJSON *g = find_result(arr, "cuda", timings[i]);
        double a = median_of(cpu), b = g ? median_of(g) : NAN;
        if (!(a > 0 && b > 0)) continue;
        if (!sp) sp = cJSON_AddObjectToObject(case_obj, "speedup");
        cJSON_AddNumberToObject(sp, timings[i], a / b);
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
    gb_runner_summarize(cfg->results);
    char why[GB_MSG_LEN];
    if (gb_results_write_atomic(cfg->results, cfg->out_path, why, sizeof why) != 0)
        return gb_errf(e, GB_FAIL, "%s", why);
    return GB_OK;
}

/* Round 0 of a case: inputs, every backend, verification. */
static void first_visit(const gb_suite *s, size_t i, gb_run_config *cfg, rate_book *rates,
                        case_tracks *ct) {
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
    gb_arrays in = {0};
    gb_err err = {{0}};
    int made = GB_FAIL;
    if (need > avail)
        snprintf(err.msg, sizeof err.msg, "needs %.2f GiB of host memory, %.2f GiB available",
                 need / 1073741824.0, avail / 1073741824.0);
    else
        made = c->op->make_inputs(c, &in, &err);
    if (made != GB_OK) {
        for (int k = 0; k < cfg->backends->count; k++)
            if (cfg->backends->slot[k].selected)
                add_all_timings(arr, &cfg->backends->slot[k], made == GB_FAIL && need <= avail ? "error" : "skipped", err.msg);
    } else {
        reference ref = {0};
        for (int k = 0; k < cfg->backends->count; k++) {
            gb_backend_slot *slot = &cfg->backends->slot[k];
            if (!slot->selected) continue;
            if (cfg->progress)
                fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s: %s", i + 1, s->count, c->op->name,
                        c->label, gb_dtype_name(c->dtype), slot->name);
            run_backend(cfg, item, slot, k, &in, &ref, rates, case_obj, ct->t[k], s->rounds);
        }
        if (ref.have) gb_arrays_free(&ref.out);
    }
    gb_arrays_free(&in);
}

/* Round 1, 2, ... of a case: the same inputs (same seed), made again. */
static void next_visit(const gb_suite *s, size_t i, int round, gb_run_config *cfg, case_tracks *ct) {
    const gb_plan_item *item = &s->items[i];
    gb_arrays in = {0};
    gb_err err = {{0}};
    if (item->c.op->make_inputs(&item->c, &in, &err) != GB_OK) {
        /* it worked in round 0: keep those samples, say why the rounds stop */
        for (int k = 0; k < cfg->backends->count; k++)
            for (int t = 0; t < GB_MAX_TIMINGS; t++)
                if (ct->t[k][t].again) {
                    char why[GB_MSG_LEN + 32];
                    snprintf(why, sizeof why, "round %d: %s", round + 1, err.msg);
                    set_status(ct->t[k][t].result, "error", why);
                    ct->t[k][t].again = 0;
                }
        return;
    }
    for (int k = 0; k < cfg->backends->count; k++) {
        gb_backend_slot *slot = &cfg->backends->slot[k];
        if (!slot->selected || !slot->b) continue;
        if (cfg->progress)
            fprintf(stderr, "\r\033[K[round %d/%d] [%zu/%zu] %s %s %s: %s", round + 1, s->rounds, i + 1,
                    s->count, item->c.op->name, item->c.label, gb_dtype_name(item->c.dtype), slot->name);
        run_backend_again(cfg, item, slot, &in, ct->obj, ct->t[k], round, s->rounds);
    }
    gb_arrays_free(&in);
}

static int case_again(const case_tracks *ct) {
    for (int k = 0; k < GB_MAX_BACKENDS; k++)
        for (int t = 0; t < GB_MAX_TIMINGS; t++)
            if (ct->t[k][t].again) return 1;
    return 0;
}

static void free_tracks(case_tracks *ct) {
    for (int k = 0; k < GB_MAX_BACKENDS; k++)
        for (int t = 0; t < GB_MAX_TIMINGS; t++) {
            free(ct->t[k][t].samples);
            ct->t[k][t].samples = NULL;
        }
}

int gb_runner_run(const gb_suite *s, gb_run_config *cfg, gb_err *e) {
    rate_book rates = {0};
    case_tracks *tracks = calloc(s->count ? s->count : 1, sizeof *tracks);
    if (!tracks) return gb_errf(e, GB_FAIL, "out of memory for %zu cases", s->count);
    int status = GB_OK;
    /* Round 0 visits every case; later rounds revisit, in the same order,
     * the results that did not hit max_time_s (runner.h). A case is final
     * when no result of it is visited again: then its line is printed. */
    for (int round = 0; round < s->rounds && status == GB_OK; round++) {
        for (size_t i = 0; i < s->count && status == GB_OK; i++) {
            case_tracks *ct = &tracks[i];
            if (round == 0) {
                if (cfg->progress)
                    fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s", i + 1, s->count, s->items[i].c.op->name,
                            s->items[i].c.label, gb_dtype_name(s->items[i].c.dtype));
                first_visit(s, i, cfg, &rates, ct);
            } else {
                if (!ct->again || gb_interrupted) continue;
                next_visit(s, i, round, cfg, ct);
            }
            ct->again = !gb_interrupted && case_again(ct);
            add_speedups(ct->obj);
            if (cfg->progress) fprintf(stderr, "\r\033[K");
            if (!ct->again) {
                free_tracks(ct);
                if (!cfg->quiet && cfg->lines) {
                    gb_report_case_line(ct->obj, cfg->lines);
                    fflush(cfg->lines);
                }
            }
            status = checkpoint(cfg, e);
        }
        if (gb_interrupted) break;
    }
    for (size_t i = 0; i < s->count; i++) {
        if (tracks[i].again && tracks[i].obj && !cfg->quiet && cfg->lines) /* interrupted between rounds */
            gb_report_case_line(tracks[i].obj, cfg->lines);
        free_tracks(&tracks[i]);
    }
    free(tracks);
    free(rates.memo);
    return status;
}
