/* report_rows.c — a results document read once into rows (one per case, or
 * per device of a case measured on several), with the CPU result and the GPU
 * device-resident and end-to-end results side by side: every format renders
 * these rows, so a number means the same thing everywhere. See
 * report_internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "case_index.h"
#include "format.h"
#include "report_internal.h"

void gb_rdoc_side_names(const gb_results *r, int run, side_names *sn) {
    const gb_backend_desc *h = gb_results_host(r, run), *a = gb_results_accelerator(r, run);
    memset(sn, 0, sizeof *sn);
    sn->nacc = a->ntimings < NACC ? (int)a->ntimings : NACC;
    for (int k = 0; k < NSIDES; k++) {
        const gb_backend_desc *b = k == SIDE_CPU ? h : a;
        size_t t = k == SIDE_CPU ? 0 : (size_t)(k - SIDE_DEV);
        const gb_timing_desc *d = t < b->ntimings ? &b->timings[t] : NULL;
        snprintf(sn->name[k], sizeof sn->name[k], "%s", d ? d->name : "?");
        snprintf(sn->label[k], sizeof sn->label[k], "%s", d ? d->label : "?");
        /* end_to_end reads "end-to-end" */
        snprintf(sn->word[k], sizeof sn->word[k], "%s", sn->name[k]);
        for (char *p = sn->word[k]; *p; p++)
            if (*p == '_') *p = '-';
        if (k != SIDE_CPU) {
            /* the label's last word: "gpu dev" → "dev" */
            const char *sp = strrchr(sn->label[k], ' ');
            snprintf(sn->brief[k - SIDE_DEV], sizeof sn->brief[0], "%s", sp ? sp + 1 : sn->label[k]);
        }
    }
}

static void read_side(const gb_case_result *c, const gb_result *r, side *s) {
    s->r = r;
    s->backend = r->backend;
    s->status = gb_result_status_name(r->status);
    s->reason = r->reason;
    s->verif = r->verification.present ? gb_verify_status_name(r->verification.status) : "";
    s->median = r->stats.median;
    s->n = r->stats.present ? (int)r->stats.n : 0;
    /* one repetition has no interval: its ci95 bounds are that sample */
    s->lo = s->n >= 2 ? r->stats.ci95_low : NAN;
    s->hi = s->n >= 2 ? r->stats.ci95_high : NAN;
    s->rate = strcmp(c->rate_kind, "bytes") == 0 ? r->gbs : r->gflops;
    s->pct = r->pct_of_peak;
}

static void params_words(const gb_kvlist *params, const char *sep, char *buf, size_t len) {
    gb_report_params_text(params, sep, NULL, buf, len);
}

/* Does an accelerator result belong to the row of device (-1: any)? */
static int on_device(const gb_result *res, long device) {
    if (res->concurrent.present) return 0; /* all devices at once: their own section */
    return device < 0 || !res->device.present || res->device.index == device;
}

int gb_rdoc_is_peer(const gb_results *r, int run, const char *backend) {
    const gb_backend_desc *host = gb_results_host(r, run), *acc = gb_results_accelerator(r, run);
    return backend && *backend && strcmp(backend, host->name) && strcmp(backend, acc->name);
}

/* r may be NULL (a case alone: the built-in table describes its backends).
 * device: the row's accelerator device, -1 for a case of one device. */
