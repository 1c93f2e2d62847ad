/* cmd_validate.c — `gpubench validate SUITE...`: check without running. */
#include <getopt.h>
#include <stdio.h>

#include "commands.h"
#include "suite.h"

int gb_cmd_validate(int argc, char **argv) {
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch;
    optind = 1;
    while ((ch = gb_cli_getopt(argc, argv, "h", opts)) != -1) {
        if (ch == 'h') {
            printf("usage: gpubench validate SUITE.json [SUITE.json ...]\n\n"
                   "Check suite files without running them: JSON syntax, every key, op, size,\n"
                   "dtype and param. Prints the number of cases each expands to.\n"
                   "Exit status 0 when all are valid, 2 otherwise (with file, JSON path, reason).\n");
            return GB_EXIT_OK;
        }
        return gb_cli_bad_option("validate", argc, argv, "h");
    }
    if (optind >= argc) {
        fprintf(stderr, "gpubench validate: expected at least one suite file\n");
        return GB_EXIT_USAGE;
    }
    int rc = GB_EXIT_OK;
    for (int i = optind; i < argc; i++) {
        gb_suite s;
        gb_err e;
        if (gb_suite_load(argv[i], NULL, &s, &e) != GB_OK) {
            fprintf(stderr, "gpubench validate: %s\n", e.msg);
            rc = GB_EXIT_USAGE;
            continue;
        }
        printf("%s: valid: suite \"%s\", %zu cases, %d round%s\n", argv[i], s.name, s.count, s.rounds,
               s.rounds == 1 ? "" : "s");
        gb_suite_free(&s);
    }
    return rc;
}
