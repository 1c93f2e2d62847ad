/* cmd_report.c — `gpubench report RESULTS.json`: re-render a saved run. */
#include <errno.h>
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
            "usage: gpubench report RESULTS.json [--format table|md|csv|html] [--op NAME,...] [--wide]\n"
            "                       [-o FILE] [--plot DIR [--plot-format png|svg]]\n\n"
            "Re-render a saved run (the results JSON written by `gpubench run`).\n\n"
            "  -f, --format FMT    table (terminal, default), md (GitHub Markdown), csv (one row per\n"
            "                      case, then one per crossover), html (a self-contained page)\n"
            "      --op LIST       only these ops (comma-separated: matmul,fft)\n"
            "  -w, --wide          table: every column (by default a table keeps to 100 columns,\n"
            "                      leaving out %% of peak, rates, then the end-to-end time)\n"
            "  -o, --output FILE   write the report to FILE instead of standard output\n"
            "  -p, --plot DIR      also draw the plots into DIR (scripts/plot.py: Python 3 + matplotlib)\n"
            "      --plot-format F png (default) or svg\n"
            "  -h, --help          this help\n\n"
            "Tables: one per op; medians in ms with the 95%% confidence interval of the median\n"
            "([low, high], or +a%%/-b%% of the median in a 100-column table); speedup = CPU median /\n"
            "GPU median; rates with %% of the measured peak; then the\n"
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
    enum { OPT_OP = 256, OPT_PLOT_FORMAT };
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"op", required_argument, NULL, OPT_OP},
        {"plot", required_argument, NULL, 'p'},   {"plot-format", required_argument, NULL, OPT_PLOT_FORMAT},
        {"wide", no_argument, NULL, 'w'},         {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    gb_report_options o = {.format = GB_FMT_TABLE, .ops = NULL, .color = 0};
    const char *plot_dir = NULL, *plot_format = "png", *output = NULL;
    optind = 0; /* glibc: full re-initialisation, so the command can run twice in one process */
    int ch;
    while ((ch = getopt_long(argc, argv, "f:o:p:wh", longopts, NULL)) != -1) {
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
        case OPT_OP: o.ops = optarg; break;
        case 'o': output = optarg; break;
        case 'w': o.wide = 1; break;
        case 'p': plot_dir = optarg; break;
        case OPT_PLOT_FORMAT:
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
    FILE *out = output ? fopen(output, "w") : stdout;
    if (!out) {
        fprintf(stderr, "gpubench report: %s: cannot write: %s\n", output, strerror(errno));
        gb_results_free(&doc);
        return GB_EXIT_USAGE;
    }
    o.color = o.format == GB_FMT_TABLE && gb_report_want_color(out);
    int rc = gb_report_render(&doc, &o, out) == 0 ? GB_EXIT_OK : GB_EXIT_USAGE;
    if (fflush(out) != 0) rc = GB_EXIT_USAGE;
    if (output && fclose(out) != 0) rc = GB_EXIT_USAGE;
    if (rc != GB_EXIT_OK)
        fprintf(stderr, "gpubench report: writing the report to %s failed\n", output ? output : "standard output");
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
