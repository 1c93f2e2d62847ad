/* report_peers.c — the frameworks (NumPy, SciPy, CuPy, PyTorch, JAX: the
 * peers of `run --peers`, docs/frameworks.md) beside the libraries: every
 * peer result as a row of its own with what it leaves on the table (its time
 * over the library's on the same side: the CPU's host time for a framework
 * on the CPU, the GPU's device time for one on the GPU), and each GPU
 * framework's speedup over the fastest CPU framework of the case beside the
 * libraries' own (CuPy over NumPy against CUDA over the CPU). A peer never
 * takes the CPU's or the GPU's column (report_rows.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "report_internal.h"

int gb_report_peer_views(const gb_results *r, const row *w, peer_view *out, int cap) {
    int n = 0;
    const gb_case_result *c = w->c;
    for (size_t i = 0; i < c->nresults && n < cap; i++) {
        const gb_result *res = &c->results[i];
        if (!gb_rdoc_is_peer(r, c->run, res->backend) || res->concurrent.present) continue;
        const gb_backend_desc *b = gb_results_backend(r, c->run, res->backend);
        peer_view *v = &out[n++];
        v->r = res;
        v->framework = res->backend;
        v->on_gpu = b->role != GB_ROLE_HOST;
        v->ok = res->status == GB_RS_OK && !(res->verification.present && res->verification.status == GB_VS_FAILED);
        v->median = res->status == GB_RS_OK && res->stats.present ? res->stats.median : NAN;
        const side *lib = &w->s[v->on_gpu ? SIDE_DEV : SIDE_CPU];
        v->library = lib->r && !strcmp(lib->status, "ok") ? lib->median : NAN;
        v->vs_library = v->ok && v->library > 0 ? v->median / v->library : NAN;
    }
    return n;
}

int gb_report_doc_has_peers(const gb_results *r) {
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t j = 0; j < r->cases[i].nresults; j++)
            if (gb_rdoc_is_peer(r, r->cases[i].run, r->cases[i].results[j].backend)) return 1;
    return 0;
}

/* "1.8×", "0.93×", or "–" */
static void times_text(char *buf, size_t len, double v) {
    if (isfinite(v) && v > 0) gb_fmt_speedup(buf, len, v);
    else snprintf(buf, len, "–");
}

static void ms_text(char *buf, size_t len, double s) {
    if (isfinite(s)) {
        gb_fmt_sig(buf, len, s * 1e3);
    } else {
        snprintf(buf, len, "–");
    }
}

