/* report.c — the summary tables of a results document, in four formats.
 *
 * The document is read once into rows (one per case, with the CPU result and
 * the GPU device-resident and end-to-end results side by side); every format
 * renders those rows, so a number means the same thing everywhere. Layout:
 *   header (suite, date, machine, how to read the columns, warnings)
 *   per op: heading, caption (CPU / threads / GPU / dtype / constant params),
 *           table, footnotes (skip / failure reasons)
 *   crossover table, summary line.
 * CSV is one row per case (wide, the table's columns in SI units) plus one
 * row per crossover entry, told apart by the first column "record". */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op.h"
#include "report.h"
#include "report_svg.h"

#include "case_index.h"
#include "report_table.h"
#include "results_model.h"

/* ---- reading the document ------------------------------------------------ */

/* A case's columns: the host backend's result, then one per timing of the
 * accelerator, in the order it declares them (device-resident, end-to-end
 * and end-to-end overlapped for CUDA): which backend and timing fills which
 * comes from the results model, never from a name. Side 1 + j is the
 * accelerator's timing j; NACC bounds how many a document can show. */
enum { SIDE_CPU = 0, SIDE_DEV = 1, SIDE_E2E = 2, NACC = 3, NSIDES = 1 + NACC };

typedef struct {
    const gb_result *r;    /* NULL: the run has no such result */
    const char *backend, *status, *reason, *verif;
    double median, lo, hi; /* NAN when no statistics; lo, hi NAN with one sample */
    int n;                 /* samples */
    double rate, pct;      /* NAN when absent */
} side;

typedef struct {
    const gb_case_result *c;
    const char *op, *dtype, *label, *rate_kind, *run_name;
    int run;               /* index in a merged file's "runs"; 0 otherwise */
    int op_rank;           /* where its op first appears among the cases shown */
    double size;
    char params[256];      /* "k=v k=v", for sorting and CSV */
    side s[NSIDES];
    double speedup[NACC];  /* per accelerator timing; NAN when absent */
    long device;           /* the accelerator device of this row (a case measured on
                            * several has a row per device); -1: one device or none */
    char device_label[96]; /* label with the device: "4096 gpu1" */
} row;

/* What the document calls its sides: the host backend's timing and the
 * accelerator's, for column heads, footnotes and CSV columns. */
typedef struct {
    int nacc;                /* the accelerator's timings (at most NACC) */
    char word[NSIDES][32];   /* "host", "device", "end-to-end", "end-to-end-overlapped" */
    char name[NSIDES][32];   /* "host", "device", "end_to_end", "end_to_end_overlapped" */
    char label[NSIDES][32];  /* "cpu", "gpu dev", "gpu e2e", "gpu e2e-ovl" */
    char brief[NACC][16];    /* the accelerator's: "dev", "e2e", "e2e-ovl" */
} side_names;

static void side_names_of(const gb_results *r, int run, side_names *sn) {
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

void gb_report_params_text(const gb_kvlist *params, const char *sep, const char *skip, char *buf, size_t len) {
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < params->n; i++) {
        if (skip && !strcmp(params->item[i].key, skip)) continue;
        char v[64];
        gb_value_text(&params->item[i].v, v, sizeof v);
        if (off < len)
            off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? sep : "", params->item[i].key, v);
    }
}

static void params_words(const gb_kvlist *params, const char *sep, char *buf, size_t len) {
    gb_report_params_text(params, sep, NULL, buf, len);
}

/* Does an accelerator result belong to the row of device (-1: any)? */
static int on_device(const gb_result *res, long device) {
    if (res->concurrent.present) return 0; /* all devices at once: their own section */
    return device < 0 || !res->device.present || res->device.index == device;
}

/* r may be NULL (a case alone: the built-in table describes its backends).
 * device: the row's accelerator device, -1 for a case of one device. */
static void read_row_of(const gb_results *r, const gb_case_result *c, long device, row *w) {
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
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *res = &c->results[i];
        const gb_backend_desc *b = gb_results_backend(r, c->run, res->backend);
        int k = -1;
        if (b->role == GB_ROLE_HOST) k = SIDE_CPU;
        else if (*res->backend && on_device(res, device)) {
            int t = gb_backend_timing_index(b, res->timing);
            if (t >= 0 && t < NACC) k = SIDE_DEV + t;
        }
        if (k >= 0 && !w->s[k].r) read_side(c, res, &w->s[k]);
    }
    /* The runner's speedup when present (the model checked it is positive). */
    const gb_backend_desc *a = gb_results_accelerator(r, c->run);
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
static int case_devices(const gb_case_result *c, long *devs, int cap) {
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
static int in_list(const char *list, const char *name) { return !list || !*list || gb_list_contains(list, name); }

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
    const gb_results *r;
    row *rows;
    size_t n;
    const char *cpu_model, *gpu_name, *gpu_reason;
    int threads;
    int gpu_cols;      /* some GPU result was measured: show the GPU columns */
    int merged;        /* a `gpubench merge` file: a run column, one machine line per run */
    int narrow;        /* a terminal table without --wide: fit GB_REPORT_COLUMNS */
    side_names sn;     /* run 0's */
} rdoc;

typedef struct {
    const row *rows;
    const char *op;
} op_probe;

static int same_op(const void *ctx, size_t j) {
    const op_probe *q = ctx;
    return strcmp(q->rows[j].op, q->op) == 0;
}

