/* report.c — the summary tables of a results document (report.h), in any
 * format: what the document says is decided here, how it looks in a format
 * is its writer's (writer.h). Layout:
 *   header (suite, date, machine, how to read the columns, warnings)
 *   per op: heading, caption (CPU / threads / GPU / dtype / constant params),
 *           table and its footnotes (skip / failure reasons), charts (where
 *           the format has them: report_charts.c)
 *   crossover, strong scaling, all devices at once (report_sections.c),
 *   summary line.
 * A writer of records (CSV) gets report_records.c's one flat table instead.
 * The document is read into rows by report_rows.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "op.h"
#include "report_internal.h"

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

/* One note per distinct text; when every GPU timing of the row went the
 * same way for the same reason, one note without the timing serves them all. */
static void side_note(notes *ns, const side_names *sn, const row *w, int k, char *marker, size_t mlen) {
    const side *s = &w->s[k];
    char why[GB_CELL_LEN * 3], text[GB_CELL_LEN * 4];
    gb_rdoc_why_not_ok(s, why, sizeof why);
    int twins = 0, alike = k != SIDE_CPU;
    for (int o = SIDE_DEV; o < NSIDES && alike; o++) {
        const side *twin = &w->s[o];
        if (o == k || !twin->r) continue;
        char twin_why[GB_CELL_LEN * 3] = "";
        gb_rdoc_why_not_ok(twin, twin_why, sizeof twin_why);
        alike = !strcmp(twin->status, s->status) && !strcmp(twin_why, why);
        twins++;
    }
    if (twins && alike)
        snprintf(text, sizeof text, "%s %s: %s", s->backend, s->status, why);
    else
        snprintf(text, sizeof text, "%s %s %s: %s", s->backend, sn->word[k],
                 s->status, why);
    gb_superscript(marker, mlen, note_add(ns, text));
}

/* ---- the per-op table ------------------------------------------------------ */

