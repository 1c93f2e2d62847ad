/* run_visit.c — one visit of a backend: its first (prepare, measure every
 * timing, fetch and verify) and its later ones (measure again on the kept
 * or a new state); and the visit of all a backend's devices at once
 * (--devices-concurrent). */
#include "run_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "concurrent.h"
#include "op.h"
#include "stats.h"
#include "sysinfo.h"

static double case_work(const gb_case *c) { return c->flops > 0 ? c->flops : c->bytes; }

/* One repetition as the stopping rule sees it: the cache flush (cold mode)
 * outside the backend's timer, then the backend's own timed run. */
typedef struct {
    const gb_backend *b;
    void *state;
    int timing, cache_cold;
    double slow; /* GPUBENCH_FAULT_SLOW's factor (run_fault.c) */
} rep_ctx;

static int one_rep(void *ctx, double *seconds, gb_err *e) {
    rep_ctx *r = ctx;
    if (r->cache_cold && r->b->flush_caches) r->b->flush_caches();
    int status = r->b->run(r->state, r->timing, seconds, e);
    if (status == GB_OK) gb_run_fault_slow(r->slow, seconds);
    return status;
}

/* Which kinds (op, backend slot, timing) have had a first visit: the
 * warm-up's time floor is for the first use of a library's thread pool in
 * this process (stopping.h). */
static unsigned char warm_kinds[GB_OP_COUNT][GB_MAX_BACKENDS][GB_MAX_TIMINGS];

/* visit: GB_VISIT_FIRST on a first visit (the first of its kind in this
 * process warms up longer), GB_VISIT_AGAIN or GB_VISIT_KEPT on a later one. */
static int measure(gb_run_config *cfg, const gb_case *c, int slot, const gb_backend *b, void *state, int timing,
                   const gb_budget *budget, gb_visit visit, track *tr, int *capped, gb_err *e) {
    rep_ctx ctx = {b, state, timing, cfg->cache_cold, tr->slow};
    gb_visit_cost cost = {0};
    int adopted = tr->s.adopted_warmups;
    if (visit == GB_VISIT_FIRST && !warm_kinds[c->op_id][slot][timing]) visit = GB_VISIT_FIRST_OF_KIND;
    int status;
    /* energy and clocks sampled around the timed phase, never inside a sample (run_energy.c) */
    double reps0 = (double)(tr->s.n + (size_t)tr->s.warmup_reps);
    int round = tr->s.rounds; /* the round this visit adds */
    double steal0 = gb_sysinfo_steal_s();
    OUTSIDE_MODEL({
        gb_span *span = gb_run_span_begin(slot, gb_run_energy_wanted(cfg, slot, timing));
        status = gb_measure_visit(budget, visit, one_rep, &ctx, &gb_host_clock, &gb_interrupted, &tr->s, capped,
                                  &cost, e);
        gb_run_span_end(span, &tr->en, status == GB_OK ? (double)(tr->s.n + (size_t)tr->s.warmup_reps) - reps0 : 0);
    });
    if (status == GB_OK) warm_kinds[c->op_id][slot][timing] = 1;
    double steal = gb_sysinfo_steal_s() - steal0;
    if (round >= 0 && round < GB_MAX_ROUNDS && steal0 >= 0 && steal > 0) tr->steal_s[round] += steal;
    if (cfg->breakdown) cfg->breakdown->adopted_warmups += tr->s.adopted_warmups - adopted;
    gb_run_account(cfg, c->op_id, GB_T_WARMUP, cost.warmup_s);
    gb_run_account(cfg, c->op_id, GB_T_SAMPLES, cost.samples_s);
    gb_run_account(cfg, c->op_id, GB_T_BETWEEN, cost.timing_s - cost.samples_s);
    return status;
}
/* The first visit of a case by one backend: prepare, measure every timing,
 * fetch and verify the output, record it all. */
/* The result of slot's timing in case ci, made in an earlier round; -1 when none. */
static long find_result(gb_run_config *cfg, size_t ci, const gb_backend_slot *slot, const char *timing) {
    const gb_case_result *c = case_at(cfg, ci);
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *r = &c->results[i];
        if (!strcmp(r->backend, slot->name) && !strcmp(r->timing, timing) &&
            (!slot->has_device || !r->device.present || r->device.index == slot->device.index))
            return (long)i;
    }
    return -1;
}