static int read_doc(const gb_results *r, const char *ops, rdoc *d) {
    memset(d, 0, sizeof *d);
    d->r = r;
    /* a row per case, or per device of a case measured on several */
    size_t nrows = 0;
    long devs[GB_MAX_DEVICES];
    for (size_t i = 0; i < r->ncases; i++) {
        int nd = case_devices(&r->cases[i], devs, GB_MAX_DEVICES);
        nrows += nd > 1 ? (size_t)nd : 1;
    }
    d->rows = calloc(nrows > 0 ? nrows : 1, sizeof *d->rows);
    if (!d->rows) return -1;
    d->merged = r->merged;
    for (size_t i = 0; i < r->ncases; i++) {
        const gb_case_result *c = &r->cases[i];
        if (!in_list(ops, c->op)) continue;
        int nd = case_devices(c, devs, GB_MAX_DEVICES);
        for (int k = 0; k < (nd > 1 ? nd : 1); k++) {
            row *w = &d->rows[d->n++];
            read_row_of(r, c, nd > 1 ? devs[k] : -1, w);
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
    side_names_of(r, 0, &d->sn);
    for (size_t i = 0; i < d->n; i++)
        for (int k = SIDE_DEV; k < NSIDES; k++) {
            const side *s = &d->rows[i].s[k];
            if (s->r && !isnan(s->median)) d->gpu_cols = 1;
        }
    return 0;
}

/* ---- formatting numbers ---------------------------------------------------- */

/* Decimals that show about three significant digits of v without an exponent. */
static int decimals(double v) {
    double a = fabs(v);
    if (a >= 100) return 0;
    if (a >= 10) return 1;
    if (a >= 1) return 2;
    if (a >= 0.1) return 3;
    if (a >= 0.01) return 4;
    return 5;
}
static void fmt_sig(char *buf, size_t len, double v) {
    if (isnan(v)) snprintf(buf, len, "–");
    else snprintf(buf, len, "%.*f", decimals(v), v);
}
/* The median in ms and the 95% confidence interval of the median, which is
 * not symmetric about it: as its bounds, "2.27 [2.02, 2.52]" (each to about
 * three significant digits), or, where a terminal table must fit 100
 * columns, relative to the median, "2.27 +11%/−4.0%". "(1 rep)" when a single
 * repetition was all the budget allowed (no interval). */
static void fmt_pct_dev(char *buf, size_t len, double v) {
    if (v < 0) v = 0;
    if (v >= 9.95) snprintf(buf, len, "%.0f%%", v);
    else snprintf(buf, len, "%.1f%%", v);
}
/* spread: NULL, or where the relative interval goes (a column of its own,
 * so the medians stay aligned); relative: as "+a%/−b%", else "[lo, hi]". */
static void fmt_time(char *buf, size_t len, char *spread, size_t slen, const side *s, int relative) {
    double ms = s->median * 1e3;
    char m[24], a[24], b[24];
    fmt_sig(m, sizeof m, ms);
    if (spread) spread[0] = '\0';
    if (!isnan(s->lo) && !isnan(s->hi) && ms > 0 && relative) {
        fmt_pct_dev(a, sizeof a, (s->hi * 1e3 / ms - 1) * 100);
        fmt_pct_dev(b, sizeof b, (1 - s->lo * 1e3 / ms) * 100);
        if (spread) {
            snprintf(buf, len, "%s", m);
            snprintf(spread, slen, "+%s/−%s", a, b);
        } else {
            snprintf(buf, len, "%s +%s/−%s", m, a, b);
        }
    } else if (!isnan(s->lo) && !isnan(s->hi)) {
        fmt_sig(a, sizeof a, s->lo * 1e3);
        fmt_sig(b, sizeof b, s->hi * 1e3);
        snprintf(buf, len, "%s [%s, %s]", m, a, b);
    } else if (s->n == 1) {
        if (spread) {
            snprintf(buf, len, "%s", m);
            snprintf(spread, slen, "(1 rep)");
        } else {
            snprintf(buf, len, "%s (1 rep)", m);
        }
    } else {
        snprintf(buf, len, "%s", m);
    }
}
static void fmt_speedup(char *buf, size_t len, double v) {
    if (!(v > 0)) snprintf(buf, len, "–");
    else if (v >= 100) snprintf(buf, len, "%.0f×", v);
    else if (v >= 10) snprintf(buf, len, "%.1f×", v);
    else snprintf(buf, len, "%.2f×", v);
}
static void fmt_pct(char *buf, size_t len, double v) {
    if (isnan(v)) snprintf(buf, len, "–");
    else if (v >= 10) snprintf(buf, len, "%.0f%%", v);
    else snprintf(buf, len, "%.1f%%", v);
}
static gb_cell_class speedup_class(double v) {
    if (!(v > 0)) return GB_CELL_PLAIN;
    return v > 1 ? GB_CELL_GOOD : v < 1 ? GB_CELL_WARN : GB_CELL_PLAIN;
}

/* Superscript footnote marker: ¹ ² … ¹⁰. */
static void superscript(char *buf, size_t len, int n) {
    static const char *const digit[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    char dec[16];
    snprintf(dec, sizeof dec, "%d", n);
    buf[0] = '\0';
    for (const char *p = dec; *p; p++) strncat(buf, digit[*p - '0'], len - strlen(buf) - 1);
}


/* ---- footnotes ------------------------------------------------------------- */

#define MAX_NOTES 64
typedef struct {
    int n;
    char text[MAX_NOTES][GB_CELL_LEN * 4];
} notes;

/* The number of the note with this text (added if new); 0 when full. */
static int note_add(notes *ns, const char *text) {
    for (int i = 0; i < ns->n; i++)
        if (!strcmp(ns->text[i], text)) return i + 1;
    if (ns->n == MAX_NOTES) return 0;
    snprintf(ns->text[ns->n], sizeof ns->text[0], "%s", text);
    return ++ns->n;
}

/* Why a result is not ok, for a footnote: the reason, else the verdict. */
static void why_not_ok(const side *s, char *buf, size_t len) {
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

/* One note per distinct text; when every GPU timing of the row went the
 * same way for the same reason, one note without the timing serves them all. */
static void side_note(notes *ns, const side_names *sn, const row *w, int k, char *marker, size_t mlen) {
    const side *s = &w->s[k];
    char why[GB_CELL_LEN * 3], text[GB_CELL_LEN * 4];
    why_not_ok(s, why, sizeof why);
    int twins = 0, alike = k != SIDE_CPU;
    for (int o = SIDE_DEV; o < NSIDES && alike; o++) {
        const side *twin = &w->s[o];
        if (o == k || !twin->r) continue;
        char twin_why[GB_CELL_LEN * 3] = "";
        why_not_ok(twin, twin_why, sizeof twin_why);
        alike = !strcmp(twin->status, s->status) && !strcmp(twin_why, why);
        twins++;
    }
    if (twins && alike)
        snprintf(text, sizeof text, "%s %s: %s", s->backend, s->status, why);
    else
        snprintf(text, sizeof text, "%s %s %s: %s", s->backend, sn->word[k],
                 s->status, why);
    superscript(marker, mlen, note_add(ns, text));
}

/* ---- the per-op table ------------------------------------------------------ */

typedef struct {
    int size, dtype, param0, nparams, t[NSIDES], ci[NSIDES], sp[NACC], rate[2], pct[2], check;
} layout;

/* Params whose value differs between the rows [a, b) get a column; the rest
 * are constant and named in the caption. */
static int param_differs(const row *rows, size_t a, size_t b, const char *key) {
    char first[64] = "", v[64];
    for (size_t i = a; i < b; i++) {
        const gb_value *p = gb_kv_find(&rows[i].c->params, key);
        if (p) gb_value_text(p, v, sizeof v);
        else snprintf(v, sizeof v, "–");
        if (i == a) snprintf(first, sizeof first, "%s", v);
        else if (strcmp(first, v)) return 1;
    }
    return 0;
}

/* col: the time's column; spread_col: its interval's in a narrow table, else -1. */
static void add_side_cells(gb_table *t, long r, int col, int spread_col, int k, const rdoc *d, const row *w,
                           notes *ns) {
    const side *s = &w->s[k];
    char buf[GB_CELL_LEN], spread[GB_CELL_LEN], mark[32];
    if (!s->r) {
        gb_table_set(t, r, col, GB_CELL_PLAIN, "–");
    } else if (!strcmp(s->status, "ok")) {
        fmt_time(buf, sizeof buf, spread_col >= 0 ? spread : NULL, sizeof spread, s, d->narrow);
        gb_table_set(t, r, col, GB_CELL_PLAIN, "%s", buf);
        if (spread_col >= 0) gb_table_set(t, r, spread_col, GB_CELL_PLAIN, "%s", spread);
    } else {
        side_note(ns, &d->sn, w, k, mark, sizeof mark);
        gb_table_set(t, r, col, strcmp(s->status, "skipped") ? GB_CELL_BAD : GB_CELL_PLAIN, "%s%s",
                     s->status, mark);
    }
}

/* ✓ when every result that ran passed its check, ✗ when one failed. */
static void check_cell(gb_table *t, long r, int col, const row *w) {
    int ran = 0, passed = 0, bad = 0;
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w->s[k];
        if (!s->r || !strcmp(s->status, "skipped")) continue;
        ran++;
        if (strcmp(s->status, "ok") || !strcmp(s->verif, "failed")) bad++;
        else if (!strcmp(s->verif, "passed")) passed++;
    }
    /* the reduced precisions: the worst error against the float64
     * reference beside the mark, their rounding being the point of them */
    double worst = -1;
    int lowp = w->dtype && gb_dtype_parse(w->dtype) > GB_FLOAT64;
    for (int k = 0; lowp && k < NSIDES; k++)
        if (w->s[k].r && w->s[k].r->verification.against && !strcmp(w->s[k].r->verification.against, "reference") &&
            w->s[k].r->verification.error > worst)
            worst = w->s[k].r->verification.error;
    if (bad) gb_table_set(t, r, col, GB_CELL_BAD, "✗ FAILED");
    else if (ran && passed == ran && worst >= 0) gb_table_set(t, r, col, GB_CELL_GOOD, "✓ err %.1e", worst);
    else if (ran && passed == ran) gb_table_set(t, r, col, GB_CELL_GOOD, "✓");
    else if (passed) gb_table_set(t, r, col, GB_CELL_PLAIN, "✓ (partly unchecked)");
    else if (ran) gb_table_set(t, r, col, GB_CELL_PLAIN, "not checked");
    else gb_table_set(t, r, col, GB_CELL_PLAIN, "skipped");
}

/* A terminal table without --wide drops columns until it fits
 * GB_REPORT_COLUMNS: first the % of peak, then the rates, then the
 * end-to-end time (its speedup stays); the names of those dropped go into
 * dropped for a line under the table. */
static void fit_narrow(gb_table *t, const layout *L, char *dropped, size_t dlen) {
    const int order[][2] = {{L->pct[1], -1}, {L->pct[0], -1}, {L->rate[1], -1}, {L->rate[0], -1},
                            {L->t[SIDE_E2E + 1], L->ci[SIDE_E2E + 1]}, {L->t[SIDE_E2E], L->ci[SIDE_E2E]}};
    size_t off = 0;
    dropped[0] = '\0';
    for (size_t i = 0; i < sizeof order / sizeof order[0] && gb_table_term_width(t) > GB_REPORT_COLUMNS; i++) {
        if (gb_table_fit(t, 0, order[i], 2) && off < dlen)
            off += (size_t)snprintf(dropped + off, dlen - off, "%s%s", off ? ", " : "", t->head[order[i][0]]);
    }
}

static void build_table(const rdoc *d, size_t a, size_t b, gb_table *t, notes *ns, char *constant,
                        size_t clen, char *dropped, size_t dlen) {
    layout L;
    memset(&L, -1, sizeof L);
    gb_table_init(t);
    const row *w0 = &d->rows[a];
    int bytes = !strcmp(w0->rate_kind, "bytes"), mixed = 0;
    for (size_t i = a; i < b; i++)
        if (strcmp(d->rows[i].rate_kind, w0->rate_kind)) mixed = 1;
    const char *unit = mixed ? "rate" : bytes ? "GB/s" : "GFLOP/s";
    char h[GB_CELL_LEN];

    int run_col = d->merged ? gb_table_col(t, "run", GB_ALIGN_LEFT) : -1;
    L.size = gb_table_col(t, "size", GB_ALIGN_LEFT);
    L.dtype = gb_table_col(t, "dtype", GB_ALIGN_LEFT);
    const char *keys[8];
    int nkeys = 0;
    size_t off = 0;
    constant[0] = '\0';
    for (size_t i = 0; i < w0->c->params.n; i++) {
        const gb_kv *p = &w0->c->params.item[i];
        if (param_differs(d->rows, a, b, p->key)) {
            if (nkeys < 8) {
                keys[nkeys++] = p->key;
                gb_table_col(t, p->key, GB_ALIGN_LEFT);
            }
        } else if (off < clen) {
            char v[64];
            gb_value_text(&p->v, v, sizeof v);
            off += (size_t)snprintf(constant + off, clen - off, "%s%s=%s", off ? ", " : "", p->key, v);
        }
    }
    /* In a narrow table each time's interval has a column of its own (no
     * head), so that the medians stay aligned. */
    L.t[SIDE_CPU] = gb_table_col(t, "CPU ms", GB_ALIGN_RIGHT);
    if (d->narrow) L.ci[SIDE_CPU] = gb_table_col(t, "", GB_ALIGN_LEFT);
    /* A GPU timing gets its columns when some row of this op's table has a
     * result for it: a timing only some ops have (end-to-end overlapped)
     * leaves no empty columns in the others' tables. */
    int shown[NACC] = {0};
    for (int j = 0; d->gpu_cols && j < d->sn.nacc; j++)
        for (size_t i = a; i < b && !shown[j]; i++) shown[j] = d->rows[i].s[SIDE_DEV + j].r != NULL;
    for (int j = 0; j < NACC; j++)
        if (shown[j]) {
            snprintf(h, sizeof h, "GPU ms %s", d->sn.brief[j]);
            L.t[SIDE_DEV + j] = gb_table_col(t, h, GB_ALIGN_RIGHT);
            if (d->narrow) L.ci[SIDE_DEV + j] = gb_table_col(t, "", GB_ALIGN_LEFT);
        }
    /* "×dev": the speedup over the device time (narrow tables have no room for the word) */
    for (int j = 0; j < NACC; j++)
        if (shown[j]) {
            snprintf(h, sizeof h, d->narrow ? "×%s" : "speedup %s", d->sn.brief[j]);
            L.sp[j] = gb_table_col(t, h, GB_ALIGN_RIGHT);
        }
    snprintf(h, sizeof h, "CPU %s", unit);
    L.rate[0] = gb_table_col(t, h, GB_ALIGN_RIGHT);
    L.pct[0] = gb_table_col(t, "CPU %peak", GB_ALIGN_RIGHT);
    if (d->gpu_cols) {
        snprintf(h, sizeof h, "GPU %s", unit);
        L.rate[1] = gb_table_col(t, h, GB_ALIGN_RIGHT);
        L.pct[1] = gb_table_col(t, "GPU %peak", GB_ALIGN_RIGHT);
    }
    L.check = gb_table_col(t, "check", GB_ALIGN_LEFT);

    for (size_t i = a; i < b; i++) {
        const row *w = &d->rows[i];
        long r = gb_table_row(t);
        if (r < 0) return;
        char buf[GB_CELL_LEN];
        if (run_col >= 0) gb_table_set(t, r, run_col, GB_CELL_PLAIN, "%s", w->run_name);
        gb_table_set(t, r, L.size, GB_CELL_PLAIN, "%s", w->label);
        gb_table_set(t, r, L.dtype, GB_CELL_PLAIN, "%s", w->dtype);
        for (int k = 0; k < nkeys; k++) {
            const gb_value *v = gb_kv_find(&w->c->params, keys[k]);
            if (v) gb_value_text(v, buf, sizeof buf);
            gb_table_set(t, r, L.dtype + 1 + k, GB_CELL_PLAIN, "%s", v ? buf : "–");
        }
        for (int k = 0; k < NSIDES; k++)
            if (L.t[k] >= 0) add_side_cells(t, r, L.t[k], L.ci[k], k, d, w, ns);
        for (int j = 0; j < NACC; j++) {
            if (L.sp[j] < 0) continue;
            fmt_speedup(buf, sizeof buf, w->speedup[j]);
            gb_table_set(t, r, L.sp[j], speedup_class(w->speedup[j]), "%s", buf);
        }
        /* Rates and % of peak: CPU host time, GPU device-resident time (the
         * end-to-end time is bounded by the transfers, not by a ceiling). */
        for (int j = 0; j < 2; j++) {
            if (L.rate[j] < 0) continue;
            const side *s = &w->s[j == 0 ? SIDE_CPU : SIDE_DEV];
            int ok = s->r && !strcmp(s->status, "ok");
            fmt_sig(buf, sizeof buf, ok ? s->rate : NAN);
            if (mixed && ok && !isnan(s->rate))
                strncat(buf, !strcmp(w->rate_kind, "bytes") ? " GB/s" : " GFLOP/s", sizeof buf - strlen(buf) - 1);
            gb_table_set(t, r, L.rate[j], GB_CELL_PLAIN, "%s", buf);
            fmt_pct(buf, sizeof buf, ok ? s->pct : NAN);
            gb_table_set(t, r, L.pct[j], GB_CELL_PLAIN, "%s", buf);
        }
        check_cell(t, r, L.check, w);
    }
    dropped[0] = '\0';
    if (d->narrow) fit_narrow(t, &L, dropped, dlen);
}

/* ---- document pieces per format ------------------------------------------- */

static void heading(gb_format f, FILE *out, int level, const char *s, int color) {
    if (f == GB_FMT_MD) {
        fprintf(out, "%.*s ", level, "######");
        gb_md_text(s, out);
        fputs("\n\n", out);
    } else if (f == GB_FMT_HTML) {
        fprintf(out, "<h%d>", level);
        gb_html_text(s, out);
        fprintf(out, "</h%d>\n", level);
    } else {
        fprintf(out, "%s%s%s\n", color ? "\033[1m" : "", s, color ? "\033[0m" : "");
    }
}

/* A paragraph; in Markdown, italic when `em` (captions). */
static void para(gb_format f, FILE *out, const char *s, int em) {
    if (f == GB_FMT_MD) {
        if (em) fputc('_', out);
        gb_md_text(s, out);
        fputs(em ? "_\n\n" : "\n\n", out);
    } else if (f == GB_FMT_HTML) {
        fputs(em ? "<p class=\"caption\">" : "<p>", out);
        gb_html_text(s, out);
        fputs("</p>\n", out);
    } else {
        gb_wrap_text(out, s, GB_REPORT_COLUMNS, 0, 0);
        fputc('\n', out);
    }
}

static void list(gb_format f, FILE *out, const char *const *items, int n, const char *prefix_fmt) {
    if (n == 0) return;
    if (f == GB_FMT_HTML) fputs("<ul class=\"notes\">\n", out);
    for (int i = 0; i < n; i++) {
        char prefix[32] = "";
        if (prefix_fmt) superscript(prefix, sizeof prefix, i + 1);
        if (f == GB_FMT_HTML) {
            fprintf(out, "<li>%s%s", prefix, *prefix ? " " : "");
            gb_html_text(items[i], out);
            fputs("</li>\n", out);
        } else if (f == GB_FMT_MD) {
            /* A trailing backslash is a hard line break on GitHub; "- " would
             * make footnote numbers bullets. */
            if (*prefix) fprintf(out, "%s ", prefix);
            else fputs("- ", out);
            gb_md_text(items[i], out);
            fputs(*prefix && i + 1 < n ? "\\\n" : "\n", out);
        } else {
            char first[2048];
            snprintf(first, sizeof first, "  %s %s", *prefix ? prefix : "-", items[i]);
            gb_wrap_text(out, first, GB_REPORT_COLUMNS, 0, 4);
            fputc('\n', out);
        }
    }
    if (f == GB_FMT_HTML) fputs("</ul>\n", out);
    else if (f == GB_FMT_MD) fputc('\n', out);
}

static void print_table(gb_format f, const gb_table *t, int color, FILE *out) {
    if (f == GB_FMT_MD) {
        gb_table_print_md(t, out);
        fputc('\n', out);
    } else if (f == GB_FMT_HTML) {
        gb_table_print_html(t, out);
    } else {
        gb_table_print_term(t, color, out);
    }
}

/* The page's head: a title that names the suite, the host and the GPU (what
 * a browser tab and a bookmark show), and a style in which a table wider
 * than the window scrolls inside its own box and a chart shrinks to fit. */
static void html_head(FILE *out, const gb_results *r, const rdoc *d) {
    const gb_run *run0 = &r->runs[0];
    const gb_context *ctx = &run0->context;
    char title[512];
    if (d->merged)
        snprintf(title, sizeof title, "gpubench: %s — %zu runs merged", *run0->suite_name ? run0->suite_name : "results",
                 r->nruns);
    else
        snprintf(title, sizeof title, "gpubench: %s on %s (%s)", *run0->suite_name ? run0->suite_name : "results",
                 *ctx->hostname ? ctx->hostname : "an unnamed host",
                 d->gpu_cols && *ctx->gpu_name ? ctx->gpu_name : "CPU only");
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", out);
    gb_html_text(title, out);
    fputs("</title>\n<style>\n"
          "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:96em;"
          "padding:0 1em;color:#222;line-height:1.4}\n"
          ".scroll{overflow-x:auto;max-width:100%}\n"
          "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.85em}\n"
          "th,td{border:1px solid #ccc;padding:.25em .5em}\ntd{white-space:nowrap}\n"
          "th{background:#f3f3f3;vertical-align:bottom}\ntd.num,th.num{text-align:right;"
          "font-variant-numeric:tabular-nums}\n"
          "td.good{color:#17731f;font-weight:600}\ntd.warn{color:#9a6a00}\ntd.bad{color:#b00020;font-weight:700}\n"
          "td.text{white-space:normal;min-width:16em}\n"
          ".caption{font-style:italic;color:#555}\n.notes{font-size:.85em;color:#444;list-style:none;padding-left:0}\n"
          ".warnings{background:#fff8e1;border-left:4px solid #e0a800;padding:.5em 1em;margin:1em 0}\n"
          ".charts{display:flex;flex-wrap:wrap;gap:.5em}\nsvg.chart{max-width:100%;height:auto;"
          "border:1px solid #eee}\n"
          "</style>\n</head>\n<body>\n", out);
}

static void header(gb_format f, FILE *out, const gb_results *r, const rdoc *d, int color) {
    const gb_run *run0 = &r->runs[0];
    const gb_context *ctx = &run0->context;
    char buf[1024];
    if (f == GB_FMT_HTML) html_head(out, r, d);
    if (d->merged || !*ctx->hostname)
        snprintf(buf, sizeof buf, "gpubench results: %s", *run0->suite_name ? run0->suite_name : "(unnamed suite)");
    else
        snprintf(buf, sizeof buf, "gpubench results: %s on %s (%s)",
                 *run0->suite_name ? run0->suite_name : "(unnamed suite)", ctx->hostname,
                 d->gpu_cols && *ctx->gpu_name ? ctx->gpu_name : "CPU only");
    heading(f, out, f == GB_FMT_MD ? 2 : 1, buf, color);
    snprintf(buf, sizeof buf, "%s%s%s · gpubench %s", ctx->date, *ctx->hostname ? " · " : "", ctx->hostname,
             r->gpubench_version ? r->gpubench_version : "");
    if (!d->merged) para(f, out, buf, 1);
    /* One machine line per run (a merged file has several). */
    for (size_t i = 0; i < r->nruns; i++) {
        const gb_context *c = &r->runs[i].context;
        const char *cpu = c->cpu_model, *gpu = c->gpu_name;
        const char *reason = gb_results_accelerator(r, (int)i)->reason;
        double th = c->cpu_threads_used;
        char threads[32] = "";
        if (th > 0) snprintf(threads, sizeof threads, ", %d thread%s", (int)th, (int)th == 1 ? "" : "s");
        char who[160] = "";
        if (d->merged) snprintf(who, sizeof who, "Run %s (%s): ", gb_results_run_name(r, (int)i), c->date);
        snprintf(buf, sizeof buf, "%sCPU: %s%s. GPU: %s.", who, *cpu ? cpu : "unknown", threads,
                 *gpu ? gpu : *reason ? reason : "none");
        para(f, out, buf, 0);
    }
    if (r->complete == 0) {
        snprintf(buf, sizeof buf, "Partial results: the run %s before every case finished.",
                 r->interrupted == 1 ? "was interrupted" : "stopped");
        para(f, out, buf, 0);
    }
    {
        char how[1024];
        /* the GPU's words only where there are GPU columns */
        char gpu_words[512] = "";
        if (d->gpu_cols)
            snprintf(gpu_words, sizeof gpu_words,
                     " Speedup%s = CPU median / GPU median: above 1× the GPU is faster, below 1× the CPU is. "
                     "\"dev\" (device-resident): inputs already in GPU memory; \"e2e\" (end-to-end): including "
                     "the copies between host and GPU.",
                     d->narrow ? " (×dev, ×e2e)" : "");
        snprintf(how, sizeof how,
                 "How to read: times are medians over the timed repetitions in ms; %s is the 95%% confidence "
                 "interval of the median, which covers every round's median%s (\"1 rep\": a single repetition, no "
                 "interval).%s Rates (GFLOP/s or GB/s) come from the median time; %% peak is against this "
                 "machine's measured ceilings%s.",
                 d->narrow ? "+a%/−b%" : "[low, high]", d->narrow ? ", relative to the median" : "", gpu_words,
                 d->gpu_cols ? " (the GPU's from the device time)" : "");
        para(f, out, how, 0);
    }
    if (d->sn.nacc > 2) {
        /* Timings beyond the two above are the backend's to name: its brief and full name. */
        size_t off = (size_t)snprintf(buf, sizeof buf, "Further GPU timings, where an op has them:");
        for (int j = 2; j < d->sn.nacc && off < sizeof buf; j++)
            off += (size_t)snprintf(buf + off, sizeof buf - off, "%s \"%s\" (%s)", j > 2 ? ";" : "", d->sn.brief[j],
                                    d->sn.word[SIDE_DEV + j]);
        if (off < sizeof buf) snprintf(buf + off, sizeof buf - off, " — see the README, \"How a result is timed\".");
        para(f, out, buf, 0);
    }
    if (!d->gpu_cols) {
        snprintf(buf, sizeof buf, "No GPU results in this run%s%s: GPU columns are omitted.",
                 *d->gpu_reason ? " — " : "", d->gpu_reason);
        para(f, out, buf, 0);
    }
    const gb_strlist *warnings = gb_results_warnings(r);
    if (warnings->n > 0) {
        const char *items[32];
        int n = 0;
        for (size_t i = 0; i < warnings->n && n < 32; i++) items[n++] = warnings->item[i];
        if (f == GB_FMT_HTML) fputs("<div class=\"warnings\">\n", out);
        para(f, out, "Warnings recorded by the run:", 0);
        list(f, out, items, n, NULL);
        if (f == GB_FMT_HTML) fputs("</div>\n", out);
    }
    if (f == GB_FMT_TABLE) fputc('\n', out);
}

static void caption(const rdoc *d, size_t a, size_t b, const char *constant, char *buf, size_t len) {
    char dtypes[96] = "", seen[96] = ""; /* seen: comma-separated, whole names ("float16" is in "bfloat16") */
    for (size_t i = a; i < b; i++) {
        const char *dt = d->rows[i].dtype;
        if (gb_list_contains(seen, dt)) continue;
        snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s%s", *seen ? "," : "", dt);
        snprintf(dtypes + strlen(dtypes), sizeof dtypes - strlen(dtypes), "%s%s", *dtypes ? ", " : "", dt);
    }
    size_t off;
    if (d->merged) {
        /* Several machines: each row's run column names it; the header lists them. */
        snprintf(buf, len, "Runs as listed above · dtype: %s%s%s", dtypes, *constant ? " · " : "", constant);
        return;
    }
    off = (size_t)snprintf(buf, len, "CPU: %s", *d->cpu_model ? d->cpu_model : "unknown");
    if (d->threads && off < len) off += (size_t)snprintf(buf + off, len - off, " (%d thread%s)", d->threads,
                                                  d->threads == 1 ? "" : "s");
    if (off < len)
        off += (size_t)snprintf(buf + off, len - off, " · GPU: %s · dtype: %s",
                                d->gpu_cols && *d->gpu_name ? d->gpu_name : "none", dtypes);
    if (*constant && off < len) snprintf(buf + off, len - off, " · %s", constant);
}

static void crossover_section(gb_format f, FILE *out, const gb_results *results, const gb_crossover_entry *xs,
                              size_t nx, const char *ops, int color, int narrow) {
    gb_table t;
    gb_table_init(&t);
    if (narrow) t.wrap = GB_REPORT_COLUMNS; /* the sentences break onto lines of their own */
    int c_op = gb_table_col(&t, "op", GB_ALIGN_LEFT), c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT),
        c_p = gb_table_col(&t, "params", GB_ALIGN_LEFT), c_t = gb_table_col(&t, "timing", GB_ALIGN_LEFT),
        c_s = gb_table_col(&t, "GPU wins at", GB_ALIGN_RIGHT),
        c_h = gb_table_col(&t, "where each side wins", GB_ALIGN_TEXT);
    int geo = 0;
    for (size_t i = 0; i < nx; i++) {
        const gb_crossover_entry *x = &xs[i];
        if (!in_list(ops, x->op)) continue;
        long r = gb_table_row(&t);
        if (r < 0) break;
        char params[256], timing[64];
        params_words(&x->params, " ", params, sizeof params);
        int is_geo = !strcmp(x->size_measure, "geometric_mean_of_shape");
        geo |= is_geo;
        if (results->merged)
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s (%s)", x->op, gb_results_run_name(results, x->run));
        else
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s", x->op);
        gb_table_set(&t, r, c_dt, GB_CELL_PLAIN, "%s", x->dtype);
        gb_table_set(&t, r, c_p, GB_CELL_PLAIN, "%s", *params ? params : "–");
        /* end_to_end reads "end-to-end" */
        snprintf(timing, sizeof timing, "%s", x->timing);
        for (char *p = timing; *p; p++)
            if (*p == '_') *p = '-';
        if (x->device >= 0) gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s gpu%ld", timing, x->device);
        else gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s", timing);
        /* Green when the GPU wins at every size tested, yellow when at none. */
        char *sizes = gb_crossover_gpu_sizes(x), *text = gb_crossover_text(x);
        int ns = (int)x->sign_changes;
        int gpu_first = !strcmp(x->status, "below_smallest");
        gb_cell_class cls = ns == 0 ? (gpu_first ? GB_CELL_GOOD : GB_CELL_WARN) : GB_CELL_PLAIN;
        gb_table_set(&t, r, c_s, cls, "%s%s", sizes ? sizes : "?", is_geo ? "*" : "");
        gb_table_set(&t, r, c_h, GB_CELL_PLAIN, "%s", text ? text : "?");
        free(sizes);
        free(text);
    }
    heading(f, out, f == GB_FMT_MD ? 3 : 2, "Crossover: where the GPU wins", color);
    if (t.nrows == 0) {
        para(f, out, "No crossover: no case has both a CPU and a GPU time.", 0);
    } else {
        para(f, out,
             "Cases of one op, dtype and params are ordered by size; the GPU wins a size where its speedup is "
             "above 1×, the CPU elsewhere. \"GPU wins at\" lists the tested sizes the GPU wins; the sentence "
             "names every change of winner along the sweep, each crossing interpolated linearly in log(size) "
             "against log(speedup) between the two tested sizes around it.",
             0);
        print_table(f, &t, color, out);
        if (geo)
            para(f, out,
                 "* size is the geometric mean of the shape's dimensions (the sweep includes non-square shapes); "
                 "n for square ones.",
                 0);
    }
    gb_table_free(&t);
}

/* The strong-scaling table (report.h: gb_scaling_compute), when the
 * document has cases with a "gpus" param. */
static int scaling_section(gb_format f, FILE *out, const gb_results *results, const char *ops, int color) {
    gb_scaling_row *rows = NULL;
    size_t n = 0;
    gb_err e = {{0}};
    if (gb_scaling_compute(results, &rows, &n, &e) != GB_OK) return -1;
    gb_table t;
    gb_table_init(&t);
    int c_op = gb_table_col(&t, "op", GB_ALIGN_LEFT), c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT),
        c_sz = gb_table_col(&t, "size", GB_ALIGN_LEFT), c_p = gb_table_col(&t, "params", GB_ALIGN_LEFT),
        c_t = gb_table_col(&t, "timing", GB_ALIGN_LEFT), c_g = gb_table_col(&t, "gpus", GB_ALIGN_RIGHT),
        c_m = gb_table_col(&t, "median ms", GB_ALIGN_RIGHT), c_s = gb_table_col(&t, "speedup", GB_ALIGN_RIGHT),
        c_e = gb_table_col(&t, "efficiency", GB_ALIGN_RIGHT);
    int other_base = 0;
    for (size_t i = 0; i < n; i++) {
        const gb_scaling_row *w = &rows[i];
        if (!in_list(ops, w->op)) continue;
        long r = gb_table_row(&t);
        if (r < 0) break;
        char buf[64];
        if (results->merged)
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s (%s)", w->op, gb_results_run_name(results, w->run));
        else
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s", w->op);
        gb_table_set(&t, r, c_dt, GB_CELL_PLAIN, "%s", w->dtype);
        gb_table_set(&t, r, c_sz, GB_CELL_PLAIN, "%s", w->label);
        gb_table_set(&t, r, c_p, GB_CELL_PLAIN, "%s", *w->params ? w->params : "–");
        gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s", w->timing);
        gb_table_set(&t, r, c_g, GB_CELL_PLAIN, "%d%s", w->gpus, w->base_gpus != 1 ? "*" : "");
        other_base |= w->base_gpus != 1;
        fmt_sig(buf, sizeof buf, w->median_s * 1e3);
        gb_table_set(&t, r, c_m, GB_CELL_PLAIN, "%s", buf);
        fmt_speedup(buf, sizeof buf, w->speedup);
        gb_table_set(&t, r, c_s, GB_CELL_PLAIN, "%s", buf);
        gb_table_set(&t, r, c_e, w->efficiency >= 0.8 ? GB_CELL_GOOD : w->efficiency < 0.5 ? GB_CELL_WARN : GB_CELL_PLAIN,
                     "%.0f%%", 100 * w->efficiency);
    }
    free(rows);
    if (t.nrows > 0) {
        heading(f, out, f == GB_FMT_MD ? 3 : 2, "Strong scaling over GPUs", color);
        para(f, out,
             "The same problem on more devices (the multi-GPU routines' \"gpus\" param): speedup = the median on "
             "one device / the median on gpus devices; parallel efficiency = speedup / gpus (80% and above green, "
             "below 50% yellow). Compare with the single-GPU op and the CPU in the tables above.",
             0);
        print_table(f, &t, color, out);
        if (other_base)
            para(f, out, "* the series has no gpus = 1 point: speedup and efficiency are over its fewest devices.", 0);
    }
    gb_table_free(&t);
    return 0;
}

/* The same device's result for the same timing, measured alone. */
static const gb_result *alone_of(const gb_case_result *c, const gb_result *x) {
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *r = &c->results[i];
        if (!r->concurrent.present && r->device.present && r->device.index == x->device.index &&
            !strcmp(r->backend, x->backend) && !strcmp(r->timing, x->timing))
            return r;
    }
    return NULL;
}

