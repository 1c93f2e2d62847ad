/* fleet_json.c — a fleet (fleet.h: gb_fleet_result) as its JSON document,
 * schema "gpubench-fleet" (`report --fleet --format json`, and what
 * scripts/plot_fleet.py draws the heatmap from; docs/reports.md): the one
 * writer of it. */
#include <math.h>

#include "fleet_internal.h"
#include "format.h"

static cJSON *device_json(const gb_device_id *d) {
    if (!d) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", (double)d->index);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "uuid", d->uuid);
    cJSON_AddStringToObject(o, "pci_bus_id", d->pci_bus_id);
    return o;
}

static cJSON *cell_json(const gb_fleet_cell *x) {
    if (!x->present) return cJSON_CreateNull();
    cJSON *cell = cJSON_CreateObject();
    cJSON_AddStringToObject(cell, "status", x->status);
    gb_json_add_num_or_null(cell, "median_s", x->median_s);
    gb_json_add_num_or_null(cell, "relative", x->relative);
    cJSON_AddStringToObject(cell, "verdict", x->verdict);
    if (x->judged) {
        gb_json_add_num_or_null(cell, "change", x->change);
        gb_json_add_num_or_null(cell, "ci_low", x->ci_low);
        gb_json_add_num_or_null(cell, "ci_high", x->ci_high);
        gb_json_add_num_or_null(cell, "p_value", x->p_value);
    }
    if (x->has_reason) cJSON_AddStringToObject(cell, "reason", x->reason);
    return cell;
}

static cJSON *row_json(const gb_fleet_result *f, const gb_fleet_row *rw) {
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "name", rw->name);
    cJSON_AddStringToObject(item, "op", rw->c->op);
    cJSON_AddStringToObject(item, "dtype", rw->c->dtype);
    cJSON_AddStringToObject(item, "label", rw->c->label);
    cJSON_AddItemToObject(item, "shape", gb_case_shape_to_cjson(rw->c));
    if (rw->c->params.present) cJSON_AddItemToObject(item, "params", gb_kvlist_to_cjson(&rw->c->params));
    cJSON_AddStringToObject(item, "backend", rw->backend);
    cJSON_AddStringToObject(item, "timing", rw->timing);
    if (rw->reference >= 0) cJSON_AddNumberToObject(item, "reference", (double)rw->reference);
    else cJSON_AddNullToObject(item, "reference");
    cJSON *cells = cJSON_AddArrayToObject(item, "cells");
    for (size_t i = 0; i < f->ncol; i++) cJSON_AddItemToArray(cells, cell_json(&rw->cells[i]));
    gb_json_add_num_or_null(item, "spread", rw->spread);
    return item;
}

/* "verdict" and "shift": the column's or node's cases as a whole. */
static void add_verdict(cJSON *o, const gb_fleet_verdict *v) {
    cJSON_AddStringToObject(o, "verdict", v->verdict);
    cJSON *sh = cJSON_AddObjectToObject(o, "shift");
    cJSON_AddNumberToObject(sh, "cases", (double)v->shift.n);
    gb_json_add_num_or_null(sh, "ratio", v->shift.ratio);
    gb_json_add_num_or_null(sh, "ci_low", v->shift.ratio_lo);
    gb_json_add_num_or_null(sh, "ci_high", v->shift.ratio_hi);
}

static cJSON *column_json(const gb_fleet_column *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddStringToObject(o, "source", c->source);
    cJSON_AddStringToObject(o, "run", c->run);
    cJSON_AddStringToObject(o, "hostname", c->hostname);
    cJSON_AddItemToObject(o, "device", device_json(c->device));
    cJSON_AddNumberToObject(o, "cases", (double)c->cases);
    cJSON_AddNumberToObject(o, "compared", (double)c->compared);
    cJSON_AddNumberToObject(o, "slow", (double)c->slow);
    cJSON_AddNumberToObject(o, "fast", (double)c->fast);
    cJSON_AddNumberToObject(o, "not_measured", (double)c->not_measured);
    gb_json_add_num_or_null(o, "median_relative", c->median_relative);
    cJSON_AddBoolToObject(o, "flagged_slow", c->flagged_slow);
    add_verdict(o, &c->verdict);
    return o;
}

