/* compare_json.c — a comparison (compare_result.h) as its JSON document,
 * schema "gpubench-compare" (`compare --format json`,
 * docs/regression-statistics.md): the one writer of it. The keys and their
 * order are the document's: a consumer (CI, scripts/check-stability.py)
 * reads them. */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "format.h"

static cJSON *strs_json(const gb_cmp_strs *l) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < l->n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(l->item[i]));
    return a;
}

static cJSON *file_json(const gb_cmp_file *f) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "path", f->path);
    cJSON *runs = cJSON_AddArrayToObject(d, "runs");
    for (size_t i = 0; i < f->nruns; i++) {
        const gb_cmp_run_desc *r = &f->runs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r->name);
        cJSON_AddStringToObject(o, "date", r->date);
        cJSON_AddStringToObject(o, "gpu", r->gpu);
        cJSON_AddStringToObject(o, "cpu", r->cpu);
        cJSON_AddItemToArray(runs, o);
    }
    return d;
}

static cJSON *side_json(const gb_cmp_side *x) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "status", x->status);
    if (strcmp(x->desc, "ok") != 0) cJSON_AddStringToObject(s, "detail", x->desc);
    cJSON_AddNumberToObject(s, "n", x->n);
    cJSON_AddNumberToObject(s, "files", x->files);
    cJSON_AddNumberToObject(s, "runs", x->runs);
    gb_json_add_num_or_null(s, "median_s", x->median_s);
    gb_json_add_num_or_null(s, "round_spread", x->round_spread);
    gb_json_add_num_or_null(s, "process_spread", x->process_spread);
    return s;
}

static cJSON *item_json(const gb_compare_result *res, const gb_cmp_item *it) {
    const gb_case_result *c = it->c;
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "name", it->name);
    cJSON_AddStringToObject(item, "op", c->op);
    cJSON_AddStringToObject(item, "dtype", c->dtype);
    cJSON_AddStringToObject(item, "label", c->label);
    cJSON_AddItemToObject(item, "shape", gb_case_shape_to_cjson(c));
    if (c->params.present) cJSON_AddItemToObject(item, "params", gb_kvlist_to_cjson(&c->params));
    cJSON_AddStringToObject(item, "backend", it->backend);
    cJSON_AddStringToObject(item, "timing", it->timing);
    if (it->machine) cJSON_AddStringToObject(item, "machine", it->machine);
    cJSON_AddNumberToObject(item, "threshold", it->rule.threshold);
    cJSON_AddNumberToObject(item, "alpha", it->rule.alpha);
    cJSON_AddNumberToObject(item, "min_change_s", it->rule.min_change_s);
    cJSON_AddItemToObject(item, "baseline", side_json(&it->baseline));
    cJSON_AddItemToObject(item, "current", side_json(&it->current));
    gb_json_add_num_or_null(item, "change", it->change);
    gb_json_add_num_or_null(item, "raw_change", it->raw_change);
    gb_json_add_num_or_null(item, "ci_low", it->ci_low);
    gb_json_add_num_or_null(item, "ci_high", it->ci_high);
    gb_json_add_num_or_null(item, "p_value", it->p_value);
    gb_json_add_num_or_null(item, "p_holm", it->p_holm);
    gb_json_add_num_or_null(item, "df", it->df);
    if (it->has_noise) {
        cJSON *nz = cJSON_AddObjectToObject(item, "noise");
        cJSON_AddNumberToObject(nz, "process_sd", it->process_sd);
        cJSON_AddStringToObject(nz, "process_from", it->process_from_case ? "case" : "suite");
        cJSON_AddNumberToObject(nz, "round_sd", it->round_sd);
        cJSON_AddNumberToObject(nz, "sampling_sd", it->sampling_sd);
    }
    if (it->baseline_plans) {
        cJSON_AddNumberToObject(item, "baseline_plans", it->baseline_plans);
        cJSON_AddBoolToObject(item, "plan_changed", it->plan_changed);
    }
    cJSON_AddStringToObject(item, "verdict", gb_verdict_name(it->verdict));
    if (res->confirm_on) cJSON_AddBoolToObject(item, "suspect", it->suspect);
    if (it->confirm.have) {
        cJSON *cf = cJSON_AddObjectToObject(item, "confirm");
        cJSON_AddNumberToObject(cf, "runs", (double)it->confirm.runs);
        cJSON_AddStringToObject(cf, "verdict", gb_verdict_name(it->confirm.verdict));
        gb_json_add_num_or_null(cf, "change", it->confirm.change);
        gb_json_add_num_or_null(cf, "lo", it->confirm.lo);
        gb_json_add_num_or_null(cf, "hi", it->confirm.hi);
        gb_json_add_num_or_null(cf, "p_holm", it->confirm.p_holm);
    }
    cJSON_AddStringToObject(item, "reason", it->reason);
    if (it->decide.have) {
        const gb_cmp_decide_plan *d = &it->decide;
        cJSON *dc = cJSON_AddObjectToObject(item, "decide");
        cJSON_AddBoolToObject(dc, "on_threshold", d->on_threshold);
        cJSON_AddNumberToObject(dc, "more_rounds", d->more_rounds);
        cJSON_AddNumberToObject(dc, "baseline_runs", d->baseline_runs);
        cJSON_AddNumberToObject(dc, "confirm_processes", d->processes);
        cJSON_AddNumberToObject(dc, "runs_each", d->runs_each);
        gb_json_add_num_or_null(dc, "round_s", d->round_s);
        gb_json_add_num_or_null(dc, "cost_s", d->cost_s);
        if (d->cheapest) cJSON_AddStringToObject(dc, "cheapest", d->cheapest);
        char text[240];
        gb_cmp_decide_text(d, text, sizeof text);
        cJSON_AddStringToObject(dc, "text", text);
    }
    return item;
}

