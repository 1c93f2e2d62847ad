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

#include "report.h"

#include "case_index.h"
#include "report_table.h"
#include "results_model.h"

/* ---- reading the document ------------------------------------------------ */

/* A case's columns: the host backend's result, then the accelerator's first
 * and second timing (device-resident and end-to-end for CUDA): which backend
 * and timing fills which comes from the results model, never from a name. */
enum { SIDE_CPU = 0, SIDE_DEV, SIDE_E2E, NSIDES };

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
    double speedup[2];     /* the accelerator's two timings; NAN when absent */
} row;

/* What the document calls its sides: the host backend's timing and the
 * accelerator's two, for column heads, footnotes and CSV columns. */
typedef struct {
    char word[NSIDES][32];   /* "host", "device", "end-to-end" */
    char name[NSIDES][32];   /* "host", "device", "end_to_end" */
    char label[NSIDES][32];  /* "cpu", "gpu dev", "gpu e2e" */
    char brief[2][16];       /* the accelerator's: "dev", "e2e" */
} side_names;

static void side_names_of(const gb_results *r, int run, side_names *sn) {
    const gb_backend_desc *h = gb_results_host(r, run), *a = gb_results_accelerator(r, run);
    memset(sn, 0, sizeof *sn);
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
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < params->n; i++) {
        char v[64];
        gb_value_text(&params->item[i].v, v, sizeof v);
        if (off < len)
            off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? sep : "", params->item[i].key, v);
    }
}

/* r may be NULL (a case alone: the built-in table describes its backends). */
static void read_row(const gb_results *r, const gb_case_result *c, row *w) {
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
        else if (*res->backend) {
            int t = gb_backend_timing_index(b, res->timing);
            if (t == 0 || t == 1) k = SIDE_DEV + t;
        }
        if (k >= 0 && !w->s[k].r) read_side(c, res, &w->s[k]);
    }
    /* The runner's speedup when present (the model checked it is positive). */
    const gb_backend_desc *a = gb_results_accelerator(r, c->run);
    for (int j = 0; j < 2; j++)
        w->speedup[j] = (size_t)j < a->ntimings ? gb_case_speedup(c, a->timings[j].name) : NAN;
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
    return (x->c > y->c) - (x->c < y->c);
}

