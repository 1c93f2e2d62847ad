/* run_peaks.c — see run_peaks.h. */
#include "run_peaks.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "peaks_kept.h"
#include "sanity.h"

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
        snprintf(rp->name[i], sizeof rp->name[i], "%s", s->name);
        /* one set per backend, on its first device (the results' peaks are keyed by backend) */
        if (!s->selected || !s->b->measure_peaks || !gb_backends_first_of_backend(s)) continue;
        gb_err ue = {{0}};
        if (gb_backends_use(s, &ue) != GB_OK) continue;
        /* what the ceilings hold for, beyond the context: the device, the GEMM dtypes asked for */
        char salt[64], path[2048], from[64];
        snprintf(salt, sizeof salt, "device=%d dtypes=%u", bopt->device, bopt->peak_dtypes);
        const char *at = gb_peaks_kept_path(s->name, context, salt, path, sizeof path);
        double now = (double)time(NULL), age = 0;
        char garbage[256] = "";
        cJSON *p = rp->fresh ? NULL : gb_peaks_kept_load(at, now, from, sizeof from, &age, garbage, sizeof garbage);
        if (garbage[0]) /* named, and measured again below (which replaces the file) */
            fprintf(stderr, "warning: kept %s ceilings %s not used: %s; measuring them again\n", s->name, at, garbage);
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
            /* raised if a result of this run beats them */
            if (at) snprintf(rp->kept[i], sizeof rp->kept[i], "%s", at);
        }
        cJSON_AddItemToObject(peaks, s->name, p);
    }
}

int gb_run_peaks_after(const gb_run_peaks *rp, const gb_results *results) {
    int raised = 0;
    for (size_t ci = 0; results && ci < results->ncases; ci++)
        for (size_t ri = 0; ri < results->cases[ci].nresults; ri++) {
            const gb_result *r = &results->cases[ci].results[ri];
            /* compute ceilings only, as the warning (a bandwidth ceiling is
             * DRAM's: a size that fits in cache beats it legitimately) */
            if (!r->peak || !r->backend || !strstr(r->peak, "_gflops") || !(r->pct_of_peak > GB_CEILING_SLACK) ||
                !(r->gflops > 0))
                continue;
            size_t nb = strlen(r->backend);
            if (strncmp(r->peak, r->backend, nb) != 0 || r->peak[nb] != '.') continue;
            for (int i = 0; i < GB_MAX_BACKENDS; i++)
                if (rp->kept[i][0] && !strcmp(rp->name[i], r->backend))
                    raised += gb_peaks_kept_raise(rp->kept[i], r->peak + nb + 1, r->gflops);
        }
    return raised;
}