void gb_report_peers_section(const gb_writer *wr, FILE *out, const rdoc *d, int color) {
    if (!gb_report_doc_has_peers(d->r)) return;
    gb_table t, sp;
    gb_table_init(&t);
    gb_table_init(&sp);
    int c_op = gb_table_col(&t, "op", GB_ALIGN_LEFT), c_size = gb_table_col(&t, "size", GB_ALIGN_LEFT),
        c_dt = gb_table_col(&t, "dtype", GB_ALIGN_LEFT), c_fw = gb_table_col(&t, "framework", GB_ALIGN_LEFT),
        c_ms = gb_table_col(&t, "ms", GB_ALIGN_RIGHT), c_x = gb_table_col(&t, "÷ library", GB_ALIGN_RIGHT);
    char skips[1024] = ""; /* the skipped ones in a sentence, each reason once: the table keeps to what ran */
    size_t sl = 0;
    int s_op = gb_table_col(&sp, "op", GB_ALIGN_LEFT), s_size = gb_table_col(&sp, "size", GB_ALIGN_LEFT),
        s_dt = gb_table_col(&sp, "dtype", GB_ALIGN_LEFT), s_pair = gb_table_col(&sp, "frameworks", GB_ALIGN_LEFT),
        s_fx = gb_table_col(&sp, "speedup", GB_ALIGN_RIGHT), s_lx = gb_table_col(&sp, "libraries'", GB_ALIGN_RIGHT);
    if (d->narrow) t.wrap = sp.wrap = GB_REPORT_COLUMNS;
    for (size_t i = 0; i < d->n; i++) {
        const row *w = &d->rows[i];
        if (w->device > 0) continue; /* one row a case: the first device's */
        peer_view v[16];
        int n = gb_report_peer_views(d->r, w, v, 16);
        const peer_view *best_cpu = NULL;
        for (int k = 0; k < n; k++)
            if (!v[k].on_gpu && v[k].ok && (!best_cpu || v[k].median < best_cpu->median)) best_cpu = &v[k];
        char buf[GB_CELL_LEN], label[GB_CELL_LEN], size[GB_CELL_LEN + sizeof w->params + 2];
        if (d->narrow) gb_fmt_label_short(label, sizeof label, w->label);
        else snprintf(label, sizeof label, "%s", w->label);
        snprintf(size, sizeof size, "%s%s%s", label, *w->params ? " " : "", w->params);
        for (int k = 0; k < n; k++) {
            if (v[k].r->status == GB_RS_SKIPPED) {
                char one[400];
                snprintf(one, sizeof one, "%s %s (%s)", v[k].framework, w->op, v[k].r->reason);
                if (!strstr(skips, one) && sl < sizeof skips)
                    sl += (size_t)snprintf(skips + sl, sizeof skips - sl, "%s%s", sl ? "; " : "", one);
                continue;
            }
            long r = gb_table_row(&t);
            if (r < 0) break;
            gb_table_set(&t, r, c_op, GB_CELL_PLAIN, "%s", w->op);
            gb_table_set(&t, r, c_size, GB_CELL_PLAIN, "%s", size);
            gb_table_set(&t, r, c_dt, GB_CELL_PLAIN, "%s", w->dtype);
            gb_table_set(&t, r, c_fw, GB_CELL_PLAIN, "%s %s", v[k].framework, v[k].on_gpu ? "gpu" : "cpu");
            if (v[k].r->status == GB_RS_OK) ms_text(buf, sizeof buf, v[k].median);
            else snprintf(buf, sizeof buf, "%s", gb_result_status_name(v[k].r->status));
            gb_table_set(&t, r, c_ms, GB_CELL_PLAIN, "%s", buf);
            /* a time that failed its check has no ratio: it says so there (the
             * table keeps within 100 columns without a check column) */
            const char *vs = v[k].r->verification.present ? gb_verify_status_name(v[k].r->verification.status) : "";
            times_text(buf, sizeof buf, v[k].vs_library);
            /* at or below the library's time: nothing left on the table */
            gb_cell_class cls = !strcmp(vs, "failed")      ? GB_CELL_BAD
                                : !isfinite(v[k].vs_library) ? GB_CELL_PLAIN
                                : v[k].vs_library <= 1.1   ? GB_CELL_GOOD
                                                           : GB_CELL_WARN;
            gb_table_set(&t, r, c_x, cls, "%s", !strcmp(vs, "failed") ? "✗ FAILED" : buf);
            if (!v[k].on_gpu || !v[k].ok || !best_cpu) continue;
            long q = gb_table_row(&sp);
            if (q < 0) continue;
            gb_table_set(&sp, q, s_op, GB_CELL_PLAIN, "%s", w->op);
            gb_table_set(&sp, q, s_size, GB_CELL_PLAIN, "%s", size);
            gb_table_set(&sp, q, s_dt, GB_CELL_PLAIN, "%s", w->dtype);
            gb_table_set(&sp, q, s_pair, GB_CELL_PLAIN, "%s over %s", v[k].framework, best_cpu->framework);
            double fx = best_cpu->median / v[k].median;
            times_text(buf, sizeof buf, fx);
            gb_table_set(&sp, q, s_fx, gb_rdoc_speedup_class(fx), "%s", buf);
            times_text(buf, sizeof buf, w->speedup[0]);
            gb_table_set(&sp, q, s_lx, gb_rdoc_speedup_class(w->speedup[0]), "%s", buf);
        }
    }
    wr->heading(out, 2, "Frameworks beside the libraries", color);
    wr->para(out,
             "Each framework's median time with gpubench's inputs, warm-up and stopping rule, in a Python worker "
             "of its own (docs/frameworks.md). \"÷ library\" is what the framework leaves on the table: its time "
             "over the library's on the same side (the CPU's host time for a framework on the CPU, the GPU's "
             "device time for one on the GPU, in the op's table above); above 1× the library is faster. Every "
             "time shown passed its check against the case's reference; one that did not says \"✗ FAILED\".",
             0);
    wr->table(out, &t, color);
    if (sl) {
        char line[1100];
        snprintf(line, sizeof line, "Not timed: %s.", skips);
        wr->para(out, line, 0);
    }
    if (sp.nrows > 0) {
        wr->para(out,
                 "The GPU frameworks' speedup over the fastest CPU framework of the case, beside the libraries' "
                 "(the GPU's device time over the CPU's).",
                 0);
        wr->table(out, &sp, color);
    }
    gb_table_free(&t);
    gb_table_free(&sp);
}