typedef struct {
    const gb_results *r;
    row *rows;
    size_t n;
    const char *cpu_model, *gpu_name, *gpu_reason;
    int threads;
    int gpu_cols;      /* some GPU result was measured: show the GPU columns */
    int merged;        /* a `gpubench merge` file: a run column, one machine line per run */
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
    d->rows = calloc(r->ncases > 0 ? r->ncases : 1, sizeof *d->rows);
    if (!d->rows) return -1;
    d->merged = r->merged;
    for (size_t i = 0; i < r->ncases; i++) {
        const gb_case_result *c = &r->cases[i];
        if (!in_list(ops, c->op)) continue;
        row *w = &d->rows[d->n++];
        read_row(r, c, w);
        if (d->merged) w->run_name = gb_results_run_name(r, w->run);
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
/* Median in ms with ± half the 95% CI width, at the median's precision;
 * "(1 rep)" instead when a single repetition was all the budget allowed. */
static void fmt_time(char *buf, size_t len, const side *s) {
    double ms = s->median * 1e3;
    int dec = decimals(ms);
    double hw = 0.5 * (s->hi - s->lo) * 1e3;
    /* A spread below the last printed digit reads "± <0.001", not a false "± 0.000". */
    if (!isnan(hw) && hw < 0.5 * pow(10, -dec))
        snprintf(buf, len, "%.*f ± <%.*f", dec, ms, dec, pow(10, -dec));
    else if (!isnan(hw))
        snprintf(buf, len, "%.*f ± %.*f", dec, ms, dec, hw);
    else if (s->n == 1)
        snprintf(buf, len, "%.*f (1 rep)", dec, ms);
    else
        snprintf(buf, len, "%.*f", dec, ms);
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

/* One note per distinct text; when both GPU timings went the same way for
 * the same reason, one note without the timing serves both cells. */
static void side_note(notes *ns, const side_names *sn, const row *w, int k, char *marker, size_t mlen) {
    const side *s = &w->s[k];
    char why[GB_CELL_LEN * 3], text[GB_CELL_LEN * 4];
    why_not_ok(s, why, sizeof why);
    const side *twin = k == SIDE_DEV ? &w->s[SIDE_E2E] : k == SIDE_E2E ? &w->s[SIDE_DEV] : NULL;
    char twin_why[GB_CELL_LEN * 3] = "";
    if (twin && twin->r) why_not_ok(twin, twin_why, sizeof twin_why);
    if (twin && twin->r && !strcmp(twin->status, s->status) && !strcmp(twin_why, why))
        snprintf(text, sizeof text, "%s %s: %s", s->backend, s->status, why);
    else
        snprintf(text, sizeof text, "%s %s %s: %s", s->backend, sn->word[k],
                 s->status, why);
    superscript(marker, mlen, note_add(ns, text));
}

/* ---- the per-op table ------------------------------------------------------ */

typedef struct {
    int size, dtype, param0, nparams, t[NSIDES], sp[2], rate[2], pct[2], check;
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

static void add_side_cells(gb_table *t, long r, int col, int k, const rdoc *d, const row *w, notes *ns) {
    const side *s = &w->s[k];
    char buf[GB_CELL_LEN], mark[32];
    if (!s->r) {
        gb_table_set(t, r, col, GB_CELL_PLAIN, "–");
    } else if (!strcmp(s->status, "ok")) {
        fmt_time(buf, sizeof buf, s);
        gb_table_set(t, r, col, GB_CELL_PLAIN, "%s", buf);
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
    if (bad) gb_table_set(t, r, col, GB_CELL_BAD, "✗ FAILED");
    else if (ran && passed == ran) gb_table_set(t, r, col, GB_CELL_GOOD, "✓");
    else if (passed) gb_table_set(t, r, col, GB_CELL_PLAIN, "✓ (partly unchecked)");
    else if (ran) gb_table_set(t, r, col, GB_CELL_PLAIN, "not checked");
    else gb_table_set(t, r, col, GB_CELL_PLAIN, "skipped");
}

static void build_table(const rdoc *d, size_t a, size_t b, gb_table *t, notes *ns, char *constant,
                        size_t clen) {
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
    L.t[SIDE_CPU] = gb_table_col(t, "CPU ms", GB_ALIGN_RIGHT);
    if (d->gpu_cols) {
        snprintf(h, sizeof h, "GPU ms %s", d->sn.brief[0]);
        L.t[SIDE_DEV] = gb_table_col(t, h, GB_ALIGN_RIGHT);
        snprintf(h, sizeof h, "GPU ms %s", d->sn.brief[1]);
        L.t[SIDE_E2E] = gb_table_col(t, h, GB_ALIGN_RIGHT);
        snprintf(h, sizeof h, "speedup %s", d->sn.brief[0]);
        L.sp[0] = gb_table_col(t, h, GB_ALIGN_RIGHT);
        snprintf(h, sizeof h, "speedup %s", d->sn.brief[1]);
        L.sp[1] = gb_table_col(t, h, GB_ALIGN_RIGHT);
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
            if (L.t[k] >= 0) add_side_cells(t, r, L.t[k], k, d, w, ns);
        for (int j = 0; j < 2; j++) {
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
        fprintf(out, "%s\n", s);
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
            fprintf(out, "  %s%s%s\n", *prefix ? prefix : "-", " ", items[i]);
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

static const char html_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<title>gpubench results</title>\n<style>\n"
    "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:80em;"
    "padding:0 1em;color:#222}\n"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}\n"
    "th,td{border:1px solid #ccc;padding:.25em .6em;white-space:nowrap}\n"
    "th{background:#f3f3f3}\ntd.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "td.good{color:#17731f;font-weight:600}\ntd.warn{color:#9a6a00}\ntd.bad{color:#b00020;font-weight:700}\n"
    ".caption{font-style:italic;color:#555}\n.notes{font-size:.85em;color:#444;list-style:none;padding-left:0}\n"
    ".warning{color:#9a6a00}\n"
    "</style>\n</head>\n<body>\n";

static void header(gb_format f, FILE *out, const gb_results *r, const rdoc *d, int color) {
    const gb_run *run0 = &r->runs[0];
    const gb_context *ctx = &run0->context;
    char buf[1024];
    if (f == GB_FMT_HTML) fputs(html_head, out);
    snprintf(buf, sizeof buf, "gpubench results: %s", *run0->suite_name ? run0->suite_name : "(unnamed suite)");
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
        if (th > 0) snprintf(threads, sizeof threads, ", %d threads", (int)th);
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
    para(f, out,
         "How to read: times are medians over the timed repetitions in ms; ± is half the width of the "
         "95% confidence interval of the median, which covers every round's median (\"1 rep\": a single "
         "repetition, no interval). Speedup = CPU median / GPU median: above 1× the GPU is "
         "faster, below 1× the CPU is. \"dev\" (device-resident): inputs already in GPU memory; "
         "\"e2e\" (end-to-end): including the copies between host and GPU. Rates (GFLOP/s or GB/s) come from the median time; "
         "% peak is against this machine's measured ceilings (the GPU's from the device time).",
         0);
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
        para(f, out, "Warnings recorded by the run:", 0);
        list(f, out, items, n, NULL);
    }
    if (f == GB_FMT_TABLE) fputc('\n', out);
}

static void caption(const rdoc *d, size_t a, size_t b, const char *constant, char *buf, size_t len) {
    char dtypes[64] = "";
    for (size_t i = a; i < b; i++) {
        const char *dt = d->rows[i].dtype;
        if (!strstr(dtypes, dt))
            snprintf(dtypes + strlen(dtypes), sizeof dtypes - strlen(dtypes), "%s%s", *dtypes ? ", " : "", dt);
    }
    size_t off;
    if (d->merged) {
        /* Several machines: each row's run column names it; the header lists them. */
        snprintf(buf, len, "Runs as listed above · dtype: %s%s%s", dtypes, *constant ? " · " : "", constant);
        return;
    }
    off = (size_t)snprintf(buf, len, "CPU: %s", *d->cpu_model ? d->cpu_model : "unknown");
    if (d->threads && off < len) off += (size_t)snprintf(buf + off, len - off, " (%d threads)", d->threads);
    if (off < len)
        off += (size_t)snprintf(buf + off, len - off, " · GPU: %s · dtype: %s",
                                d->gpu_cols && *d->gpu_name ? d->gpu_name : "none", dtypes);
    if (*constant && off < len) snprintf(buf + off, len - off, " · %s", constant);
}

static void crossover_section(gb_format f, FILE *out, const gb_results *results, const gb_crossover_entry *xs,
                              size_t nx, const char *ops, int color) {
    gb_table t;
    gb_table_init(&t);
    int c_op = gb_table_col(&t, "op", GB_ALIGN_LEFT), c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT),
        c_p = gb_table_col(&t, "params", GB_ALIGN_LEFT), c_t = gb_table_col(&t, "timing", GB_ALIGN_LEFT),
        c_s = gb_table_col(&t, "GPU wins at", GB_ALIGN_RIGHT),
        c_h = gb_table_col(&t, "where each side wins", GB_ALIGN_LEFT);
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
        gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s", timing);
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
    NTAIL = sizeof csv_tail / sizeof csv_tail[0], NCSV = NHEAD + NSIDES * NSIDE + 2 + NTAIL
};

static void csv_columns(const side_names *sn, char cols[NCSV][64]) {
    int c = 0;
    for (int i = 0; i < NHEAD; i++) snprintf(cols[c++], 64, "%s", csv_head[i]);
    for (int k = 0; k < NSIDES; k++)
        for (int i = 0; i < NSIDE; i++) {
            if (k == SIDE_CPU) snprintf(cols[c++], 64, "cpu_%s", csv_side[i]);
            else snprintf(cols[c++], 64, "gpu_%.24s_%s", sn->name[k], csv_side[i]);
        }
    for (int j = 0; j < 2; j++) snprintf(cols[c++], 64, "speedup_%.24s", sn->name[SIDE_DEV + j]);
    for (int i = 0; i < NTAIL; i++) snprintf(cols[c++], 64, "%s", csv_tail[i]);
}

static void csv_num(char *buf, size_t len, double v) {
    if (isnan(v)) buf[0] = '\0';
    else snprintf(buf, len, "%.6g", v);
}

/* The last column, crossover_text, is given apart: a sentence naming every
 * change of winner has no length bound, the other cells have. */
static void csv_row(FILE *out, char cells[NCSV][512], const char *last) {
    for (int i = 0; i < NCSV - 1; i++) {
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
    csv_columns(&d->sn, cols);
    for (int i = 0; i < NCSV; i++) snprintf(cells[i], sizeof cells[i], "%.63s", cols[i]);
    csv_row(out, cells, cols[NCSV - 1]);
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
        for (int k = 0; k < NSIDES; k++) {
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
        csv_num(cells[c++], 512, w->speedup[0]);
        csv_num(cells[c++], 512, w->speedup[1]);
        snprintf(cells[c++], 512, "%s", notes_buf);
        csv_row(out, cells, NULL);
    }
    for (size_t i = 0; i < nx; i++) {
        const gb_crossover_entry *x = &xs[i];
        if (!in_list(ops, x->op)) continue;
        memset(cells, 0, sizeof cells);
        snprintf(cells[0], 512, "crossover");
        snprintf(cells[1], 512, "%s", x->op);
        snprintf(cells[5], 512, "%s", x->dtype);
        params_words(&x->params, " ", cells[6], 512);
        snprintf(cells[NCSV - 4], 512, "%s", x->timing);
        snprintf(cells[NCSV - 3], 512, "%s", x->status);
        csv_num(cells[NCSV - 2], 512, x->size);
        if (!strcmp(x->size_measure, "geometric_mean_of_shape"))
            snprintf(cells[NCSV - 5], 512, "size is the geometric mean of the shape");
        char *text = gb_crossover_text(x);
        csv_row(out, cells, text ? text : "?");
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

    if (f == GB_FMT_CSV) {
        render_csv(&d, xs, nx, ops, out);
    } else {
        header(f, out, results, &d, color);
        for (size_t a = 0; a < d.n;) {
            size_t b = a;
            while (b < d.n && !strcmp(d.rows[b].op, d.rows[a].op)) b++;
            gb_table t;
            static notes ns;
            char constant[256], cap[768];
            ns.n = 0;
            build_table(&d, a, b, &t, &ns, constant, sizeof constant);
            heading(f, out, f == GB_FMT_MD ? 3 : 2, d.rows[a].op, color);
            caption(&d, a, b, constant, cap, sizeof cap);
            para(f, out, cap, 1);
            print_table(f, &t, color, out);
            const char *items[MAX_NOTES];
            for (int i = 0; i < ns.n; i++) items[i] = ns.text[i];
            list(f, out, items, ns.n, "sup");
            if (f == GB_FMT_TABLE) fputc('\n', out);
            gb_table_free(&t);
            a = b;
        }
        if (d.n == 0) para(f, out, "No cases.", 0);
        crossover_section(f, out, results, xs, nx, ops, color);
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
    return ferror(out) ? -1 : 0;
}

void gb_report_case(const gb_results *r, const gb_case_result *c, FILE *out) {
    row w;
    read_row(r, c, &w);
    side_names sn;
    side_names_of(r, c->run, &sn);
    char line[1024], buf[GB_CELL_LEN];
    int off = snprintf(line, sizeof line, "%-11s %-16s %-7s", w.op, w.label, w.dtype);
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w.s[k];
        if (!s->r || off >= (int)sizeof line) continue;
        if (!strcmp(s->status, "ok")) {
            snprintf(buf, sizeof buf, "%.*f ms", decimals(s->median * 1e3), s->median * 1e3);
        } else {
            snprintf(buf, sizeof buf, "%s", s->status);
        }
        off += snprintf(line + off, sizeof line - (size_t)off, "  %s %s", sn.label[k], buf);
    }
    for (int j = 0; j < 2; j++) {
        if (isnan(w.speedup[j]) || off >= (int)sizeof line) continue;
        fmt_speedup(buf, sizeof buf, w.speedup[j]);
        off += snprintf(line + off, sizeof line - (size_t)off, "  %s %s", buf, sn.brief[j]);
    }
    int ran = 0, bad = 0, passed = 0;
    const char *why = "";
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w.s[k];
        if (!s->r || !strcmp(s->status, "skipped")) continue;
        ran++;
        if (strcmp(s->status, "ok") || !strcmp(s->verif, "failed")) {
            bad++;
            if (!*why) why = *s->reason ? s->reason : "verification failed";
        } else if (!strcmp(s->verif, "passed")) passed++;
    }
    if (off < (int)sizeof line)
        snprintf(line + off, sizeof line - (size_t)off, "  %s%s%s", bad ? "✗ FAILED" : ran && passed == ran ? "✓" : ran ? "not checked" : "skipped",
                 bad ? ": " : "", bad ? why : "");
    fprintf(out, "%s\n", line);
    fflush(out);
}

