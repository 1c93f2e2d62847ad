/* cmd_report.c — `gpubench report RESULTS.json`: re-render a saved run. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "plot.h"
#include "report.h"
#include "results_model.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: gpubench report RESULTS.json [--format table|md|csv|html] [--op NAME,...]\n"
            "                       [--plot DIR [--plot-format png|svg]]\n\n"
            "Re-render a saved run (the results JSON written by `gpubench run`).\n\n"
            "  -f, --format FMT    table (terminal, default), md (GitHub Markdown), csv (one row per\n"
            "                      case, then one per crossover), html (a self-contained page)\n"
            "  -o, --op LIST       only these ops (comma-separated: matmul,fft)\n"
            "  -p, --plot DIR      also draw the plots into DIR (scripts/plot.py: Python 3 + matplotlib)\n"
            "      --plot-format F png (default) or svg\n"
            "  -h, --help          this help\n\n"
            "Tables: one per op; medians in ms with ± half the 95%% confidence interval of the\n"
            "median; speedup = CPU median / GPU median; rates with %% of the measured peak; then the\n"
            "crossover: where along each size sweep the GPU wins and where the CPU does, every\n"
            "change of winner named. Colour only on a terminal without NO_COLOR.\n"
            "See docs/reports.md.\n\n"
            "exit: 0 rendered, 2 usage error or unreadable / invalid results file\n");
}

/* Every name in the --op list must be an op of the file: a typo would
 * otherwise print an empty report and look like a result. */
static int check_ops(const gb_results *doc, const char *ops, const char *path) {
    char *copy = strdup(ops);
    if (!copy) return -1;
    int bad = 0;
    for (char *save = NULL, *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (size_t i = 0; i < doc->ncases && !found; i++) found = !strcmp(doc->cases[i].op, name);
        if (!found) {
            char have[512] = "";
            for (size_t i = 0; i < doc->ncases; i++) {
                const char *op = doc->cases[i].op;
                int seen = 0;
                for (size_t j = 0; j < i && !seen; j++) seen = !strcmp(doc->cases[j].op, op);
                size_t l = strlen(have);
                if (!seen && l + 80 < sizeof have) snprintf(have + l, sizeof have - l, "%s%s", l ? ", " : "", op);
            }
            fprintf(stderr, "gpubench report: %s has no cases of op \"%s\" (it has: %s)\n", path, name,
                    *have ? have : "none");
            bad = 1;
        }
    }
    free(copy);
    return bad ? -1 : 0;
}

int gb_cmd_report(int argc, char **argv) {
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"op", required_argument, NULL, 'o'},
        {"plot", required_argument, NULL, 'p'},   {"plot-format", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    gb_report_options o = {.format = GB_FMT_TABLE, .ops = NULL, .color = 0};
    const char *plot_dir = NULL, *plot_format = "png";
    optind = 0; /* glibc: full re-initialisation, so the command can run twice in one process */
    int ch;
    while ((ch = getopt_long(argc, argv, "f:o:p:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'f': {
            int f = gb_format_parse(optarg);
            if (f < 0) {
                fprintf(stderr, "gpubench report: --format: unknown format \"%s\" (table, md, csv or html)\n",
                        optarg);
                return GB_EXIT_USAGE;
            }
            o.format = (gb_format)f;
            break;
        }
        case 'o': o.ops = optarg; break;
        case 'p': plot_dir = optarg; break;
        case 'P':
            if (strcmp(optarg, "png") && strcmp(optarg, "svg")) {
                fprintf(stderr, "gpubench report: --plot-format: \"%s\" is not png or svg\n", optarg);
                return GB_EXIT_USAGE;
            }
            plot_format = optarg;
            break;
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: usage(stderr); return GB_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "gpubench report: expected one results file, got %d\n\n", argc - optind);
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    const char *path = argv[optind];
    gb_results doc;
    gb_err e = {{0}};
    if (gb_results_load(path, &doc, &e) != GB_OK) {
        fprintf(stderr, "gpubench report: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    if (o.ops && check_ops(&doc, o.ops, path) != 0) {
        gb_results_free(&doc);
        return GB_EXIT_USAGE;
    }
    /* Recomputed, so a file from an older gpubench or a merge gets the same
     * crossover analysis as a fresh run. */
    if (gb_crossover_update(&doc, &e) != GB_OK) {
        fprintf(stderr, "gpubench report: %s\n", e.msg);
        gb_results_free(&doc);
        return GB_EXIT_USAGE;
    }
    o.color = o.format == GB_FMT_TABLE && gb_report_want_color(stdout);
    int rc = gb_report_render(&doc, &o, stdout) == 0 ? GB_EXIT_OK : GB_EXIT_USAGE;
    fflush(stdout);
    if (rc != GB_EXIT_OK) fprintf(stderr, "gpubench report: writing the report failed\n");
    gb_results_free(&doc);
    if (rc == GB_EXIT_OK && plot_dir) {
        int st = gb_plot_run(path, plot_dir, plot_format, o.ops, &e);
        if (st != GB_OK) {
            fprintf(stderr, "gpubench report: --plot: %s\n", e.msg);
            rc = GB_EXIT_USAGE;
        } else {
            fprintf(stderr, "plots: %s\n", plot_dir);
        }
    }
    return rc;
}
