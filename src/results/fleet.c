/* fleet.c — columns (run, device), rows (cases), and each cell judged
 * against the row's reference column with compare's statistics. */
#include "fleet_internal.h"
#include "compare_stats.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t doc;
    int run;
    long device;                /* -1: the result names no device */
    const gb_device_id *dev;    /* NULL when none */
    char label[160];
} column;

typedef struct {
    const gb_case_result *c;    /* the first case seen with this key */
    const gb_result *r;
    const gb_result **cell;     /* one per column; NULL: not measured there */
} row;

typedef struct {
    column *col;
    size_t ncol, capcol;
    row *row;
    size_t nrow, caprow;
} fleet;

static void fleet_free(fleet *f) {
    for (size_t i = 0; i < f->nrow; i++) free(f->row[i].cell);
    free(f->row);
    free(f->col);
}

static long device_of(const gb_result *r) { return r->device.present ? r->device.index : -1; }

/* The timing shown: the caller's, else "device" where any result has it
 * (GPUs: the time with data resident), else the host's first timing. */
static const char *pick_timing(const gb_results *const *docs, size_t ndocs, const gb_fleet_options *o) {
    if (o && o->timing) return o->timing;
    for (size_t d = 0; d < ndocs; d++)
        for (size_t i = 0; i < docs[d]->ncases; i++)
            for (size_t j = 0; j < docs[d]->cases[i].nresults; j++)
                if (!strcmp(docs[d]->cases[i].results[j].timing, "device")) return "device";
    const gb_backend_desc *h = gb_results_host(ndocs ? docs[0] : NULL, 0);
    return h->ntimings ? h->timings[0].name : "host";
}

static long find_column(const fleet *f, size_t doc, int run, long device) {
    for (size_t i = 0; i < f->ncol; i++)
        if (f->col[i].doc == doc && f->col[i].run == run && f->col[i].device == device) return (long)i;
    return -1;
}

/* Room for one more element in *arr (n used of *cap, each sz bytes). */
static int reserve(void **arr, size_t n, size_t *cap, size_t sz) {
    if (n < *cap) return 0;
    size_t c = *cap ? 2 * *cap : 16;
    void *p = realloc(*arr, c * sz);
    if (!p) return -1;
    *arr = p;
    *cap = c;
    return 0;
}

static int add_column(fleet *f, size_t doc, int run, const gb_result *r) {
    if (reserve((void **)&f->col, f->ncol, &f->capcol, sizeof *f->col) != 0) return -1;
    f->col[f->ncol++] = (column){doc, run, device_of(r), r->device.present ? &r->device : NULL, ""};
    return 0;
}

/* The same case: op, dtype, shape, params (absent = none), backend, timing. */
static int same_row(const row *w, const gb_case_result *c, const gb_result *r) {
    if (strcmp(w->c->op, c->op) || strcmp(w->c->dtype, c->dtype) || !gb_shape_equal(w->c, c)) return 0;
    if (strcmp(w->r->backend, r->backend) || strcmp(w->r->timing, r->timing)) return 0;
    if (w->c->params.n == 0 && c->params.n == 0) return 1;
    return gb_kvlist_equal(&w->c->params, &c->params);
}

static int add_row(fleet *f, const gb_case_result *c, const gb_result *r) {
    if (reserve((void **)&f->row, f->nrow, &f->caprow, sizeof *f->row) != 0) return -1;
    f->row[f->nrow++] = (row){c, r, NULL};
    return 0;
}

/* Whether op is in the comma-separated list (NULL: every op is). */
static int op_wanted(const char *ops, const char *op) {
    if (!ops) return 1;
    size_t n = strlen(op);
    for (const char *p = ops; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, op, n)) return 1;
        p += len + (end != NULL);
    }
    return 0;
}

/* The column of a result: its (run, device); a result naming no device
 * (a host timing, or a failure before the device was known) belongs to its
 * run's only column when the run has one. -1 when there is none yet. */
