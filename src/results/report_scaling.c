/* report_scaling.c — the strong-scaling table of the multi-GPU routines:
 * the same problem (op, dtype, shape, every param but "gpus") measured
 * with several device counts. Data-driven: any case whose params carry a
 * numeric "gpus" takes part, whatever its op. See report.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report.h"

static int same_series(const gb_scaling_row *a, const gb_scaling_row *b) {
    return a->run == b->run && !strcmp(a->op, b->op) && !strcmp(a->dtype, b->dtype) && !strcmp(a->label, b->label) &&
           !strcmp(a->params, b->params) && !strcmp(a->timing, b->timing);
}

static int row_cmp(const void *pa, const void *pb) {
    const gb_scaling_row *a = pa, *b = pb;
    int d;
    if (a->run != b->run) return a->run - b->run;
    if ((d = strcmp(a->op, b->op)) || (d = strcmp(a->dtype, b->dtype)) || (d = strcmp(a->params, b->params)))
        return d;
    if (a->size != b->size) return a->size < b->size ? -1 : 1;
    if ((d = strcmp(a->label, b->label)) || (d = strcmp(a->timing, b->timing))) return d;
    return a->gpus - b->gpus;
}

int gb_scaling_compute(const gb_results *r, gb_scaling_row **out, size_t *nout, gb_err *e) {
    *out = NULL;
    *nout = 0;
    size_t n = 0, cap = 0;
    gb_scaling_row *rows = NULL;
    for (size_t i = 0; i < r->ncases; i++) {
        const gb_case_result *c = &r->cases[i];
        const gb_value *g = gb_kv_find(&c->params, "gpus");
        double gpus = g ? gb_value_num(g) : NAN;
        /* A device count a suite could have asked for (op.h: 1 to
         * GB_MAX_DEVICES): params are kept as the file has them, and a
         * "gpus" of 1e300 made the int conversion below undefined (found by
         * the mutation sweep under UBSan). */
        if (!(gpus >= 1 && gpus <= GB_MAX_DEVICES && gpus == floor(gpus))) continue;
        for (size_t j = 0; j < c->nresults; j++) {
            const gb_result *res = &c->results[j];
            if (gb_results_backend(r, c->run, res->backend)->role == GB_ROLE_HOST) continue;
            if (res->status != GB_RS_OK || !res->stats.present || !(res->stats.median > 0)) continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                gb_scaling_row *more = realloc(rows, cap * sizeof *more);
                if (!more) {
                    free(rows);
                    return gb_errf(e, GB_FAIL, "out of memory for the scaling table");
                }
                rows = more;
            }
            gb_scaling_row *w = &rows[n++];
            memset(w, 0, sizeof *w);
            w->run = c->run;
            w->op = c->op;
            w->dtype = c->dtype;
            w->label = c->label;
            w->size = gb_case_scalar_size(c, NULL);
            w->timing = res->timing;
            gb_report_params_text(&c->params, " ", "gpus", w->params, sizeof w->params);
            w->gpus = (int)gpus;
            w->median_s = res->stats.median;
        }
    }
    if (n) qsort(rows, n, sizeof *rows, row_cmp);
    /* Each series against its fewest devices (1 in a full sweep). */
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && same_series(&rows[a], &rows[b])) b++;
        for (size_t k = a; k < b; k++) {
            rows[k].base_gpus = rows[a].gpus;
            rows[k].speedup = rows[a].median_s / rows[k].median_s;
            rows[k].efficiency = rows[k].speedup * rows[a].gpus / rows[k].gpus;
        }
        a = b;
    }
    *out = rows;
    *nout = n;
    return GB_OK;
}