typedef struct {
    int size, dtype, param0, nparams, t[NSIDES], ci[NSIDES], sp[NACC], rate[2], pct[2], check;
    energy_layout e;
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
        gb_fmt_median(buf, sizeof buf, spread_col >= 0 ? spread : NULL, sizeof spread, s->median, s->lo, s->hi, s->n,
                      d->narrow);
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
 * GB_REPORT_COLUMNS: first the % of peak, then the rates, then the energy
 * columns, then the end-to-end times (their speedups stay), and last the
 * end-to-end-overlapped speedup; the names of those dropped go into dropped
 * for a line under the table. */
static void fit_narrow(gb_table *t, const layout *L, char *dropped, size_t dlen) {
    /* times and speedups stay longest; the energy columns go before the
     * end-to-end times (the default run's tables were 135-158 wide with
     * them): every one is in --wide, Markdown, HTML, CSV and the JSON */
    const int order[][2] = {{L->pct[1], -1},
                            {L->pct[0], -1},
                            {L->rate[1], -1},
                            {L->rate[0], -1},
                            {L->e.per_j, -1},
                            {L->e.watts, L->e.j[0]},
                            {L->e.clocks, -1},
                            {L->e.j[1], -1},
                            {L->e.ratio, -1},
                            {L->t[SIDE_E2E + 1], L->ci[SIDE_E2E + 1]},
                            {L->t[SIDE_E2E], L->ci[SIDE_E2E]},
                            {L->sp[2], -1}}; /* last: the overlapped copy's speedup (slicing was 101 wide) */
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
    gb_report_energy_columns(t, d, a, b, &L.e); /* the energy ratio beside the speedups */
    snprintf(h, sizeof h, "CPU %s", unit);
    L.rate[0] = gb_table_col(t, h, GB_ALIGN_RIGHT);
    /* a %peak column of "–" alone (--no-peak, or no ceiling for the op)
     * says nothing: made only where a row of the op has a % of peak */
    int has_pct[2] = {0, 0};
    for (int j = 0; j < 2; j++)
        for (size_t i = a; i < b && !has_pct[j]; i++) {
            const side *s = &d->rows[i].s[j == 0 ? SIDE_CPU : SIDE_DEV];
            has_pct[j] = s->r && !strcmp(s->status, "ok") && isfinite(s->pct);
        }
    if (has_pct[0]) L.pct[0] = gb_table_col(t, "CPU %peak", GB_ALIGN_RIGHT);
    if (d->gpu_cols) {
        snprintf(h, sizeof h, "GPU %s", unit);
        L.rate[1] = gb_table_col(t, h, GB_ALIGN_RIGHT);
        if (has_pct[1]) L.pct[1] = gb_table_col(t, "GPU %peak", GB_ALIGN_RIGHT);
    }
    L.check = gb_table_col(t, "check", GB_ALIGN_LEFT);

    for (size_t i = a; i < b; i++) {
        const row *w = &d->rows[i];
        long r = gb_table_row(t);
        if (r < 0) return;
        char buf[GB_CELL_LEN];
        if (run_col >= 0) gb_table_set(t, r, run_col, GB_CELL_PLAIN, "%s", w->run_name);
        if (d->narrow) gb_fmt_label_short(buf, sizeof buf, w->label); /* "1024x1024x1024": "1024³" */
        gb_table_set(t, r, L.size, GB_CELL_PLAIN, "%s", d->narrow ? buf : w->label);
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
            gb_fmt_speedup(buf, sizeof buf, w->speedup[j]);
            gb_table_set(t, r, L.sp[j], gb_rdoc_speedup_class(w->speedup[j]), "%s", buf);
        }
        gb_report_energy_cells(t, r, w, &L.e);
        /* Rates and % of peak: CPU host time, GPU device-resident time (the
         * end-to-end time is bounded by the transfers, not by a ceiling). */
        for (int j = 0; j < 2; j++) {
            if (L.rate[j] < 0) continue;
            const side *s = &w->s[j == 0 ? SIDE_CPU : SIDE_DEV];
            int ok = s->r && !strcmp(s->status, "ok");
            gb_fmt_sig(buf, sizeof buf, ok ? s->rate : NAN);
            if (mixed && ok && !isnan(s->rate))
                strncat(buf, !strcmp(w->rate_kind, "bytes") ? " GB/s" : " GFLOP/s", sizeof buf - strlen(buf) - 1);
            gb_table_set(t, r, L.rate[j], GB_CELL_PLAIN, "%s", buf);
            gb_fmt_pct(buf, sizeof buf, ok ? s->pct : NAN);
            if (ok && s->pct > 100) {
                /* Capped with a mark, not shown as "1013%": a bandwidth
                 * ceiling is DRAM's, which bytes that fit in cache beat;
                 * a compute one came in a slow moment (the run warned).
                 * The figure itself stays in the results file. */
                char mark[32];
                gb_superscript(mark, sizeof mark,
                               note_add(ns, !strcmp(w->rate_kind, "bytes")
                                                ? ">100% peak: faster than the memory ceiling it is held to (STREAM): "
                                                  "data that fit in cache, or a pattern STREAM does not measure (reads "
                                                  "only), go faster; the exact % is in the results file"
                                                : ">100% peak: faster than the ceiling measured for this machine, "
                                                  "which came in a slow moment (see the warnings); the exact % is in "
                                                  "the results file"));
                snprintf(buf, sizeof buf, ">100%%%s", mark);
            }
            if (L.pct[j] >= 0) gb_table_set(t, r, L.pct[j], GB_CELL_PLAIN, "%s", buf);
        }
        check_cell(t, r, L.check, w);
    }
    dropped[0] = '\0';
    /* a narrow table leaves out a dtype column of one value: the op's line
     * above the table names its dtypes */
    int one_dtype = 1;
    for (size_t i = a; i < b; i++) one_dtype &= !strcmp(d->rows[i].dtype, w0->dtype);
    if (d->narrow && one_dtype) t->hidden[L.dtype] = 1;
    if (d->narrow) fit_narrow(t, &L, dropped, dlen);
}