static cJSON *summary_json(const gb_compare_result *res) {
    const gb_cmp_summary *s = &res->summary;
    cJSON *sum = cJSON_CreateObject();
    cJSON_AddNumberToObject(sum, "compared", s->compared);
    for (int k = 0; k <= GB_V_NOT_COMPARED; k++) cJSON_AddNumberToObject(sum, gb_verdict_name(k), s->count[k]);
    cJSON_AddNumberToObject(sum, "failed_only_in_current", s->failed_only_in_current);
    cJSON_AddNumberToObject(sum, "only_in_baseline", (double)res->only_in_baseline.n);
    cJSON_AddNumberToObject(sum, "only_in_current", (double)res->only_in_current.n);
    cJSON_AddNumberToObject(sum, "present", s->present);
    cJSON_AddNumberToObject(sum, "shift_regressions", s->shift_regressions);
    cJSON_AddBoolToObject(sum, "all_unsure", s->all_unsure);
    cJSON *dec = cJSON_AddObjectToObject(sum, "decidable");
    cJSON_AddNumberToObject(dec, "budget_s", s->budget_s);
    cJSON_AddNumberToObject(dec, "cases", s->decidable);
    cJSON_AddNumberToObject(dec, "seconds", s->decidable_s);
    const gb_cmp_confirm_summary *c = &s->confirm;
    if (c->present) {
        cJSON *cf = cJSON_AddObjectToObject(sum, "confirm");
        if (c->suite) cJSON_AddStringToObject(cf, "suite", c->suite);
        cJSON_AddNumberToObject(cf, "runs", c->runs);
        cJSON_AddNumberToObject(cf, "processes", (double)c->processes);
        cJSON_AddNumberToObject(cf, "seconds", c->seconds);
        cJSON_AddItemToObject(cf, "cases", strs_json(&c->cases));
        cJSON_AddNumberToObject(cf, "suspects", c->suspects);
        cJSON_AddNumberToObject(cf, "confirmed", c->confirmed);
        cJSON_AddNumberToObject(cf, "not_confirmed", c->not_confirmed);
    }
    return sum;
}

