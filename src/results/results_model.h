/* results_model.h — a results document (docs/results-schema.md) as C structs.
 *
 * The one model of a results file. A document is loaded and checked here,
 * once: every field is checked for its type and range, and a file that breaks
 * the schema is refused with the file and the JSON path of what is wrong
 *   "r.json: cases[3].results[1].stats.median: expected a number, got a string"
 * Every reader — report, crossover, compare, export, merge, the ceiling
 * check — reads these structs and never the JSON, so a field means the same
 * thing to all of them and none trusts keys it did not check. Writers (the
 * runner, merge) fill the structs and write them with gb_results_write.
 *
 * What the model keeps without interpreting it: the provenance objects
 * (context, suite, health, time_breakdown) as JSON text, beside the typed
 * fields readers use; keys it does not know, anywhere, so a file from a newer
 * gpubench keeps them; and the order of the keys of each object it loaded, so
 * loading a file and writing it gives the same bytes.
 *
 * Single-run and merged files (the output of `gpubench merge`) load into the
 * same struct: a single-run file is its own run 0 (runs[0] holds its context,
 * peaks, suite, health and warnings, and mirrors its complete, interrupted,
 * summary and gpubench_version); a merged file has one gb_run per entry of
 * "runs" and each case names its run.
 *
 * Backends are described by data: context.backends.<name> may carry "role"
 * ("host" or "accelerator") and "timings" ([{"name": "device", "label": "gpu
 * dev"}, ...]). Files without them (every file written so far) get the one
 * built-in table of this module: cpu is the host backend with the timing
 * host; cuda, and any other backend, an accelerator with device and
 * end_to_end. Readers ask gb_results_backend / _host / _accelerator and
 * never name a backend or a timing themselves.
 *
 * Strings are never NULL unless a comment says so (absent = ""); numbers are
 * NAN when absent or null. Which optional keys an object had is in its `has`
 * bits, which the writer honours. */
#ifndef GB_RESULTS_MODEL_H
#define GB_RESULTS_MODEL_H
#include <stddef.h>
#include <stdio.h>

#include "gb.h"

struct cJSON;

#define GB_RESULTS_SCHEMA "gpubench-results"
/* The version this gpubench writes, and the newest it reads: files of every
 * version from 1 up to it load; the policy (which changes bump it) is in
 * docs/results-schema.md, "Versions". */
#define GB_RESULTS_SCHEMA_VERSION 1

/* Key order and unknown keys of an object as loaded (private to the model). */
typedef struct gb_keyorder gb_keyorder;

/* ---- plain JSON values (params, extra, libraries, peaks) ----------------- */

typedef enum {
    GB_VAL_ABSENT = 0, GB_VAL_NULL, GB_VAL_BOOL, GB_VAL_NUMBER, GB_VAL_STRING, GB_VAL_JSON
} gb_value_kind;

typedef struct {
    gb_value_kind kind;
    int b;          /* BOOL */
    double num;     /* NUMBER */
    char *text;     /* STRING: the string; JSON: an object or array, unformatted; else NULL */
} gb_value;

typedef struct {
    char *key;
    gb_value v;
} gb_kv;

/* An object of plain values, in the file's order. present: the key was there
 * (an empty object is present, an absent one is not). */
typedef struct {
    int present;
    size_t n;
    gb_kv *item;
} gb_kvlist;

/* ---- backends and their timings ------------------------------------------ */

typedef struct {
    char *name;    /* as results name it: "host", "device", "end_to_end" */
    char *label;   /* a short label: "cpu", "gpu dev", "gpu e2e" */
} gb_timing_desc;

typedef struct {
    char *name;
    int available, selected;  /* 1, 0, or -1 when the file does not say */
    char *reason;
    gb_backend_role role;
    size_t ntimings;
    gb_timing_desc *timings;  /* in the order the backend declares them */
    int described;            /* role and timings came from the file, not the built-in table */
} gb_backend_desc;

/* ---- provenance ---------------------------------------------------------- */

/* context.job: the scheduler's job a run ran in (docs/results-schema.md);
 * present 0 outside one. Strings NULL where the file has null. */
