/* merge.h — combine results files (several machines, or partial runs of
 * one suite) into one, in the merged form of docs/results-schema.md: every
 * input run's provenance (context, peaks, warnings, suite, health) moves
 * into "runs", and each case names its run with "run": index, so results of
 * the same case on two machines stay apart. Merged inputs are flattened.
 * When a case appears twice in one run (a partial run repeated, the same
 * file given twice, a retried SLURM task), the later input wins and one line
 * per run and earlier file in the merged file's warnings says how many
 * (m.details lists each case). A run's name clashing with another machine's
 * (containers all called "localhost"), or with another run or job on the
 * same machine, gets a suffix "#2", "#3", ...; only a run that continues
 * the earlier one keeps it (merge.c: continues).
 * `gpubench merge` (cli/cmd_merge.c) reads the inputs and writes the result.
 *
 *   gb_merge m;
 *   gb_merge_init(&m, "all.json", &e);
 *   for each input: gb_merge_add(&m, &doc, path, name_or_NULL, &e);
 *   gb_results *out = gb_merge_finish(&m);   (write it)
 *   gb_merge_free(&m); */
#ifndef GB_MERGE_H
#define GB_MERGE_H
#include "case_index.h"
#include "results_model.h"

typedef struct {
    int run;             /* in out.runs */
    char *source;        /* the earlier file that had the cases */
    size_t n;
} gb_merge_repeat;

typedef struct {
    gb_results out;      /* the merged results */
    /* the cases kept so far, found by run name and case in constant time (a
     * repeat is looked up once per case: merging 20,000 cases compared
     * every pair before); a replaced case is marked gone and dropped at the
     * end, so the others keep their order */
    gb_index index;
    unsigned char *gone; /* per out.cases */
    /* repeated cases: one line each in details (merge --verbose), one line
     * per run and earlier file in out.warnings (repeats: the input being
     * added's tally) */
    gb_strlist details;
    gb_merge_repeat *repeats;
    size_t nrepeats;
    int inited;
} gb_merge;

/* An empty merge whose results file will be `output`. GB_OK, or GB_FAIL
 * (out of memory); free it with gb_merge_free either way. */
int gb_merge_init(gb_merge *m, const char *output, gb_err *e);
/* Add one input's runs, cases and crossover. path: where it was read (its
 * runs' "source" when they have none); name: the --name for a single-run
 * input, or NULL (its hostname). A repeated case adds a line to
 * m->out.warnings. GB_OK or GB_FAIL (message in e). */
int gb_merge_add(gb_merge *m, const gb_results *doc, const char *path, const char *name, gb_err *e);
/* Append a line to the merged file's warnings. GB_OK or GB_FAIL. */
int gb_merge_warn(gb_merge *m, const char *line, gb_err *e);
/* Drop the replaced cases: the merged results (summarize them, after any
 * last warnings, before writing). */
gb_results *gb_merge_finish(gb_merge *m);
void gb_merge_free(gb_merge *m);

#endif