/* Every timing of slot in case ci gets status and why: new results in round
 * 0, the ones round 0 made in a later round (a first visit decided again). */
static void mark_all(gb_run_config *cfg, size_t ci, const gb_case *c, const gb_backend_slot *slot, int round,
                     gb_result_status status, const char *why) {
    if (round == 0) {
        gb_run_add_all_timings(cfg, ci, c, slot, status, why);
        return;
    }
    for (int t = 0; t < slot->b->ntimings; t++) {
        long ri = find_result(cfg, ci, slot, slot->b->timings[t]);
        if (ri >= 0) gb_run_set_status(&case_at(cfg, ci)->results[ri], status, why);
    }
}

void gb_run_backend_first(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot,
                        int slot_index, const gb_arrays *in, reference *ref, gb_rate_book *rates,
                        case_tracks *ct, int round, int rounds) {
    const gb_case *c = &item->c;
    size_t ci = ct->ci;
    track *tracks = ct->t[slot_index];
    const gb_backend *b = slot->b;
    gb_err e = {{0}};

    if (slot->disabled) {
        char why[GB_MSG_LEN + 32];
        snprintf(why, sizeof why, "backend disabled: %s", slot->reason);
        mark_all(cfg, ci, c, slot, round, GB_RS_SKIPPED, why);
        return;
    }
    if (gb_interrupted) {
        mark_all(cfg, ci, c, slot, round, GB_RS_SKIPPED, "interrupted");
        return;
    }
    int status = gb_run_use_slot(cfg, slot, c, 1, &e);
    if (status != GB_OK) {
        mark_all(cfg, ci, c, slot, round, status == GB_SKIP ? GB_RS_SKIPPED : GB_RS_ERROR, e.msg);
        if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        return;
    }
    const char *from = NULL;
    double projected = gb_rate_project(rates, item->benchmark, c->dtype, slot_index, case_work(c), &from);
    if (projected > item->budget.max_time_s) {
        char why[GB_MSG_LEN];
        snprintf(why, sizeof why,
                 "projected %.3g s per repetition (from the rate at %s) exceeds max_time_s %g; "
                 "raise max_time_s (or --max-time) to run it",
                 projected, from, item->budget.max_time_s);
        if (round == 0) gb_run_add_all_timings(cfg, ci, c, slot, GB_RS_SKIPPED, why);
        /* not final while rounds remain: a later round decides again from
         * the rates it knows then (a stalled round 0 is not the evidence) */
        for (int t = 0; t < b->ntimings; t++) {
            tracks[t].projected = round + 1 < rounds && timing_applies(b, c, t);
            tracks[t].again = tracks[t].projected;
        }
        return;
    }
    for (int t = 0; t < b->ntimings; t++) tracks[t].projected = 0;

    void *state = NULL;
    double setup = 0, bytes = 0;
    status = gb_run_prepare_case(cfg, slot, c, in, &state, &setup, &bytes, &e);
    if (status != GB_OK) {
        mark_all(cfg, ci, c, slot, round, status == GB_SKIP ? GB_RS_SKIPPED : GB_RS_ERROR, e.msg);
        if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        return;
    }

    gb_budget budget = gb_round_budget(&item->budget, rounds, round);
    long made[GB_MAX_TIMINGS];
    int measured_any = 0, fatal = 0;
    for (int t = 0; t < b->ntimings; t++) {
        made[t] = -1;
        if (!timing_applies(b, c, t)) continue;
        long ri = round > 0 ? find_result(cfg, ci, slot, b->timings[t]) : -1;
        if (ri >= 0) gb_run_set_status(&case_at(cfg, ci)->results[ri], GB_RS_OK, NULL);
        else ri = gb_run_new_result(cfg, ci, slot, b->timings[t], GB_RS_OK, NULL);
        made[t] = ri;
        if (ri < 0) continue;
        gb_result *r = &case_at(cfg, ci)->results[ri];
        r->setup_s = setup;
        r->has |= GB_R_HAS_SETUP;
        if (fatal) { gb_run_set_status(r, GB_RS_ERROR, e.msg); continue; }
        track *tr = &tracks[t];
        tr->slow = gb_run_fault_factor(case_at(cfg, ci), r);
        int capped;
        status = measure(cfg, c, slot_index, b, state, t, &budget, GB_VISIT_FIRST, tr, &capped, &e);
        r = &case_at(cfg, ci)->results[ri];
        if (status != GB_OK) {
            /* GB_SKIP from a repetition: the backend cannot go on with this
             * case (a peer's worker that died or hung), not a wrong answer */
            gb_run_set_status(r, status == GB_SKIP ? GB_RS_SKIPPED : GB_RS_ERROR, e.msg);
            if (status == GB_FATAL) {
                fatal = 1;
                gb_backends_disable(slot, e.msg);
            }
        } else if (tr->s.n == 0) {
            gb_run_set_status(r, GB_RS_SKIPPED, "interrupted");
        } else {
            tr->result = (size_t)ri;
            tr->backend = slot->name;
            /* the peaks are measured on the backend's first device only */
            tr->ceiling = b->ceiling && gb_backends_first_of_backend(slot) ? b->ceiling(c, t) : NULL;
            tr->again = !capped && round + 1 < rounds;
            if (gb_run_energy_wanted(cfg, slot_index, t))
                gb_run_energy_phase(cfg, c, slot_index, b, state, tr);
            gb_run_write_measurement(cfg, ci, c, tr);
            gb_run_energy_record(cfg, ci, c, slot_index, &tr->en, tr->result);
            measured_any = 1;
            if (t == 0)
                gb_rate_record(rates, item->benchmark, c->dtype, slot_index, case_work(c),
                               gb_fastest(tr->s.v, tr->s.n), c->label); /* a stall does not skip the next size */
        }
    }

    /* Fetch and check the output of the last repetition. */
    double t0 = gb_now();
    gb_verdict v;
    memset(&v, 0, sizeof v);
    cJSON *extra = cJSON_CreateObject();
    gb_arrays out = {0};
    if (measured_any && !fatal) {
        OUTSIDE_MODEL(status = b->fetch(state, &out, &e));
        if (status != GB_OK) {
            v.status = GB_VERIFY_FAILED;
            snprintf(v.detail, sizeof v.detail, "fetching the output failed: %.200s", e.msg);
            if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
        } else {
            OUTSIDE_MODEL(c->op->verify(c, in, &out, ref->have ? &ref->out : NULL, &v));
            if (ref->have && !v.against[0]) snprintf(v.against, sizeof v.against, "%s", ref->from);
        }
        if (b->annotate) b->annotate(state, extra);
    }
    double verify_s = gb_now() - t0;
    gb_run_account(cfg, c->op_id, GB_T_VERIFY, verify_s);

    /* annotate() writes its facts as cJSON (the backend ABI): the model takes them from there */
    for (int t = 0; t < b->ntimings; t++) {
        if (made[t] < 0) continue;
        gb_result *r = &case_at(cfg, ci)->results[made[t]];
        if (r->status == GB_RS_OK && v.status == GB_VERIFY_FAILED) {
            gb_run_set_status(r, GB_RS_FAILED, v.detail[0] ? v.detail : "verification failed");
            tracks[t].again = 0; /* a wrong answer is not timed further */
        }
        gb_run_set_verdict(r, &v);
        if (measured_any && !fatal) {
            r->verify_s = verify_s;
            r->has |= GB_R_HAS_VERIFY;
        }
        if (gb_kvlist_from_cjson(&r->extra, extra, "extra", &e) != GB_OK) gb_run_model_oom = 1;
    }
    cJSON_Delete(extra);
    int wanted = 0;
    for (int t = 0; t < b->ntimings; t++) wanted |= made[t] >= 0 && tracks[t].again;
    gb_run_keep_or_release(cfg, ct, slot_index, c, state, bytes, wanted && !fatal && !slot->disabled);

    if (v.status == GB_VERIFY_PASSED && !ref->have) {
        ref->out = out;
        ref->from = slot->name;
        ref->have = 1;
    } else {
        gb_arrays_free(&out);
    }
}

