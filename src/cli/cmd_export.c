/* cmd_export.c — `gpubench export RESULTS.json --format gbench|benchmark-action`. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "export.h"
#include "file_roles.h"
#include "results_io.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gpubench export RESULTS.json --format gbench|benchmark-action [-o FILE]\n"
            "\n"
            "  -f, --format F   gbench: Google Benchmark JSON (one repetition per sample, for\n"
            "                   benchmark/tools/compare.py); benchmark-action: the\n"
            "                   customSmallerIsBetter list of github-action-benchmark\n"
            "  -o, --output F   write there (atomically) instead of standard output\n"
            "  -h, --help\n");
}

int gb_cmd_export(int argc, char **argv) {
    static const struct option opts[] = {{"format", required_argument, 0, 'f'},
                                         {"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *format = NULL, *output = "-";
    optind = 1;
    int c;
    while ((c = gb_cli_getopt(argc, argv, "f:o:h", opts)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'o': output = optarg; break;
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: return gb_cli_bad_option("export", argc, argv, "f:o:h");
        }
    }
    if (argc - optind != 1 || !format) {
        fprintf(stderr, "gpubench export: expected one RESULTS.json and --format\n");
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    int gbench = strcmp(format, "gbench") == 0;
    if (!gbench && strcmp(format, "benchmark-action") != 0) {
        fprintf(stderr, "gpubench export: --format: expected gbench or benchmark-action, got '%s'\n", format);
        return GB_EXIT_USAGE;
    }
    gb_err e = {{0}};
    gb_file_roles roles = {0};
    gb_roles_input(&roles, "the results file", argv[optind]);
    gb_roles_output(&roles, "-o", output);
    if (gb_roles_check(&roles, &e) != GB_OK || gb_output_check(output, &e) != GB_OK) {
        fprintf(stderr, "gpubench export: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    int rc = gb_export_file(argv[optind], gbench ? GB_EXPORT_GBENCH : GB_EXPORT_BENCHMARK_ACTION, output, &e);
    if (rc != GB_OK) {
        fprintf(stderr, "gpubench export: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}