static long column_of(const fleet *f, size_t doc, int run, const gb_result *r) {
    long col = find_column(f, doc, run, device_of(r));
    if (col >= 0 || r->device.present) return col;
    long only = -1;
    for (size_t i = 0; i < f->ncol; i++)
        if (f->col[i].doc == doc && f->col[i].run == run) {
            if (only >= 0) return -1;
            only = (long)i;
        }
    return only;
}

/* Three passes: the columns of results that name a device, then those of
 * results that do not (see column_of), then the rows, each with a cell per
 * column. */
static int collect(fleet *f, const gb_results *const *docs, size_t ndocs, const char *timing, const char *ops) {
    for (int pass = 0; pass < 3; pass++)
        for (size_t d = 0; d < ndocs; d++)
            for (size_t i = 0; i < docs[d]->ncases; i++) {
                const gb_case_result *c = &docs[d]->cases[i];
                if (!op_wanted(ops, c->op)) continue;
                for (size_t j = 0; j < c->nresults; j++) {
                    const gb_result *r = &c->results[j];
                    if (strcmp(r->timing, timing) != 0) continue;
                    /* a --devices-concurrent result is the same device measured
                     * while the others ran: not a column of its own */
                    if (r->concurrent.present) continue;
                    if (pass == 0 && !r->device.present) continue;
                    long col = pass == 0 ? find_column(f, d, c->run, device_of(r)) : column_of(f, d, c->run, r);
                    if (pass < 2) {
                        if (col < 0 && add_column(f, d, c->run, r) != 0) return -1;
                        continue;
                    }
                    size_t w = 0;
                    while (w < f->nrow && !same_row(&f->row[w], c, r)) w++;
                    if (w == f->nrow) {
                        if (add_row(f, c, r) != 0) return -1;
                        if (!(f->row[w].cell = calloc(f->ncol, sizeof *f->row[w].cell))) return -1;
                    }
                    f->row[w].cell[col] = r; /* a repeat (a partial run merged twice): the later one */
                }
            }
    return 0;
}

/* Column labels: the run's name where the fleet has several runs, the
 * device where a run has several; "#2" on a repeat. */
static void label_columns(fleet *f, const gb_results *const *docs) {
    int several_runs = 0;
    for (size_t i = 1; i < f->ncol; i++)
        if (f->col[i].doc != f->col[0].doc || f->col[i].run != f->col[0].run) several_runs = 1;
    for (size_t i = 0; i < f->ncol; i++) {
        column *c = &f->col[i];
        int devices_in_run = 0;
        for (size_t j = 0; j < f->ncol; j++)
            devices_in_run += f->col[j].doc == c->doc && f->col[j].run == c->run;
        char dev[32] = "";
        if (c->device >= 0) snprintf(dev, sizeof dev, "gpu%ld", c->device);
        const char *run = gb_results_run_name(docs[c->doc], c->run);
        if (!several_runs) snprintf(c->label, sizeof c->label, "%s", *dev ? dev : run);
        else if (devices_in_run > 1 && *dev) snprintf(c->label, sizeof c->label, "%s/%s", run, dev);
        else snprintf(c->label, sizeof c->label, "%s", run);
        int k = 1;
        for (size_t j = 0; j < i; j++) k += !strcmp(f->col[j].label, c->label);
        if (k > 1) {
            /* the name cut to leave room for "#k" */
            char base[sizeof c->label - 16];
            size_t l = strlen(c->label);
            if (l >= sizeof base) l = sizeof base - 1;
            memcpy(base, c->label, l);
            base[l] = '\0';
            snprintf(c->label, sizeof c->label, "%s#%d", base, k);
        }
    }
}

static int usable(const gb_result *r) {
    return r && r->status == GB_RS_OK && r->nsamples > 0 &&
           !(r->verification.present && r->verification.status == GB_VS_FAILED);
}