/* A state prepared again may have a plan of its own (FFTW's planner=measure
 * times its candidates anew; cuFFT and cuBLAS heuristics may choose again):
 * the plan of every round is kept, extra.round_plans ([first visit's, this
 * round's, ...]; only once a round was prepared again), so that compare can
 * tell a plan that changed between rounds from a change of the code. */
static void note_round_plan(gb_run_config *cfg, size_t ci, const gb_backend *b, void *state, const track *tracks,
                            const int *measured, int round) {
    cJSON *now = cJSON_CreateObject();
    if (!now) return;
    b->annotate(state, now);
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(now, "plan");
    for (int t = 0; cJSON_IsString(plan) && t < b->ntimings; t++) {
        if (t >= 16 || !measured[t]) continue;
        gb_result *r = &case_at(cfg, ci)->results[tracks[t].result];
        cJSON *extra = gb_kvlist_to_cjson(&r->extra);
        if (!extra) continue;
        cJSON *list = cJSON_GetObjectItemCaseSensitive(extra, "round_plans");
        if (!cJSON_IsArray(list)) {
            cJSON_DeleteItemFromObjectCaseSensitive(extra, "round_plans");
            list = cJSON_AddArrayToObject(extra, "round_plans");
            const cJSON *first = cJSON_GetObjectItemCaseSensitive(extra, "plan");
            cJSON_AddItemToArray(list, cJSON_CreateString(cJSON_IsString(first) ? first->valuestring : "?"));
        }
        /* rounds skipped by this result (it stopped early) leave the list shorter */
        if (cJSON_GetArraySize(list) <= round) cJSON_AddItemToArray(list, cJSON_CreateString(plan->valuestring));
        gb_err e = {{0}};
        gb_kvlist copy = {0};
        if (gb_kvlist_from_cjson(&copy, extra, "extra", &e) == GB_OK) {
            gb_kvlist_free(&r->extra);
            r->extra = copy;
        } else {
            gb_run_model_oom = 1;
        }
        cJSON_Delete(extra);
    }
    cJSON_Delete(now);
}

