/* op_transfer.c — moving bytes between host and device: what a copy to or
 * from the GPU costs, against a local copy of the same bytes on the host.
 *
 * A size is a byte count (4 KiB … 1 GiB in the suites; "64KiB" or 65536).
 * The dtype only types the array: the bytes are the same for both.
 * Params: direction h2d | d2h | both (both: one copy each way at once,
 * bytes counted twice, since twice as many cross the bus) and memory
 * pageable | pinned | mapped (the host side of the copy; mapped: page-locked
 * memory a kernel reads or writes directly, no cudaMemcpy).
 *
 * The CPU side is a local memcpy of the same bytes (both: two of them), so
 * the speedup column reads as "how much slower than a local copy" (the
 * op's note says so under its table).
 *
 * Verification: the bytes arrived intact. Each output (y; y_back for both)
 * must equal x byte for byte; the metric counts differing bytes and names
 * the first, with tolerance 0. Outputs are poisoned (all-ones bytes) before
 * the first repetition, so a chunk a copy skips fails. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"
#include "rng.h"

enum { STREAM_X = 1 };
#define MAX_BYTES ((int64_t)1 << 40)

static const char *const direction_values[] = {"h2d", "d2h", "both", NULL};
static const char *const memory_values[] = {"pageable", "pinned", "mapped", NULL};
static const gb_param_spec params[] = {
    {"direction", GB_PARAM_ENUM, offsetof(gb_params, direction), 0, 0, direction_values,
     "\"h2d\" (host to device), \"d2h\" (device to host) or \"both\" (one copy each way at once)"},
    {"memory", GB_PARAM_ENUM, offsetof(gb_params, memory), 0, 0, memory_values,
     "host side of the copy: \"pageable\" (malloc), \"pinned\" (cudaMallocHost) or \"mapped\" "
     "(page-locked memory a kernel reads/writes directly: zero-copy)"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

int gb_parse_bytes(const cJSON *size, int64_t *bytes, gb_err *e) {
    if (cJSON_IsNumber(size)) {
        double d = size->valuedouble;
        if (d != floor(d) || d < 1 || d > (double)MAX_BYTES)
            return gb_errf(e, GB_FAIL, "expected a byte count from 1 to 2^40, got %g", d);
        *bytes = (int64_t)d;
        return GB_OK;
    }
    if (!cJSON_IsString(size))
        return gb_errf(e, GB_FAIL, "expected a byte count (an integer, or a string such as \"64KiB\")");
    const char *s = size->valuestring;
    const char *end = NULL;
    double v = 0;
    int num = gb_scan_decimal(s, &v, &end) == 0; /* decimal only: "0x10MiB", " 1MiB", "-1KiB" refused */
    static const struct { const char *unit; double scale; } units[] = {
        {"", 1}, {"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
    for (size_t i = 0; num && i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].unit) != 0) continue;
        double b = v * units[i].scale;
        if (b != floor(b) || b < 1 || b > (double)MAX_BYTES)
            return gb_errf(e, GB_FAIL, "\"%.40s\" is not a whole number of bytes from 1 to 2^40", s);
        *bytes = (int64_t)b;
        return GB_OK;
    }
    return gb_errf(e, GB_FAIL, "\"%.40s\" is not a byte count: write an integer or <n>KiB, <n>MiB, <n>GiB", s);
}

/* "4KiB", "1GiB", "1536B": the largest binary unit that divides it. */
static void bytes_label(int64_t b, char *out, size_t cap) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && b % 1024 == 0) {
        b /= 1024;
        u++;
    }
    snprintf(out, cap, "%lld%s", (long long)b, unit[u]);
}

static int parse_size(const cJSON *size, gb_case *c, gb_err *e) {
    int64_t b = 0;
    int s = gb_parse_bytes(size, &b, e);
    if (s != GB_OK) return s;
    /* A whole number of float64 (and so float32) elements. */
    if (b % 8 != 0) return gb_errf(e, GB_FAIL, "transfer sizes are bytes and must be a multiple of 8, got %lld",
                                   (long long)b);
    c->shape[0] = b;
    c->rank = 1;
    bytes_label(b, c->label, sizeof c->label);
    return GB_OK;
}

static int legs(const gb_case *c) { return c->params.direction == GB_DIR_BOTH ? 2 : 1; }

