/* report_pair.c — one machine's CPU against another's GPU (`gpubench report
 * A B --pair`, report.h: gb_report_pair): the cases measured on both, each
 * side's median with its own interval, and the speedup between them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report_internal.h"

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
    const gb_writer *wr = gb_writer_at(o ? (int)o->format : GB_FMT_TABLE);
    if (!wr) wr = &gb_writer_term;
    if (wr->records) wr = &gb_writer_md; /* one table: Markdown reads as well as CSV would */
    int color = o && o->color && wr->terminal;
    const char *ops = o ? o->ops : NULL;
    rdoc dc, dg;
    if (gb_rdoc_read(cpu_doc, ops, &dc) != 0 || gb_rdoc_read(gpu_doc, ops, &dg) != 0) {
        free(dc.rows);
        return -1;
    }
    dc.narrow = dg.narrow = wr->terminal && !(o && o->wide);
    const gb_context *cc = &cpu_doc->runs[0].context, *gc = &gpu_doc->runs[0].context;
    char buf[1024];
    gb_rdoc_title(gpu_doc, &dg, buf, sizeof buf);
    wr->begin(out, buf);
    /* machines by hostname, unless both have the same one (cloud VMs are all "vm") */
    int by_host = *cc->hostname && *gc->hostname && strcmp(cc->hostname, gc->hostname);
    const char *cb = strrchr(cpu_path, '/'), *gb = strrchr(gpu_path, '/');
    snprintf(buf, sizeof buf, "gpubench: the CPU of %s against the GPU of %s", by_host ? cc->hostname : cb ? cb + 1 : cpu_path,
             by_host ? gc->hostname : gb ? gb + 1 : gpu_path);
    wr->heading(out, 1, buf, color);
    snprintf(buf, sizeof buf, "CPU: %s, %d thread%s (%s, %s). GPU: %s (%s, %s).", *cc->cpu_model ? cc->cpu_model : "unknown",
             (int)cc->cpu_threads_used, (int)cc->cpu_threads_used == 1 ? "" : "s", cpu_path, cc->date,
             *gc->gpu_name ? gc->gpu_name : "none", gpu_path, gc->date);
    wr->para(out, buf, 0);
    wr->para(out,
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
            gb_rdoc_row(cpu_doc, cx, -1, &cr);
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
            gb_fmt_median(cell, sizeof cell, NULL, 0, cs->median, cs->lo, cs->hi, cs->n, dc.narrow);
            gb_table_set(&t, r, c_cpu, GB_CELL_PLAIN, "%s", cell);
            for (int j = 0; j < 2; j++) {
                const side *gs = &g->s[SIDE_DEV + j];
                int ok = gs->r && !strcmp(gs->status, "ok") && gs->median > 0;
                if (ok) gb_fmt_median(cell, sizeof cell, NULL, 0, gs->median, gs->lo, gs->hi, gs->n, dc.narrow);
                gb_table_set(&t, r, c_t[j], GB_CELL_PLAIN, "%s", ok ? cell : gs->r ? gs->status : "–");
                double sp = ok ? cs->median / gs->median : NAN;
                gb_fmt_speedup(cell, sizeof cell, sp);
                gb_table_set(&t, r, c_sp[j], gb_rdoc_speedup_class(sp), "%s", cell);
            }
        }
        if (t.nrows > 0) {
            if (dc.narrow) { /* too wide: the end-to-end time goes, its speedup stays */
                const int drop[] = {c_t[1]};
                gb_table_fit(&t, GB_REPORT_COLUMNS, drop, 1);
            }
            wr->gap(out);
            wr->heading(out, 2, dg.rows[a].op, color);
            wr->table(out, &t, color);
        }
        gb_table_free(&t);
        a = b;
    }
    wr->gap(out);
    snprintf(buf, sizeof buf,
             "%zu case%s compared; %zu case%s of %s without an ok CPU result of the same case in %s.", matched,
             matched == 1 ? "" : "s", unmatched, unmatched == 1 ? "" : "s", gpu_path, cpu_path);
    wr->para(out, buf, 0);
    wr->end(out);
    free(dc.rows);
    free(dg.rows);
    return ferror(out) ? -1 : 0;
}