/* --devices-concurrent: each device's median alone and with every device
 * at once, and the group's aggregate rate. */
static void concurrent_section(gb_format f, FILE *out, const gb_results *results, const char *ops, int color) {
    gb_table t;
    gb_table_init(&t);
    int c_op = gb_table_col(&t, "op", GB_ALIGN_LEFT), c_sz = gb_table_col(&t, "size", GB_ALIGN_LEFT),
        c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT), c_t = gb_table_col(&t, "timing", GB_ALIGN_LEFT),
        c_d = gb_table_col(&t, "device", GB_ALIGN_RIGHT), c_a = gb_table_col(&t, "alone ms", GB_ALIGN_RIGHT),
        c_o = gb_table_col(&t, "at once ms", GB_ALIGN_RIGHT), c_s = gb_table_col(&t, "at once / alone", GB_ALIGN_RIGHT),
        c_g = gb_table_col(&t, "aggregate rate", GB_ALIGN_RIGHT);
    for (size_t i = 0; i < results->ncases; i++) {
        const gb_case_result *c = &results->cases[i];
        if (!in_list(ops, c->op)) continue;
        for (size_t j = 0; j < c->nresults; j++) {
            const gb_result *x = &c->results[j];
            if (!x->concurrent.present) continue;
            const gb_result *a = alone_of(c, x);
            long r = gb_table_row(&t);
            if (r < 0) break;
            char buf[64];
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s", c->op);
            gb_table_set(&t, r, c_sz, GB_CELL_PLAIN, "%s", c->label);
            gb_table_set(&t, r, c_dt, GB_CELL_PLAIN, "%s", c->dtype);
            gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s", x->timing);
            gb_table_set(&t, r, c_d, GB_CELL_PLAIN, "gpu%ld of %ld", x->device.index, x->concurrent.devices);
            double ma = a && a->status == GB_RS_OK && a->stats.present ? a->stats.median : NAN;
            double mo = x->status == GB_RS_OK && x->stats.present ? x->stats.median : NAN;
            fmt_sig(buf, sizeof buf, ma * 1e3);
            gb_table_set(&t, r, c_a, GB_CELL_PLAIN, "%s", buf);
            if (x->status != GB_RS_OK) gb_table_set(&t, r, c_o, GB_CELL_BAD, "%s", gb_result_status_name(x->status));
            else {
                fmt_sig(buf, sizeof buf, mo * 1e3);
                gb_table_set(&t, r, c_o, GB_CELL_PLAIN, "%s", buf);
            }
            double ratio = mo / ma;
            if (ratio > 0) gb_table_set(&t, r, c_s, ratio > 1.1 ? GB_CELL_WARN : GB_CELL_PLAIN, "%.2f×", ratio);
            else gb_table_set(&t, r, c_s, GB_CELL_PLAIN, "–");
            int bytes = !strcmp(c->rate_kind, "bytes");
            double agg = bytes ? x->concurrent.aggregate_gbs : x->concurrent.aggregate_gflops;
            fmt_sig(buf, sizeof buf, agg);
            gb_table_set(&t, r, c_g, GB_CELL_PLAIN, "%s %s", buf, isnan(agg) ? "" : bytes ? "GB/s" : "GFLOP/s");
        }
    }
    if (t.nrows > 0) {
        heading(f, out, f == GB_FMT_MD ? 3 : 2, "All devices at once", color);
        para(f, out,
             "--devices-concurrent: the same case on every listed device together (a host thread each, every "
             "repetition started behind a barrier). \"at once / alone\" above 1.1× (yellow) is a device slowed by "
             "what it shares with the others: a PCIe switch, host memory, power. The aggregate rate is every "
             "device's work over its own median, summed.",
             0);
        print_table(f, &t, color, out);
    }
    gb_table_free(&t);
}

