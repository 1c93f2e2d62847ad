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
#include "report_table.h"
#include "results_io.h"

/* ---- reading the document ------------------------------------------------ */

static const cJSON *get(const cJSON *o, const char *key) {
    return o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}
static const char *str(const cJSON *o, const char *key) {
    const cJSON *s = get(o, key);
    return cJSON_IsString(s) ? s->valuestring : "";
}
/* A finite number at key, else NAN (null, absent, wrong type). */
static double num(const cJSON *o, const char *key) {
    const cJSON *v = get(o, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

enum { SIDE_CPU = 0, SIDE_DEV, SIDE_E2E, NSIDES };

typedef struct {
    const cJSON *r;        /* NULL: the run has no such result */
    const char *backend, *status, *reason, *verif;
    double median, lo, hi; /* NAN when no statistics; lo, hi NAN with one sample */
    int n;                 /* samples */
    double rate, pct;      /* NAN when absent */
} side;

typedef struct {
    const cJSON *c;
    const char *op, *dtype, *label, *rate_kind, *run_name;
    int run;               /* index in a merged file's "runs"; 0 otherwise */
    double size;
    char params[256];      /* "k=v k=v", for sorting and CSV */
    side s[NSIDES];
    double speedup[2];     /* device, end-to-end; NAN when absent */
} row;

static void read_side(const cJSON *c, const cJSON *r, side *s) {
    s->r = r;
    s->backend = str(r, "backend");
    s->status = str(r, "status");
    s->reason = str(r, "reason");
    s->verif = str(get(r, "verification"), "status");
    const cJSON *st = get(r, "stats");
    s->median = num(st, "median");
    s->n = (int)num(st, "n");
    /* one repetition has no interval: its ci95 bounds are that sample */
    s->lo = s->n >= 2 ? num(st, "ci95_low") : NAN;
    s->hi = s->n >= 2 ? num(st, "ci95_high") : NAN;
    s->rate = num(r, strcmp(str(c, "rate_kind"), "bytes") == 0 ? "gbs" : "gflops");
    s->pct = num(r, "pct_of_peak");
}

static void param_value(const cJSON *v, char *buf, size_t len) {
    if (cJSON_IsString(v)) {
        snprintf(buf, len, "%s", v->valuestring);
    } else if (cJSON_IsBool(v)) {
        snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsNumber(v)) {
        snprintf(buf, len, "%g", v->valuedouble);
    } else {
        char *p = cJSON_PrintUnformatted(v);
        snprintf(buf, len, "%s", p ? p : "?");
        free(p);
    }
}

static void read_row(const cJSON *c, row *w) {
    memset(w, 0, sizeof *w);
    w->c = c;
    w->run = gb_results_case_run(c);
    w->run_name = "";
    w->op = str(c, "op");
    w->dtype = str(c, "dtype");
    w->label = str(c, "label");
    w->rate_kind = str(c, "rate_kind");
    w->size = gb_case_scalar_size(c, NULL);
    const cJSON *p;
    size_t off = 0;
    cJSON_ArrayForEach(p, get(c, "params")) {
        char v[64];
        param_value(p, v, sizeof v);
        if (off < sizeof w->params)
            off += (size_t)snprintf(w->params + off, sizeof w->params - off, "%s%s=%s", off ? " " : "",
                                    p->string, v);
    }
    for (int k = 0; k < NSIDES; k++) {
        w->s[k].median = w->s[k].lo = w->s[k].hi = w->s[k].rate = w->s[k].pct = NAN;
        w->s[k].backend = w->s[k].status = w->s[k].reason = w->s[k].verif = "";
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, get(c, "results")) {
        const char *b = str(r, "backend"), *t = str(r, "timing");
        int k = -1;
        if (!strcmp(b, "cpu")) k = SIDE_CPU;
        else if (*b && !strcmp(t, "device")) k = SIDE_DEV;
        else if (*b && !strcmp(t, "end_to_end")) k = SIDE_E2E;
        if (k >= 0 && !w->s[k].r) read_side(c, r, &w->s[k]);
    }
    /* The runner's speedup when present; never a non-positive one. */
    const cJSON *sp = get(c, "speedup");
    w->speedup[0] = num(sp, "device");
    w->speedup[1] = num(sp, "end_to_end");
    for (int i = 0; i < 2; i++)
        if (!(w->speedup[i] > 0)) w->speedup[i] = NAN;
}

static int in_list(const char *list, const char *name) {
    if (!list || !*list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* Rows of one op appear together, in the order the ops first appear; within
 * an op by dtype, params, then size, so each sweep reads top to bottom. */
static int op_rank(const row *rows, size_t n, const char *op) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].op, op)) return (int)i;
    return 0;
}
static const row *g_sort_rows;
static size_t g_sort_n;
static int row_cmp(const void *a, const void *b) {
    const row *x = a, *y = b;
    int d = op_rank(g_sort_rows, g_sort_n, x->op) - op_rank(g_sort_rows, g_sort_n, y->op);
    if (d) return d;
    if (x->run != y->run) return x->run - y->run;
    if ((d = strcmp(x->dtype, y->dtype))) return d;
    if ((d = strcmp(x->params, y->params))) return d;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    return (x->c > y->c) - (x->c < y->c);
}

