/* report_precision.c — the report's mixed-precision summary
 * (gb_report_precision_section, report_internal.h): per op, each reduced
 * precision's rate on each side as a multiple of float32's at the largest
 * size both have, with its error against the float64 reference beside it —
 * "matmul at 4096x4096x4096: bfloat16 on the GPU is 14.2x float32's rate
 * (relative error 2.5e-03 against float64); on the CPU 3.1x (...)".
 * A case's dtype is the same on both sides, so the speedup tables never put
 * one precision against another; this is where the precisions are compared,
 * each side with itself. The labelled math=tf32 rows, which do compare the
 * GPU's TF32 tensor cores with the CPU's full float32, get a sentence too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"

static int is_reduced(const char *dt) {
    return !strcmp(dt, "bfloat16") || !strcmp(dt, "float16") || !strcmp(dt, "float8_e4m3") || !strcmp(dt, "int8");
}

static int math_is_tf32(const gb_case_result *c) {
    const gb_value *m = gb_kv_find(&c->params, "math");
    return m && m->kind == GB_VAL_STRING && !strcmp(m->text, "tf32");
}

static double work_of(const gb_case_result *c) {
    double w = 1;
    for (size_t i = 0; i < c->rank; i++) w *= c->shape[i];
    return w;
}

/* The side's ok, verified result: cpu host (gpu 0) or the accelerator's device timing (gpu 1). */
static const gb_result *side_result(const gb_case_result *c, int gpu) {
    for (size_t i = 0; i < c->nresults; i++) {
        const gb_result *r = &c->results[i];
        if (r->status != GB_RS_OK || isnan(r->gflops) || r->concurrent.present) continue;
        if (r->verification.present && r->verification.status == GB_VS_FAILED) continue;
        if (gpu ? !strcmp(r->timing, "device") : !strcmp(r->backend, "cpu")) return r;
    }
    return NULL;
}

/* float32's case of the same op, run, shape and params but math (default). */
static const gb_case_result *float32_twin(const gb_results *rs, const gb_case_result *c) {
    for (size_t i = 0; i < rs->ncases; i++) {
        const gb_case_result *t = &rs->cases[i];
        if (t->run != c->run || strcmp(t->op, c->op) || strcmp(t->dtype, "float32") || math_is_tf32(t) ||
            t->rank != c->rank)
            continue;
        int same = 1;
        for (size_t k = 0; k < c->rank && same; k++) same = t->shape[k] == c->shape[k];
        if (same) return t;
    }
    return NULL;
}

static void error_text(const gb_result *r, char *buf, size_t len) {
    const gb_verification *v = &r->verification;
    if (v->present && (v->has & GB_V_HAS_ERROR) && v->error == 0 && v->against && !strcmp(v->against, "reference"))
        snprintf(buf, len, "exact against float64");
    else if (v->present && (v->has & GB_V_HAS_ERROR) && !isnan(v->error) && v->against &&
             !strcmp(v->against, "reference"))
        snprintf(buf, len, "relative error %.1e against float64", v->error);
    else
        snprintf(buf, len, "error not measured against float64");
}

/* One sentence for op/dtype: the largest case with float32 on a side. */
static int sentence(const gb_results *rs, const char *op, const char *dt, char *buf, size_t len) {
    const gb_case_result *best[2] = {NULL, NULL}, *twin[2] = {NULL, NULL};
    for (size_t i = 0; i < rs->ncases; i++) {
        const gb_case_result *c = &rs->cases[i];
        if (strcmp(c->op, op) || strcmp(c->dtype, dt)) continue;
        const gb_case_result *t = float32_twin(rs, c);
        for (int g = 0; g < 2 && t; g++)
            if (side_result(c, g) && side_result(t, g) && (!best[g] || work_of(c) > work_of(best[g])))
                best[g] = c, twin[g] = t;
    }
    size_t used = 0;
    for (int g = 1; g >= 0; g--) {
        if (!best[g]) continue;
        const gb_result *r = side_result(best[g], g), *f = side_result(twin[g], g);
        char err[96];
        error_text(r, err, sizeof err);
        char times[32];
        double x = r->gflops / f->gflops;
        snprintf(times, sizeof times, x >= 100 ? "%.0fx" : "%.3gx", x);
        int n = used == 0 ? snprintf(buf, len, "%s at %s: %s on the %s is %s float32's rate (%s)", op,
                                     best[g]->label ? best[g]->label : "?", dt, g ? "GPU" : "CPU", times, err)
                          : snprintf(buf + used, len - used, "; on the %s%s%s %s (%s)", g ? "GPU" : "CPU",
                                     best[g] == best[!g] ? "" : " at ",
                                     best[g] == best[!g] ? "" : (best[g]->label ? best[g]->label : "?"), times, err);
        if (n < 0 || (size_t)n >= len - used) return 0;
        used += (size_t)n;
    }
    if (used && used + 2 < len) buf[used++] = '.', buf[used] = '\0';
    return used > 0;
}

void gb_report_precision_section(const gb_writer *wr, FILE *out, const gb_results *rs, const char *ops) {
    static const char *const dtypes[] = {"bfloat16", "float16", "float8_e4m3", "int8"};
    int headed = 0, tf32 = 0;
    for (size_t i = 0; i < rs->ncases; i++) {
        const gb_case_result *c = &rs->cases[i];
        if (!gb_rdoc_selected(ops, c->op)) continue;
        tf32 |= math_is_tf32(c);
        if (!is_reduced(c->dtype)) continue;
        int first = 1; /* once per op and dtype: the first case of them */
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(rs->cases[j].op, c->op) || strcmp(rs->cases[j].dtype, c->dtype);
        if (!first) continue;
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
            char line[512];
            if (strcmp(c->dtype, dtypes[d]) || !sentence(rs, c->op, c->dtype, line, sizeof line)) continue;
            if (!headed++) wr->heading(out, 2, "Precision: each side against its own float32", 0);
            wr->para(out, line, 0);
        }
    }
    if (headed && tf32)
        wr->para(out, "The math=tf32 rows put the GPU's TF32 tensor cores (10-bit mantissa products) against "
                      "the CPU's full float32: the one place a speedup compares two precisions.", 0);
    if (headed) wr->gap(out);
}
