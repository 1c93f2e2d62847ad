/* runner.c — see runner.h: the plan and its rounds. One visit of a backend,
 * where results are timed, is run_visit.c (run_internal.h lists the rest). */
#include "run_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"

/* Rewrite the results file with what is measured so far (atomically: a
 * killed run leaves a valid file). A whole rewrite grows with the run — on
 * the H100 host the default suite's 264 rewrites took 12.7 s — so after the
 * first one it is done at most every GB_CHECKPOINT_MIN_S and at most 5% of
 * the time (20 × the last write's cost apart), and always when asked
 * (`now`: the end of a round but the last, which cmd_run's final write
 * follows at once) and once at an interruption (the cases after it are only
 * listed, quickly, and the final write follows: forcing a write for each
 * made an interrupted 10,000-case run rewrite its file thousands of times).
 * So writing costs grow with the cases, not with cases × rewrites: 10,000
 * tiny cases take about ten times as long as 1,000 (docs/reliability.md). */
#define GB_CHECKPOINT_MIN_S 5.0
static double last_end = -1, last_cost = 0; /* the last write of this run (reset by gb_runner_run) */
static int interruption_written;            /* likewise */

static int checkpoint(gb_run_config *cfg, int now, gb_err *e) {
    gb_progress_tick(); /* a case done (or listed, after an interruption) */
    if (gb_run_model_oom) return gb_errf(e, GB_FAIL, "out of memory for the results");
    if (!cfg->out_path) return GB_OK;
    if (gb_interrupted && !interruption_written) now = interruption_written = 1;
    double t0 = gb_now(), gap = 20 * last_cost > GB_CHECKPOINT_MIN_S ? 20 * last_cost : GB_CHECKPOINT_MIN_S;
    if (!now && last_end >= 0 && t0 - last_end < gap) return GB_OK;
    gb_results_summarize(cfg->results);
    int status = gb_results_write(cfg->results, cfg->out_path, GB_WRITE_SAMPLES_6G, e);
    last_end = gb_now();
    last_cost = last_end - t0;
    if (cfg->breakdown) cfg->breakdown->write_s += last_cost;
    return status;
}

/* ---- progress (gb_run_callbacks) -------------------------------------------- */

/* The parts of the run's time a later visit repeats, so far: a visit's
 * share of them is what the next round's visit of the case costs again. */
static double repeated_parts(const gb_run_config *cfg) {
    const gb_time_breakdown *b = cfg->breakdown;
    return b ? b->all[GB_T_WARMUP] + b->all[GB_T_SAMPLES] + b->all[GB_T_BETWEEN] : 0;
}

static gb_visit_times *visit_times; /* per case of the plan, for the estimate (set by gb_runner_run) */

static void show_progress(const gb_run_config *cfg, const gb_suite *s, const case_tracks *tracks, size_t i,
                          int round, const char *backend) {
    if (!cfg->report.progress) return;
    gb_run_progress p = {.round = round, .rounds = s->rounds, .index = i, .count = s->count, .c = &s->items[i].c,
                         .backend = backend, .elapsed_s = gb_now() - cfg->started,
                         .left_s = visit_times ? gb_time_left(visit_times, s->count, s->rounds) : 0};
    cfg->report.progress(cfg->report.ctx, &p);
}
/* ---- visits ------------------------------------------------------------------ */

/* Does a case run on this slot? Every selected one, except that a
 * multi-GPU op runs once per backend (on its first slot: the routine itself
 * spreads over the devices), not once per device. */
static int visits_slot(const gb_case *c, const gb_backend_slot *slot) {
    return slot->selected && (!c->op->multi_device || gb_backends_first_of_backend(slot));
}