/* ---- charts (HTML) ---------------------------------------------------------- */

/* The series of one op's rows [a, b): one per variant (run, dtype, params;
 * non-square shapes apart, unjoined) and side. which: 0 the times, 1 the
 * speedups. Returns how many were made (each x, y malloc'd). */
static size_t chart_series(const rdoc *d, size_t a, size_t b, int which, gb_svg_series *out, size_t cap) {
    size_t ns = 0;
    int nvariants = 0;
    for (size_t i = a; i < b; i++) {
        const row *w = &d->rows[i];
        int square = 0;
        gb_case_scalar_size(w->c, &square);
        /* the first row of its variant opens the variant's series */
        int first = 1;
        for (size_t j = a; j < i && first; j++) {
            int sq = 0;
            gb_case_scalar_size(d->rows[j].c, &sq);
            first = !(d->rows[j].run == w->run && !strcmp(d->rows[j].dtype, w->dtype) &&
                      !strcmp(d->rows[j].params, w->params) && sq == square);
        }
        if (!first) continue;
        int variant = nvariants++;
        for (int k = which ? SIDE_DEV : SIDE_CPU; k < NSIDES; k++) {
            if (ns == cap) return ns;
            gb_svg_series *v = &out[ns];
            memset(v, 0, sizeof *v);
            v->x = malloc((b - a) * sizeof *v->x);
            v->y = malloc((b - a) * sizeof *v->y);
            if (!v->x || !v->y) {
                free(v->x), free(v->y);
                return ns;
            }
            v->side = k, v->variant = variant, v->joined = square;
            for (size_t j = i; j < b; j++) {
                const row *u = &d->rows[j];
                int sq = 0;
                double size = gb_case_scalar_size(u->c, &sq);
                if (!(u->run == w->run && !strcmp(u->dtype, w->dtype) && !strcmp(u->params, w->params) && sq == square))
                    continue;
                const side *sd = &u->s[k];
                double y = which ? u->speedup[k - SIDE_DEV]
                                 : (sd->r && !strcmp(sd->status, "ok") ? sd->median * 1e3 : NAN);
                v->x[v->n] = size, v->y[v->n] = y;
                v->n++;
            }
            int any = 0;
            for (size_t j = 0; j < v->n; j++) any |= v->y[j] > 0;
            if (!any) {
                free(v->x), free(v->y);
                continue;
            }
            const char *who = k == SIDE_CPU ? "CPU" : k == SIDE_DEV ? "GPU device" : "GPU end-to-end";
            snprintf(v->label, sizeof v->label, "%s%s%.40s · %s%s%.80s", who, d->merged ? " " : "",
                     d->merged ? w->run_name : "", w->dtype, *w->params ? " " : "", w->params);
            if (!square)
                snprintf(v->label + strlen(v->label), sizeof v->label - strlen(v->label), " (%.40s%s)", w->label,
                         v->n > 1 ? ", …" : "");
            ns++;
        }
    }
    return ns;
}

