/* run_require_gpu.c — see run_require_gpu.h. */
#include "run_require_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_accelerator(const gb_backend_slot *s) {
    /* a plugin that could not be loaded has no gb_backend: it is the GPU's */
    return s->b ? s->b->role == GB_ROLE_ACCELERATOR : 1;
}

int gb_run_gpu_measured(const gb_backend_set *set, const gb_results *results, char *why, size_t len) {
    for (size_t i = 0; i < results->ncases; i++)
        for (size_t j = 0; j < results->cases[i].nresults; j++) {
            const gb_result *r = &results->cases[i].results[j];
            const gb_backend_desc *d = gb_results_backend(results, results->cases[i].run, r->backend);
            if (d->role == GB_ROLE_ACCELERATOR && r->status == GB_RS_OK) return 1;
        }
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    for (int i = 0; i < set->count; i++) {
        const gb_backend_slot *s = &set->slot[i];
        if (!is_accelerator(s) || (s->available && !s->disabled)) continue;
        /* an empty or foreign CUDA_VISIBLE_DEVICES hides every device: say
         * so, since the driver's own words ("no CUDA-capable device") read
         * like a node without GPUs */
        if (cvd && strstr(s->reason, "no CUDA"))
            snprintf(why, len, "no device visible (CUDA_VISIBLE_DEVICES=\"%.64s\"): %s: %s", cvd, s->name, s->reason);
        else snprintf(why, len, "%s %s: %s", s->name, s->disabled ? "disabled during the run" : "unavailable", s->reason);
        return 0;
    }
    int any = 0;
    for (int i = 0; i < set->count; i++) any |= is_accelerator(&set->slot[i]) && set->slot[i].selected;
    snprintf(why, len, "%s", any ? "every GPU case was skipped or failed: no device time was measured"
                                 : "no GPU backend was selected (--backend without cuda?)");
    return 0;
}

void gb_run_record_gpu_required(cJSON *context, cJSON *warnings, int measured, const char *why) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return;
    cJSON_AddBoolToObject(o, "measured", measured);
    if (measured) cJSON_AddNullToObject(o, "reason");
    else cJSON_AddStringToObject(o, "reason", why);
    cJSON_DeleteItemFromObjectCaseSensitive(context, "gpu_required");
    cJSON_AddItemToObject(context, "gpu_required", o);
    if (!measured) {
        char line[1200];
        snprintf(line, sizeof line, "the GPU side was required (--require-gpu) and no device was measured: %s", why);
        cJSON_AddItemToArray(warnings, cJSON_CreateString(line));
    }
}
