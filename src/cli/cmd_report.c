/* cmd_report.c — `gpubench report RESULTS.json`: re-render a saved run. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "file_roles.h"
#include "fleet.h"
#include "plot.h"
#include "report.h"
#include "results_io.h"
#include "writer.h"
#include "results_model.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: gpubench report RESULTS.json [MORE.json ...] [--format table|md|csv|html] [--op NAME,...]\n"
            "                       [--wide] [-o FILE] [--plot DIR [--plot-format png|svg]]\n"
            "       gpubench report CPU_RESULTS.json GPU_RESULTS.json --pair [options]\n"
            "       gpubench report --fleet RESULTS.json... [--format table|md|csv|html|json] [--op LIST]\n"
            "                       [-o FILE] [--timing NAME] [--threshold PCT]\n"
            "                       [--plot DIR [--plot-format png|svg]]\n\n"
            "Re-render a saved run (the results JSON written by `gpubench run`); several files one\n"
            "after another, their plots overlaid.\n\n"
            "  -f, --format FMT    table (terminal, default), md (GitHub Markdown), csv (one row per\n"
            "                      case, then one per crossover), html (a self-contained page)\n"
            "      --op LIST       only these ops (comma-separated: matmul,fft)\n"
            "  -w, --wide          table: every column (by default a table keeps to 100 columns,\n"
            "                      leaving out %% of peak, rates, then the end-to-end time)\n"
            "  -o, --output FILE   write the report to FILE instead of standard output\n"
            "      --pair          two files from two machines: the first file's CPU against the\n"
            "                      second file's GPU, case by case (same op, dtype, shape, params),\n"
            "                      with the speedup between them\n"
            "  -p, --plot DIR      also draw the plots into DIR (scripts/plot.py: Python 3 + matplotlib);\n"
            "                      several files are drawn overlaid, each run its own series\n"
            "      --plot-format F png (default) or svg\n"
            "      --fleet         the fleet report: one row per case, one column per node or GPU\n"
            "                      (each run and device of a merged file, or of several files), each\n"
            "                      cell relative to the case's median column, slow ones flagged with\n"
            "                      compare's statistics; --plot draws the heatmap (fleet.png)\n"
            "      --timing NAME   fleet: which timing (default: device where measured, else host)\n"
            "      --threshold P   fleet: smallest difference called slow (default 5%%)\n"
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

/* Before anything is read or written: no output is an input or another
 * output (file_roles.h), and -o can be written. */
static int check_files(char **paths, int n, const char *output, const char *plot_dir, const char *fleet_json, gb_err *e) {
    gb_file_roles roles = {0};
    for (int i = 0; i < n; i++) gb_roles_input(&roles, "the results file", paths[i]);
    gb_roles_output(&roles, "-o", output);
    gb_roles_output_dir(&roles, "--plot", plot_dir);
    gb_roles_output(&roles, "the file --plot writes", fleet_json);
    if (gb_roles_check(&roles, e) != GB_OK) return GB_FAIL;
    return output ? gb_output_check(output, e) : GB_OK;
}

/* `report --fleet FILE...`: every file loaded, the fleet document built,
 * rendered, and with --plot written next to the heatmap it feeds. */
