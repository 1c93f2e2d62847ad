/* suite_args.h — the command line's say over a suite: --sizes (in every
 * form a suite's sizes take, and the numbers a person writes: 1e3, 1k),
 * --max-time, --min-time, --warmup, --reps and --param, written into the suite document
 * before it is read, so that one reader judges file and command line alike. */
#ifndef GB_SUITE_ARGS_H
#define GB_SUITE_ARGS_H
#include <cjson/cJSON.h>

#include "suite.h"

/* The command line's overrides, into doc: into "defaults", and out of every
 * benchmark that set its own (the command line wins over the file).
 * Malformed documents are left to the validation. GB_FAIL with the reason
 * in e for a --sizes it cannot read, or a --param no selected op takes. */
int gb_suite_apply_overrides(cJSON *doc, const gb_suite_filter *f, gb_err *e);
#endif