/* An op's charts: time and speedup against size, inline SVG. */
static void html_charts(const rdoc *d, size_t a, size_t b, FILE *out) {
    enum { CAP = 48 };
    gb_svg_series *s = calloc(CAP, sizeof *s);
    if (!s) return;
    int geo = 0;
    for (size_t i = a; i < b; i++) {
        int sq = 1;
        gb_case_scalar_size(d->rows[i].c, &sq);
        geo |= !sq;
    }
    const char *xlabel = geo ? "size n (n×n, or the geometric mean of a non-square shape's dimensions)" : "size n";
    fputs("<div class=\"charts\">\n", out);
    for (int which = 0; which < (d->gpu_cols ? 2 : 1); which++) {
        size_t ns = chart_series(d, a, b, which, s, CAP);
        char title[160];
        snprintf(title, sizeof title, "%s: %s", d->rows[a].op,
                 which ? "speedup (CPU median / GPU median)" : "median time");
        gb_svg_axes ax = {.title = title, .xlabel = xlabel,
                          .ylabel = which ? "speedup (×), above 1×: the GPU is faster" : "time (ms)",
                          .hline = which ? 1.0 : NAN, .hline_label = which ? "1× (same speed)" : NULL};
        if (ns == 0 || gb_svg_chart(out, &ax, s, ns) != 0) para(GB_FMT_HTML, out, "No data to chart.", 0);
        for (size_t i = 0; i < ns; i++) free(s[i].x), free(s[i].y);
    }
    fputs("</div>\n", out);
    free(s);
}