typedef struct {
    int present;
    char *scheduler, *job_id, *array_job_id, *partition, *nodelist;
    double array_task_id, attempt; /* NAN: null */
} gb_job_info;

typedef struct {
    char *json;                 /* the whole object, unformatted; NULL: the run has no context */
    char *date, *hostname;
    char *cpu_model;            /* cpu.model */
    double cpu_logical_cpus;    /* cpu.logical_cpus */
    double cpu_threads_used;
    char *gpu_name;             /* gpu.name ("" when gpu is null) */
    /* The facts that make two runs incomparable, as the file has them (for
     * compare's "machines differ" warnings). f_gpu_driver: the CUDA driver
     * API version (gpu.cuda_driver_api_version, or the older files'
     * gpu.driver_version); f_nvidia_driver: gpu.nvidia_driver when it is a
     * version (older files from open-kernel-module hosts hold "for" there:
     * read as absent). */
    gb_value f_cpu_model, f_gpu_name, f_gpu_driver, f_threads, f_cache_mode, f_nvidia_driver;
    gb_kvlist libraries;
    size_t nbackends;
    gb_backend_desc *backends;  /* context.backends, in the file's order */
    gb_job_info job;            /* context.job */
} gb_context;

typedef struct {
    char *backend;
    gb_kvlist values;           /* "gemm_float32_gflops": 1234, ... ("error": "..." when not measured) */
} gb_peak_set;

typedef struct {
    int present;
    size_t n;
    gb_peak_set *set;
} gb_peaks;

/* Counts of results by status. -1: the key is absent. not_reached: the
 * cases an interruption kept the run from (gb_case_not_reached); written
 * only when there are some. */
typedef struct {
    int present;
    long cases, results, ok, skipped, failed, errors, not_reached;
    gb_keyorder *order;
} gb_summary;

typedef struct {
    int present;
    size_t n;
    char **item;
} gb_strlist;

typedef struct {
    char *name;                 /* merged: runs[i].name; NULL when absent (and in a single-run file) */
    char *source;               /* merged: runs[i].source; NULL when absent */
    gb_context context;
    gb_peaks peaks;
    gb_strlist warnings;
    char *suite_json;           /* NULL when absent */
    char *suite_name;           /* suite.name */
    char *health_json;          /* NULL when absent */
    int complete, interrupted;  /* 1, 0, or -1 when the file does not say */
    gb_summary summary;
    char *gpubench_version;     /* NULL when absent */
    char fallback_name[24];     /* private: gb_results_run_name's "run<i>" */
    gb_keyorder *order;
} gb_run;

/* ---- results ------------------------------------------------------------- */

typedef enum { GB_RS_OK = 0, GB_RS_SKIPPED, GB_RS_FAILED, GB_RS_ERROR } gb_result_status;
typedef enum { GB_VS_PASSED = 0, GB_VS_FAILED, GB_VS_NOT_CHECKED } gb_verification_status;

/* The statistics stored with a result (computed by src/core/stats.h). A
 * field is NAN when absent; n is 0 with no samples. */
typedef struct {
    int present;
    size_t n;
    double min, max, median, mean, stddev, cv, ci95_low, ci95_high;
    gb_keyorder *order;
} gb_result_stats;

enum { GB_V_HAS_ERROR = 1, GB_V_HAS_TOLERANCE = 2, GB_V_HAS_AGAINST = 4, GB_V_HAS_METRIC = 8,
       GB_V_HAS_DETAIL = 16 };
typedef struct {
    int present;
    gb_verification_status status;
    char *against, *metric, *detail;
    double error, tolerance;    /* NAN when null */
    unsigned has;               /* GB_V_HAS_* */
    gb_keyorder *order;
} gb_verification;

/* Which device of a backend measured a result (an accelerator's results
 * when a run measured one or more devices; absent on host results and in
 * files written before devices were recorded). index is the backend's
 * ordinal (CUDA: the device number as the run saw it); uuid and pci_bus_id
 * identify the physical device across runs and nodes ("" when unknown). */
