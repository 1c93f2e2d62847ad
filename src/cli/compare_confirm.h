/* compare_confirm.h — compare --confirm's second stage, shared by `compare`
 * (cmd_compare.c, where it lives) and `history check --confirm`
 * (cmd_history.c). */
#ifndef GB_COMPARE_CONFIRM_H
#define GB_COMPARE_CONFIRM_H
#include "compare.h"

/* The suspects of *cmp re-measured in o->confirm_runs fresh processes of
 * o->confirm_suite, and *cmp replaced by the judgement with them; ptr and
 * names hold nb baseline documents then ncf current ones. GB_EXIT_OK, or
 * GB_EXIT_USAGE after saying why on stderr. */
int gb_cli_compare_confirm(gb_compare_result **cmp, const gb_results **ptr, const char **names, int nb, int ncf,
                           gb_compare_options *o, int quiet);
#endif
