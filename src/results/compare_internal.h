/* compare_internal.h — what compare.c, compare_match.c, compare_judge.c and
 * compare_confirm.c (the second stage of --confirm) share: a file's results as match entries, the index
 * that matches them across files, one case matched in every file, and the
 * rule that judges it. Not an interface for other modules (compare.h is). */
#ifndef GB_COMPARE_INTERNAL_H
#define GB_COMPARE_INTERNAL_H
#include <stddef.h>
#include <cjson/cJSON.h>

#include "case_index.h"
#include "compare.h"
#include "compare_stats.h"
#include "results_model.h"

/* Files a side may have (each one process). */
#define GB_MAX_PROCS 64

/* One result of one file, as matching sees it. */
typedef struct {
    const gb_case_result *c;
    const gb_result *r;
    const char *machine; /* NULL unless matching by machine */
    int run;
    int matched;
} entry;

/* A file's results. */
typedef struct {
    entry *e;
    size_t n, cap;
} entries;

/* Current entries by key, so each baseline entry finds its match in constant
 * time (a scan of every entry made 20,000 cases take minutes): the index
 * holds the first entry of each key; next[] chains the others in order, and
 * head[] skips those already matched. */
typedef struct {
    gb_index index;
    size_t *next, *head; /* next[i]: the next entry with i's key (SIZE_MAX: none); head[first]: the first unmatched */
    const entries *ec;
    const entry *probe;
} matcher;

/* One result of the first baseline with its matches in every file. */
typedef struct {
    entry *b;                        /* the first baseline's result: its name and key */
    const gb_result *bp[GB_MAX_PROCS], *cp[GB_MAX_PROCS];
    int kb, kc;                      /* usable (ok) processes a side */
    int nb_seen, nc_seen;            /* files holding the result at all */
    const gb_result *cfail;          /* a current result that failed, if any */
    gb_rule rule;
    gb_case_noise noise;
    gb_change ch;
    int have_ch;
    double p, p_holm;
    gb_cmp_verdict verdict;
    char reason[480];
    char db[120], dc[120];
    int plans_b, plan_changed;       /* distinct library plans in the baseline; current ran another */
    double change, lo, hi;           /* stage 1's estimate and interval (NAN unless have_ch) */
    double raw_change;               /* the change before the backend's shift was taken out */
    size_t family;                   /* the cases judged together (Holm) */
    double shift_log;                /* the backend's shift taken out of ch.d (0: none) */
    int suspect;                     /* --confirm re-measures it (is_suspect) */
    int confirmed_have;              /* stage 2 judged it */
    gb_cmp_verdict confirm_verdict;  /* stage 2's own verdict */
    double c_change, c_lo, c_hi, c_p_holm;
} matched;

/* ---- compare_match.c ---- */

/* How many distinct run names doc has (a merged file of several machines: > 1). */
int gb_cmp_distinct_run_names(const gb_results *doc);
/* Did a current result fail (verification, or a failed or errored run)? */
int gb_cmp_current_failed(const gb_result *r);
/* Every result of doc as an entry (machine set when matching by machine). */
int gb_cmp_collect(const gb_results *doc, int by_machine, entries *out);
int gb_cmp_matcher_init(matcher *m, const entries *ec);
entry *gb_cmp_matcher_take(matcher *m, entries *ec, const entry *b);
void gb_cmp_matcher_free(matcher *m);
/* The first unmatched entry of es with b's key, marked matched; NULL when none. */
entry *gb_cmp_match_in(entries *es, matcher *m, const entry *b);
/* Is r an ok result with samples? desc says why not. */
int gb_cmp_result_ok(const gb_result *r, char *desc, size_t len);
void gb_cmp_views_of(const gb_result *const *r, int k, gb_proc_view *v);
/* How many plans the baseline chose; whether a current run chose another. */
void gb_cmp_compare_plans(matched *m);
/* ---- compare_machine.c ---- */

/* Warnings for every fact (machine, driver, libraries, build compiler and
 * flags) in which a file differs from the baseline's most common value,
 * naming the file; build_note: the commits of the two sides ("" unknown). */
void gb_cmp_check_files(const gb_results *const *base, const char *const *bnames, size_t nb,
                        const gb_results *const *cur, const char *const *cnames, size_t nc, gb_cmp_strs *warnings,
                        char *build_note, size_t note_len);
/* The same for two runs of merged files (label: the run's name). */
void gb_cmp_check_pair(const gb_context *a, const gb_context *b, const char *label, gb_cmp_strs *warnings);
/* Warnings for ceilings that moved more than 10%. */
void gb_cmp_compare_peaks(const gb_peaks *pa, const gb_peaks *pb, const char *label, gb_cmp_strs *warnings);
/* How much slower the backend's measured ceilings make a time, current over
 * baseline (median over its rate ceilings, each the median of a side's
 * files); NAN when no ceiling was measured on both sides (*nkeys 0). */
double gb_cmp_ceiling_time_ratio(const gb_results *const *base, size_t nb, const gb_results *const *cur, size_t nc,
                                 const char *backend, size_t *nkeys);

/* Which of build (compiler, flags, commit), libraries and ceilings (a time
 * ratio, ceiling: NAN when unmeasured, beyond 10%) differ between the
 * baseline's most common value and a current file: "build (build.flags),
 * ceilings (x1.12)", or "none of build, libraries, ceilings differ". */
void gb_cmp_differences(const gb_results *const *base, size_t nb, const gb_results *const *cur, size_t nc,
                        double ceiling, char *buf, size_t len);

/* ---- compare_shift.c ---- */

/* The shift of each backend's cases (fam: their raw changes), at most max
 * of them, into out. 0, or -1 out of memory. */
int gb_cmp_shift_estimate(const matched *ms, const gb_family_change *fam, size_t nm, const gb_results *const *base,
                          size_t nb, const gb_results *const *cur, size_t nc, double threshold, gb_cmp_shift *out,
                          size_t max, size_t *nout);
/* The log shift the backend's cases are judged net of (0: none). */
double gb_cmp_shift_log(const gb_cmp_shift *sh, size_t n, const char *backend);

/* ---- compare_decide.c ---- */

/* What would decide m (unsure), judged in a family of family cases. */
void gb_cmp_decide(const matched *m, size_t family, gb_cmp_decide_plan *out);

/* ---- compare_judge.c ---- */

/* The verdict of one case from its change, interval and Holm-adjusted p. */
void gb_cmp_judge(matched *m, double lo, double hi, size_t family);
/* --confirm's second stage over the suspects of ms (compare_confirm.c):
 * fills cs (what it did) and, where it judged a suspect, its matched entry.
 * 0, or -1 out of memory; err set when a suspect could not be judged. */
int gb_cmp_confirm_stage(matched *ms, size_t nm, const gb_noise_prior *prior1, const gb_compare_options *o,
                         int by_machine, gb_cmp_confirm_summary *cs, char *err, size_t errlen);
#endif