typedef struct {
    int present;
    long index;                 /* >= 0 */
    char *name, *uuid, *pci_bus_id;
    gb_keyorder *order;
} gb_device_id;

/* A result of --devices-concurrent: measured while every one of `devices`
 * devices ran the same case at once (absent: the device ran alone). The
 * aggregate rates are every device's work over its own median, summed; the
 * same on each of the group's results; NAN when the case has no such count.
 * Such a result is its own series: it is never paired with the device's
 * result alone (gb_result_same_series). */
typedef struct {
    int present;
    long devices;               /* >= 1 */
    double aggregate_gflops, aggregate_gbs;
    gb_keyorder *order;
} gb_concurrency;

/* The energy of a result (docs/energy.md): measured, with joules per
 * repetition over its whole boundary ("total") and above the idle power
 * measured before the run, the mean power and the relative error bound the
 * counter allowed; or not measured, with the reason ("no RAPL interface:
 * ...", "counter does not advance: ..."). Absent: energy was off, or the
 * result is not of the timing energy is measured on. Numbers NAN when null. */
typedef struct {
    int present;
    int measured;               /* "status": "measured" (1) or "not_measured" (0) */
    char *reason;               /* not measured: why ("" when measured) */
    double j_per_op, above_idle_j_per_op, power_w, above_idle_w, idle_w;
    double bound;               /* relative error bound of j_per_op (0.02: 2%) */
    double gflop_per_j, gb_per_j;
    double energy_ratio;        /* accelerator results: the host's j_per_op / this one's */
    double seconds;             /* the time the counter's windows covered */
    double power_limit_w;       /* the device's enforced limit, when known */
    /* the relative half-width of the op's timing interval (its median's 95%
     * interval): J/op moves with the time per op, so two runs' J/op agree
     * within bound + spread, not within the counter's bound alone */
    double spread;
    char *counter, *boundary;   /* what was read, and what it covers ("" when unknown) */
    char *phase;                /* "timed" (the timed repetitions' own span) or "timed+energy" (extended) */
    gb_keyorder *order;
} gb_result_energy;

/* The clocks a result ran at during its timed repetitions (every round), and
 * the clock-event reasons seen (core/energy.h's names; "gpu_idle", normal
 * between repetitions, is left out). Absent: the backend has no monitor. */
typedef struct {
    int present;
    double sm_mhz, mem_mhz;     /* means over the samples; NAN when unread */
    long samples;
    gb_strlist reasons;
    int power_limited, thermal_limited; /* a power-cap / thermal reason was seen */
    gb_keyorder *order;
} gb_result_clocks;

enum {
    GB_R_HAS_REASON = 1, GB_R_HAS_SETUP = 2, GB_R_HAS_WARMUP = 4, GB_R_HAS_ROUNDS = 8,
    GB_R_HAS_SAMPLES = 16, GB_R_HAS_GFLOPS = 32, GB_R_HAS_GBS = 64, GB_R_HAS_PCT = 128,
    GB_R_HAS_PEAK = 256, GB_R_HAS_VERIFY = 512
};
typedef struct {
    char *backend, *timing;
    gb_result_status status;
    char *reason;
    double setup_s;             /* NAN when absent */
    double verify_s;            /* fetching and checking the output; NAN when absent */
    long warmup_reps;           /* -1 when absent */
    size_t nrounds;
    size_t *round_sizes;        /* samples per round, in order; they add up to nsamples */
    size_t nsamples;
    double *samples;            /* seconds, in the order taken; finite, >= 0 */
    gb_result_stats stats;
    double gflops, gbs, pct_of_peak;  /* NAN when null or absent */
    char *peak;                 /* "cpu.gemm_float32_gflops"; NULL when null or absent */
    gb_verification verification;
    gb_kvlist extra;
    gb_device_id device;        /* .present 0 when the result names no device */
    gb_concurrency concurrent;  /* .present 0 unless measured with --devices-concurrent */
    gb_result_energy energy;    /* .present 0 unless energy was measured or tried */
    gb_result_clocks clocks;    /* .present 0 unless the backend's clocks were sampled */
    unsigned has;               /* GB_R_HAS_* */
    gb_keyorder *order;
} gb_result;

