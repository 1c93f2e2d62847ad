/* fuzz_kept.c — the kept ceilings (src/run/peaks_kept.c): a file another
 * run, another user or a hand left in the cache folder, read back as a run
 * reads it. What a load returns must be what a measurement gives (each value
 * a finite number in (0, 1e15) or a name), and a kept ceiling raised by a
 * faster result must leave a file that loads again with the new value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "peaks_kept.h"

/* 2026-12-01T00:00:00Z: the seeds were measured within the 7 days before */
#define NOW 1796083200.0

static void check_sane(const cJSON *peaks) {
    const cJSON *v;
    cJSON_ArrayForEach(v, peaks) {
        if (cJSON_IsString(v)) continue;
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || !(v->valuedouble > 0) || v->valuedouble >= 1e15)
            __builtin_trap(); /* garbage kept as truth */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_kept_%ld.json", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    char from[64], why[256];
    double age = -1;
    cJSON *p = gb_peaks_kept_load(path, NOW, from, sizeof from, &age, why, sizeof why);
    if (!p) {
        unlink(path);
        return 0;
    }
    if (!(age >= 0 && age <= GB_PEAKS_KEEP_S)) __builtin_trap();
    check_sane(p);
    /* a result faster than a kept numeric ceiling raises it */
    const cJSON *v;
    const char *key = NULL;
    double was = 0;
    cJSON_ArrayForEach(v, p) if (cJSON_IsNumber(v) && v->valuedouble < 1e14) {
        key = v->string;
        was = v->valuedouble;
        break;
    }
    if (key) {
        char k[256];
        snprintf(k, sizeof k, "%s", key);
        if (gb_peaks_kept_raise(path, k, was * 2) != 1) __builtin_trap();
        cJSON *q = gb_peaks_kept_load(path, NOW, from, sizeof from, &age, why, sizeof why);
        const cJSON *now = q ? cJSON_GetObjectItemCaseSensitive(q, k) : NULL;
        if (!cJSON_IsNumber(now) || now->valuedouble != was * 2) __builtin_trap();
        check_sane(q);
        cJSON_Delete(q);
    }
    cJSON_Delete(p);
    unlink(path);
    return 0;
}