static void header(const gb_writer *wr, FILE *out, const gb_results *r, const rdoc *d, int color,
                   int reason_above) {
    const gb_run *run0 = &r->runs[0];
    const gb_context *ctx = &run0->context;
    char buf[1024];
    gb_rdoc_title(r, d, buf, sizeof buf);
    wr->begin(out, buf);
    if (d->merged || !*ctx->hostname)
        snprintf(buf, sizeof buf, "gpubench results: %s", *run0->suite_name ? run0->suite_name : "(unnamed suite)");
    else
        snprintf(buf, sizeof buf, "gpubench results: %s on %s (%s)",
                 *run0->suite_name ? run0->suite_name : "(unnamed suite)", ctx->hostname,
                 d->gpu_cols && *ctx->gpu_name ? ctx->gpu_name : "CPU only");
    wr->heading(out, 1, buf, color);
    snprintf(buf, sizeof buf, "%s%s%s · gpubench %s", ctx->date, *ctx->hostname ? " · " : "", ctx->hostname,
             r->gpubench_version ? r->gpubench_version : "");
    if (!d->merged) wr->para(out, buf, 1);
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
                 *gpu                       ? gpu
                 : *reason && reason_above ? "none (why: the note above)"
                 : *reason                  ? reason
                                            : "none");
        wr->para(out, buf, 0);
    }
    if (r->complete == 0) {
        snprintf(buf, sizeof buf, "Partial results: the run %s before every case finished.",
                 r->interrupted == 1 ? "was interrupted" : "stopped");
        wr->para(out, buf, 0);
    }
    {
        char how[1600], kept[160] = ""; /* room for every part at its longest: the -O1 sanitizer build checks */
        /* ceilings kept from an earlier run (run --peak): say from when */
        const gb_peaks *pk = r->nruns ? &r->runs[0].peaks : NULL;
        for (size_t i = 0; pk && i < pk->n && !*kept; i++) {
            const gb_value *from = gb_kv_find(&pk->set[i].values, "kept_from");
            if (from && from->kind == GB_VAL_STRING)
                snprintf(kept, sizeof kept, ", kept from a run of %s (`run --peak fresh` measures them again)",
                         from->text);
        }
        /* the GPU's words only where there are GPU columns */
        char gpu_words[512] = "";
        if (d->gpu_cols)
            snprintf(gpu_words, sizeof gpu_words,
                     " Speedup%s = CPU median / GPU median: above 1× the GPU is faster, below 1× the CPU is. "
                     "\"dev\" (device-resident): inputs already in GPU memory; \"e2e\" (end-to-end): including "
                     "the copies between host and GPU.",
                     d->narrow ? " (×dev, ×e2e)" : "");
        /* only where a row has one: every other report keeps its words */
        int collapsed = 0;
        for (size_t i = 0; i < d->n && !collapsed; i++)
            for (int k = 0; k < NSIDES && !collapsed; k++) {
                const side *x = &d->rows[i].s[k];
                collapsed = x->r && gb_fmt_interval_collapsed(x->median, x->lo, x->hi, x->n);
            }
        /* the ceilings are named only where a row has a % of peak (not under --no-peak) */
        int any_pct = 0;
        for (size_t i = 0; i < d->n && !any_pct; i++)
            for (int k = 0; k < NSIDES && !any_pct; k++) any_pct = d->rows[i].s[k].r && isfinite(d->rows[i].s[k].pct);
        char peak_words[256] = "";
        if (any_pct)
            snprintf(peak_words, sizeof peak_words, "; %% peak is against this machine's measured ceilings%s%s",
                     d->gpu_cols ? " (the GPU's from the device time)" : "", kept);
        snprintf(how, sizeof how,
                 "How to read: times are medians over the timed repetitions in ms; %s is the 95%% confidence "
                 "interval of the median, which covers every round's median%s (\"1 rep\": a single repetition, no "
                 "interval%s).%s Rates (GFLOP/s or GB/s) come from the median time%s.",
                 d->narrow ? "+a%/−b%" : "[low, high]", d->narrow ? ", relative to the median" : "",
                 collapsed ? "; \"clock step\": the samples about the median were equal, their spread below the "
                             "clock's step"
                           : "",
                 gpu_words, peak_words);
        wr->para(out, how, 0);
    }
    gb_report_energy_note(wr, out, r);
    /* only where some row has such a timing: no words about e2e-ovl on a
     * matmul-only or CPU-only run */
    int further = 0;
    for (size_t i = 0; i < d->n && !further; i++)
        for (int k = SIDE_DEV + 2; k < NSIDES; k++) further |= d->rows[i].s[k].r != NULL;
    if (d->sn.nacc > 2 && d->gpu_cols && further) {
        /* Timings beyond the two above are the backend's to name: its brief and full name. */
        size_t off = (size_t)snprintf(buf, sizeof buf, "Further GPU timings, where an op has them:");
        for (int j = 2; j < d->sn.nacc && off < sizeof buf; j++)
            off += (size_t)snprintf(buf + off, sizeof buf - off, "%s \"%s\" (%s)", j > 2 ? ";" : "", d->sn.brief[j],
                                    d->sn.word[SIDE_DEV + j]);
        if (off < sizeof buf) snprintf(buf + off, sizeof buf - off, " — see docs/timing.md.");
        wr->para(out, buf, 0);
    }
    if (!d->gpu_cols) {
        /* the reason is on the machine line above (once per run), unless a
         * merged file's runs had several */
        snprintf(buf, sizeof buf, "No GPU results in this run%s%s: GPU columns are omitted.",
                 *d->gpu_reason && d->merged ? " — " : "", d->merged ? d->gpu_reason : "");
        wr->para(out, buf, 0);
    }
    const gb_strlist *warnings = gb_results_warnings(r);
    if (warnings->n > 0) {
        const char *items[32];
        int n = 0;
        for (size_t i = 0; i < warnings->n && n < 32; i++) items[n++] = warnings->item[i];
        wr->box_begin(out, "warnings");
        wr->para(out, "Warnings recorded by the run:", 0);
        wr->list(out, items, n, 0);
        wr->box_end(out);
    }
    wr->gap(out);
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

/* ---- entry points ------------------------------------------------------------ */