/* Round 0 of a case: inputs, every backend, verification. */
static void first_visit(const gb_suite *s, size_t i, gb_run_config *cfg, gb_rate_book *rates,
                        case_tracks *tracks, gb_arrays *in) {
    case_tracks *ct = &tracks[i];
    const gb_plan_item *item = &s->items[i];
    const gb_case *c = &item->c;
    long made_case = gb_run_new_case(cfg, c);
    if (made_case < 0) return;
    size_t ci = ct->ci = (size_t)made_case;

    if (gb_interrupted) { /* listed, so the file says what was not measured */
        for (int k = 0; k < cfg->backends->count; k++)
            if (visits_slot(c, &cfg->backends->slot[k]))
                gb_run_add_all_timings(cfg, ci, c, &cfg->backends->slot[k], GB_RS_SKIPPED, GB_REASON_NOT_REACHED);
        return;
    }
    double need = c->op->host_bytes(c), avail = gb_run_host_available_bytes();
    gb_err err = {{0}};
    int made = GB_FAIL;
    double t0 = gb_now();
    if (gb_op_computes(c->op, c->dtype, &err) != GB_OK)
        made = GB_SKIP; /* a dtype the op has no path for: skipped with the reason */
    else if (need > avail)
        snprintf(err.msg, sizeof err.msg, "needs %.2f GiB of host memory, %.2f GiB available",
                 need / 1073741824.0, avail / 1073741824.0);
    else
        OUTSIDE_MODEL(made = c->op->make_inputs(c, in, &err));
    gb_run_spent(cfg, item->c.op_id, GB_T_INPUTS, t0);
    if (made != GB_OK) {
        for (int k = 0; k < cfg->backends->count; k++)
            if (visits_slot(c, &cfg->backends->slot[k]))
                gb_run_add_all_timings(cfg, ci, c, &cfg->backends->slot[k],
                                made == GB_FAIL && need <= avail ? GB_RS_ERROR : GB_RS_SKIPPED, err.msg);
        return;
    }
    reference ref = {0};
    for (int k = 0; k < cfg->backends->count; k++) {
        gb_backend_slot *slot = &cfg->backends->slot[k];
        if (!visits_slot(c, slot)) continue;
        if (ct->host_twin >= 0 && slot->b && slot->b->role == GB_ROLE_HOST) {
            gb_run_share_host_results(cfg, s, tracks, ct, slot);
            continue;
        }
        show_progress(cfg, s, tracks, i, 0, slot->name);
        gb_run_backend_first(cfg, item, slot, k, in, &ref, rates, ct, 0, s->rounds);
    }
    if (ref.have) gb_arrays_free(&ref.out);
}

/* Round 1, 2, ... of a case: the same inputs (same seed), kept from round 0
 * or made again. */
static void next_visit(const gb_suite *s, size_t i, int round, gb_run_config *cfg, gb_rate_book *rates,
                       case_tracks *tracks) {
    case_tracks *ct = &tracks[i];
    const gb_plan_item *item = &s->items[i];
    gb_arrays made_now = {0};
    const gb_arrays *in = &ct->inputs;
    if (!ct->have_inputs) {
        gb_err err = {{0}};
        double t0 = gb_now();
        int status;
        OUTSIDE_MODEL(status = item->c.op->make_inputs(&item->c, &made_now, &err));
        gb_run_spent(cfg, item->c.op_id, GB_T_INPUTS, t0);
        if (status != GB_OK) {
            /* it worked in round 0: keep those samples, say why the rounds stop */
            for (int k = 0; k < cfg->backends->count; k++)
                for (int t = 0; t < GB_MAX_TIMINGS; t++)
                    if (ct->t[k][t].again) {
                        char why[GB_MSG_LEN + 32];
                        snprintf(why, sizeof why, "round %d: %s", round + 1, err.msg);
                        gb_run_set_status(&case_at(cfg, ct->ci)->results[ct->t[k][t].result], GB_RS_ERROR, why);
                        ct->t[k][t].again = 0;
                    }
            gb_arrays_free(&made_now);
            return;
        }
        in = &made_now;
    }
    for (int k = 0; k < cfg->backends->count; k++) {
        gb_backend_slot *slot = &cfg->backends->slot[k];
        if (!visits_slot(&item->c, slot) || !slot->b) continue;
        show_progress(cfg, s, tracks, i, round, slot->name);
        gb_run_backend_again(cfg, item, slot, k, rates, in, ct, round, s->rounds);
    }
    gb_run_refresh_shared(cfg, s, tracks, ct);
    if (!ct->have_inputs) gb_run_release_case_states(cfg, ct, item->c.op_id); /* they read made_now */
    gb_arrays_free(&made_now);
}

static int case_again(const case_tracks *ct) {
    for (int k = 0; k < GB_MAX_BACKENDS; k++)
        for (int t = 0; t < GB_MAX_TIMINGS; t++)
            if (ct->t[k][t].again) return 1;
    return 0;
}

static void free_tracks(case_tracks *ct) {
    for (int k = 0; k < GB_MAX_BACKENDS; k++)
        for (int t = 0; t < GB_MAX_TIMINGS; t++) gb_samples_free(&ct->t[k][t].s);
}