/* A later visit: on the state kept from the last visit, or prepared again
 * (kept_states), measure the timings still taking part, keep or release.
 * The output was verified on the first visit. */
void gb_run_backend_again(gb_run_config *cfg, const gb_plan_item *item, gb_backend_slot *slot,
                              int slot_index, gb_rate_book *rates, const gb_arrays *in, case_tracks *ct, int round,
                              int rounds) {
    const gb_backend *b = slot->b;
    size_t ci = ct->ci;
    track *tracks = ct->t[slot_index];
    int wanted = 0;
    for (int t = 0; t < b->ntimings; t++) wanted |= tracks[t].again;
    if (slot->disabled) /* a fatal error since: what earlier rounds measured stands */
        for (int t = 0; t < b->ntimings; t++) tracks[t].again = 0;
    if (!wanted || slot->disabled || gb_interrupted) {
        gb_run_release_state(cfg, ct, slot_index, item->c.op_id);
        return;
    }
    /* round 0's projection skipped it: decide again from what is known now */
    int projected = 0;
    for (int t = 0; t < b->ntimings; t++) projected |= tracks[t].projected;
    if (projected) {
        reference none = {0}; /* an output that passed becomes its reference: it is ours to free */
        gb_run_backend_first(cfg, item, slot, slot_index, in, &none, rates, ct, round, rounds);
        if (none.have) gb_arrays_free(&none.out);
        return;
    }
    gb_err e = {{0}};
    char why[GB_MSG_LEN + 32];
    double bytes = ct->state_bytes[slot_index], setup = 0;
    void *state = gb_run_take_state(ct, slot_index);
    gb_visit visit = state ? GB_VISIT_KEPT : GB_VISIT_AGAIN;
    int prepared = gb_run_use_slot(cfg, slot, &item->c, 0, &e);
    if (prepared == GB_OK && !state) prepared = gb_run_prepare_case(cfg, slot, &item->c, in, &state, &setup, &bytes, &e);
    if (cfg->breakdown) {
        if (visit == GB_VISIT_KEPT) cfg->breakdown->kept_visits++;
        else cfg->breakdown->prepared_again++;
    }
    int status = prepared;
    if (prepared == GB_FATAL) gb_backends_disable(slot, e.msg);
    gb_budget budget = gb_round_budget(&item->budget, rounds, round);
    int got[16] = {0}; /* timings measured this round (note_round_plan) */
    for (int t = 0; t < b->ntimings; t++) {
        track *tr = &tracks[t];
        if (!tr->again) continue;
        int capped = 0, measured = 0;
        if (status == GB_OK && !gb_interrupted) {
            status = measure(cfg, &item->c, slot_index, b, state, t, &budget, visit, tr, &capped, &e);
            measured = status == GB_OK;
        }
        if (status != GB_OK) {
            /* what earlier rounds measured stays, but the result says it broke */
            snprintf(why, sizeof why, "round %d: %s", round + 1, e.msg);
            gb_run_set_status(&case_at(cfg, ci)->results[tr->result], GB_RS_ERROR, why);
            tr->again = 0;
            if (status == GB_FATAL) gb_backends_disable(slot, e.msg);
            if (prepared == GB_OK && status != GB_FATAL) status = GB_OK; /* the next timing may work */
            continue;
        }
        if (measured) {
            gb_run_write_measurement(cfg, ci, &item->c, tr);
            gb_run_energy_record(cfg, ci, &item->c, slot_index, &tr->en, tr->result);
            /* the rate that projects the next sizes, from every round's best */
            if (t == 0)
                gb_rate_revise(rates, item->benchmark, item->c.dtype, slot_index, case_work(&item->c),
                               gb_fastest(tr->s.v, tr->s.n), item->c.label);
        }
        if (t < 16) got[t] = measured;
        tr->again = measured && !capped && !gb_interrupted && round + 1 < rounds;
    }
    if (visit == GB_VISIT_AGAIN && prepared == GB_OK && b->annotate)
        note_round_plan(cfg, ci, b, state, tracks, got, round);
    int again = 0;
    for (int t = 0; t < b->ntimings; t++) again |= tracks[t].again;
    if (visit == GB_VISIT_KEPT || prepared == GB_OK)
        gb_run_keep_or_release(cfg, ct, slot_index, &item->c, state, bytes, prepared == GB_OK && again && !slot->disabled);
}