typedef struct {
    row *rows;
    size_t n;
    const char *cpu_model, *gpu_name, *gpu_backend, *gpu_reason;
    int threads;
    int gpu_cols;      /* some GPU result was measured: show the GPU columns */
    int merged;        /* a `gpubench merge` file: a run column, one machine line per run */
} rdoc;

static int read_doc(const cJSON *results, const char *ops, rdoc *d) {
    memset(d, 0, sizeof *d);
    const cJSON *cases = get(results, "cases");
    int n = cJSON_GetArraySize(cases);
    d->rows = calloc(n > 0 ? (size_t)n : 1, sizeof *d->rows);
    if (!d->rows) return -1;
    const cJSON *c;
    d->merged = gb_results_is_merged(results);
    cJSON_ArrayForEach(c, cases) {
        if (!in_list(ops, str(c, "op"))) continue;
        row *w = &d->rows[d->n++];
        read_row(c, w);
        if (d->merged) w->run_name = gb_results_run_name_json(results, w->run);
    }
    row *unsorted = malloc((d->n ? d->n : 1) * sizeof *unsorted);
    if (!unsorted) return -1;
    memcpy(unsorted, d->rows, d->n * sizeof *unsorted);
    g_sort_rows = unsorted;
    g_sort_n = d->n;
    qsort(d->rows, d->n, sizeof *d->rows, row_cmp);
    free(unsorted);

    /* The machine of run 0; a merged file names every run's in the header. */
    const cJSON *ctx = get(gb_results_run(results, 0), "context");
    d->cpu_model = str(get(ctx, "cpu"), "model");
    double th = num(ctx, "cpu_threads_used");
    d->threads = th > 0 ? (int)th : 0;
    d->gpu_name = str(get(ctx, "gpu"), "name");
    d->gpu_backend = "cuda";
    d->gpu_reason = str(get(get(ctx, "backends"), "cuda"), "reason");
    for (size_t i = 0; i < d->n; i++)
        for (int k = SIDE_DEV; k < NSIDES; k++) {
            const side *s = &d->rows[i].s[k];
            if (s->r) d->gpu_backend = s->backend;
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

static const char *timing_words(int k) {
    return k == SIDE_CPU ? "host" : k == SIDE_DEV ? "device" : "end-to-end";
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
    const cJSON *v = get(s->r, "verification");
    if (*s->reason) {
        snprintf(buf, len, "%s", s->reason);
    } else if (!strcmp(s->verif, "failed")) {
        const char *detail = str(v, "detail");
        snprintf(buf, len, "verification failed: %s %.3g > tolerance %.3g%s%s", str(v, "metric"),
                 num(v, "error"), num(v, "tolerance"), *detail ? "; " : "", detail);
    } else {
        snprintf(buf, len, "%s (no reason recorded)", s->status);
    }
}

/* One note per distinct text; when both GPU timings went the same way for
 * the same reason, one note without the timing serves both cells. */
static void side_note(notes *ns, const row *w, int k, char *marker, size_t mlen) {
    const side *s = &w->s[k];
    char why[GB_CELL_LEN * 3], text[GB_CELL_LEN * 4];
    why_not_ok(s, why, sizeof why);
    const side *twin = k == SIDE_DEV ? &w->s[SIDE_E2E] : k == SIDE_E2E ? &w->s[SIDE_DEV] : NULL;
    char twin_why[GB_CELL_LEN * 3] = "";
    if (twin && twin->r) why_not_ok(twin, twin_why, sizeof twin_why);
    if (twin && twin->r && !strcmp(twin->status, s->status) && !strcmp(twin_why, why))
        snprintf(text, sizeof text, "%s %s: %s", s->backend, s->status, why);
    else
        snprintf(text, sizeof text, "%s %s %s: %s", k == SIDE_CPU ? "cpu" : s->backend, timing_words(k),
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
        const cJSON *p = get(get(rows[i].c, "params"), key);
        param_value(p, v, sizeof v);
        if (!p) snprintf(v, sizeof v, "–");
        if (i == a) snprintf(first, sizeof first, "%s", v);
        else if (strcmp(first, v)) return 1;
    }
    return 0;
}

static void add_side_cells(gb_table *t, long r, int col, int k, const row *w, notes *ns) {
    const side *s = &w->s[k];
    char buf[GB_CELL_LEN], mark[32];
    if (!s->r) {
        gb_table_set(t, r, col, GB_CELL_PLAIN, "–");
    } else if (!strcmp(s->status, "ok")) {
        fmt_time(buf, sizeof buf, s);
        gb_table_set(t, r, col, GB_CELL_PLAIN, "%s", buf);
    } else {
        side_note(ns, w, k, mark, sizeof mark);
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
    const cJSON *p;
    const char *keys[8];
    int nkeys = 0;
    size_t off = 0;
    constant[0] = '\0';
    cJSON_ArrayForEach(p, get(w0->c, "params")) {
        if (param_differs(d->rows, a, b, p->string)) {
            if (nkeys < 8) {
                keys[nkeys++] = p->string;
                gb_table_col(t, p->string, GB_ALIGN_LEFT);
            }
        } else if (off < clen) {
            char v[64];
            param_value(p, v, sizeof v);
            off += (size_t)snprintf(constant + off, clen - off, "%s%s=%s", off ? ", " : "", p->string, v);
        }
    }
    L.t[SIDE_CPU] = gb_table_col(t, "CPU ms", GB_ALIGN_RIGHT);
    if (d->gpu_cols) {
        L.t[SIDE_DEV] = gb_table_col(t, "GPU ms dev", GB_ALIGN_RIGHT);
        L.t[SIDE_E2E] = gb_table_col(t, "GPU ms e2e", GB_ALIGN_RIGHT);
        L.sp[0] = gb_table_col(t, "speedup dev", GB_ALIGN_RIGHT);
        L.sp[1] = gb_table_col(t, "speedup e2e", GB_ALIGN_RIGHT);
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
            const cJSON *v = get(get(w->c, "params"), keys[k]);
            param_value(v, buf, sizeof buf);
            gb_table_set(t, r, L.dtype + 1 + k, GB_CELL_PLAIN, "%s", v ? buf : "–");
        }
        for (int k = 0; k < NSIDES; k++)
            if (L.t[k] >= 0) add_side_cells(t, r, L.t[k], k, w, ns);
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

static void header(gb_format f, FILE *out, const cJSON *results, const rdoc *d, int color) {
    const cJSON *run0 = gb_results_run(results, 0);
    const cJSON *suite = get(run0, "suite"), *ctx = get(run0, "context");
    char buf[1024];
    if (f == GB_FMT_HTML) fputs(html_head, out);
    snprintf(buf, sizeof buf, "gpubench results: %s", *str(suite, "name") ? str(suite, "name") : "(unnamed suite)");
    heading(f, out, f == GB_FMT_MD ? 2 : 1, buf, color);
    snprintf(buf, sizeof buf, "%s%s%s · gpubench %s", str(ctx, "date"), *str(ctx, "hostname") ? " · " : "",
             str(ctx, "hostname"), str(results, "gpubench_version"));
    if (!d->merged) para(f, out, buf, 1);
    /* One machine line per run (a merged file has several). */
    int nruns = gb_results_run_count(results);
    for (int i = 0; i < nruns; i++) {
        const cJSON *c = get(gb_results_run(results, i), "context");
        const char *cpu = str(get(c, "cpu"), "model"), *gpu = str(get(c, "gpu"), "name");
        const char *reason = str(get(get(c, "backends"), "cuda"), "reason");
        double th = num(c, "cpu_threads_used");
        char threads[32] = "";
        if (th > 0) snprintf(threads, sizeof threads, ", %d threads", (int)th);
        char who[160] = "";
        if (d->merged) snprintf(who, sizeof who, "Run %s (%s): ", gb_results_run_name_json(results, i), str(c, "date"));
        snprintf(buf, sizeof buf, "%sCPU: %s%s. GPU: %s.", who, *cpu ? cpu : "unknown", threads,
                 *gpu ? gpu : *reason ? reason : "none");
        para(f, out, buf, 0);
    }
    const cJSON *complete = get(results, "complete");
    if (cJSON_IsFalse(complete)) {
        snprintf(buf, sizeof buf, "Partial results: the run %s before every case finished.",
                 cJSON_IsTrue(get(results, "interrupted")) ? "was interrupted" : "stopped");
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
    const cJSON *warnings = get(results, "warnings");
    int nw = cJSON_GetArraySize(warnings);
    if (nw > 0) {
        const char *items[32];
        int n = 0;
        const cJSON *w;
        cJSON_ArrayForEach(w, warnings) if (cJSON_IsString(w) && n < 32) items[n++] = w->valuestring;
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

static void crossover_section(gb_format f, FILE *out, const cJSON *results, const cJSON *xs, const char *ops,
                              int color) {
    gb_table t;
    gb_table_init(&t);
    int c_op = gb_table_col(&t, "op", GB_ALIGN_LEFT), c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT),
        c_p = gb_table_col(&t, "params", GB_ALIGN_LEFT), c_t = gb_table_col(&t, "timing", GB_ALIGN_LEFT),
        c_s = gb_table_col(&t, "GPU wins at", GB_ALIGN_RIGHT),
        c_h = gb_table_col(&t, "where each side wins", GB_ALIGN_LEFT);
    int geo = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, xs) {
        if (!in_list(ops, str(x, "op"))) continue;
        long r = gb_table_row(&t);
        if (r < 0) break;
        char params[256] = "", v[64];
        const cJSON *p;
        cJSON_ArrayForEach(p, get(x, "params")) {
            param_value(p, v, sizeof v);
            snprintf(params + strlen(params), sizeof params - strlen(params), "%s%s=%s", *params ? " " : "",
                     p->string, v);
        }
        int is_geo = !strcmp(str(x, "size_measure"), "geometric_mean_of_shape");
        geo |= is_geo;
        if (get(x, "run"))
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s (%s)", str(x, "op"),
                         gb_results_run_name_json(results, (int)num(x, "run")));
        else
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s", str(x, "op"));
        gb_table_set(&t, r, c_dt, GB_CELL_PLAIN, "%s", str(x, "dtype"));
        gb_table_set(&t, r, c_p, GB_CELL_PLAIN, "%s", *params ? params : "–");
        gb_table_set(&t, r, c_t, GB_CELL_PLAIN, "%s", !strcmp(str(x, "timing"), "end_to_end") ? "end-to-end" : str(x, "timing"));
        /* Green when the GPU wins at every size tested, yellow when at none. */
        char *sizes = gb_crossover_gpu_sizes(x), *text = gb_crossover_text(x);
        int ns = (int)num(x, "sign_changes");
        int gpu_first = !strcmp(str(x, "status"), "below_smallest");
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

static const char *const csv_cols[] = {
    "record", "op", "label", "shape", "size", "dtype", "params", "rate_kind", "rate_unit",
    "cpu_status", "cpu_median_s", "cpu_ci95_low_s", "cpu_ci95_high_s", "cpu_rate", "cpu_pct_of_peak",
    "cpu_verification",
    "gpu_device_status", "gpu_device_median_s", "gpu_device_ci95_low_s", "gpu_device_ci95_high_s",
    "gpu_device_rate", "gpu_device_pct_of_peak", "gpu_device_verification",
    "gpu_end_to_end_status", "gpu_end_to_end_median_s", "gpu_end_to_end_ci95_low_s",
    "gpu_end_to_end_ci95_high_s", "gpu_end_to_end_rate", "gpu_end_to_end_pct_of_peak",
    "gpu_end_to_end_verification",
    "speedup_device", "speedup_end_to_end", "notes",
    "crossover_timing", "crossover_status", "crossover_size", "crossover_text"};
enum { NCSV = sizeof csv_cols / sizeof csv_cols[0] };

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

static void render_csv(const rdoc *d, const cJSON *xs, const char *ops, FILE *out) {
    static char cells[NCSV][512];
    for (int i = 0; i < NCSV; i++) snprintf(cells[i], sizeof cells[i], "%s", csv_cols[i]);
    csv_row(out, cells, csv_cols[NCSV - 1]);
    for (size_t i = 0; i < d->n; i++) {
        const row *w = &d->rows[i];
        memset(cells, 0, sizeof cells);
        int c = 0;
        snprintf(cells[c++], 512, "case");
        snprintf(cells[c++], 512, "%s", w->op);
        snprintf(cells[c++], 512, "%s", w->label);
        char *sh = cJSON_PrintUnformatted(get(w->c, "shape"));
        snprintf(cells[c++], 512, "%s", sh ? sh : "");
        free(sh);
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
                snprintf(notes_buf + l, sizeof notes_buf - l, "%s%s %s: %s", l ? "; " : "",
                         k == SIDE_CPU ? "cpu" : s->backend, timing_words(k), why);
            }
        }
        csv_num(cells[c++], 512, w->speedup[0]);
        csv_num(cells[c++], 512, w->speedup[1]);
        snprintf(cells[c++], 512, "%s", notes_buf);
        csv_row(out, cells, NULL);
    }
    const cJSON *x;
    cJSON_ArrayForEach(x, xs) {
        if (!in_list(ops, str(x, "op"))) continue;
        memset(cells, 0, sizeof cells);
        snprintf(cells[0], 512, "crossover");
        snprintf(cells[1], 512, "%s", str(x, "op"));
        snprintf(cells[5], 512, "%s", str(x, "dtype"));
        size_t off = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, get(x, "params")) {
            char v[64];
            param_value(p, v, sizeof v);
            if (off < 512) off += (size_t)snprintf(cells[6] + off, 512 - off, "%s%s=%s", off ? " " : "", p->string, v);
        }
        snprintf(cells[NCSV - 4], 512, "%s", str(x, "timing"));
        snprintf(cells[NCSV - 3], 512, "%s", str(x, "status"));
        csv_num(cells[NCSV - 2], 512, num(x, "size"));
        if (!strcmp(str(x, "size_measure"), "geometric_mean_of_shape"))
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

int gb_report_render(const cJSON *results, const gb_report_options *o, FILE *out) {
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
    cJSON *computed = NULL;
    const cJSON *xs = get(results, "crossover"), *x;
    int stale = !cJSON_IsArray(xs);
    if (!stale)
        cJSON_ArrayForEach(x, xs) if (!cJSON_IsArray(get(x, "changes"))) stale = 1;
    if (stale) xs = computed = gb_crossover_compute(results);

    if (f == GB_FMT_CSV) {
        render_csv(&d, xs, ops, out);
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
        crossover_section(f, out, results, xs, ops, color);
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
    cJSON_Delete(computed);
    free(d.rows);
    return ferror(out) ? -1 : 0;
}

void gb_report_case_line(const cJSON *case_obj, FILE *out) {
    row w;
    read_row(case_obj, &w);
    char line[1024], buf[GB_CELL_LEN];
    int off = snprintf(line, sizeof line, "%-11s %-16s %-7s", w.op, w.label, w.dtype);
    static const char *const name[NSIDES] = {"cpu", "gpu dev", "gpu e2e"};
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w.s[k];
        if (!s->r || off >= (int)sizeof line) continue;
        if (!strcmp(s->status, "ok")) {
            snprintf(buf, sizeof buf, "%.*f ms", decimals(s->median * 1e3), s->median * 1e3);
        } else {
            snprintf(buf, sizeof buf, "%s", s->status);
        }
        off += snprintf(line + off, sizeof line - (size_t)off, "  %s %s", name[k], buf);
    }
    for (int j = 0; j < 2; j++) {
        if (isnan(w.speedup[j]) || off >= (int)sizeof line) continue;
        fmt_speedup(buf, sizeof buf, w.speedup[j]);
        off += snprintf(line + off, sizeof line - (size_t)off, "  %s %s", buf, j ? "e2e" : "dev");
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