static int fleet_report(char **paths, int n, const char *format, const gb_fleet_options *fo, const char *output,
                        const char *plot_dir, const char *plot_format) {
    /* a writer (table, md, csv, html), or NULL: the JSON document */
    const gb_writer *w = gb_writer_find(format ? format : "table");
    if (!w && strcmp(format, "json") != 0) {
        fprintf(stderr, "gpubench report: --format: \"%s\" is not a fleet format (table, md, csv, html or json)\n",
                format);
        return GB_EXIT_USAGE;
    }
    char fleet_json[4096];
    snprintf(fleet_json, sizeof fleet_json, "%s/fleet.json", plot_dir ? plot_dir : ".");
    gb_err e = {{0}};
    if (check_files(paths, n, output, plot_dir, plot_dir ? fleet_json : NULL, &e) != GB_OK) {
        fprintf(stderr, "gpubench report: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    gb_results *docs = calloc((size_t)n, sizeof *docs);
    const gb_results **dp = calloc((size_t)n, sizeof *dp);
    int rc = GB_EXIT_USAGE, loaded = 0;
    gb_fleet_result *fleet = NULL;
    if (!docs || !dp) {
        fprintf(stderr, "gpubench report: out of memory\n");
        goto out;
    }
    for (; loaded < n; loaded++) {
        if (gb_results_load(paths[loaded], &docs[loaded], &e) != GB_OK) {
            fprintf(stderr, "gpubench report: %s\n", e.msg);
            goto out;
        }
        dp[loaded] = &docs[loaded];
    }
    if (!(fleet = gb_fleet_judge(dp, (const char *const *)paths, (size_t)n, fo, &e))) {
        fprintf(stderr, "gpubench report: --fleet: %s\n", e.msg);
        goto out;
    }
    /* -o FILE: rendered in memory and written by the one writer, as below */
    char *report = NULL;
    size_t report_len = 0;
    FILE *to = output ? open_memstream(&report, &report_len) : stdout;
    if (!to) {
        fprintf(stderr, "gpubench report: out of memory\n");
        goto out;
    }
    if (w) gb_fleet_render_result(fleet, w, to);
    else gb_fleet_print_json(fleet, to);
    int failed = fflush(to) != 0 || (output && fclose(to) != 0);
    if (!failed && output && gb_file_write(output, report, report_len, &e) != GB_OK) {
        fprintf(stderr, "gpubench report: %s\n", e.msg);
        failed = 1;
    } else if (failed) {
        fprintf(stderr, "gpubench report: writing the report to %s failed\n", output ? output : "standard output");
    }
    free(report);
    if (failed) goto out;
    rc = GB_EXIT_OK;
    if (plot_dir) {
        /* plot.py draws the heatmap from the fleet document itself, so the
         * picture shows exactly the numbers and flags of the table. */
        const char *path = fleet_json;
        cJSON *json = gb_fleet_result_json(fleet);
        char *text = json ? cJSON_Print(json) : NULL;
        cJSON_Delete(json);
        if (mkdir(plot_dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "gpubench report: --plot: cannot create %s: %s\n", plot_dir, strerror(errno));
            rc = GB_EXIT_USAGE;
        } else if (!text || gb_file_write(path, text, strlen(text), &e) != GB_OK) {
            fprintf(stderr, "gpubench report: --plot: %s\n", text ? e.msg : "out of memory");
            rc = GB_EXIT_USAGE;
        } else if (gb_plot_run(path, plot_dir, plot_format, NULL, &e) != GB_OK) {
            fprintf(stderr, "gpubench report: --plot: %s\n", e.msg);
            rc = GB_EXIT_USAGE;
        } else {
            fprintf(stderr, "plots: %s/fleet.%s\n", plot_dir, plot_format);
        }
        free(text);
    }
out:
    gb_fleet_result_free(fleet);
    for (int i = 0; i < loaded; i++) gb_results_free(&docs[i]);
    free(docs);
    free(dp);
    return rc;
}

int gb_cmd_report(int argc, char **argv) {
    enum { OPT_OP = 256, OPT_PLOT_FORMAT, OPT_PAIR };
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"op", required_argument, NULL, OPT_OP},
        {"plot", required_argument, NULL, 'p'},   {"plot-format", required_argument, NULL, OPT_PLOT_FORMAT},
        {"wide", no_argument, NULL, 'w'},         {"output", required_argument, NULL, 'o'},
        {"pair", no_argument, NULL, OPT_PAIR},    {"fleet", no_argument, NULL, 'F'},
        {"timing", required_argument, NULL, 'T'}, {"threshold", required_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    int fleet = 0;
    const char *format = NULL;
    gb_fleet_options fo = GB_FLEET_DEFAULT_OPTIONS;
    gb_report_options o = {.format = GB_FMT_TABLE, .ops = NULL, .color = 0};
    const char *plot_dir = NULL, *plot_format = "png", *output = NULL;
    int pair = 0;
    optind = 0; /* glibc: full re-initialisation, so the command can run twice in one process */
    int ch;
    while ((ch = gb_cli_getopt(argc, argv, "f:o:p:wh", longopts)) != -1) {
        switch (ch) {
        case 'F': fleet = 1; break;
        case 'T': fo.timing = optarg; break;
        case 'R': {
            char why[256];
            if (gb_parse_percent(optarg, &fo.rule.threshold, why, sizeof why) != 0) {
                fprintf(stderr, "gpubench report: --threshold: %s\n", why);
                return GB_EXIT_USAGE;
            }
            break;
        }
        case 'f': format = optarg; break; /* checked once --fleet is known */
        case OPT_OP: o.ops = optarg; break;
        case 'o': output = optarg; break;
        case 'w': o.wide = 1; break;
        case OPT_PAIR: pair = 1; break;
        case 'p': plot_dir = optarg; break;
        case OPT_PLOT_FORMAT:
            if (strcmp(optarg, "png") && strcmp(optarg, "svg")) {
                fprintf(stderr, "gpubench report: --plot-format: \"%s\" is not png or svg\n", optarg);
                return GB_EXIT_USAGE;
            }
            plot_format = optarg;
            break;
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: return gb_cli_bad_option("report", argc, argv, "f:o:p:wh");
        }
    }
    if (fleet) {
        fo.ops = o.ops;
        if (optind >= argc) {
            fprintf(stderr, "gpubench report: --fleet: expected one or more results files\n");
            return GB_EXIT_USAGE;
        }
        return fleet_report(argv + optind, argc - optind, format, &fo, output, plot_dir, plot_format);
    }
    if (format) {
        int f = gb_format_parse(format);
        if (f < 0) {
            fprintf(stderr, "gpubench report: --format: unknown format \"%s\" (table, md, csv or html; json with --fleet)\n",
                    format);
            return GB_EXIT_USAGE;
        }
        o.format = (gb_format)f;
    }
    int nfiles = argc - optind;
    if (nfiles < 1 || (pair && nfiles != 2)) {
        fprintf(stderr, "gpubench report: expected %s, got %d\n\n",
                pair ? "two results files with --pair (the CPU's, then the GPU's)" : "a results file", nfiles);
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    /* Every file loaded and checked before anything is written. */
    gb_err e = {{0}};
    if (check_files(argv + optind, nfiles, output, plot_dir, NULL, &e) != GB_OK) {
        fprintf(stderr, "gpubench report: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    gb_results *docs = calloc((size_t)nfiles, sizeof *docs);
    if (!docs) return GB_EXIT_USAGE;
    int loaded = 0, rc = GB_EXIT_OK;
    for (; loaded < nfiles && rc == GB_EXIT_OK; loaded++) {
        const char *path = argv[optind + loaded];
        if (gb_results_load(path, &docs[loaded], &e) != GB_OK) {
            fprintf(stderr, "gpubench report: %s\n", e.msg);
            rc = GB_EXIT_USAGE;
            break;
        }
        /* Recomputed, so a file from an older gpubench or a merge gets the
         * same crossover analysis as a fresh run. */
        if ((o.ops && check_ops(&docs[loaded], o.ops, path) != 0) || gb_crossover_update(&docs[loaded], &e) != GB_OK) {
            if (e.msg[0]) fprintf(stderr, "gpubench report: %s\n", e.msg);
            loaded++;
            rc = GB_EXIT_USAGE;
            break;
        }
    }
    /* -o FILE: rendered in memory, written by the one writer (results_io.h:
     * a temp file renamed into place) */
    char *text = NULL;
    size_t len = 0;
    FILE *out = rc == GB_EXIT_OK ? (output ? open_memstream(&text, &len) : stdout) : NULL;
    if (rc == GB_EXIT_OK && !out) {
        fprintf(stderr, "gpubench report: out of memory\n");
        rc = GB_EXIT_USAGE;
    }
    if (out) {
        o.color = o.format == GB_FMT_TABLE && gb_report_want_color(out);
        if (pair) {
            if (gb_report_pair(&docs[0], argv[optind], &docs[1], argv[optind + 1], &o, out) != 0) rc = GB_EXIT_USAGE;
        } else {
            /* several files without --pair: each report in turn */
            for (int i = 0; i < nfiles && rc == GB_EXIT_OK; i++) {
                if (i && o.format == GB_FMT_TABLE) fputs("\n", out);
                if (gb_report_render(&docs[i], &o, out) != 0) rc = GB_EXIT_USAGE;
            }
        }
        if (fflush(out) != 0) rc = GB_EXIT_USAGE;
        if (output && fclose(out) != 0) rc = GB_EXIT_USAGE;
        if (rc == GB_EXIT_OK && output && gb_file_write(output, text, len, &e) != GB_OK) {
            fprintf(stderr, "gpubench report: %s\n", e.msg);
            rc = GB_EXIT_USAGE;
        } else if (rc != GB_EXIT_OK) {
            fprintf(stderr, "gpubench report: writing the report to %s failed\n", output ? output : "standard output");
        }
    }
    free(text);
    for (int i = 0; i < loaded; i++) gb_results_free(&docs[i]);
    free(docs);
    if (rc == GB_EXIT_OK && plot_dir) {
        /* several files: drawn overlaid, each run its own series */
        int st = gb_plot_run_many((const char *const *)&argv[optind], (size_t)nfiles, plot_dir, plot_format, o.ops, &e);
        if (st != GB_OK) {
            fprintf(stderr, "gpubench report: --plot: %s\n", e.msg);
            rc = GB_EXIT_USAGE;
        } else {
            fprintf(stderr, "plots: %s\n", plot_dir);
        }
    }
    return rc;
}