static void count(gb_case *c) {
    c->flops = 0;
    c->bytes = (double)c->shape[0] * legs(c); /* bytes that crossed the bus (or were copied) */
}

static double host_bytes(const gb_case *c) {
    /* x; per leg: the CPU's copy and its fetched output, the GPU's host
     * source and target and its fetched output. */
    return (double)c->shape[0] * (1.0 + 5.0 * legs(c));
}

static int make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    gb_elem el = gb_real_elem(c->dtype);
    size_t n = (size_t)c->shape[0] / gb_elem_size(el);
    gb_array *x = gb_arrays_add(in, "x", el, n, e);
    if (!x) return GB_SKIP;
    /* Random non-zero values: every byte pattern a copy might drop differs
     * from the poison, and no two chunks are alike. */
    if (c->dtype == GB_FLOAT32) gb_rng_fill_f32(x->data, n, c->seed, STREAM_X, 1.0, 2.0);
    else gb_rng_fill_f64(x->data, n, c->seed, STREAM_X, 1.0, 2.0);
    return GB_OK;
}

/* Bytes of out that differ from x, and the first of them. Threaded: at
 * 1 GiB a serial pass is a second per result. */
static size_t differing_bytes(const unsigned char *x, const unsigned char *out, size_t n, size_t *first) {
    size_t diff = 0, where = n;
#pragma omp parallel for schedule(static) reduction(+ : diff) reduction(min : where)
    for (size_t i = 0; i < n; i++)
        if (x[i] != out[i]) {
            diff++;
            if (i < where) where = i;
        }
    *first = where;
    return diff;
}

static void verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out, const gb_arrays *ref,
                   gb_verdict *v) {
    (void)ref; /* the input itself is the exact answer */
    memset(v, 0, sizeof *v);
    snprintf(v->against, sizeof v->against, "reference");
    snprintf(v->metric, sizeof v->metric, "differing_bytes");
    v->tolerance = 0;
    const gb_array *x = gb_arrays_find(in, "x");
    size_t bytes = (size_t)c->shape[0];
    static const char *const names[] = {"y", "y_back"};
    if (!x || x->count * gb_elem_size(x->elem) != bytes) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "input x (%zu bytes) missing or mis-sized", bytes);
        return;
    }
    size_t total = 0, checked = 0;
    char detail[sizeof v->detail] = "";
    for (int l = 0; l < legs(c); l++) {
        const gb_array *y = gb_arrays_find(out, names[l]);
        if (!y || y->count * gb_elem_size(y->elem) != bytes) {
            v->status = GB_VERIFY_FAILED;
            v->error = INFINITY;
            snprintf(v->detail, sizeof v->detail, "output %s (%zu bytes) missing or mis-sized", names[l], bytes);
            return;
        }
        size_t first = 0, d = differing_bytes(x->data, y->data, bytes, &first);
        if (d && !total)
            snprintf(detail, sizeof detail, "%zu of %zu bytes of %s differ from x, the first at byte %zu", d,
                     bytes, names[l], first);
        total += d;
        checked += bytes;
    }
    v->error = (double)total;
    v->status = total == 0 ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    if (total) snprintf(v->detail, sizeof v->detail, "%s", detail);
    else snprintf(v->detail, sizeof v->detail, "%zu bytes compared with x, all equal", checked);
}

const gb_op gb_op_transfer = {
    .id = GB_OP_TRANSFER,
    .name = "transfer",
    .summary = "host↔device copy of n bytes (size: bytes or \"64KiB\"): h2d, d2h or both, pageable, pinned or "
               "mapped host memory; the CPU copies the same bytes locally; bytes moved",
    .rate_kind = "bytes",
    .size_in_bytes = 1,
    .note = "transfer: the CPU column is a local memcpy of the same bytes (direction both: two), so the speedup "
            "reads as how much slower than a local copy the host↔device copy is (0.1× = ten times slower). "
            "GB/s count the bytes delivered (both: each way); GPU % peak is against the pinned-memory "
            "ceiling of that direction from `gpubench peak`, whatever the memory param; CPU % peak against "
            "STREAM's copy in bytes delivered.",
    .params = params,
    .parse_size = parse_size,
    .count = count,
    .host_bytes = host_bytes,
    .make_inputs = make_inputs,
    .verify = verify,
};