/* ---- all devices at once (--devices-concurrent) ------------------------------ */

/* Repetitions of a concurrent measurement: the case's min_reps, at least 3. */
#define GB_CONCURRENT_MIN_REPS 3

/* Record one lane of a concurrent measurement as a result of its device,
 * marked with the group's size and aggregate rates. */
static void record_lane(gb_run_config *cfg, size_t ci, const gb_case *c, const gb_concurrent_lane *l, int timing,
                        int nlanes, double agg_gflops, double agg_gbs, gb_lane_energy *le) {
    const gb_backend *b = l->slot->b;
    int ok = l->status == GB_OK && l->n > 0;
    gb_result_status status = ok ? GB_RS_OK : l->status == GB_OK || l->status == GB_SKIP ? GB_RS_SKIPPED : GB_RS_ERROR;
    long ri = gb_run_new_result(cfg, ci, l->slot, b->timings[timing], status,
                         ok ? NULL : l->status == GB_OK ? "interrupted" : l->err.msg);
    if (ri < 0) return;
    gb_result *r = &case_at(cfg, ci)->results[ri];
    r->concurrent.present = 1;
    r->concurrent.devices = nlanes;
    r->concurrent.aggregate_gflops = agg_gflops;
    r->concurrent.aggregate_gbs = agg_gbs;
    gb_verdict v;
    memset(&v, 0, sizeof v);
    v.status = GB_VERIFY_NOT_CHECKED;
    v.error = v.tolerance = NAN;
    snprintf(v.detail, sizeof v.detail, "verified when the device ran the case alone");
    gb_run_set_verdict(r, &v);
    if (!ok) return;
    /* where the device's host thread ran (issue #48: near its GPU or not) */
    cJSON *x = cJSON_CreateObject();
    gb_err e = {{0}};
    if (x && l->host_cpu >= 0) cJSON_AddNumberToObject(x, "host_thread_cpu", l->host_cpu);
    if (x && gb_kvlist_from_cjson(&r->extra, x, "extra", &e) != GB_OK) gb_run_model_oom = 1;
    cJSON_Delete(x);
    size_t round_n = (size_t)l->n;
    gb_run_set_stats(r, l->samples, (size_t)l->n, &round_n, 1, c);
    r->nrounds = 1;
    if ((r->round_sizes = malloc(sizeof *r->round_sizes))) r->round_sizes[0] = round_n;
    else gb_run_model_oom = 1;
    r->has |= GB_R_HAS_ROUNDS;
    gb_run_energy_record(cfg, ci, c, le->k, &le->en, (size_t)ri); /* each device's own counter */
}