static cJSON *job_json(const gb_job_info *j) {
    if (!j || !j->present) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scheduler", gb_json_str(j->scheduler));
    if (j->job_id) cJSON_AddStringToObject(o, "job_id", j->job_id);
    else cJSON_AddNullToObject(o, "job_id");
    if (j->array_job_id) cJSON_AddStringToObject(o, "array_job_id", j->array_job_id);
    else cJSON_AddNullToObject(o, "array_job_id");
    gb_json_add_num_or_null(o, "array_task_id", j->array_task_id);
    if (j->partition) cJSON_AddStringToObject(o, "partition", j->partition);
    else cJSON_AddNullToObject(o, "partition");
    gb_json_add_num_or_null(o, "attempt", j->attempt);
    return o;
}

static cJSON *node_json(const gb_fleet_node *n) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", n->name);
    cJSON_AddStringToObject(o, "source", gb_json_str(n->source));
    cJSON_AddStringToObject(o, "hostname", gb_json_str(n->hostname));
    cJSON_AddStringToObject(o, "status", n->status);
    if (*n->reason) cJSON_AddStringToObject(o, "reason", n->reason);
    else cJSON_AddNullToObject(o, "reason");
    cJSON_AddNumberToObject(o, "columns", (double)n->columns);
    cJSON_AddNumberToObject(o, "runs", (double)n->runs);
    add_verdict(o, &n->verdict);
    cJSON_AddItemToObject(o, "job", job_json(n->job));
    cJSON *h = n->health_json ? cJSON_Parse(n->health_json) : NULL;
    const cJSON *node = gb_fleet_node_health(h);
    cJSON_AddItemToObject(o, "node_health", node ? cJSON_Duplicate(node, 1) : cJSON_CreateNull());
    cJSON_Delete(h);
    return o;
}

cJSON *gb_fleet_result_json(const gb_fleet_result *f) {
    cJSON *doc = cJSON_CreateObject();
    if (!doc) return NULL;
    cJSON_AddStringToObject(doc, "schema", "gpubench-fleet");
    cJSON_AddNumberToObject(doc, "schema_version", 1);
    cJSON *src = cJSON_AddArrayToObject(doc, "sources");
    for (size_t d = 0; d < f->nsources; d++) cJSON_AddItemToArray(src, cJSON_CreateString(f->sources[d]));
    cJSON_AddStringToObject(doc, "timing", f->timing);
    cJSON *method = cJSON_AddObjectToObject(doc, "method");
    cJSON_AddStringToObject(method, "reference", "per case, the column whose median is the median of the medians");
    cJSON_AddStringToObject(method, "test", "as gpubench compare with one run a side: round medians, the between-process "
                                            "noise learnt from all of the column's cases, Holm over them");
    cJSON_AddStringToObject(method, "change", "ratio of the column's round medians to the reference's, minus 1");
    cJSON_AddNumberToObject(method, "threshold", f->rule.threshold);
    cJSON_AddNumberToObject(method, "alpha", f->rule.alpha);
    cJSON_AddNumberToObject(method, "min_change_s", f->rule.min_change_s);
    cJSON_AddStringToObject(method, "verdict",
                            "per column and per node, over all its cases: the median of the cases' times relative to "
                            "each case's fleet median, with a distribution-free 95% interval from the cases; slow or "
                            "fast when the whole interval is beyond the threshold, differ in a fleet of two");
    cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
    for (size_t w = 0; w < f->nrow; w++) cJSON_AddItemToArray(rows, row_json(f, &f->rows[w]));
    cJSON *cols = cJSON_AddArrayToObject(doc, "columns");
    for (size_t i = 0; i < f->ncol; i++) cJSON_AddItemToArray(cols, column_json(&f->columns[i]));
    cJSON *nodes = cJSON_AddArrayToObject(doc, "nodes");
    for (size_t i = 0; i < f->nnode; i++) cJSON_AddItemToArray(nodes, node_json(&f->nodes[i]));
    cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
    for (size_t k = 0; k < f->notes.n; k++) cJSON_AddItemToArray(notes, cJSON_CreateString(f->notes.item[k]));
    return doc;
}