static double median_of(const gb_result *r) {
    if (isfinite(r->stats.median)) return r->stats.median;
    double *s = malloc(r->nsamples * sizeof *s);
    if (!s) return NAN;
    memcpy(s, r->samples, r->nsamples * sizeof *s);
    for (size_t i = 1; i < r->nsamples; i++) /* insertion sort: a fallback for files without stats */
        for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) { double t = s[j]; s[j] = s[j - 1]; s[j - 1] = t; }
    double m = r->nsamples % 2 ? s[r->nsamples / 2] : 0.5 * (s[r->nsamples / 2 - 1] + s[r->nsamples / 2]);
    free(s);
    return m;
}

typedef struct {
    double median;
    size_t column;
} ranked;

static int by_median(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->median != y->median) return (x->median > y->median) - (x->median < y->median);
    return (x->column > y->column) - (x->column < y->column);
}

/* The column whose median is the row's median (lower middle); -1 when none
 * is usable. med[i] is NAN for unusable cells. */
static long reference_column(const double *med, size_t n, ranked *order) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(med[i])) order[k++] = (ranked){med[i], i};
    if (!k) return -1;
    qsort(order, k, sizeof *order, by_median);
    return (long)order[(k - 1) / 2].column;
}

/* One cell: column col's result against the reference column's, judged as
 * `gpubench compare` judges a case of a one-run-a-side comparison
 * (compare_stats.h: round medians, the between-process noise learnt from how
 * all of the column's cases moved, Holm over them): fc is the cell's share
 * of its column's family. */
static void judge_cell(const gb_result *r, int is_ref, double ref_median, gb_rule rule, const gb_family_change *fc,
                       const char *why_unusable, gb_fleet_cell *cell) {
    cell->present = 1;
    cell->status = gb_result_status_name(r->status);
    cell->median_s = cell->relative = NAN;
    cell->change = cell->ci_low = cell->ci_high = cell->p_value = NAN;
    if (!usable(r)) {
        cell->verdict = "not_compared";
        cell->has_reason = 1;
        snprintf(cell->reason, sizeof cell->reason, "%s", why_unusable);
        return;
    }
    double m = median_of(r);
    cell->median_s = m;
    cell->relative = m / ref_median;
    if (is_ref) {
        cell->verdict = "reference";
        return;
    }
    if (!fc || !fc->have) {
        cell->verdict = "unsure";
        cell->has_reason = 1;
        snprintf(cell->reason, sizeof cell->reason, "%s",
                 "between-process noise unknown: too few cases in this column to learn it from");
        return;
    }
    double t = rule.threshold;
    int established = fc->p_holm <= rule.alpha, beyond = fabs(fc->change) > t;
    int under_floor = rule.min_change_s > 0 && fabs(m - ref_median) < rule.min_change_s;
    const char *verdict = "unsure";
    char *reason = cell->reason;
    size_t rlen = sizeof cell->reason;
    reason[0] = '\0';
    if (established && beyond && !under_floor) {
        verdict = fc->change > 0 ? "slow" : "fast";
    } else if (fc->lo >= -t && fc->hi <= t) {
        verdict = "same";
    } else if (established && beyond) {
        snprintf(reason, rlen, "medians differ by %.2g us, under the %.2g us asked for", fabs(m - ref_median) * 1e6,
                 rule.min_change_s * 1e6);
    } else {
        snprintf(reason, rlen, "interval [%+.1f%%, %+.1f%%] is not within +-%.3g%%, and a change is not established "
                 "(p %.2g after Holm over the column's cases)", 100 * fc->lo, 100 * fc->hi, 100 * t, fc->p_holm);
    }
    cell->verdict = verdict;
    cell->judged = 1;
    cell->change = fc->change;
    cell->ci_low = fc->lo;
    cell->ci_high = fc->hi;
    cell->p_value = fc->p_holm;
    cell->has_reason = *reason != '\0';
}

/* Every column's cells judged as a family against the reference cells
 * (refs[w]: row w's reference column, -1 none): fam[i * nrow + w]. */