typedef struct {
    char *timing;
    double value;               /* host median / accelerator median, > 0 */
} gb_speedup;

enum { GB_C_HAS_LABEL = 1, GB_C_HAS_FLOPS = 2, GB_C_HAS_BYTES = 4, GB_C_HAS_RATE_KIND = 8,
       GB_C_HAS_SPEEDUP = 16 };
typedef struct {
    int run;                    /* index in runs (0 in a single-run file) */
    char *op, *dtype, *label;
    size_t rank;
    double *shape;              /* positive whole numbers */
    gb_kvlist params;
    double flops, bytes;        /* NAN when absent */
    char *rate_kind;            /* "flops" or "bytes": which rate is judged against a ceiling */
    size_t nresults;
    gb_result *results;
    size_t nspeedups;
    gb_speedup *speedups;       /* by timing, in the file's order */
    unsigned has;               /* GB_C_HAS_* */
    gb_keyorder *order;
} gb_case_result;

/* ---- crossover ----------------------------------------------------------- */

typedef struct {
    double size, lo, hi;        /* the interpolated crossing and its bracketing tested sizes */
    char *to;                   /* the backend that wins from hi on */
    int to_accelerator;         /* whether `to` is an accelerator (resolved when loaded or computed) */
    gb_keyorder *order;
} gb_crossover_step;

typedef struct {
    int run;                    /* the run of its cases (0 in a single-run file) */
    char *op, *dtype;
    gb_kvlist params;
    char *timing;
    double size;                /* the first crossing to the accelerator; NAN when null */
    int has_between;
    double between[2];
    char *status;               /* "interpolated", "below_smallest" or "not_reached" */
    char *size_measure;         /* "n" or "geometric_mean_of_shape" */
    double tested_min, tested_max;
    long points, sign_changes;
    int has_changes;            /* files written before "changes" existed lack it */
    size_t nchanges;
    gb_crossover_step *changes;
    long device;                /* the accelerator device of the sweep when its cases were
                                 * measured on several (--devices); -1: one device or none */
    gb_keyorder *order;
} gb_crossover_entry;

/* ---- the document -------------------------------------------------------- */

typedef struct {
    char *name;                 /* what messages call it: the path, or the name given */
    int merged;                 /* has "runs" */
    char *gpubench_version;     /* NULL when absent */
    int complete, interrupted;  /* 1, 0, or -1 when absent */
    char *interrupted_by;       /* NULL when absent */
    size_t nruns;               /* >= 1 */
    gb_run *runs;
    gb_strlist warnings;        /* merged files: the merge's own notes (a single-run file's are runs[0]'s) */
    size_t ncases;
    gb_case_result *cases;
    int has_crossover;
    size_t ncrossover;
    gb_crossover_entry *crossover;
    gb_summary summary;
    char *time_breakdown_json;  /* NULL when absent */
    gb_keyorder *order;
} gb_results;

/* ---- loading, writing, freeing ------------------------------------------- */

/* Read, parse and check the results file at path ("-": standard input) into
 * out. GB_OK, or GB_FAIL with a message that starts with the path:
 *   "r.json: cannot open: No such file or directory"
 *   "r.json: line 3: malformed JSON near '\"op\" matmul'"
 *   "r.json: not a gpubench results file (no \"schema\")"
 *   "r.json: schema_version 7, this gpubench reads 1"
 *   "r.json: cases[0].results[1].status: missing"
 * On failure out is empty (gb_results_free is harmless). */
int gb_results_load(const char *path, gb_results *out, gb_err *e);
/* The same from a parsed document (the caller keeps it). name starts the
 * messages. "samples_s" may be a raw JSON array (cJSON_Raw). */
int gb_results_from_json(const struct cJSON *doc, const char *name, gb_results *out, gb_err *e);

/* How samples are written: as JSON numbers (every digit they have: what a
 * loaded file had), or with 6 significant digits as the runner writes them
 * (a timer's resolution is far coarser than 17 digits). */
