/* fleet_verdict.c — a column's or node's verdict over all its cases, and
 * the fleet's list of nodes (fleet.h). Why not "slow in any case": of six
 * quick runs of one machine, four were flagged slow for one case each, and
 * a node under stress-ng read 1.00 in median yet was flagged only by a
 * case. The median of all the cases' relative times with an interval from
 * the cases (core/stats.h: gb_common_shift_compute, shared with compare's
 * machine-wide shift) asks "is this node as a whole slower", and the
 * simulation in tests/results/test_fleet_verdict.c measures how often it
 * is wrong on real per-case noise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_internal.h"
#include "stats.h"

void gb_fleet_verdict_of(const double *ratios, size_t n, double t, gb_fleet_verdict *out) {
    gb_common_shift_compute(ratios, n, &out->shift);
    if (!out->shift.n) out->verdict = "none";
    else if (out->shift.ratio_lo > 1.0 + t) out->verdict = "slow";
    else if (out->shift.ratio_hi < 1.0 / (1.0 + t)) out->verdict = "fast";
    else if (out->shift.ratio_lo >= 1.0 / (1.0 + t) && out->shift.ratio_hi <= 1.0 + t) out->verdict = "same";
    else out->verdict = "unsure";
}

/* With two judged, neither can be named the slow one: a difference is
 * "differ" on both. */
static void two_differ(gb_fleet_verdict **v, size_t n) {
    size_t judged = 0, off = 0;
    for (size_t i = 0; i < n; i++) {
        judged += v[i]->shift.n > 0;
        off += strcmp(v[i]->verdict, "same") && strcmp(v[i]->verdict, "none");
    }
    if (judged != 2 || !off) return;
    for (size_t i = 0; i < n; i++)
        if (v[i]->shift.n > 0) v[i]->verdict = "differ";
}

int gb_fleet_judge_columns(gb_fleet_result *res, double *const *ratios, const size_t *nratios) {
    gb_fleet_verdict **v = malloc((res->ncol + 1) * sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < res->ncol; i++) {
        gb_fleet_verdict_of(ratios[i], nratios[i], res->rule.threshold, &res->columns[i].verdict);
        v[i] = &res->columns[i].verdict;
    }
    two_differ(v, res->ncol);
    for (size_t i = 0; i < res->ncol; i++) res->columns[i].flagged_slow = !strcmp(res->columns[i].verdict.verdict, "slow");
    free(v);
    return 0;
}

/* Why run r measured nothing of the fleet's timing: its accelerator's reason
 * ("no NVIDIA driver: ...") where it was not available, else its own
 * gpu_required reason, else a plain line. */
static void why_not_measured(const gb_results *d, int r, const char *timing, char *buf, size_t len) {
    const gb_backend_desc *acc = gb_results_accelerator(d, r);
    cJSON *ctx = d->runs[r].context.json ? cJSON_Parse(d->runs[r].context.json) : NULL;
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ctx, "gpu_required"), "reason");
    if (cJSON_IsString(req)) snprintf(buf, len, "GPU required and not measured: %s", req->valuestring);
    cJSON_Delete(ctx);
    if (*buf) return;
    if (acc->available == 0 && acc->reason && *acc->reason)
        snprintf(buf, len, "%s not available: %s", acc->name, acc->reason);
    else
        snprintf(buf, len, "no result of the timing \"%s\"", timing);
}

/* The node run r of d belongs to: under a scheduler, the runs of one job
 * on one host are one node (the srun tasks of `slurm --per-gpu`, one per
 * GPU); outside one, every run is its own (six runs of one machine are six
 * measurements to hold against each other). */
static int same_node(const gb_run *a, const gb_run *b) {
    const gb_job_info *x = &a->context.job, *y = &b->context.job;
    return x->present && y->present && x->job_id && y->job_id && *x->job_id && !strcmp(x->job_id, y->job_id) &&
           *a->context.hostname && !strcmp(a->context.hostname, b->context.hostname);
}

