/* cmd_list.c — `gpubench list`: ops and backends of this build. */
#include <getopt.h>
#include <stdio.h>

#include "backends.h"
#include "commands.h"
#include "op.h"

int gb_cmd_list(int argc, char **argv) {
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'h') {
            printf("usage: gpubench list\n\nThe ops of the catalogue (with their params) and the backends of\n"
                   "this build, each available or not with the reason.\n");
            return GB_EXIT_OK;
        }
        return gb_cli_bad_option("list", argc, argv, "h");
    }
    if (optind != argc) {
        fprintf(stderr, "gpubench list: takes no arguments\n");
        return GB_EXIT_USAGE;
    }
    printf("ops:\n");
    for (int i = 0; i < GB_OP_COUNT; i++) {
        const gb_op *op = gb_ops[i];
        printf("  %-14s %s\n", op->name, op->summary);
        for (const gb_param_spec *p = op->params; p && p->key; p++) {
            printf("  %-14s   param %s: ", "", p->key);
            if (p->type == GB_PARAM_ENUM)
                for (int k = 0; p->values[k]; k++) printf("%s%s", k ? "|" : "", p->values[k]);
            else if (p->type == GB_PARAM_BOOL) printf("true|false");
            else printf("%g..%g", p->min, p->max);
            printf("%s%s\n", p->help ? " — " : "", p->help ? p->help : "");
        }
    }
    gb_backend_set set;
    gb_backend_options opt = {0};
    gb_err e;
    gb_backends_init(&set, NULL, &opt, &e);
    printf("backends:\n");
    for (int i = 0; i < set.count; i++) {
        const gb_backend_slot *s = &set.slot[i];
        printf("  %-12s %s", s->name, s->available ? "available" : "unavailable");
        if (!s->available) printf(": %s", s->reason);
        if (s->available) {
            printf(" (timings:");
            for (int t = 0; t < s->b->ntimings; t++) printf(" %s", s->b->timings[t]);
            printf(")");
        }
        printf("\n");
    }
    gb_backends_shutdown(&set);
    return GB_EXIT_OK;
}
