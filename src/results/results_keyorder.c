/* results_keyorder.c — the order of the keys of each loaded object, and the
 * keys the schema knows. A template keeps the keys in the file's order, known
 * ones as null placeholders and unknown ones with their values; the writer
 * fills the placeholders, so a file loaded and written gives the same bytes
 * and keys from a newer gpubench survive. */
#include <stdlib.h>
#include <string.h>

#include "results_model_internal.h"

/* ---- key order --------------------------------------------------------------- */

static int is_known(const char *key, const char *const *known) {
    for (int i = 0; known[i]; i++)
        if (!strcmp(known[i], key)) return 1;
    return 0;
}

/* The template of obj: its keys in order, known ones as null placeholders,
 * unknown ones with a copy of their values. */
int gb_rm_order_from(gb_rm_chk *k, const cJSON *obj, const char *const *known, gb_keyorder **out) {
    *out = NULL;
    gb_keyorder *o = calloc(1, sizeof *o);
    if (!o || !(o->tmpl = cJSON_CreateObject())) {
        free(o);
        return gb_rm_oom(k);
    }
    for (const cJSON *c = obj->child; c; c = c->next) {
        cJSON *v = is_known(c->string, known) ? cJSON_CreateNull() : cJSON_Duplicate(c, 1);
        if (!v) {
            cJSON_Delete(o->tmpl);
            free(o);
            return gb_rm_oom(k);
        }
        cJSON_AddItemToObject(o->tmpl, c->string, v);
    }
    *out = o;
    return 0;
}

void gb_rm_order_free(gb_keyorder **o) {
    if (!*o) return;
    cJSON_Delete((*o)->tmpl);
    free(*o);
    *o = NULL;
}

int gb_rm_order_copy(gb_keyorder **dst, const gb_keyorder *src) {
    *dst = NULL;
    if (!src) return 0;
    gb_keyorder *o = calloc(1, sizeof *o);
    if (!o || !(o->tmpl = cJSON_Duplicate(src->tmpl, 1))) {
        free(o);
        return -1;
    }
    *dst = o;
    return 0;
}

/* Known keys of each object, as the schema orders them. */
const char *const gb_rm_keys_top[] = {"schema", "schema_version", "gpubench_version", "complete", "interrupted",
                                    "suite", "context", "peaks", "warnings", "health", "runs", "cases",
                                    "summary", "interrupted_by", "crossover", "time_breakdown", NULL};
const char *const gb_rm_keys_run[] = {"name", "source", "context", "peaks", "warnings", "suite", "health",
                                    "complete", "interrupted", "summary", "gpubench_version", NULL};
const char *const gb_rm_keys_summary[] = {"cases", "results", "ok", "skipped", "failed", "errors", "not_reached", NULL};
const char *const gb_rm_keys_case[] = {"op", "dtype", "shape", "label", "params", "flops", "bytes",
                                     "rate_kind", "results", "speedup", "run", NULL};
const char *const gb_rm_keys_result[] = {"backend", "timing", "status", "reason", "setup_s", "verify_s", "warmup_reps",
                                       "round_sizes", "samples_s", "stats", "gflops", "gbs", "pct_of_peak",
                                       "peak", "verification", "extra", "device", "concurrent", "energy",
                                       "clocks", NULL};
const char *const gb_rm_keys_device[] = {"index", "name", "uuid", "pci_bus_id", NULL};
const char *const gb_rm_keys_concurrent[] = {"devices", "aggregate_gflops", "aggregate_gbs", NULL};
const char *const gb_rm_keys_energy[] = {"status", "reason", "j_per_op", "above_idle_j_per_op", "power_w",
                                       "above_idle_w", "idle_w", "bound", "gflop_per_j", "gb_per_j",
                                       "energy_ratio", "seconds", "power_limit_w", "spread", "counter", "boundary",
                                       "phase", NULL};
const char *const gb_rm_keys_clocks[] = {"sm_mhz", "mem_mhz", "samples", "reasons", "power_limited",
                                       "thermal_limited", NULL};
const char *const gb_rm_keys_stats[] = {"n", "min", "max", "median", "mean", "stddev", "cv", "ci95_low",
                                      "ci95_high", NULL};
const char *const gb_rm_keys_verif[] = {"status", "against", "metric", "error", "tolerance", "detail", NULL};
const char *const gb_rm_keys_cross[] = {"op", "dtype", "params", "timing", "run", "size", "between", "status",
                                      "size_measure", "tested_min", "tested_max", "points", "sign_changes",
                                      "changes", "device", NULL};
const char *const gb_rm_keys_step[] = {"size", "lo", "hi", "to", NULL};
