/* run_peaks.c — see run_peaks.h. */
#include "run_peaks.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "peaks_kept.h"

static void say_age(char *buf, size_t len, double s) {
    if (s < 120) snprintf(buf, len, "%.0f s ago", s);
    else if (s < 7200) snprintf(buf, len, "%.0f min ago", s / 60);
    else if (s < 2 * 86400) snprintf(buf, len, "%.0f h ago", s / 3600);
    else snprintf(buf, len, "%.0f days ago", s / 86400);
}

void gb_run_peaks_measure(gb_backend_set *set, cJSON *doc, const gb_backend_options *bopt, gb_run_peaks *rp) {
    cJSON *peaks = cJSON_GetObjectItemCaseSensitive(doc, "peaks");
    const cJSON *context = cJSON_GetObjectItemCaseSensitive(doc, "context");
    for (int i = 0; i < set->count; i++) {
        gb_backend_slot *s = &set->slot[i];
        rp->kept[i][0] = 0;
        /* one set per backend, on its first device (the results' peaks are keyed by backend) */
        if (!s->selected || !s->b->measure_peaks || !gb_backends_first_of_backend(s)) continue;
        gb_err ue = {{0}};
        if (gb_backends_use(s, &ue) != GB_OK) continue;
        /* what the ceilings hold for, beyond the context: the device, the GEMM dtypes asked for */
        char salt[64], path[2048], from[64];
        snprintf(salt, sizeof salt, "device=%d dtypes=%u", bopt->device, bopt->peak_dtypes);
        const char *at = gb_peaks_kept_path(s->name, context, salt, path, sizeof path);
        double now = (double)time(NULL), age = 0;
        cJSON *p = rp->fresh ? NULL : gb_peaks_kept_load(at, now, from, sizeof from, &age);
        if (p) {
            char ago[32];
            say_age(ago, sizeof ago, age);
            cJSON_AddStringToObject(p, "kept_from", from);
            cJSON_AddNumberToObject(p, "kept_age_s", (double)(long)age);
            snprintf(rp->kept[i], sizeof rp->kept[i], "%s", at);
            if (!rp->quiet)
                fprintf(stderr, "%s ceilings: kept from %s (%s; --peak fresh measures them again)\n", s->name, from,
                        ago);
            cJSON_AddItemToObject(peaks, s->name, p);
            continue;
        }
        if (!rp->quiet) fprintf(stderr, "measuring %s ceilings...\n", s->name);
        p = cJSON_CreateObject();
        gb_err e = {{0}};
        int status = s->b->measure_peaks(p, &e);
        if (status != GB_OK) {
            cJSON_AddStringToObject(p, "error", e.msg);
            fprintf(stderr, "warning: %s ceilings not measured: %s\n", s->name, e.msg);
            if (status == GB_FATAL) gb_backends_disable(s, e.msg);
        } else {
            gb_peaks_kept_save(at, p, now);
            /* forgotten too if a result of this run beats them */
            if (at) snprintf(rp->kept[i], sizeof rp->kept[i], "%s", at);
        }
        cJSON_AddItemToObject(peaks, s->name, p);
    }
}

void gb_run_peaks_after(const gb_run_peaks *rp, int ceiling_warnings) {
    if (ceiling_warnings <= 0) return;
    for (int i = 0; i < GB_MAX_BACKENDS; i++)
        if (rp->kept[i][0]) gb_peaks_kept_forget(rp->kept[i]);
}
