/* run_options.h — `gpubench run`'s command line: its options, read into
 * what a run is asked to do, and its --help. */
#ifndef GB_RUN_OPTIONS_H
#define GB_RUN_OPTIONS_H
#include <stdio.h>

#include "backend.h"
#include "suite.h"

/* What the command line asks of a run. */
typedef struct {
    const char *backends, *out_path, *plot_dir, *gbench;
    const char *history; /* --history: the database ("" for the default) */
    gb_suite_filter filter;
    const char *params[32]; /* --param's KEY=VALUE, pointers into argv */
    gb_backend_options bopt;
    int format, quiet, peaks, concurrent, wide, list_only, force, require_gpu, energy, fresh_peaks;
} gb_run_opts;

/* `gpubench run --help`, to out. */
void gb_run_usage(FILE *out);
/* The options into *o (set its defaults first). -1 to go on, else the exit
 * code (help, or a bad option named on stderr). *case_names_out: --case's
 * list (the caller's to free). */
int gb_run_parse_options(int argc, char **argv, gb_run_opts *o, const char ***case_names_out);
#endif