static int judge_columns(const fleet *f, const long *refs, gb_rule rule, gb_family_change *fam) {
    size_t n = f->nrow;
    gb_case_noise *nz = calloc(n ? n : 1, sizeof *nz);
    double *thr = malloc((n ? n : 1) * sizeof *thr), *alp = malloc((n ? n : 1) * sizeof *alp);
    int rc = -1;
    if (!nz || !thr || !alp) goto out;
    for (size_t w = 0; w < n; w++) thr[w] = rule.threshold, alp[w] = rule.alpha;
    for (size_t i = 0; i < f->ncol; i++) {
        for (size_t w = 0; w < n; w++) {
            const gb_result *ref = refs[w] >= 0 ? f->row[w].cell[refs[w]] : NULL, *r = f->row[w].cell[i];
            memset(&nz[w], 0, sizeof nz[w]);
            if (!ref || !usable(ref) || !usable(r) || refs[w] == (long)i) continue;
            gb_proc_view pb = {ref->samples, ref->nsamples, ref->round_sizes, ref->nrounds};
            gb_proc_view pc = {r->samples, r->nsamples, r->round_sizes, r->nrounds};
            gb_noise_summarize(&pb, 1, &pc, 1, &nz[w]);
        }
        if (gb_noise_family(nz, NULL, n, thr, alp, fam + i * n) == (size_t)-1) goto out;
    }
    rc = 0;
out:
    free(nz);
    free(thr);
    free(alp);
    return rc;
}

typedef struct {
    size_t compared, slow, fast, missing;
    double *rel;        /* relative times of the column's usable cells */
    size_t nrel;
    double *vs_median;  /* the same cells' times over the case's fleet median */
    size_t nvs;
} col_tally;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every row judged against its reference column, and every column's tally.
 * 0, or -1 out of memory. */
