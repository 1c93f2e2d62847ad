/* cmd_list.c — `gpubench list`: ops, suites and backends of this build,
 * within 100 columns (a line an op, its params below it, each wrapped). */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "commands.h"
#include "data_files.h"
#include "op.h"
#include "report.h"
#include "report_table.h"

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The suites `gpubench run NAME` finds from any directory (data_files.h):
 * their names, in order, and where they are. */
static void print_suites(void) {
    char dir[4096];
    gb_err e = {{0}};
    printf("suites:\n");
    if (gb_data_folder_find(NULL, "suites", dir, sizeof dir, &e) != GB_OK) {
        printf("  none found: ");
        gb_wrap_text(stdout, e.msg, GB_REPORT_COLUMNS, 14, 4);
        printf("\n");
        return;
    }
    DIR *d = opendir(dir);
    char *names[256];
    size_t n = 0;
    for (struct dirent *ent; d && (ent = readdir(d)) && n < sizeof names / sizeof *names;) {
        size_t len = strlen(ent->d_name);
        if (len > 5 && !strcmp(ent->d_name + len - 5, ".json") && ent->d_name[0] != '.')
            if ((names[n] = strndup(ent->d_name, len - 5))) n++;
    }
    if (d) closedir(d);
    qsort(names, n, sizeof *names, by_name);
    char line[4096];
    size_t len = 0;
    line[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        len += (size_t)snprintf(line + len, len < sizeof line ? sizeof line - len : 0, "%s%s", i ? " " : "", names[i]);
        free(names[i]);
    }
    printf("  ");
    gb_wrap_text(stdout, line, GB_REPORT_COLUMNS, 2, 2);
    printf("\n  (in %s: `gpubench run NAME` runs one from any directory)\n", dir);
}

int gb_cmd_list(int argc, char **argv) {
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch;
    optind = 1;
    while ((ch = gb_cli_getopt(argc, argv, "h", opts)) != -1) {
        if (ch == 'h') {
            printf("usage: gpubench list\n\nThe ops of the catalogue (with their params), the suites `gpubench run\n"
                   "NAME` finds by name, and the backends of this build, each available or not with the\n"
                   "reason.\n");
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
        printf("  %-14s ", op->name);
        gb_wrap_text(stdout, op->summary, GB_REPORT_COLUMNS, 17, 17);
        printf("\n");
        for (const gb_param_spec *p = op->params; p && p->key; p++) {
            char text[1024];
            size_t len = (size_t)snprintf(text, sizeof text, "param %s: ", p->key);
            if (p->type == GB_PARAM_ENUM)
                for (int k = 0; p->values[k]; k++)
                    len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", k ? "|" : "", p->values[k]);
            else if (p->type == GB_PARAM_BOOL) len += (size_t)snprintf(text + len, sizeof text - len, "true|false");
            else len += (size_t)snprintf(text + len, sizeof text - len, "%g..%g", p->min, p->max);
            if (p->help && len < sizeof text) snprintf(text + len, sizeof text - len, " — %s", p->help);
            printf("%19s", "");
            gb_wrap_text(stdout, text, GB_REPORT_COLUMNS, 19, 23);
            printf("\n");
        }
    }
    print_suites();
    gb_backend_set set;
    gb_backend_options opt = {0};
    gb_err e;
    gb_backends_init(&set, NULL, &opt, &e);
    printf("backends:\n");
    for (int i = 0; i < set.count; i++) {
        const gb_backend_slot *s = &set.slot[i];
        char line[GB_MSG_LEN + 64];
        size_t len = (size_t)snprintf(line, sizeof line, "%s", s->available ? "available" : "unavailable");
        if (!s->available) snprintf(line + len, sizeof line - len, ": %s", s->reason);
        else {
            len += (size_t)snprintf(line + len, sizeof line - len, " (timings:");
            for (int t = 0; t < s->b->ntimings && len < sizeof line; t++)
                len += (size_t)snprintf(line + len, sizeof line - len, " %s", s->b->timings[t]);
            if (len < sizeof line) snprintf(line + len, sizeof line - len, ")");
        }
        printf("  %-12s ", s->name); /* a long reason (a plugin's path) wraps under its line */
        gb_wrap_text(stdout, line, GB_REPORT_COLUMNS, 15, 15);
        printf("\n");
    }
    gb_backends_shutdown(&set);
    return GB_EXIT_OK;
}