int gb_fleet_list_nodes(gb_fleet_result *res, const gb_results *const *docs, const char *const *names, size_t ndocs,
                        const size_t *col_doc, const int *col_run, double *const *ratios, const size_t *nratios) {
    size_t n = 0;
    for (size_t d = 0; d < ndocs; d++) n += docs[d]->nruns;
    res->nodes = calloc(n + 1, sizeof *res->nodes);
    gb_fleet_verdict **v = malloc((n + 1) * sizeof *v);
    size_t *node_of = malloc((n + 1) * sizeof *node_of), *first = malloc((n + 1) * sizeof *first); /* flat run index */
    size_t *base = calloc(ndocs + 1, sizeof *base);
    size_t total = 0;
    for (size_t i = 0; i < res->ncol; i++) total += nratios[i];
    double *pool = malloc((total + 1) * sizeof *pool);
    int rc = -1;
    if (!res->nodes || !v || !pool || !node_of || !first || !base) goto out;
    for (size_t d = 0; d < ndocs; d++) base[d + 1] = base[d] + docs[d]->nruns;
    /* each run to its node, in order of first appearance */
    for (size_t d = 0; d < ndocs; d++)
        for (size_t r = 0; r < docs[d]->nruns; r++) {
            size_t k = base[d] + r, j = res->nnode;
            for (size_t m = 0; m < res->nnode; m++) {
                size_t f = first[m], fd = 0;
                while (base[fd + 1] <= f) fd++;
                if (same_node(&docs[fd]->runs[f - base[fd]], &docs[d]->runs[r])) j = m;
            }
            if (j == res->nnode) first[res->nnode++] = k;
            node_of[k] = j;
            res->nodes[j].runs++;
        }
    size_t have = 0, without = 0;
    for (size_t j = 0; j < res->nnode; j++) {
        gb_fleet_node *o = &res->nodes[j];
        v[j] = &o->verdict;
        size_t d = 0;
        while (base[d + 1] <= first[j]) d++;
        size_t r = first[j] - base[d];
        const gb_run *run = &docs[d]->runs[r];
        if (o->runs > 1)
            snprintf(o->name, sizeof o->name, "%s (%zu tasks of job %s)", run->context.hostname, o->runs,
                     run->context.job.job_id);
        else
            snprintf(o->name, sizeof o->name, "%s", gb_results_run_name(docs[d], (int)r));
        o->source = run->source ? run->source : names[d];
        o->hostname = run->context.hostname;
        o->job = &run->context.job;
        o->health_json = run->health_json;
        int incomplete = 0;
        size_t k = 0;
        for (size_t i = 0; i < res->ncol; i++)
            if (node_of[base[col_doc[i]] + (size_t)col_run[i]] == j) {
                o->columns++;
                memcpy(pool + k, ratios[i], nratios[i] * sizeof *pool);
                k += nratios[i];
            }
        for (size_t dd = 0; dd < ndocs; dd++)
            for (size_t rr = 0; rr < docs[dd]->nruns; rr++)
                if (node_of[base[dd] + rr] == j) incomplete |= docs[dd]->runs[rr].complete == 0;
        gb_fleet_verdict_of(pool, k, res->rule.threshold, &o->verdict);
        o->status = !o->columns ? "no_results" : incomplete ? "incomplete" : "measured";
        if (!o->columns) why_not_measured(docs[d], (int)r, res->timing, o->reason, sizeof o->reason);
        have += o->columns > 0;
        without += !o->columns;
    }
    /* one node measured: nothing to hold it against (its GPUs are the
     * columns, judged above) */
    if (have == 1)
        for (size_t i = 0; i < res->nnode; i++) {
            res->nodes[i].verdict.verdict = "none";
            res->nodes[i].verdict.shift = (gb_common_shift){0, NAN, NAN, NAN};
        }
    two_differ(v, res->nnode);
    /* a node without a column is in no row of the table: say so where the
     * reader looks, and say that the fleet mixes kinds of node */
    for (size_t i = 0; i < res->nnode; i++) {
        const gb_fleet_node *o = &res->nodes[i];
        if (o->columns) continue;
        char line[600];
        snprintf(line, sizeof line, "node %s (%s) has no column: %s", o->name, *o->hostname ? o->hostname : "?",
                 o->reason);
        if (gb_cmp_strs_add(&res->notes, line) != 0) goto out;
    }
    if (have && without) {
        char line[300];
        snprintf(line, sizeof line,
                 "the fleet mixes %zu node%s with \"%s\" results and %zu without: the table compares only the first",
                 have, have == 1 ? "" : "s", res->timing, without);
        if (gb_cmp_strs_add(&res->notes, line) != 0) goto out;
    }
    rc = 0;
out:
    free(v);
    free(pool);
    free(node_of);
    free(first);
    free(base);
    return rc;
}