static int judge_fleet(const fleet *f, const gb_results *const *docs, const char *const *names, size_t ndocs,
                       gb_rule rule, gb_fleet_result *res) {
    int rc = -1;
    col_tally *t = calloc(f->ncol, sizeof *t);
    double *med = malloc((f->ncol + 1) * sizeof *med);
    ranked *order = malloc((f->ncol + 1) * sizeof *order);
    long *refs = malloc((f->nrow + 1) * sizeof *refs);
    gb_family_change *fam = calloc(f->ncol * f->nrow + 1, sizeof *fam);
    res->rows = calloc(f->nrow + 1, sizeof *res->rows);
    res->columns = calloc(f->ncol + 1, sizeof *res->columns);
    if (!t || !med || !order || !refs || !fam || !res->rows || !res->columns) goto out;
    for (size_t w = 0; w < f->nrow; w++) {
        for (size_t i = 0; i < f->ncol; i++) med[i] = usable(f->row[w].cell[i]) ? median_of(f->row[w].cell[i]) : NAN;
        refs[w] = reference_column(med, f->ncol, order);
    }
    if (judge_columns(f, refs, rule, fam) != 0) goto out;
    for (size_t i = 0; i < f->ncol; i++)
        if (!(t[i].rel = malloc((f->nrow + 1) * sizeof *t[i].rel)) ||
            !(t[i].vs_median = malloc((f->nrow + 1) * sizeof *t[i].vs_median)))
            goto out;

    char desc[200];
    for (size_t w = 0; w < f->nrow; w++) {
        const row *rw = &f->row[w];
        size_t nfin = 0;
        for (size_t i = 0; i < f->ncol; i++) {
            med[i] = usable(rw->cell[i]) ? median_of(rw->cell[i]) : NAN;
            if (isfinite(med[i])) order[nfin++].median = med[i];
        }
        /* the case's fleet median (of the columns that measured it): what
         * each column's verdict over all its cases is relative to */
        double *fin = malloc((nfin + 1) * sizeof *fin);
        if (!fin) goto out;
        for (size_t k = 0; k < nfin; k++) fin[k] = order[k].median;
        double case_median = nfin ? gb_median(fin, nfin) : NAN;
        free(fin);
        for (size_t i = 0; i < f->ncol && nfin > 1; i++)
            if (isfinite(med[i])) t[i].vs_median[t[i].nvs++] = med[i] / case_median;
        long ref = refs[w];
        gb_fleet_row *item = &res->rows[res->nrow++];
        gb_result_name(rw->c, rw->r, NULL, item->name, sizeof item->name);
        item->c = rw->c;
        item->backend = rw->r->backend;
        item->timing = rw->r->timing;
        item->reference = ref;
        if (!(item->cells = calloc(f->ncol + 1, sizeof *item->cells))) goto out;
        double lo = INFINITY, hi = 0;
        for (size_t i = 0; i < f->ncol; i++) {
            const gb_result *r = rw->cell[i];
            if (!r) {
                t[i].missing++;
                continue;
            }
            if (r->status == GB_RS_OK) snprintf(desc, sizeof desc, "verification failed");
            else snprintf(desc, sizeof desc, "%s%s%s", gb_result_status_name(r->status), *r->reason ? ": " : "",
                          r->reason);
            gb_fleet_cell *cell = &item->cells[i];
            judge_cell(r, (long)i == ref, ref >= 0 ? med[ref] : NAN, rule, ref >= 0 ? &fam[i * f->nrow + w] : NULL,
                       desc, cell);
            if (!usable(r)) { t[i].missing++; continue; }
            double rel = med[i] / med[ref];
            if (rel < lo) lo = rel;
            if (rel > hi) hi = rel;
            t[i].rel[t[i].nrel++] = rel;
            t[i].compared += (long)i != ref;
            t[i].slow += !strcmp(cell->verdict, "slow");
            t[i].fast += !strcmp(cell->verdict, "fast");
        }
        /* the row's spread: slowest over fastest column, minus 1 */
        item->spread = hi > 0 && isfinite(lo) ? hi / lo - 1.0 : NAN;
    }

    for (size_t i = 0; i < f->ncol; i++) {
        const column *c = &f->col[i];
        const gb_results *d = docs[c->doc];
        gb_fleet_column *o = &res->columns[res->ncol++];
        snprintf(o->name, sizeof o->name, "%s", c->label);
        o->source = names[c->doc];
        o->run = gb_results_run_name(d, c->run);
        o->hostname = d->runs[c->run].context.hostname;
        o->device = c->dev;
        o->cases = t[i].nrel;
        o->compared = t[i].compared;
        o->slow = t[i].slow;
        o->fast = t[i].fast;
        o->not_measured = t[i].missing;
        qsort(t[i].rel, t[i].nrel, sizeof *t[i].rel, cmp_double);
        o->median_relative = !t[i].nrel ? NAN
                             : t[i].nrel % 2 ? t[i].rel[t[i].nrel / 2]
                                             : 0.5 * (t[i].rel[t[i].nrel / 2 - 1] + t[i].rel[t[i].nrel / 2]);
    }
    {
        double **ratios = malloc((f->ncol + 1) * sizeof *ratios);
        size_t *nratios = malloc((f->ncol + 1) * sizeof *nratios), *col_doc = malloc((f->ncol + 1) * sizeof *col_doc);
        int *col_run = malloc((f->ncol + 1) * sizeof *col_run);
        int bad = !ratios || !nratios || !col_doc || !col_run;
        for (size_t i = 0; !bad && i < f->ncol; i++) {
            ratios[i] = t[i].vs_median;
            nratios[i] = t[i].nvs;
            col_doc[i] = f->col[i].doc;
            col_run[i] = f->col[i].run;
        }
        bad = bad || gb_fleet_judge_columns(res, ratios, nratios) != 0 ||
              gb_fleet_list_nodes(res, docs, names, ndocs, col_doc, col_run, ratios, nratios) != 0;
        free(ratios);
        free(nratios);
        free(col_doc);
        free(col_run);
        if (bad) goto out;
    }
    /* What the documents say about themselves: a merge's notes (the nodes
     * that failed or timed out, with their reasons) and incomplete runs. */
    for (size_t d = 0; d < ndocs; d++) {
        if (docs[d]->merged)
            for (size_t k = 0; k < docs[d]->warnings.n; k++)
                if (gb_cmp_strs_add(&res->notes, docs[d]->warnings.item[k]) != 0) goto out;
        for (size_t r = 0; r < docs[d]->nruns; r++)
            if (docs[d]->runs[r].complete == 0) {
                char line[400];
                snprintf(line, sizeof line, "%s: run %s is incomplete (%s)", names[d], gb_results_run_name(docs[d], (int)r),
                         docs[d]->runs[r].interrupted == 1 ? "interrupted" : "not finished");
                if (gb_cmp_strs_add(&res->notes, line) != 0) goto out;
            }
    }
    rc = 0;
out:
    if (t)
        for (size_t i = 0; i < f->ncol; i++) {
            free(t[i].rel);
            free(t[i].vs_median);
        }
    free(t);
    free(med);
    free(order);
    free(refs);
    free(fam);
    return rc;
}