/* ---- CSV -------------------------------------------------------------------- */

/* Columns: the case's, then per side (the host's "cpu_*"; the accelerator's
 * per timing, "gpu_device_*") the fields below, the speedups, notes, and the
 * crossover's. */
static const char *const csv_head[] = {"record", "op", "label", "shape", "size", "dtype", "params", "rate_kind",
                                       "rate_unit"};
static const char *const csv_side[] = {"status", "median_s", "ci95_low_s", "ci95_high_s", "rate", "pct_of_peak",
                                       "verification"};
static const char *const csv_tail[] = {"notes", "crossover_timing", "crossover_status", "crossover_size",
                                       "crossover_text"};
enum {
    NHEAD = sizeof csv_head / sizeof csv_head[0], NSIDE = sizeof csv_side / sizeof csv_side[0],
    NTAIL = sizeof csv_tail / sizeof csv_tail[0], NCSV = NHEAD + NSIDES * NSIDE + NACC + NTAIL
};

/* The columns for a document whose accelerator has sn->nacc timings (the
 * host's and each of those); returns how many (at most NCSV). */
static int csv_columns(const side_names *sn, char cols[NCSV][64]) {
    int c = 0;
    for (int i = 0; i < NHEAD; i++) snprintf(cols[c++], 64, "%s", csv_head[i]);
    for (int k = 0; k < 1 + sn->nacc; k++)
        for (int i = 0; i < NSIDE; i++) {
            if (k == SIDE_CPU) snprintf(cols[c++], 64, "cpu_%s", csv_side[i]);
            else snprintf(cols[c++], 64, "gpu_%.24s_%s", sn->name[k], csv_side[i]);
        }
    for (int j = 0; j < sn->nacc; j++) snprintf(cols[c++], 64, "speedup_%.24s", sn->name[SIDE_DEV + j]);
    for (int i = 0; i < NTAIL; i++) snprintf(cols[c++], 64, "%s", csv_tail[i]);
    return c;
}

static void csv_num(char *buf, size_t len, double v) {
    if (isnan(v)) buf[0] = '\0';
    else snprintf(buf, len, "%.6g", v);
}

/* The last column, crossover_text, is given apart: a sentence naming every
 * change of winner has no length bound, the other cells have. */
static void csv_row(FILE *out, char cells[NCSV][512], int ncsv, const char *last) {
    for (int i = 0; i < ncsv - 1; i++) {
        if (i) fputc(',', out);
        gb_csv_field(cells[i], out);
    }
    fputc(',', out);
    gb_csv_field(last ? last : "", out);
    fputs("\r\n", out);
}