void gb_rdoc_row(const gb_results *r, const gb_case_result *c, long device, row *w) {
    memset(w, 0, sizeof *w);
    w->c = c;
    w->run = c->run;
    w->run_name = "";
    w->op = c->op;
    w->dtype = c->dtype;
    w->label = c->label;
    w->rate_kind = c->rate_kind;
    w->size = gb_case_scalar_size(c, NULL);
    params_words(&c->params, " ", w->params, sizeof w->params);
    for (int k = 0; k < NSIDES; k++) {
        w->s[k].median = w->s[k].lo = w->s[k].hi = w->s[k].rate = w->s[k].pct = NAN;
        w->s[k].backend = w->s[k].status = w->s[k].reason = w->s[k].verif = "";
    }
    /* the libraries' sides only: a framework peer (numpy, cupy) has its own
     * rows (report_peers.c), never the CPU's or the GPU's column */
    const gb_backend_desc *acc = gb_results_accelerator(r, c->run);
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *res = &c->results[i];
        const gb_backend_desc *b = gb_results_backend(r, c->run, res->backend);
        int k = -1;
        if (gb_rdoc_is_peer(r, c->run, res->backend)) continue;
        if (b->role == GB_ROLE_HOST) k = SIDE_CPU;
        else if (*res->backend && on_device(res, device)) {
            int t = gb_backend_timing_index(b, res->timing);
            if (t >= 0 && t < NACC) k = SIDE_DEV + t;
        }
        if (k >= 0 && !w->s[k].r) read_side(c, res, &w->s[k]);
    }
    /* The runner's speedup when present (the model checked it is positive). */
    const gb_backend_desc *a = acc;
    w->device = device;
    snprintf(w->device_label, sizeof w->device_label, "%s", c->label);
    if (device >= 0) {
        /* the case's own speedup is its first device's: each device's row
         * has the ratio of its own medians */
        snprintf(w->device_label, sizeof w->device_label, "%s gpu%ld", c->label, device);
        w->label = w->device_label;
        for (int j = 0; j < NACC; j++) w->speedup[j] = gb_result_speedup(w->s[SIDE_CPU].r, w->s[SIDE_DEV + j].r);
        return;
    }
    for (int j = 0; j < NACC; j++)
        w->speedup[j] = (size_t)j < a->ntimings ? gb_case_speedup(c, a->timings[j].name) : NAN;
}

/* The distinct accelerator devices of a case, in the order of its results,
 * into devs (at most cap); how many. */
int gb_rdoc_case_devices(const gb_case_result *c, long *devs, int cap) {
    int n = 0;
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *res = &c->results[i];
        if (!res->device.present) continue;
        int seen = 0;
        for (int k = 0; k < n; k++) seen |= devs[k] == res->device.index;
        if (!seen && n < cap) devs[n++] = res->device.index;
    }
    return n;
}

/* Is name selected by the --op list (NULL or empty: every op)? */
int gb_rdoc_selected(const char *list, const char *name) { return !list || !*list || gb_list_contains(list, name); }

/* Rows of one op appear together, in the order the ops first appear; within
 * an op by dtype, params, then size, so each sweep reads top to bottom; then
 * in the file's order. */
static int row_cmp(const void *a, const void *b) {
    const row *x = a, *y = b;
    int d = x->op_rank - y->op_rank;
    if (d) return d;
    if (x->run != y->run) return x->run - y->run;
    if ((d = strcmp(x->dtype, y->dtype))) return d;
    if ((d = strcmp(x->params, y->params))) return d;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    if (x->c != y->c) return (x->c > y->c) - (x->c < y->c);
    return (x->device > y->device) - (x->device < y->device);
}


typedef struct {
    const row *rows;
    const char *op;
} op_probe;

static int same_op(const void *ctx, size_t j) {
    const op_probe *q = ctx;
    return strcmp(q->rows[j].op, q->op) == 0;
}

int gb_rdoc_host_copy_only(const gb_results *r, const gb_case_result *c) {
    int copies = 0;
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *res = &c->results[i];
        const gb_backend_desc *b = gb_results_backend(r, c->run, res->backend);
        if (b->role != GB_ROLE_HOST) return 0; /* an accelerator's result: the case is its own */
        if (!gb_kv_find(&res->extra, "same_as")) return 0;
        copies++;
    }
    return copies > 0;
}