void gb_fleet_result_free(gb_fleet_result *res) {
    if (!res) return;
    for (size_t w = 0; w < res->nrow; w++) free(res->rows[w].cells);
    free(res->rows);
    free(res->columns);
    free(res->nodes);
    gb_cmp_strs_free(&res->notes);
    free(res);
}

gb_fleet_result *gb_fleet_judge(const gb_results *const *docs, const char *const *names, size_t ndocs,
                                const gb_fleet_options *o, gb_err *e) {
    gb_fleet_options def = GB_FLEET_DEFAULT_OPTIONS;
    if (!o) o = &def;
    const char *timing = pick_timing(docs, ndocs, o);
    fleet f = {0};
    if (collect(&f, docs, ndocs, timing, o->ops) != 0) {
        fleet_free(&f);
        gb_errf(e, GB_FAIL, "out of memory");
        return NULL;
    }
    if (f.ncol == 0) {
        fleet_free(&f);
        gb_errf(e, GB_FAIL, "%s%s: no result%s%s has the timing \"%s\"", names[0], ndocs > 1 ? " and the others" : "",
                o->ops ? " of the ops " : "", o->ops ? o->ops : "", timing);
        return NULL;
    }
    label_columns(&f, docs);
    gb_fleet_result *res = calloc(1, sizeof *res);
    if (res) {
        res->sources = names;
        res->nsources = ndocs;
        res->timing = timing;
        res->rule = o->rule;
    }
    if (!res || judge_fleet(&f, docs, names, ndocs, o->rule, res) != 0) {
        gb_fleet_result_free(res);
        res = NULL;
        gb_errf(e, GB_FAIL, "out of memory");
    }
    fleet_free(&f);
    return res;
}

cJSON *gb_fleet_build(const gb_results *const *docs, const char *const *names, size_t ndocs,
                      const gb_fleet_options *o, gb_err *e) {
    gb_fleet_result *res = gb_fleet_judge(docs, names, ndocs, o, e);
    if (!res) return NULL;
    cJSON *doc = gb_fleet_result_json(res);
    gb_fleet_result_free(res);
    if (!doc) gb_errf(e, GB_FAIL, "out of memory");
    return doc;
}

int gb_fleet_render(const gb_results *r, FILE *out, const struct gb_writer *w, gb_err *e) {
    const gb_results *docs[1] = {r};
    const char *names[1] = {r->name};
    gb_fleet_result *res = gb_fleet_judge(docs, names, 1, NULL, e);
    if (!res) return GB_FAIL;
    gb_fleet_render_result(res, w, out);
    gb_fleet_result_free(res);
    return GB_OK;
}
