/* run_kept.c — what a run keeps between rounds: backend states and inputs,
 * within a share of the host memory; and making a slot's device current
 * and preparing a case on it (which may have to let kept states go). */
#include "run_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- host memory ---------------------------------------------------------- */

/* The process's resident bytes (what a prepare adds to it is what its state
 * holds on the host: buffers it touched, pinned mirrors). */
static double resident_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    double size, resident = 0;
    if (f && fscanf(f, "%lf %lf", &size, &resident) != 2) resident = 0;
    if (f) fclose(f);
    return resident * (double)sysconf(_SC_PAGESIZE);
}

double gb_run_host_available_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    if (f) fclose(f);
    if (kb > 0) return kb * 1024;
    return (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

/* ---- backend states kept between rounds ------------------------------------
 * A later round used to prepare every result again (allocate, upload, plan)
 * and release it after: on the H100 host a third of a default run's set-up
 * time (31 s of 93 s), work the first visit had already done. So a slot's
 * prepared state stays alive until the case's next visit, while the states
 * kept fit in a quarter of the host memory free when the run started (each
 * counted at what its prepare added to the process's resident set: an op's
 * host_bytes counts every backend's arrays and the references, about three
 * times what one state holds). Device memory is not estimated: see the
 * retry below. A multi-GPU op keeps none (its
 * library routine allocates on every device per call) and releases all
 * before it runs. When a supports or prepare fails while states are kept
 * (a device that filled up), every kept state is released and it is tried
 * once more, so keeping never costs a result. A state is kept only while
 * its case's inputs are (a backend's state may point into them). Every
 * repetition restores
 * what it overwrites (backend.h), so a kept state runs as a fresh one would;
 * what differs is that each round reuses the same buffers (their placement
 * becomes part of the between-process noise compare measures) and that the
 * caches hold other cases' data, which GB_VISIT_KEPT's warm-up refills. */
kept_states gb_run_kept;

void gb_run_release_state(gb_run_config *cfg, case_tracks *ct, int k, gb_op_id op) {
    if (!ct->state[k]) return;
    gb_backend_slot *slot = &cfg->backends->slot[k];
    gb_err e = {{0}};
    double t0 = gb_now();
    (void)gb_backends_use(slot, &e); /* on the device that holds it */
    OUTSIDE_MODEL(slot->b->release(ct->state[k]));
    gb_run_spent(cfg, op, GB_T_SETUP, t0);
    ct->state[k] = NULL;
    gb_run_kept.used -= ct->state_bytes[k];
    gb_run_kept.count--;
    ct->state_bytes[k] = 0;
}

void gb_run_release_case_states(gb_run_config *cfg, case_tracks *ct, gb_op_id op) {
    for (int k = 0; k < GB_MAX_BACKENDS; k++) gb_run_release_state(cfg, ct, k, op);
}

/* Release every kept state; 1 when there was any. */
static int release_all_kept(gb_run_config *cfg) {
    if (!gb_run_kept.tracks || gb_run_kept.count == 0) return 0;
    for (size_t i = 0; i < gb_run_kept.suite->count; i++) gb_run_release_case_states(cfg, &gb_run_kept.tracks[i], gb_run_kept.suite->items[i].c.op_id);
    gb_run_kept.used = 0; /* exact again, whatever rounding the sums left */
    return 1;
}

/* Take slot k's kept state out of the cache (NULL: none). */
void *gb_run_take_state(case_tracks *ct, int k) {
    void *state = ct->state[k];
    if (state) {
        gb_run_kept.used -= ct->state_bytes[k];
        gb_run_kept.count--;
    }
    ct->state[k] = NULL;
    ct->state_bytes[k] = 0;
    return state;
}

/* Keep state (holding bytes of host memory) for the case's next visit when
 * `wanted` and it fits, else release it. */
void gb_run_keep_or_release(gb_run_config *cfg, case_tracks *ct, int k, const gb_case *c, void *state,
                            double bytes, int wanted) {
    if (wanted && !c->op->multi_device && gb_run_kept.tracks && gb_run_kept.used + bytes <= gb_run_kept.cap) {
        ct->state[k] = state;
        ct->state_bytes[k] = bytes;
        gb_run_kept.used += bytes;
        gb_run_kept.count++;
        if (cfg->breakdown && gb_run_kept.used > cfg->breakdown->kept_peak_bytes) cfg->breakdown->kept_peak_bytes = gb_run_kept.used;
        return;
    }
    double t0 = gb_now();
    OUTSIDE_MODEL(cfg->backends->slot[k].b->release(state));
    gb_run_spent(cfg, c->op_id, GB_T_SETUP, t0);
}

/* Make slot's device current and, when `check`, ask the backend whether it
 * supports the case (a device's free memory included); when that fails
 * while states are kept, once more after releasing them. */
int gb_run_use_slot(gb_run_config *cfg, gb_backend_slot *slot, const gb_case *c, int check, gb_err *e) {
    if (c->op->multi_device) release_all_kept(cfg);
    for (int attempt = 0;; attempt++) {
        int status = gb_backends_use(slot, e);
        /* outside the model: supports may measure (the CPU's GEMM library
         * choice), and a call that does not return (OpenBLAS retrying its
         * buffers under `ulimit -v`) must leave the watchdog the model to
         * write (run_signals.h) */
        if (status == GB_OK && check) OUTSIDE_MODEL(status = slot->b->supports(c, e));
        if (status == GB_OK || status == GB_FATAL || attempt > 0 || !release_all_kept(cfg)) return status;
        memset(e, 0, sizeof *e);
    }
}

/* prepare on the current device, likewise once more after releasing the
 * kept states; *setup: the wall time of the prepare that counted, *bytes
 * the host memory its state holds. */
int gb_run_prepare_case(gb_run_config *cfg, gb_backend_slot *slot, const gb_case *c, const gb_arrays *in,
                        void **state, double *setup, double *bytes, gb_err *e) {
    for (int attempt = 0;; attempt++) {
        double t0 = gb_now(), rss0 = resident_bytes();
        int status;
        OUTSIDE_MODEL(status = slot->b->prepare(c, in, state, e));
        *setup = gb_now() - t0;
        *bytes = fmax(0, resident_bytes() - rss0);
        gb_run_account(cfg, c->op_id, GB_T_SETUP, *setup);
        if (status == GB_OK || status == GB_FATAL || attempt > 0 || !release_all_kept(cfg)) return status;
        memset(e, 0, sizeof *e);
        status = gb_backends_use(slot, e); /* releasing may have switched devices */
        if (status != GB_OK) return status;
    }
}

/* ---- inputs kept between rounds --------------------------------------------
 * Inputs are made before the clock, from the case's seed, and no backend
 * writes to them (prepare copies what it needs), so a later round can reuse
 * round 0's instead of making them again. They are kept while all kept
 * inputs fit in a quarter of the host memory that was free when the run
 * started; a case beyond that makes its inputs again, as before. */
static size_t arrays_bytes(const gb_arrays *a) {
    size_t total = 0;
    for (int i = 0; i < a->count; i++) total += a->item[i].count * gb_elem_size(a->item[i].elem);
    return total;
}

void gb_run_keep_or_free_inputs(input_cache *cache, case_tracks *ct, gb_arrays *in) {
    double bytes = (double)arrays_bytes(in);
    if (ct->again && cache->used + bytes <= cache->cap) {
        ct->inputs = *in;
        ct->have_inputs = 1;
        cache->used += bytes;
    } else {
        gb_arrays_free(in);
    }
    memset(in, 0, sizeof *in);
}

void gb_run_drop_inputs(input_cache *cache, case_tracks *ct) {
    if (!ct->have_inputs) return;
    cache->used -= (double)arrays_bytes(&ct->inputs);
    gb_arrays_free(&ct->inputs);
    ct->have_inputs = 0;
}

