/* cpu_transfer.c — the CPU side of transfer: a local copy of the same bytes
 * (direction both: two copies, one per leg, at once), so that the GPU's
 * host↔device copy is compared with what moving the data costs without a
 * bus. The memory param does not apply: host memory is host memory.
 *
 * The copy is glibc's memcpy (non-temporal stores past the cache sizes),
 * split over threads where that is faster: one thread cannot saturate a
 * server's memory channels, but a parallel region's fork and join cost more
 * than a small copy. So the team is measured (cpu_team.c): a 4 KiB copy is
 * one plain memcpy, a 1 GiB copy uses every thread. */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "timer.h"

typedef struct {
    size_t bytes;
    int legs, threads;
    const unsigned char *src;
    gb_arrays out; /* y (and y_back), owned here */
} tr_state;

static int tr_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    size_t bytes = (size_t)c->shape[0];
    const gb_array *x = gb_arrays_find(in, "x");
    if (!x || x->count * gb_elem_size(x->elem) != bytes)
        return gb_errf(e, GB_FAIL, "transfer: input x of %zu bytes missing or mis-sized", bytes);
    tr_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "transfer: out of host memory");
    s->bytes = bytes;
    s->legs = c->params.direction == GB_DIR_BOTH ? 2 : 1;
    s->src = x->data;
    static const char *const names[] = {"y", "y_back"};
    for (int l = 0; l < s->legs; l++) {
        gb_array *y = gb_arrays_add(&s->out, names[l], x->elem, x->count, e);
        if (!y) {
            gb_arrays_free(&s->out);
            free(s);
            return GB_SKIP;
        }
        /* Poisoned, and its pages touched now rather than in the first rep. */
        gb_array_poison(y);
    }
    s->threads = gb_cpu_threads(); /* until cpu_team.c chooses */
    *state = s;
    return GB_OK;
}

static int tr_run(void *state, int timing, double *seconds, gb_err *e) {
    tr_state *s = state;
    unsigned char *dst[2] = {s->out.item[0].data, s->legs > 1 ? s->out.item[1].data : NULL};
    double t0 = gb_now();
    if (s->threads == 1) {
        for (int l = 0; l < s->legs; l++) memcpy(dst[l], s->src, s->bytes);
    } else {
        /* The legs' bytes as one range, cut into one piece per thread. */
        size_t total = s->bytes * (size_t)s->legs;
        int nt = s->threads;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int t = 0; t < nt; t++) {
            size_t lo = total / (size_t)nt * (size_t)t, hi = t + 1 == nt ? total : total / (size_t)nt * (size_t)(t + 1);
            while (lo < hi) {
                size_t leg = lo / s->bytes, off = lo % s->bytes;
                size_t len = s->bytes - off < hi - lo ? s->bytes - off : hi - lo;
                memcpy(dst[leg] + off, s->src + off, len);
                lo += len;
            }
        }
    }
    *seconds = gb_now() - t0;
    return GB_OK;
}

static int tr_fetch(void *state, gb_arrays *out, gb_err *e) {
    tr_state *s = state;
    for (int l = 0; l < s->legs; l++) {
        const gb_array *y = &s->out.item[l];
        if (!gb_arrays_add_copy(out, y->name, y->elem, y->count, y->data, e)) return GB_FAIL;
    }
    return GB_OK;
}

static void tr_annotate(void *state, cJSON *extra) {
    tr_state *s = state;
    cJSON_AddStringToObject(extra, "routine", s->legs > 1 ? "memcpy ×2 (one per leg)" : "memcpy");
    cJSON_AddNumberToObject(extra, "threads", s->threads);
}

static void tr_set_threads(void *state, int threads) { ((tr_state *)state)->threads = threads; }

static void tr_release(void *state) {
    tr_state *s = state;
    if (!s) return;
    gb_arrays_free(&s->out);
    free(s);
}

const gb_op_impl gb_cpu_transfer = {
    .prepare = tr_prepare,
    .run = tr_run,
    .fetch = tr_fetch,
    .annotate = tr_annotate,
    .release = tr_release,
    .set_threads = tr_set_threads,
};
