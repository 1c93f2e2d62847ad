/* run_lines.h — what `gpubench run` shows while it runs: the progress line
 * on a terminal and each case's line as its first round finishes, handed to
 * the runner as its callbacks (runner.h, gb_run_callbacks). */
#ifndef GB_RUN_LINES_H
#define GB_RUN_LINES_H
#include <stdio.h>
#include "runner.h"

typedef struct {
    int progress; /* "[round r/R] [i/N] ..." on stderr (when it is a terminal) */
    int quiet;    /* no per-case lines */
    FILE *lines;  /* where the per-case lines go */
    int rounds;   /* the run's rounds: a line after the first of several says "round 1 of R" */
} gb_run_lines;

/* The callbacks that show a run as `lines` says (lines outlives the run). */
gb_run_callbacks gb_run_lines_callbacks(gb_run_lines *lines);

/* Whether stdout and stderr are one file (a terminal, or `> log 2>&1`): a
 * note on stderr is then read just above the summary on stdout. */
int gb_run_lines_one_stream(void);

#endif