int gb_rdoc_read(const gb_results *r, const char *ops, rdoc *d) {
    memset(d, 0, sizeof *d);
    d->r = r;
    /* a row per case, or per device of a case measured on several */
    size_t nrows = 0;
    long devs[GB_MAX_DEVICES];
    for (size_t i = 0; i < r->ncases; i++) {
        int nd = gb_rdoc_case_devices(&r->cases[i], devs, GB_MAX_DEVICES);
        nrows += nd > 1 ? (size_t)nd : 1;
    }
    d->rows = calloc(nrows > 0 ? nrows : 1, sizeof *d->rows);
    if (!d->rows) return -1;
    d->merged = r->merged;
    for (size_t i = 0; i < r->ncases; i++) {
        const gb_case_result *c = &r->cases[i];
        if (!gb_rdoc_selected(ops, c->op)) continue;
        if (gb_case_not_reached(c)) {
            d->not_reached++;
            continue;
        }
        if (gb_rdoc_host_copy_only(r, c)) { /* its twin's row says it all */
            d->host_copies++;
            continue;
        }
        int nd = gb_rdoc_case_devices(c, devs, GB_MAX_DEVICES);
        for (int k = 0; k < (nd > 1 ? nd : 1); k++) {
            row *w = &d->rows[d->n++];
            gb_rdoc_row(r, c, nd > 1 ? devs[k] : -1, w);
            if (d->merged) w->run_name = gb_results_run_name(r, w->run);
        }
    }
    /* Each op's rank: the row where it first appears (found by hash: a
     * file with thousands of ops must not take n² string compares). */
    gb_index ops_seen;
    if (gb_index_init(&ops_seen, d->n) != GB_OK) return -1;
    for (size_t i = 0; i < d->n; i++) {
        op_probe q = {d->rows, d->rows[i].op};
        uint64_t h = gb_hash_str(GB_HASH_START, d->rows[i].op);
        long j = gb_index_find(&ops_seen, h, same_op, &q);
        if (j < 0 && gb_index_add(&ops_seen, h, i) != GB_OK) {
            gb_index_free(&ops_seen);
            return -1;
        }
        d->rows[i].op_rank = j < 0 ? (int)i : (int)j;
    }
    gb_index_free(&ops_seen);
    qsort(d->rows, d->n, sizeof *d->rows, row_cmp);
    for (size_t i = 0; i < d->n; i++) /* the rows moved: their own label buffers with them */
        if (d->rows[i].device >= 0) d->rows[i].label = d->rows[i].device_label;

    /* The machine of run 0; a merged file names every run's in the header. */
    const gb_context *ctx = &r->runs[0].context;
    d->cpu_model = ctx->cpu_model;
    d->threads = ctx->cpu_threads_used > 0 ? (int)ctx->cpu_threads_used : 0;
    d->gpu_name = ctx->gpu_name;
    d->gpu_reason = gb_results_accelerator(r, 0)->reason;
    gb_rdoc_side_names(r, 0, &d->sn);
    for (size_t i = 0; i < d->n; i++)
        for (int k = SIDE_DEV; k < NSIDES; k++) {
            const side *s = &d->rows[i].s[k];
            if (s->r && !isnan(s->median)) d->gpu_cols = 1;
        }
    return 0;
}

/* Why a result is not ok, for a footnote: the reason, else the verdict. */
void gb_rdoc_why_not_ok(const side *s, char *buf, size_t len) {
    const gb_verification *v = &s->r->verification;
    if (*s->reason) {
        snprintf(buf, len, "%s", s->reason);
    } else if (!strcmp(s->verif, "failed")) {
        const char *detail = v->detail;
        snprintf(buf, len, "verification failed: %s %.3g > tolerance %.3g%s%s", v->metric, v->error, v->tolerance,
                 *detail ? "; " : "", detail);
    } else {
        snprintf(buf, len, "%s (no reason recorded)", s->status);
    }
}


/* The document's title (what a browser tab and a bookmark show): the suite,
 * the host and the GPU. */
void gb_rdoc_title(const gb_results *r, const rdoc *d, char *title, size_t len) {
    const gb_run *run0 = &r->runs[0];
    const gb_context *ctx = &run0->context;
    if (d->merged)
        snprintf(title, len, "gpubench: %s — %zu runs merged", *run0->suite_name ? run0->suite_name : "results",
                 r->nruns);
    else
        snprintf(title, len, "gpubench: %s on %s (%s)", *run0->suite_name ? run0->suite_name : "results",
                 *ctx->hostname ? ctx->hostname : "an unnamed host",
                 d->gpu_cols && *ctx->gpu_name ? ctx->gpu_name : "CPU only");
}

/* A speedup's colour: the GPU faster, slower, or no speedup. */
gb_cell_class gb_rdoc_speedup_class(double v) {
    if (!(v > 0)) return GB_CELL_PLAIN;
    return v > 1 ? GB_CELL_GOOD : v < 1 ? GB_CELL_WARN : GB_CELL_PLAIN;
}
