/* testlib_ops.c — what the op tests share: a case of an op, the CPU backend
 * brought up once, a run on it, a run verified by the op, and element access
 * that does not care about the dtype. */
#include <stdio.h>
#include <string.h>

#include "testlib_ops.h"
#include "testlib.h"
#include "cpu_backend.h"

gb_case gb_test_op_case(gb_op_id id, gb_dtype d, int64_t m, int64_t n) {
    gb_case c;
    memset(&c, 0, sizeof c);
    c.op_id = id;
    c.op = gb_ops[id];
    c.dtype = d;
    c.shape[0] = m;
    c.shape[1] = n;
    c.rank = 2;
    c.seed = 42;
    gb_params_default(&c.params);
    c.params.fft_planner = GB_PLAN_ESTIMATE; /* fast planning in tests */
    return c;
}

void gb_test_cpu_up(void) {
    static int up;
    if (up) return;
    gb_backend_options o = {.threads = 0};
    gb_err e;
    gb_cpu_backend()->init(&o, &e);
    up = 1;
}

/* Prepare, run `reps` repetitions, fetch into out. Returns the status. */
int gb_test_run_cpu(const gb_case *c, const gb_arrays *in, gb_arrays *out, int reps, gb_err *e) {
    gb_test_cpu_up();
    const gb_backend *b = gb_cpu_backend();
    int s = b->supports(c, e);
    if (s != GB_OK) return s;
    void *st = NULL;
    s = b->prepare(c, in, &st, e);
    if (s != GB_OK) return s;
    for (int r = 0; r < reps && s == GB_OK; r++) {
        double sec = -1;
        s = b->run(st, 0, &sec, e);
        if (s == GB_OK && !(sec >= 0)) s = gb_errf(e, GB_FAIL, "run reported no time");
    }
    if (s == GB_OK) s = b->fetch(st, out, e);
    cJSON *extra = cJSON_CreateObject();
    b->annotate(st, extra);
    CHECK(cJSON_GetObjectItem(extra, "threads") != NULL); /* every CPU result says its threads */
    cJSON_Delete(extra);
    b->release(st);
    return s;
}

/* Make inputs, run on the CPU, verify; returns the verdict status. */
gb_verify_status gb_test_run_and_verify(gb_case *c, gb_arrays *in, gb_arrays *out, gb_verdict *v) {
    gb_err e = {{0}};
    c->op->count(c);
    if (!CHECK(c->op->make_inputs(c, in, &e) == GB_OK)) return GB_VERIFY_FAILED;
    int s = gb_test_run_cpu(c, in, out, 2, &e);
    if (!CHECK(s == GB_OK)) {
        fprintf(stderr, "  %s %s %s: %s\n", c->op->name, gb_dtype_name(c->dtype), c->label, e.msg);
        return GB_VERIFY_FAILED;
    }
    c->op->verify(c, in, out, NULL, v);
    if (v->status != GB_VERIFY_PASSED)
        fprintf(stderr, "  %s %s %lldx%lld: %s %g > %g (%s)\n", c->op->name, gb_dtype_name(c->dtype),
                (long long)c->shape[0], (long long)c->shape[1], v->metric, v->error, v->tolerance, v->detail);
    return v->status;
}

void gb_test_set_real(gb_array *a, size_t i, double x) {
    if (a->elem == GB_E_F32 || a->elem == GB_E_C64) ((float *)a->data)[a->elem == GB_E_C64 ? 2 * i : i] = (float)x;
    else ((double *)a->data)[a->elem == GB_E_C128 ? 2 * i : i] = x;
}
double gb_test_get_real(const gb_array *a, size_t i) {
    if (a->elem == GB_E_F32 || a->elem == GB_E_C64) return ((float *)a->data)[a->elem == GB_E_C64 ? 2 * i : i];
    return ((double *)a->data)[a->elem == GB_E_C128 ? 2 * i : i];
}

/* A deep copy of a set of arrays (to corrupt one without touching the other). */
void gb_test_copy_arrays(const gb_arrays *src, gb_arrays *dst) {
    memset(dst, 0, sizeof *dst);
    for (int i = 0; i < src->count; i++) {
        const gb_array *a = &src->item[i];
        gb_array *b = gb_arrays_add(dst, a->name, a->elem, a->count, NULL);
        memcpy(b->data, a->data, a->count * gb_elem_size(a->elem));
    }
}