/* health.after.<backend>.node (else before): what the GPU backend read of
 * the node's health (gpu_backends/cuda_node_health.c); NULL when none. */
const cJSON *gb_fleet_node_health(const cJSON *health) {
    static const char *const when[] = {"after", "before"};
    for (int w = 0; w < 2; w++) {
        const cJSON *side = cJSON_GetObjectItemCaseSensitive(health, when[w]);
        for (const cJSON *b = side ? side->child : NULL; b; b = b->next) {
            const cJSON *node = cJSON_GetObjectItemCaseSensitive(b, "node");
            if (cJSON_IsObject(node)) return node;
        }
    }
    return NULL;
}

static double num_at(const cJSON *o, const char *a, const char *b) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

void gb_fleet_node_health_text(const char *health_json, char *buf, size_t len) {
    buf[0] = '\0';
    cJSON *h = health_json ? cJSON_Parse(health_json) : NULL;
    const cJSON *n = gb_fleet_node_health(h);
    if (!n) {
        cJSON_Delete(h);
        return;
    }
    size_t used = 0;
    double g = num_at(n, "pcie", "gen"), wd = num_at(n, "pcie", "width"), mg = num_at(n, "pcie", "max_gen"),
           mw = num_at(n, "pcie", "max_width");
    if (isfinite(g) && isfinite(wd))
        used += (size_t)snprintf(buf + used, len - used, "; PCIe gen%.0f x%.0f%s", g, wd,
                                 (isfinite(mg) && g < mg) || (isfinite(mw) && wd < mw) ? " (DEGRADED" : "");
    if (used < len && isfinite(mg) && ((isfinite(g) && g < mg) || (isfinite(wd) && isfinite(mw) && wd < mw)))
        used += (size_t)snprintf(buf + used, len - used, ", max gen%.0f x%.0f)", mg, mw);
    double vu = num_at(n, "ecc_errors", "volatile_uncorrected"), vc = num_at(n, "ecc_errors", "volatile_corrected"),
           au = num_at(n, "ecc_errors", "aggregate_uncorrected");
    if (used < len && (isfinite(vu) || isfinite(vc)))
        used += (size_t)snprintf(buf + used, len - used, "; ECC errors since boot %.0f uncorrected, %.0f corrected%s",
                                 isfinite(vu) ? vu : 0.0, isfinite(vc) ? vc : 0.0,
                                 isfinite(au) && au > 0 ? " (uncorrected ever: yes)" : "");
    double xid = num_at(n, "xid_events", "count");
    if (used < len && isfinite(xid))
        used += (size_t)snprintf(buf + used, len - used, "; %.0f XID event%s", xid, xid == 1 ? "" : "s");
    const cJSON *local = cJSON_GetObjectItemCaseSensitive(n, "task_cpus_local");
    if (used < len && cJSON_IsBool(local))
        snprintf(buf + used, len - used, "; task CPUs %s the GPU", cJSON_IsTrue(local) ? "local to" : "NOT local to");
    cJSON_Delete(h);
}