enum { GB_WRITE_SAMPLES_6G = 1 };
/* The document as JSON (free with cJSON_Delete); NULL on out of memory. */
struct cJSON *gb_results_to_json(const gb_results *r, unsigned flags);
/* Write it to path ("-": standard output) atomically (results_io.h). */
int gb_results_write(const gb_results *r, const char *path, unsigned flags, gb_err *e);

void gb_results_free(gb_results *r);
void gb_case_result_free(gb_case_result *c);

/* ---- building a document (the runner, merge) ----------------------------- */

/* An empty document: a single-run file with its run 0, or a merged file with
 * no run yet (add them). Strings "", numbers NAN, flags -1 (absent), no
 * optional key set. GB_OK or GB_FAIL (out of memory). */
int gb_results_init(gb_results *r, const char *name, int merged, gb_err *e);
/* Append an empty run, case (to r) or result (to c), as above, and return
 * it; NULL on out of memory. Pointers to earlier elements may move. Set its
 * fields, and the `has` bits of the optional keys it should write. */
gb_run *gb_results_add_run(gb_results *r);
gb_case_result *gb_results_add_case(gb_results *r);
gb_result *gb_case_add_result(gb_case_result *c);
/* A run's provenance from obj's "context", "peaks", "warnings", "suite" and
 * "health" (the runner builds them as JSON, with sysinfo and the backends),
 * checked as a loaded file's are; what obj lacks, the run then lacks. name
 * starts the messages. GB_OK, or GB_FAIL with run unchanged. */
int gb_run_set_provenance(gb_run *run, const struct cJSON *obj, const char *name, gb_err *e);
/* An object of plain values (a backend's "extra" facts, as its annotate()
 * writes them) into l, replacing what l held. GB_OK, or GB_FAIL (obj is not
 * an object, or out of memory) with the message starting with name. */
int gb_kvlist_from_cjson(gb_kvlist *l, const struct cJSON *obj, const char *name, gb_err *e);
/* Name the device that measured a result (strings may be NULL: ""). GB_OK
 * or GB_FAIL (out of memory). */
int gb_device_id_set(gb_device_id *d, long index, const char *name, const char *uuid, const char *pci_bus_id);
/* Whether two results are of the same device series: the same device
 * index, or either names no device (a file from before devices were
 * recorded, a host result). Readers that pair results (compare, report,
 * export) pair them only when this holds, so devices are never mixed. The
 * index, not the UUID, is the key: run A's device 0 is compared with run
 * B's device 0, on the same host or another. */
int gb_device_same(const gb_device_id *a, const gb_device_id *b);
/* Whether two results (of the same case, backend and timing) are one series:
 * gb_device_same, and both measured alone or both with all devices at once. */
int gb_result_same_series(const gb_result *a, const gb_result *b);
/* Replace a string field of the model with a copy of value. GB_OK or GB_FAIL. */
int gb_set_string(char **field, const char *value);

/* Deep copies (merge moves runs, cases and crossover entries between
 * documents). GB_OK, or GB_FAIL on out of memory (dst then empty). */
int gb_run_copy(gb_run *dst, const gb_run *src);
int gb_case_result_copy(gb_case_result *dst, const gb_case_result *src);
/* One result into another slot (the runner shares a host result between
 * cases: runner.c); dst is freed first. */
int gb_result_copy(gb_result *dst, const gb_result *src);
int gb_crossover_entry_copy(gb_crossover_entry *dst, const gb_crossover_entry *src);
void gb_run_free(gb_run *run);
void gb_crossover_entry_free(gb_crossover_entry *x);

/* Count results by status into r->summary; returns failed + errors. */
int gb_results_summarize(gb_results *r);

/* The reason a result carries when an interruption stopped the run before
 * its case was reached: the case is listed (the file says what was not
 * measured) but the tables, the per-case lines and the counts of what was
 * measured leave it out. */
#define GB_REASON_NOT_REACHED "not reached: the run was interrupted"
/* Was every result of c skipped with GB_REASON_NOT_REACHED (and c has one)? */
int gb_case_not_reached(const gb_case_result *c);

