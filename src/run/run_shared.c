/* run_shared.c — host results shared between cases that are the same host
 * work (see below). */
#include "run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"

/* ---- host results shared between cases --------------------------------------
 * A param that only accelerators read (gb_op.accelerator_params: matmul's
 * math, elementwise's fast_math) makes a second case that, for a
 * host backend, is the first one again: same op, dtype, shape, seed, budget
 * and other params, so the same inputs and the same computation (the CPU
 * has no TF32). Measuring it twice cost the default suite 6 s on the H100
 * host (the CPU SGEMM 8192 of the tf32 entry). So such a case's host
 * results are copies of its twin's, refreshed after each of its visits and
 * at the end, and say so in extra.same_as; its accelerator results are
 * verified by the op's own check, there being no host output of its own. */

static int same_budget(const gb_budget *a, const gb_budget *b) {
    return a->warmup == b->warmup && a->min_warmup_s == b->min_warmup_s && a->min_reps == b->min_reps &&
           a->max_reps == b->max_reps && a->min_time_s == b->min_time_s && a->max_time_s == b->max_time_s;
}

/* Param p of case c differs from d's (both of the same op). */
static int param_differs(const gb_param_spec *p, const gb_params *c, const gb_params *d) {
    const char *u = (const char *)c + p->offset, *v = (const char *)d + p->offset;
    return p->type == GB_PARAM_DOUBLE ? *(const double *)u != *(const double *)v : *(const int *)u != *(const int *)v;
}

static int accelerator_only(const gb_op *op, const gb_param_spec *p) {
    for (const char *const *k = op->accelerator_params; k && *k; k++)
        if (!strcmp(*k, p->key)) return 1;
    return 0;
}

static int same_host_work(const gb_plan_item *a, const gb_plan_item *b) {
    const gb_case *x = &a->c, *y = &b->c;
    if (x->op_id != y->op_id || x->dtype != y->dtype || x->rank != y->rank || x->seed != y->seed ||
        memcmp(x->shape, y->shape, sizeof x->shape) != 0 || !same_budget(&a->budget, &b->budget))
        return 0;
    for (const gb_param_spec *p = x->op->params; p && p->key; p++)
        if (!accelerator_only(x->op, p) && param_differs(p, &x->params, &y->params)) return 0;
    return 1;
}

/* Each case's twin: the first earlier case of the same host work, looked
 * for only where an accelerator-only param is not at its default (a
 * handful of cases, not every pair of a 10,000-case suite). */
void gb_run_host_twins(const gb_suite *s, case_tracks *tracks) {
    gb_params defaults;
    gb_params_default(&defaults);
    for (size_t i = 0; i < s->count; i++) {
        tracks[i].host_twin = -1;
        int special = 0;
        for (const gb_param_spec *p = s->items[i].c.op->params; p && p->key; p++)
            special |= accelerator_only(s->items[i].c.op, p) && param_differs(p, &s->items[i].c.params, &defaults);
        for (size_t j = 0; special && j < i && tracks[i].host_twin < 0; j++)
            if (tracks[j].host_twin < 0 && same_host_work(&s->items[j], &s->items[i])) tracks[i].host_twin = (long)j;
    }
}

/* Copy (again) the twin's results of host slot into case ct; a new copy
 * is appended on the first call. */
void gb_run_share_host_results(gb_run_config *cfg, const gb_suite *s, case_tracks *tracks, case_tracks *ct,
                               const gb_backend_slot *slot) {
    const case_tracks *twin = &tracks[ct->host_twin];
    const gb_case *tc = &s->items[ct->host_twin].c;
    cJSON *params = gb_params_to_json(tc);
    char *ptext = params ? cJSON_PrintUnformatted(params) : NULL;
    char same_as[256];
    snprintf(same_as, sizeof same_as, "%s %s %s %s", tc->op->name, gb_dtype_name(tc->dtype), tc->label,
             ptext ? ptext : "");
    free(ptext);
    cJSON_Delete(params);
    gb_err e = {{0}};
    for (size_t r = 0; r < case_at(cfg, twin->ci)->nresults; r++) {
        if (strcmp(case_at(cfg, twin->ci)->results[r].backend, slot->name) != 0) continue;
        int k = 0;
        while (k < ct->nshared && ct->shared[k][1] != r) k++;
        if (k == ct->nshared) {
            if (k == GB_MAX_BACKENDS * GB_MAX_TIMINGS) continue;
            long d = gb_run_new_result(cfg, ct->ci, slot, "", GB_RS_OK, NULL);
            if (d < 0) continue;
            ct->shared[k][0] = (size_t)d;
            ct->shared[k][1] = r;
            ct->nshared++;
        }
        gb_result *ours = &case_at(cfg, ct->ci)->results[ct->shared[k][0]];
        cJSON *extra = NULL;
        if (gb_result_copy(ours, &case_at(cfg, twin->ci)->results[r]) != GB_OK ||
            !(extra = gb_kvlist_to_cjson(&ours->extra)) || !cJSON_AddStringToObject(extra, "same_as", same_as) ||
            gb_kvlist_from_cjson(&ours->extra, extra, "extra", &e) != GB_OK)
            gb_run_model_oom = 1;
        cJSON_Delete(extra);
    }
}

/* Refresh every case's shared host results (their twins measured on). */
void gb_run_refresh_shared(gb_run_config *cfg, const gb_suite *s, case_tracks *tracks, case_tracks *ct) {
    if (ct->host_twin < 0 || ct->nshared == 0) return;
    for (int k = 0; k < cfg->backends->count; k++)
        if (cfg->backends->slot[k].b && cfg->backends->slot[k].b->role == GB_ROLE_HOST)
            gb_run_share_host_results(cfg, s, tracks, ct, &cfg->backends->slot[k]);
}

