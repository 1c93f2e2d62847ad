/* peaks_kept.c — see peaks_kept.h. */
#include "peaks_kept.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "case_index.h"
#include "gb.h"
#include "json_strict.h"
#include "results_io.h"

const char *gb_peaks_kept_path(const char *backend, const cJSON *context, const char *salt, char *buf, size_t len) {
    char dir[2048];
    if (!gb_cache_dir(dir, sizeof dir)) return NULL;
    /* what the ceilings hold for: the context but what changes from run to run */
    cJSON *id = cJSON_Duplicate(context, 1);
    if (!id) return NULL;
    static const char *const vary[] = {"date", "command_line", "warnings"};
    for (size_t i = 0; i < sizeof vary / sizeof *vary; i++) cJSON_DeleteItemFromObjectCaseSensitive(id, vary[i]);
    /* nor the libraries loaded so far: the first run loads BLIS and oneDNN to
     * measure the GEMM choice, a later one only what its kept choice needs
     * (a hash of them made every second run measure the ceilings again) */
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(id, "cpu_runtime"), "libraries_loaded");
    char *text = cJSON_PrintUnformatted(id);
    cJSON_Delete(id);
    if (!text) return NULL;
    uint64_t h = gb_hash_str(gb_hash_str(gb_hash_str(GB_HASH_START, backend), salt ? salt : ""), text);
    free(text);
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(context, "hostname");
    char safe_host[96], safe_backend[64];
    gb_safe_file_name(cJSON_IsString(host) ? host->valuestring : "host", safe_host, sizeof safe_host);
    gb_safe_file_name(backend, safe_backend, sizeof safe_backend);
    snprintf(buf, len, "%s/peaks-%s-%s-%016" PRIx64 ".json", dir, safe_host, safe_backend, h);
    return buf;
}

/* Is a kept value what a measurement gives? A key named for a quantity (a
 * rate, a time, a size, a count: its suffix says which) holds a finite
 * number above 0 and below 1e15; any other key a string (a library's name,
 * how an ISA peak was computed) or such a number. Anything else — "fast",
 * -1e308, an object — is garbage that would have been copied into a run's
 * peaks as truth: the key is named in why and nothing of the file is used. */
static int kept_value_is_sane(const cJSON *v, char *why, size_t len) {
    static const char *const quantity[] = {"_gbs", "_gflops", "_gops", "_s", "_n", "_bytes", "threads"};
    const char *k = v->string ? v->string : "";
    size_t kl = strlen(k);
    int numeric = 0;
    for (size_t i = 0; i < sizeof quantity / sizeof *quantity; i++) {
        size_t sl = strlen(quantity[i]);
        numeric |= kl >= sl && !strcmp(k + kl - sl, quantity[i]);
    }
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble > 0 && v->valuedouble < 1e15) return 1;
    if (cJSON_IsString(v) && !numeric) return 1;
    snprintf(why, len, "peaks.%.80s is not %s", k, numeric ? "a finite number above 0" : "a string or a number above 0");
    return 0;
}

cJSON *gb_peaks_kept_load(const char *path, double now_unix, char *from, size_t fromlen, double *age_s, char *why,
                          size_t whylen) {
    cJSON *doc = NULL;
    gb_err e = {{0}};
    if (why && whylen) why[0] = '\0';
    if (!path || gb_json_read_limited(path, "kept ceilings", 1 << 20, &doc, &e) != GB_OK) return NULL;
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(doc, "measured_unix");
    const cJSON *when = cJSON_GetObjectItemCaseSensitive(doc, "measured_at");
    cJSON *peaks = cJSON_GetObjectItemCaseSensitive(doc, "peaks");
    double age = cJSON_IsNumber(at) ? now_unix - at->valuedouble : -1;
    cJSON *out = NULL;
    /* a file from the future (a clock set back) is not trusted either */
    if (age >= 0 && age <= GB_PEAKS_KEEP_S && cJSON_IsString(when) && cJSON_IsObject(peaks) &&
        !cJSON_GetObjectItemCaseSensitive(peaks, "error")) {
        char bad[160] = "";
        const cJSON *v;
        cJSON_ArrayForEach(v, peaks) if (!kept_value_is_sane(v, bad, sizeof bad)) break;
        if (bad[0]) {
            if (why && whylen) snprintf(why, whylen, "%s", bad);
            cJSON_Delete(doc);
            return NULL;
        }
        out = cJSON_Duplicate(peaks, 1);
        snprintf(from, fromlen, "%s", when->valuestring);
        *age_s = age;
    }
    cJSON_Delete(doc);
    return out;
}

void gb_peaks_kept_save(const char *path, const cJSON *peaks, double now_unix) {
    if (!path || cJSON_GetObjectItemCaseSensitive(peaks, "error")) return;
    char when[32];
    time_t t = (time_t)now_unix;
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "measured_at", when);
    cJSON_AddNumberToObject(doc, "measured_unix", now_unix);
    cJSON_AddItemToObject(doc, "peaks", cJSON_Duplicate(peaks, 1));
    gb_err e = {{0}};
    gb_json_write_atomic(doc, path, &e); /* not kept: the next run measures them, as before */
    cJSON_Delete(doc);
}

int gb_peaks_kept_raise(const char *path, const char *key, double rate) {
    cJSON *doc = NULL;
    gb_err e = {{0}};
    if (!path || !key || !(rate > 0) || gb_json_read_limited(path, "kept ceilings", 1 << 20, &doc, &e) != GB_OK)
        return 0;
    cJSON *peaks = cJSON_GetObjectItemCaseSensitive(doc, "peaks");
    cJSON *v = cJSON_GetObjectItemCaseSensitive(peaks, key);
    int raised = 0;
    if (cJSON_IsNumber(v) && v->valuedouble < rate) {
        cJSON *was = cJSON_GetObjectItemCaseSensitive(doc, "raised");
        if (!cJSON_IsObject(was)) {
            cJSON_DeleteItemFromObjectCaseSensitive(doc, "raised");
            was = cJSON_AddObjectToObject(doc, "raised");
        }
        if (was && !cJSON_GetObjectItemCaseSensitive(was, key)) cJSON_AddNumberToObject(was, key, v->valuedouble);
        cJSON_SetNumberValue(v, rate);
        raised = gb_json_write_atomic(doc, path, &e) == GB_OK;
    }
    cJSON_Delete(doc);
    return raised;
}

void gb_peaks_kept_forget(const char *path) {
    if (path) remove(path);
}