cJSON *gb_compare_result_json(const gb_compare_result *res) {
    cJSON *doc = cJSON_CreateObject();
    if (!doc) return NULL;
    cJSON_AddStringToObject(doc, "schema", "gpubench-compare");
    cJSON_AddNumberToObject(doc, "schema_version", 2);
    cJSON_AddItemToObject(doc, "baseline", file_json(&res->baseline));
    cJSON_AddItemToObject(doc, "current", file_json(&res->current));
    cJSON *bl = cJSON_AddArrayToObject(doc, "baseline_files"), *cl = cJSON_AddArrayToObject(doc, "current_files");
    for (size_t i = 0; i < res->nbase; i++) cJSON_AddItemToArray(bl, file_json(&res->baseline_files[i]));
    for (size_t i = 0; i < res->ncur; i++) cJSON_AddItemToArray(cl, file_json(&res->current_files[i]));
    cJSON *method = cJSON_AddObjectToObject(doc, "method");
    cJSON_AddStringToObject(method, "test",
                            "t on the medians of rounds and runs (between-round and between-process variance, "
                            "each shrunk toward the suite's typical), Holm over the cases");
    cJSON_AddStringToObject(method, "change", "ratio of the runs' mean log round medians, current/baseline, minus 1");
    cJSON_AddNumberToObject(method, "threshold", res->threshold);
    cJSON_AddNumberToObject(method, "alpha", res->alpha);
    cJSON_AddNumberToObject(method, "min_change_s", res->min_change_s);
    cJSON_AddNumberToObject(method, "require_present", res->require_present);
    cJSON_AddNumberToObject(method, "baseline_runs", (double)res->nbase);
    cJSON_AddNumberToObject(method, "current_runs", (double)res->ncur);
    if (res->policy) cJSON_AddStringToObject(method, "policy", res->policy);
    else cJSON_AddNullToObject(method, "policy");
    cJSON_AddBoolToObject(method, "by_machine", res->by_machine);
    cJSON_AddBoolToObject(method, "fail_on_unsure", res->fail_on_unsure);
    cJSON_AddItemToObject(doc, "warnings", strs_json(&res->warnings));
    if (*res->build_note) cJSON_AddStringToObject(doc, "build", res->build_note);
    cJSON *shifts = cJSON_AddArrayToObject(doc, "shifts");
    for (size_t i = 0; i < res->nshifts; i++) {
        const gb_cmp_shift *sh = &res->shifts[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "backend", sh->backend);
        cJSON_AddNumberToObject(o, "cases", (double)sh->cases);
        gb_json_add_num_or_null(o, "ratio", sh->ratio);
        gb_json_add_num_or_null(o, "lo", sh->lo);
        gb_json_add_num_or_null(o, "hi", sh->hi);
        gb_json_add_num_or_null(o, "ceiling_ratio", sh->ceiling_ratio);
        cJSON_AddNumberToObject(o, "ceiling_keys", (double)sh->ceiling_keys);
        gb_json_add_num_or_null(o, "case_lo", sh->case_lo);
        gb_json_add_num_or_null(o, "case_hi", sh->case_hi);
        cJSON_AddNumberToObject(o, "spread_runs", (double)sh->spread_runs);
        gb_json_add_num_or_null(o, "spread_sd", sh->spread_runs ? sh->spread_sd : NAN);
        gb_json_add_num_or_null(o, "loo_min", sh->spread_runs ? sh->loo_min : NAN);
        gb_json_add_num_or_null(o, "loo_max", sh->spread_runs ? sh->loo_max : NAN);
        cJSON_AddStringToObject(o, "differs", sh->differs);
        cJSON_AddBoolToObject(o, "applied", sh->applied);
        cJSON_AddStringToObject(o, "status", gb_cmp_shift_status_name(sh->status));
        cJSON_AddItemToArray(shifts, o);
    }
    cJSON_AddItemToObject(doc, "only_in_baseline", strs_json(&res->only_in_baseline));
    cJSON_AddItemToObject(doc, "only_in_current", strs_json(&res->only_in_current));
    cJSON *list = cJSON_AddArrayToObject(doc, "comparisons");
    for (size_t i = 0; i < res->nitems; i++) cJSON_AddItemToArray(list, item_json(res, &res->items[i]));
    cJSON_AddItemToObject(doc, "summary", summary_json(res));
    if (*res->error) cJSON_AddStringToObject(doc, "error", res->error);
    cJSON_AddStringToObject(doc, "outcome", gb_cmp_outcome(res));
    cJSON_AddNumberToObject(doc, "exit_code", res->exit_code);
    return doc;
}
