/* peaks_kept.h — a backend's ceilings kept per machine and build, so that a
 * one-off `run --op matmul --sizes 512,1024` does not spend most of its time
 * measuring them again (5.7 s of 7.8 s on a 2-core machine).
 *
 * They are kept in the folder the CPU side keeps its GEMM library choice in
 * (gb_cache_dir: $XDG_CACHE_HOME/gpubench or ~/.cache/gpubench), one file per
 * host and backend, named with a hash of what they hold for: the run's
 * context without its date, command line and warnings (CPU model, build and
 * its commit, libraries and the OpenBLAS core, environment, threads) and the
 * salt the caller gives (the device, the dtypes whose GEMM ceilings were
 * asked for). Any change there is another file, so another measurement.
 * Kept ceilings older than GB_PEAKS_KEEP_S are measured again. A run that
 * uses kept ones records it (peaks.<backend>.kept_from, kept_age_s:
 * docs/results-schema.md), so that compare knows they were not measured in
 * that run; `run --peak fresh` measures them again (and keeps the new ones).
 * A result that beats a kept ceiling raises it (gb_peaks_kept_raise): a slow
 * moment is flagged and corrected, never a reason to measure again. */
#ifndef GB_PEAKS_KEPT_H
#define GB_PEAKS_KEPT_H
#include <cjson/cJSON.h>
#include <stddef.h>

#define GB_PEAKS_KEEP_S (7 * 86400.0)

/* The file for backend's ceilings in this context (NULL: no cache folder). */
const char *gb_peaks_kept_path(const char *backend, const cJSON *context, const char *salt, char *buf, size_t len);
/* The kept ceilings at path, no older than GB_PEAKS_KEEP_S at now_unix (a
 * copy: cJSON_Delete it), with when they were measured ("2026-11-26T06:47:08Z")
 * into from and their age; NULL when there are none usable. A value that is
 * not what a measurement gives makes the file unused, the key named in why
 * ("peaks.copy_gbs is not a finite number above 0"; "" otherwise). */
cJSON *gb_peaks_kept_load(const char *path, double now_unix, char *from, size_t fromlen, double *age_s, char *why,
                          size_t whylen);
/* Keep peaks (a backend's, as measured: no "error") at path, measured at
 * now_unix; a failure to write is no failure of the run. */
void gb_peaks_kept_save(const char *path, const cJSON *peaks, double now_unix);
/* A result of a run reached rate on the ceiling key ("gemm_float64_gflops")
 * above the kept value: that ceiling came in a slow moment. The kept value is
 * raised to rate (the file's "raised" object records the key and the value it
 * had), keeping its date, so that later runs start from the better figure
 * instead of measuring again. Returns 1 when raised, 0 when nothing was kept
 * there or the kept value is not below rate. */
int gb_peaks_kept_raise(const char *path, const char *key, double rate);
/* Forget them (--peak fresh over a broken file, tests). */
void gb_peaks_kept_forget(const char *path);
#endif
