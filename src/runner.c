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

static void add_stats(cJSON *r, const double *samples, size_t n, const gb_case *c) {
    cJSON_AddItemToObject(r, "samples_s", samples_json(samples, n));
    gb_stats st;
    gb_stats_compute(samples, n, &st);
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

typedef struct {
    double *samples;
    size_t n, cap;
    int warmup_done;
} sample_set;

static int push_sample(sample_set *s, double v) {
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

/* The stopping rule (runner.h). Wall-clock accounting uses the host clock
 * around each repetition so that the budget counts what the user waits for. */
static int measure(const gb_backend *b, void *state, int timing, const gb_budget *budget,
                   int cache_cold, sample_set *out, gb_err *e) {
    double start = gb_now(), seconds;
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
        out->warmup_done++;
    }
    double timed = 0;
    for (;;) {
        if (gb_interrupted && out->n > 0) break;
        if (cache_cold && b->flush_caches) b->flush_caches();
        int status = b->run(state, timing, &seconds, e);
        if (status != GB_OK) return status;
        if (!(seconds >= 0) || !isfinite(seconds))
            return gb_errf(e, GB_FAIL, "backend returned an invalid time (%g s)", seconds);
        if (push_sample(out, seconds) != GB_OK) return gb_errf(e, GB_FAIL, "out of memory for samples");
        timed += seconds;
        int enough = ((int)out->n >= budget->min_reps && timed >= budget->min_time_s) ||
                     (int)out->n >= budget->max_reps;
        if (enough || gb_now() - start >= budget->max_time_s || gb_interrupted) break;
    }
    return GB_OK;
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

static void run_backend(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot,
                        int slot_index, const gb_arrays *in, reference *ref, rate_book *rates,
                        cJSON *case_obj) {
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

    cJSON *made[GB_MAX_TIMINGS] = {0};
    int measured_any = 0, fatal = 0;
    for (int t = 0; t < b->ntimings; t++) {
        cJSON *r = new_result(slot->name, b->timings[t], "ok", NULL);
        made[t] = r;
        cJSON_AddItemToArray(arr, r);
        cJSON_AddNumberToObject(r, "setup_s", setup);
        if (fatal) { set_status(r, "error", e.msg); continue; }
        sample_set ss = {0};
        status = measure(b, state, t, &item->budget, cfg->cache_cold, &ss, &e);
        cJSON_AddNumberToObject(r, "warmup_reps", ss.warmup_done);
        if (status != GB_OK) {
            set_status(r, "error", e.msg);
            if (status == GB_FATAL) {
                fatal = 1;
                gb_backends_disable(slot, e.msg);
            }
        } else if (ss.n == 0) {
            set_status(r, "skipped", "interrupted");
        } else {
            add_stats(r, ss.samples, ss.n, c);
            measured_any = 1;
            /* Below a millisecond a repetition is mostly fixed overhead
             * (launches, thread wake-ups): its rate would predict absurd
             * times for larger sizes, so it is not used for projection. */
            double med = gb_median(ss.samples, ss.n);
            if (t == 0 && med >= GB_PROJECTION_MIN_S)
                rate_store(rates, item->benchmark, c->dtype, slot_index, case_work(c) / med, c->label);
        }
        free(ss.samples);
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
        if (strcmp(st, "ok") == 0 && v.status == GB_VERIFY_FAILED)
            set_status(r, "failed", v.detail[0] ? v.detail : "verification failed");
        add_verdict(r, &v);
        cJSON_AddItemToObject(r, "extra", cJSON_Duplicate(extra, 1));
        if (cJSON_GetObjectItemCaseSensitive(r, "stats")) add_pct_of_peak(cfg->results, case_obj, r);
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

int gb_runner_run(const gb_suite *s, gb_run_config *cfg, gb_err *e) {
    cJSON *cases = cJSON_GetObjectItemCaseSensitive(cfg->results, "cases");
    rate_book rates = {0};
    int status = GB_OK;
    for (size_t i = 0; i < s->count && status == GB_OK; i++) {
        const gb_plan_item *item = &s->items[i];
        const gb_case *c = &item->c;
        cJSON *case_obj = new_case_object(c);
        cJSON_AddItemToArray(cases, case_obj);
        cJSON *arr = cJSON_GetObjectItemCaseSensitive(case_obj, "results");

        if (gb_interrupted) {
            for (int k = 0; k < cfg->backends->count; k++)
                if (cfg->backends->slot[k].selected) add_all_timings(arr, &cfg->backends->slot[k], "skipped", "interrupted");
            continue;
        }
        if (cfg->progress)
            fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s", i + 1, s->count, c->op->name, c->label,
                    gb_dtype_name(c->dtype));

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
                run_backend(cfg, item, slot, k, &in, &ref, &rates, case_obj);
            }
            if (ref.have) gb_arrays_free(&ref.out);
        }
        gb_arrays_free(&in);
        add_speedups(case_obj);
        if (cfg->progress) fprintf(stderr, "\r\033[K");
        if (!cfg->quiet && cfg->lines) {
            gb_report_case_line(case_obj, cfg->lines);
            fflush(cfg->lines);
        }
        status = checkpoint(cfg, e);
    }
    free(rates.memo);
    return status;
}