int gb_format_parse(const char *s) {
    if (!s) return -1;
    return gb_writer_index(gb_writer_find(!strcmp(s, "markdown") ? "md" : s));
}

int gb_report_want_color(FILE *out) {
    const char *nc = getenv("NO_COLOR");
    return isatty(fileno(out)) && !(nc && *nc);
}

int gb_report_render(const gb_results *results, const gb_report_options *o, FILE *out) {
    const gb_writer *wr = gb_writer_at(o ? (int)o->format : GB_FMT_TABLE);
    if (!wr) return -1;
    const char *ops = o ? o->ops : NULL;
    int color = o && o->color && wr->terminal;
    rdoc d;
    if (gb_rdoc_read(results, ops, &d) != 0) {
        free(d.rows);
        return -1;
    }
    d.narrow = wr->terminal && !(o && o->wide);
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
    if (wr->records) {
        gb_table t;
        failed_section = gb_report_records(&d, xs, nx, ops, &t) != 0;
        if (!failed_section) wr->table(out, &t, 0);
        gb_table_free(&t);
    } else {
        header(wr, out, results, &d, color, o->accel_reason_above);
        for (size_t a = 0; a < d.n;) {
            size_t b = a;
            while (b < d.n && !strcmp(d.rows[b].op, d.rows[a].op)) b++;
            gb_table t;
            static notes ns;
            char constant[256], cap[768], dropped[256];
            ns.n = 0;
            build_table(&d, a, b, &t, &ns, constant, sizeof constant, dropped, sizeof dropped);
            wr->heading(out, 2, d.rows[a].op, color);
            caption(&d, a, b, constant, cap, sizeof cap);
            wr->para(out, cap, 1);
            /* How to read this op's columns where they differ (the catalogue's note). */
            const gb_op *op = gb_op_find(d.rows[a].op);
            if (op && op->note) wr->para(out, op->note, 0);
            /* the table with its footnotes (HTML: one box), then the charts */
            wr->box_begin(out, "optable");
            wr->table(out, &t, color);
            if (*dropped) {
                char line[512];
                snprintf(line, sizeof line, "(not shown, to fit %d columns: %s; --wide shows them)",
                         GB_REPORT_COLUMNS, dropped);
                wr->para(out, line, 0);
            }
            const char *items[MAX_NOTES];
            for (int i = 0; i < ns.n; i++) items[i] = ns.text[i];
            wr->list(out, items, ns.n, 1);
            wr->box_end(out);
            if (wr->chart) gb_report_charts(wr, &d, a, b, out);
            wr->gap(out);
            gb_table_free(&t);
            a = b;
        }
        if (d.n == 0) wr->para(out, "No cases.", 0);
        gb_report_peers_section(wr, out, &d, color);
        /* a run with no GPU time has no crossover to look for ("No GPU
         * results" above says why): no section that says only that */
        if (d.gpu_cols) gb_report_crossover_section(wr, out, results, xs, nx, ops, color, d.narrow);
        failed_section = gb_report_scaling_section(wr, out, results, ops, color) != 0;
        gb_report_concurrent_section(wr, out, results, ops, color);
        gb_report_precision_section(wr, out, results, ops);
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
        char buf[384];
        int len = snprintf(buf, sizeof buf, "%zu cases, %d results: %d ok, %d skipped, %d failed or errored.", d.n,
                           total, ok, skipped, failed);
        /* a run stopped inside a call could not list the cases after it:
         * its summary counts them (run_signals.h) */
        size_t not_reached = d.not_reached;
        if (!ops && results->nruns <= 1 && results->summary.not_reached > (long)not_reached)
            not_reached = (size_t)results->summary.not_reached;
        if (not_reached > 0 && len > 0 && (size_t)len < sizeof buf)
            len += snprintf(buf + len, sizeof buf - (size_t)len, " %zu case%s not reached: the run was interrupted%s.",
                            not_reached, not_reached == 1 ? "" : "s",
                            not_reached == d.not_reached ? " (the results file lists them)"
                                                         : " inside a call (the results file counts them)");
        if (d.host_copies > 0 && len > 0 && (size_t)len < sizeof buf)
            snprintf(buf + len, sizeof buf - (size_t)len,
                     " Not shown: %zu case%s whose only difference is a GPU-only param (math=tf32, ...) and which "
                     "had no GPU result, so repeat%s CPU rows above.",
                     d.host_copies, d.host_copies == 1 ? "" : "s", d.host_copies == 1 ? "s" : "");
        wr->gap(out);
        wr->para(out, buf, 0);
        wr->end(out);
    }
    if (computed) {
        for (size_t i = 0; i < nx; i++) gb_crossover_entry_free(&computed[i]);
        free(computed);
    }
    free(d.rows);
    return ferror(out) || failed_section ? -1 : 0;
}