static void render_csv(const rdoc *d, const gb_crossover_entry *xs, size_t nx, const char *ops, FILE *out) {
    static char cells[NCSV][512];
    char cols[NCSV][64];
    int ncsv = csv_columns(&d->sn, cols);
    for (int i = 0; i < ncsv; i++) snprintf(cells[i], sizeof cells[i], "%.63s", cols[i]);
    csv_row(out, cells, ncsv, cols[ncsv - 1]);
    for (size_t i = 0; i < d->n; i++) {
        const row *w = &d->rows[i];
        memset(cells, 0, sizeof cells);
        int c = 0;
        snprintf(cells[c++], 512, "case");
        snprintf(cells[c++], 512, "%s", w->op);
        snprintf(cells[c++], 512, "%s", w->label);
        gb_case_shape_text(w->c, cells[c++], 512);
        csv_num(cells[c++], 512, w->size > 0 ? w->size : NAN);
        snprintf(cells[c++], 512, "%s", w->dtype);
        snprintf(cells[c++], 512, "%s", w->params);
        snprintf(cells[c++], 512, "%s", w->rate_kind);
        snprintf(cells[c++], 512, "%s", !strcmp(w->rate_kind, "bytes") ? "GB/s" : "GFLOP/s");
        char notes_buf[512] = "";
        for (int k = 0; k < 1 + d->sn.nacc; k++) {
            const side *s = &w->s[k];
            snprintf(cells[c++], 512, "%s", s->status);
            csv_num(cells[c++], 512, s->median);
            csv_num(cells[c++], 512, s->lo);
            csv_num(cells[c++], 512, s->hi);
            csv_num(cells[c++], 512, s->rate);
            csv_num(cells[c++], 512, s->pct);
            snprintf(cells[c++], 512, "%s", s->verif);
            if (s->r && strcmp(s->status, "ok")) {
                char why[400];
                why_not_ok(s, why, sizeof why);
                size_t l = strlen(notes_buf);
                snprintf(notes_buf + l, sizeof notes_buf - l, "%s%s %s: %s", l ? "; " : "", s->backend,
                         d->sn.word[k], why);
            }
        }
        for (int j = 0; j < d->sn.nacc; j++) csv_num(cells[c++], 512, w->speedup[j]);
        snprintf(cells[c++], 512, "%s", notes_buf);
        csv_row(out, cells, ncsv, NULL);
    }
    for (size_t i = 0; i < nx; i++) {
        const gb_crossover_entry *x = &xs[i];
        if (!in_list(ops, x->op)) continue;
        memset(cells, 0, sizeof cells);
        snprintf(cells[0], 512, "crossover");
        snprintf(cells[1], 512, "%s", x->op);
        snprintf(cells[5], 512, "%s", x->dtype);
        params_words(&x->params, " ", cells[6], 512);
        if (x->device >= 0) snprintf(cells[ncsv - 4], 512, "%s gpu%ld", x->timing, x->device);
        else snprintf(cells[ncsv - 4], 512, "%s", x->timing);
        snprintf(cells[ncsv - 3], 512, "%s", x->status);
        csv_num(cells[ncsv - 2], 512, x->size);
        if (!strcmp(x->size_measure, "geometric_mean_of_shape"))
            snprintf(cells[ncsv - 5], 512, "size is the geometric mean of the shape");
        char *text = gb_crossover_text(x);
        csv_row(out, cells, ncsv, text ? text : "?");
        free(text);
    }
}

/* ---- entry points ------------------------------------------------------------ */

int gb_format_parse(const char *s) {
    if (!s) return -1;
    if (!strcmp(s, "table")) return GB_FMT_TABLE;
    if (!strcmp(s, "md") || !strcmp(s, "markdown")) return GB_FMT_MD;
    if (!strcmp(s, "csv")) return GB_FMT_CSV;
    if (!strcmp(s, "html")) return GB_FMT_HTML;
    return -1;
}

int gb_report_want_color(FILE *out) {
    const char *nc = getenv("NO_COLOR");
    return isatty(fileno(out)) && !(nc && *nc);
}

int gb_report_render(const gb_results *results, const gb_report_options *o, FILE *out) {
    gb_format f = o ? o->format : GB_FMT_TABLE;
    const char *ops = o ? o->ops : NULL;
    int color = o && o->color && f == GB_FMT_TABLE;
    rdoc d;
    if (read_doc(results, ops, &d) != 0) {
        free(d.rows);
        return -1;
    }
    d.narrow = f == GB_FMT_TABLE && !(o && o->wide);
    /* The document's crossover when the runner stored one, else computed;
     * also computed when an entry predates "changes", since the sentence
     * needs every change of winner. */
    gb_crossover_entry *computed = NULL;
    const gb_crossover_entry *xs = results->crossover;
    size_t nx = results->ncrossover;
    int stale = !results->has_crossover;
    for (size_t i = 0; i < nx; i++)
        if (!xs[i].has_changes) stale = 1;
    if (stale) {
        gb_err e = {{0}};
        if (gb_crossover_compute(results, &computed, &nx, &e) != GB_OK) {
            free(d.rows);
            return -1;
        }
        xs = computed;
    }

    int failed_section = 0;
    if (f == GB_FMT_CSV) {
        render_csv(&d, xs, nx, ops, out);
    } else {
        header(f, out, results, &d, color);
        for (size_t a = 0; a < d.n;) {
            size_t b = a;
            while (b < d.n && !strcmp(d.rows[b].op, d.rows[a].op)) b++;
            gb_table t;
            static notes ns;
            char constant[256], cap[768], dropped[256];
            ns.n = 0;
            build_table(&d, a, b, &t, &ns, constant, sizeof constant, dropped, sizeof dropped);
            heading(f, out, f == GB_FMT_MD ? 3 : 2, d.rows[a].op, color);
            caption(&d, a, b, constant, cap, sizeof cap);
            para(f, out, cap, 1);
            /* How to read this op's columns where they differ (the catalogue's note). */
            const gb_op *op = gb_op_find(d.rows[a].op);
            if (op && op->note) para(f, out, op->note, 0);
            print_table(f, &t, color, out);
            if (f == GB_FMT_HTML) html_charts(&d, a, b, out);
            if (*dropped) {
                char line[512];
                snprintf(line, sizeof line, "(not shown, to fit %d columns: %s; --wide shows them)",
                         GB_REPORT_COLUMNS, dropped);
                para(f, out, line, 0);
            }
            const char *items[MAX_NOTES];
            for (int i = 0; i < ns.n; i++) items[i] = ns.text[i];
            list(f, out, items, ns.n, "sup");
            if (f == GB_FMT_TABLE) fputc('\n', out);
            gb_table_free(&t);
            a = b;
        }
        if (d.n == 0) para(f, out, "No cases.", 0);
        crossover_section(f, out, results, xs, nx, ops, color, d.narrow);
        failed_section = scaling_section(f, out, results, ops, color) != 0;
        concurrent_section(f, out, results, ops, color);
        int ok = 0, skipped = 0, failed = 0, total = 0;
        for (size_t i = 0; i < d.n; i++)
            for (int k = 0; k < NSIDES; k++) {
                const side *s = &d.rows[i].s[k];
                if (!s->r) continue;
                total++;
                if (!strcmp(s->status, "ok") && strcmp(s->verif, "failed")) ok++;
                else if (!strcmp(s->status, "skipped")) skipped++;
                else failed++;
            }
        char buf[256];
        snprintf(buf, sizeof buf, "%zu cases, %d results: %d ok, %d skipped, %d failed or errored.", d.n,
                 total, ok, skipped, failed);
        if (f == GB_FMT_TABLE) fputc('\n', out);
        para(f, out, buf, 0);
        if (f == GB_FMT_HTML) fputs("</body>\n</html>\n", out);
    }
    if (computed) {
        for (size_t i = 0; i < nx; i++) gb_crossover_entry_free(&computed[i]);
        free(computed);
    }
    free(d.rows);
    return ferror(out) || failed_section ? -1 : 0;
}

/* One line of a case as it finishes: a line per device when it ran on several. */
static void report_case_row(const gb_results *r, const gb_case_result *c, long device, FILE *out);

/* ---- one machine's CPU against another's GPU -------------------------------- */

/* The case of doc with c's op, dtype, shape and params (in run 0), or NULL. */
static const gb_case_result *same_case(const gb_results *doc, const gb_case_result *c) {
    for (size_t i = 0; i < doc->ncases; i++) {
        const gb_case_result *x = &doc->cases[i];
        if (!strcmp(x->op, c->op) && !strcmp(x->dtype, c->dtype) && gb_shape_equal(x, c) &&
            gb_kvlist_equal(&x->params, &c->params))
            return x;
    }
    return NULL;
}