int gb_runner_run(const gb_suite *s, gb_run_config *cfg, gb_err *e) {
    gb_rate_book *rates = gb_rate_book_new();
    case_tracks *tracks = calloc(s->count ? s->count : 1, sizeof *tracks);
    visit_times = calloc(s->count ? s->count : 1, sizeof *visit_times);
    if (!tracks || !rates || !visit_times) {
        free(tracks);
        free(visit_times);
        visit_times = NULL;
        gb_rate_book_free(rates);
        return gb_errf(e, GB_FAIL, "out of memory for %zu cases", s->count);
    }
    gb_model_lock(); /* let go of around each backend call (OUTSIDE_MODEL) */
    if (cfg->started <= 0) cfg->started = gb_now();
    last_end = -1; /* the run's first visit is written at once */
    last_cost = 0;
    interruption_written = 0;
    gb_run_model_oom = 0;
    input_cache cache = {.cap = cfg->keep_bytes > 0 ? cfg->keep_bytes : 0.25 * gb_run_host_available_bytes(), .used = 0};
    /* --devices-concurrent prepares the case on every device at once: nothing kept there */
    gb_run_kept = (kept_states){.suite = s, .tracks = tracks, .cap = cfg->concurrent ? 0 : cache.cap, .used = 0};
    gb_run_host_twins(s, tracks);
    gb_run_energy_begin_run(cfg); /* the meters, probed at rest before the first case */
    int status = gb_run_fault_read(e); /* GPUBENCH_FAULT_SLOW, run_fault.c */
    /* Round 0 visits every case and prints its line as soon as it is
     * measured (later rounds refine it in the final table); later rounds
     * revisit, in the same order, the results that did not hit max_time_s
     * (stopping.h). */
    /* A fault to inject on purpose: GPUBENCH_FAULT_SIGINT_AT_CASE=k raises
     * SIGINT as case k (0-based) is reached, so a test of what an
     * interrupted run shows knows where the signal came instead of racing
     * one against the run (such a test failed once in nine under load) */
    const char *fault = getenv("GPUBENCH_FAULT_SIGINT_AT_CASE");
    long sigint_at = fault && *fault ? strtol(fault, NULL, 10) : -1;
    for (int round = 0; round < s->rounds && status == GB_OK; round++) {
        for (size_t i = 0; i < s->count && status == GB_OK; i++) {
            case_tracks *ct = &tracks[i];
            double t0 = gb_now(), repeated0 = repeated_parts(cfg);
            if (round == 0 && sigint_at == (long)i) raise(SIGINT);
            if (round == 0) {
                if (!gb_interrupted) show_progress(cfg, s, tracks, i, 0, NULL);
                gb_arrays in = {0};
                first_visit(s, i, cfg, rates, tracks, &in);
                if (cfg->concurrent && in.count > 0) gb_run_concurrent_visit(&s->items[i], ct->ci, cfg, &in);
                ct->again = !gb_interrupted && case_again(ct);
                gb_run_keep_or_free_inputs(&cache, ct, &in);
                /* a state may read its case's inputs (prepare need not copy
                 * them: the CPU backend's do not), so it lives only as long
                 * as they do */
                if (!ct->have_inputs) gb_run_release_case_states(cfg, ct, s->items[i].c.op_id);
            } else {
                if (!ct->again || gb_interrupted) continue;
                next_visit(s, i, round, cfg, rates, tracks);
                ct->again = !gb_interrupted && case_again(ct);
            }
            gb_visit_times *vt = &visit_times[i];
            double took = gb_now() - t0;
            if (round == 0) {
                vt->first_s = took;
                /* without a breakdown to read, the whole visit is the guess */
                vt->repeat_s = !ct->again ? 0 : cfg->breakdown ? repeated_parts(cfg) - repeated0 : took;
            } else {
                vt->later_s += took;
            }
            vt->visits = round + 1;
            vt->again = ct->again;
            if (gb_run_model_oom) status = gb_errf(e, GB_FAIL, "out of memory for the results");
            if (status != GB_OK) break;
            gb_case_result *cr = case_at(cfg, ct->ci);
            gb_run_add_speedups(cr, cfg->backends);
            gb_run_energy_ratios(cr);
            /* a case the interruption kept the run from has no line: one
             * "skipped" line per case not reached flooded the screen */
            if (cfg->report.case_done && !gb_case_not_reached(cr))
                cfg->report.case_done(cfg->report.ctx, cfg->results, cr, round);
            if (!ct->again) {
                gb_run_drop_inputs(&cache, ct);
                gb_run_release_case_states(cfg, ct, s->items[i].c.op_id);
                free_tracks(ct);
            }
            status = checkpoint(cfg, i + 1 == s->count && round + 1 < s->rounds, e);
        }
        if (gb_interrupted) break;
    }
    for (size_t i = 0; i < s->count; i++) {
        if (tracks[i].nshared > 0) { /* the twin's last rounds, where this case had none */
            gb_run_refresh_shared(cfg, s, tracks, &tracks[i]);
            gb_run_add_speedups(case_at(cfg, tracks[i].ci), cfg->backends);
        }
        gb_run_drop_inputs(&cache, &tracks[i]);
        gb_run_release_case_states(cfg, &tracks[i], s->items[i].c.op_id);
        free_tracks(&tracks[i]);
    }
    if (gb_run_model_oom && status == GB_OK) status = gb_errf(e, GB_FAIL, "out of memory for the results");
    gb_run_kept = (kept_states){0};
    gb_run_energy_end_run();
    free(tracks);
    free(visit_times);
    visit_times = NULL;
    gb_rate_book_free(rates);
    gb_model_unlock();
    return status;
}