/* Run case i on every device of each accelerator backend at once, for each
 * of its timings, after its visit in turn (round 0). */
void gb_run_concurrent_visit(const gb_plan_item *item, size_t ci, gb_run_config *cfg, const gb_arrays *in) {
    const gb_case *c = &item->c;
    gb_backend_set *set = cfg->backends;
    if (c->op->multi_device || gb_interrupted) return;
    int reps = item->budget.min_reps > GB_CONCURRENT_MIN_REPS ? item->budget.min_reps : GB_CONCURRENT_MIN_REPS;
    double *buf = malloc((size_t)reps * GB_MAX_BACKENDS * sizeof *buf);
    if (!buf) {
        gb_run_model_oom = 1;
        return;
    }
    for (int k = 0; k < set->count; k++) {
        if (!set->slot[k].has_device || set->slot[k].device_pos != 0) continue; /* once per backend */
        gb_concurrent_lane lanes[GB_MAX_BACKENDS];
        int n = 0;
        for (int j = 0; j < set->count; j++) {
            gb_backend_slot *d = &set->slot[j];
            if (d->b == set->slot[k].b && d->has_device && d->selected && !d->disabled) {
                memset(&lanes[n], 0, sizeof lanes[n]);
                lanes[n].slot = d;
                lanes[n].samples = buf + (size_t)n * (size_t)reps;
                n++;
            }
        }
        const gb_backend *b = set->slot[k].b;
        for (int t = 0; t < b->ntimings && n > 0 && !gb_interrupted; t++) {
            if (!timing_applies(b, c, t)) continue; /* as alone: no result for a timing the op lacks */
            gb_err e = {{0}};
            gb_lane_energy le[GB_MAX_BACKENDS];
            for (int j = 0; j < n; j++) {
                int kj = (int)(lanes[j].slot - set->slot);
                le[j] = (gb_lane_energy){.k = kj, .energy = gb_run_energy_wanted(cfg, kj, t), .mode = cfg->energy};
                lanes[j].timed = gb_run_energy_lane_hook;
                lanes[j].timed_ctx = &le[j];
                /* the energy phase, all devices at once: timing 0 only, as alone */
                lanes[j].phase_want = t == 0 && cfg->energy != GB_ENERGY_OFF ? gb_run_energy_lane_want : NULL;
                lanes[j].phase = lanes[j].phase_want ? gb_run_energy_lane_phase : NULL;
            }
            double t0 = gb_now();
            int warmup = item->budget.warmup > 1 ? item->budget.warmup : 1;
            int cst;
            OUTSIDE_MODEL(cst = gb_concurrent_measure(c, in, lanes, n, t, warmup, reps, &gb_interrupted, &e));
            if (cst != GB_OK)
                for (int j = 0; j < n; j++) lanes[j].status = gb_errf(&lanes[j].err, GB_FAIL, "%s", e.msg);
            double phases = gb_run_energy_lanes_spent(cfg, c, le, n);
            gb_run_account(cfg, c->op_id, GB_T_SAMPLES, gb_now() - t0 - phases);
            /* every device's work over its own median, summed */
            double gflops = 0, gbs = 0;
            int all_ok = 1;
            for (int j = 0; j < n; j++) {
                gb_stats st;
                if (lanes[j].status != GB_OK || lanes[j].n == 0) {
                    all_ok = 0;
                    continue;
                }
                gb_stats_compute(lanes[j].samples, (size_t)lanes[j].n, &st);
                gflops += c->flops / st.median * 1e-9;
                gbs += c->bytes / st.median * 1e-9;
            }
            for (int j = 0; j < n; j++)
                record_lane(cfg, ci, c, &lanes[j], t, n, all_ok && c->flops > 0 ? gflops : NAN,
                            all_ok && c->bytes > 0 ? gbs : NAN, &le[j]);
        }
    }
    free(buf);
}