/* ---- runs ---------------------------------------------------------------- */

/* A short name for run i: runs[i].name, else its context's hostname, else
 * "run<i>". Never NULL. */
const char *gb_results_run_name(const gb_results *r, int i);
/* The document's own warnings: a single-run file's run warnings, a merged
 * file's merge notes. */
const gb_strlist *gb_results_warnings(const gb_results *r);

/* ---- backends ------------------------------------------------------------ */

/* How backend `name` of run `run` is described: its context.backends entry,
 * else the built-in table (r may be NULL: the table alone). Never NULL. */
const gb_backend_desc *gb_results_backend(const gb_results *r, int run, const char *name);
/* The run's host backend / its (first) accelerator: the first of that role in
 * context.backends, else the built-in one. Never NULL. */
const gb_backend_desc *gb_results_host(const gb_results *r, int run);
const gb_backend_desc *gb_results_accelerator(const gb_results *r, int run);
/* Index of timing in b's timings; -1 when b does not declare it. */
int gb_backend_timing_index(const gb_backend_desc *b, const char *timing);
/* Whether name is a backend of the built-in table, and the table's names
 * ("cpu or cuda") for messages. */
int gb_backend_builtin(const char *name);
const char *gb_backend_builtin_names(void);

/* ---- values -------------------------------------------------------------- */

const char *gb_result_status_name(gb_result_status s);   /* "ok", "skipped", "failed", "error" */
const char *gb_verify_status_name(gb_verification_status s);   /* "passed", "failed", "not_checked" */

/* Deep copy (GB_OK, or GB_FAIL on out of memory with dst empty) and free. */
int gb_kvlist_copy(gb_kvlist *dst, const gb_kvlist *src);
void gb_kvlist_free(gb_kvlist *l);
/* The value of key, or NULL when the list has none. */
const gb_value *gb_kv_find(const gb_kvlist *l, const char *key);
/* A value as the report prints it: strings as they are, true/false, numbers
 * with %g, null and objects as JSON. */
void gb_value_text(const gb_value *v, char *buf, size_t len);
/* Value as a string / number: "" / NAN when it is not one. */
const char *gb_value_str(const gb_value *v);
double gb_value_num(const gb_value *v);
/* A value as compact JSON (malloc'd); NULL when absent or out of memory. */
char *gb_value_json(const gb_value *v);
/* Equality as JSON (numbers within rounding; objects regardless of order):
 * what "the same params" and "the same machine" mean everywhere. */
int gb_value_equal(const gb_value *a, const gb_value *b);
int gb_kvlist_equal(const gb_kvlist *a, const gb_kvlist *b);
int gb_shape_equal(const gb_case_result *a, const gb_case_result *b);
/* Compact JSON of a kvlist (malloc'd); NULL when absent. */
char *gb_kvlist_json(const gb_kvlist *l);
/* The speedup of a case for a timing; NAN when the case has none. */
double gb_case_speedup(const gb_case_result *c, const char *timing);
/* host median / accelerator median when both results are ok with a
 * positive median (what the runner writes as a case's "speedup"), else NAN. */
double gb_result_speedup(const gb_result *host, const gb_result *accel);
/* Energy (docs/energy.md): the host result's j_per_op / the accelerator's,
 * when both were measured; else NAN. */
double gb_result_energy_ratio(const gb_result *host, const gb_result *accel);
/* Free an energy / clocks object's fields (the runner replaces them). */
void gb_result_energy_free(gb_result_energy *e);
void gb_result_clocks_free(gb_result_clocks *c);
/* The case's shape as compact JSON ("[512,512,512]"), into buf. */
void gb_case_shape_text(const gb_case_result *c, char *buf, size_t len);
/* As cJSON items, for documents built from results (compare's output). */
struct cJSON *gb_kvlist_to_cjson(const gb_kvlist *l);
/* A run's peaks as the file's "peaks" object (NULL: out of memory). */
struct cJSON *gb_peaks_to_cjson(const gb_peaks *p);
struct cJSON *gb_case_shape_to_cjson(const gb_case_result *c);
#endif