int gb_report_pair(const gb_results *cpu_doc, const char *cpu_path, const gb_results *gpu_doc,
                   const char *gpu_path, const gb_report_options *o, FILE *out) {
    gb_format f = o ? o->format : GB_FMT_TABLE;
    if (f == GB_FMT_CSV) f = GB_FMT_MD; /* one table: Markdown reads as well as CSV would */
    int color = o && o->color && f == GB_FMT_TABLE;
    const char *ops = o ? o->ops : NULL;
    rdoc dc, dg;
    if (read_doc(cpu_doc, ops, &dc) != 0 || read_doc(gpu_doc, ops, &dg) != 0) {
        free(dc.rows);
        return -1;
    }
    dc.narrow = dg.narrow = f == GB_FMT_TABLE && !(o && o->wide);
    const gb_context *cc = &cpu_doc->runs[0].context, *gc = &gpu_doc->runs[0].context;
    char buf[1024];
    if (f == GB_FMT_HTML) html_head(out, gpu_doc, &dg);
    /* machines by hostname, unless both have the same one (cloud VMs are all "vm") */
    int by_host = *cc->hostname && *gc->hostname && strcmp(cc->hostname, gc->hostname);
    const char *cb = strrchr(cpu_path, '/'), *gb = strrchr(gpu_path, '/');
    snprintf(buf, sizeof buf, "gpubench: the CPU of %s against the GPU of %s", by_host ? cc->hostname : cb ? cb + 1 : cpu_path,
             by_host ? gc->hostname : gb ? gb + 1 : gpu_path);
    heading(f, out, f == GB_FMT_MD ? 2 : 1, buf, color);
    snprintf(buf, sizeof buf, "CPU: %s, %d thread%s (%s, %s). GPU: %s (%s, %s).", *cc->cpu_model ? cc->cpu_model : "unknown",
             (int)cc->cpu_threads_used, (int)cc->cpu_threads_used == 1 ? "" : "s", cpu_path, cc->date,
             *gc->gpu_name ? gc->gpu_name : "none", gpu_path, gc->date);
    para(f, out, buf, 0);
    para(f, out,
         "Cases measured on both: the same op, dtype, shape and params. Speedup = the first file's CPU median / "
         "the second file's GPU median: above 1× that GPU is faster than that CPU. Two machines, two runs: "
         "each side's time is its own run's median with its own interval.",
         0);
    size_t matched = 0, unmatched = 0;
    for (size_t a = 0; a < dg.n;) {
        size_t b = a;
        while (b < dg.n && !strcmp(dg.rows[b].op, dg.rows[a].op)) b++;
        gb_table t;
        gb_table_init(&t);
        int c_size = gb_table_col(&t, "size", GB_ALIGN_LEFT), c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT),
            c_p = gb_table_col(&t, "params", GB_ALIGN_LEFT), c_cpu = gb_table_col(&t, "CPU ms", GB_ALIGN_RIGHT);
        int c_t[2], c_sp[2];
        for (int j = 0; j < 2; j++) {
            snprintf(buf, sizeof buf, "GPU ms %s", dg.sn.brief[j]);
            c_t[j] = gb_table_col(&t, buf, GB_ALIGN_RIGHT);
        }
        for (int j = 0; j < 2; j++) {
            snprintf(buf, sizeof buf, dc.narrow ? "×%s" : "speedup %s", dg.sn.brief[j]);
            c_sp[j] = gb_table_col(&t, buf, GB_ALIGN_RIGHT);
        }
        for (size_t i = a; i < b; i++) {
            const row *g = &dg.rows[i];
            const gb_case_result *cx = same_case(cpu_doc, g->c);
            row cr;
            if (!cx) {
                unmatched++;
                continue;
            }
            read_row_of(cpu_doc, cx, -1, &cr);
            const side *cs = &cr.s[SIDE_CPU];
            if (!cs->r || strcmp(cs->status, "ok")) {
                unmatched++;
                continue;
            }
            long r = gb_table_row(&t);
            if (r < 0) break;
            matched++;
            char cell[GB_CELL_LEN];
            gb_table_set(&t, r, c_size, GB_CELL_PLAIN, "%s", g->label);
            gb_table_set(&t, r, c_dt, GB_CELL_PLAIN, "%s", g->dtype);
            gb_table_set(&t, r, c_p, GB_CELL_PLAIN, "%s", *g->params ? g->params : "–");
            fmt_time(cell, sizeof cell, NULL, 0, cs, dc.narrow);
            gb_table_set(&t, r, c_cpu, GB_CELL_PLAIN, "%s", cell);
            for (int j = 0; j < 2; j++) {
                const side *gs = &g->s[SIDE_DEV + j];
                int ok = gs->r && !strcmp(gs->status, "ok") && gs->median > 0;
                if (ok) fmt_time(cell, sizeof cell, NULL, 0, gs, dc.narrow);
                gb_table_set(&t, r, c_t[j], GB_CELL_PLAIN, "%s", ok ? cell : gs->r ? gs->status : "–");
                double sp = ok ? cs->median / gs->median : NAN;
                fmt_speedup(cell, sizeof cell, sp);
                gb_table_set(&t, r, c_sp[j], speedup_class(sp), "%s", cell);
            }
        }
        if (t.nrows > 0) {
            if (dc.narrow) { /* too wide: the end-to-end time goes, its speedup stays */
                const int drop[] = {c_t[1]};
                gb_table_fit(&t, GB_REPORT_COLUMNS, drop, 1);
            }
            if (f == GB_FMT_TABLE) fputc('\n', out);
            heading(f, out, f == GB_FMT_MD ? 3 : 2, dg.rows[a].op, color);
            print_table(f, &t, color, out);
        }
        gb_table_free(&t);
        a = b;
    }
    if (f == GB_FMT_TABLE) fputc('\n', out);
    snprintf(buf, sizeof buf,
             "%zu case%s compared; %zu case%s of %s without an ok CPU result of the same case in %s.", matched,
             matched == 1 ? "" : "s", unmatched, unmatched == 1 ? "" : "s", gpu_path, cpu_path);
    para(f, out, buf, 0);
    if (f == GB_FMT_HTML) fputs("</body>\n</html>\n", out);
    free(dc.rows);
    free(dg.rows);
    return ferror(out) ? -1 : 0;
}

/* One line per case as it finishes: op, shape, dtype and params (so two
 * variants of one shape, math=default and math=tf32, read apart), each
 * side's median or what happened to it, the speedups and the check; then,
 * each on a line of its own, why a side was skipped or failed (one line per
 * distinct reason). */
void gb_report_case(const gb_results *r, const gb_case_result *c, FILE *out) {
    long devs[GB_MAX_DEVICES];
    int nd = case_devices(c, devs, GB_MAX_DEVICES);
    for (int k = 0; k < (nd > 1 ? nd : 1); k++) report_case_row(r, c, nd > 1 ? devs[k] : -1, out);
}

static void report_case_row(const gb_results *r, const gb_case_result *c, long device, FILE *out) {
    row w;
    read_row_of(r, c, device, &w);
    side_names sn;
    side_names_of(r, c->run, &sn);
    char line[1024], buf[GB_CELL_LEN];
    int off = snprintf(line, sizeof line, "%-11s %-16s %-7s", w.op, w.label, w.dtype);
    if (*w.params && off < (int)sizeof line)
        off += snprintf(line + off, sizeof line - (size_t)off, " %-14s", w.params);
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w.s[k];
        if (!s->r || off >= (int)sizeof line) continue;
        if (!strcmp(s->status, "ok")) {
            fmt_sig(buf, sizeof buf, s->median * 1e3);
            strncat(buf, " ms", sizeof buf - strlen(buf) - 1);
        } else {
            snprintf(buf, sizeof buf, "%s", s->status);
        }
        off += snprintf(line + off, sizeof line - (size_t)off, "  %s %s", sn.label[k], buf);
    }
    for (int j = 0; j < sn.nacc; j++) {
        if (isnan(w.speedup[j]) || off >= (int)sizeof line) continue;
        fmt_speedup(buf, sizeof buf, w.speedup[j]);
        off += snprintf(line + off, sizeof line - (size_t)off, "  %s %s", buf, sn.brief[j]);
    }
    int ran = 0, bad = 0, passed = 0;
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w.s[k];
        if (!s->r || !strcmp(s->status, "skipped")) continue;
        ran++;
        if (strcmp(s->status, "ok") || !strcmp(s->verif, "failed")) bad++;
        else if (!strcmp(s->verif, "passed")) passed++;
    }
    /* nothing ran: the sides already say "skipped", and the next line why */
    if (off < (int)sizeof line && ran)
        snprintf(line + off, sizeof line - (size_t)off, "  %s",
                 bad ? "✗ FAILED" : passed == ran ? "✓" : "not checked");
    fprintf(out, "%s\n", line);
    /* why, under the line: both GPU timings skipped for one reason say it once */
    char seen[NSIDES][GB_CELL_LEN * 3];
    int nseen = 0;
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w.s[k];
        if (!s->r || (!strcmp(s->status, "ok") && strcmp(s->verif, "failed"))) continue;
        char why[GB_CELL_LEN * 3];
        why_not_ok(s, why, sizeof why);
        int dup = 0;
        for (int i = 0; i < nseen && !dup; i++) dup = !strcmp(seen[i], why);
        if (dup) continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", why);
        int twin = k != SIDE_CPU && w.s[k == SIDE_DEV ? SIDE_E2E : SIDE_DEV].r &&
                   !strcmp(w.s[k == SIDE_DEV ? SIDE_E2E : SIDE_DEV].status, s->status);
        fprintf(out, "    %s %s: %s\n", twin ? s->backend : sn.label[k], s->status, why);
    }
    fflush(out);
}
