/* cmd_merge.c — `gpubench merge A.json B.json ... -o all.json`: the options,
 * reading the inputs and writing the output; how runs and cases are combined
 * is results/merge.h. Inputs are read, and the output written, through the
 * results model: a broken input is refused with its file and the JSON path
 * of what is wrong — or, with --allow-missing (the SLURM merge job: a failed
 * node is normal on a cluster), left out with the reason in the merged
 * file's warnings. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "file_roles.h"
#include "gb.h"
#include "results_io.h"
#include "merge.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gpubench merge A.json B.json ... -o all.json [--name NAME ...] [--allow-missing]\n"
            "                      [--note TEXT ...] [--verbose]\n"
            "\n"
            "  -o, --output FILE   merged results file (written atomically; '-' = stdout)\n"
            "  -n, --name NAME     name of the next input's run (default: its hostname);\n"
            "                      repeat once per input, in order\n"
            "      --allow-missing an input that is missing or not a valid results file is\n"
            "                      left out with a warning (kept in the merged file's warnings)\n"
            "                      instead of failing the merge: a cluster job where some nodes\n"
            "                      failed still merges the others; exit 2 only when none is left\n"
            "      --note TEXT     add TEXT to the merged file's warnings (repeatable): what the\n"
            "                      SLURM merge job knows about a failed task (gpubench slurm)\n"
            "  -v, --verbose       also name each repeated case that a later input replaced\n"
            "                      (by default one line per run says how many)\n"
            "  -h, --help\n");
}

/* Print the merged file's warnings from index `from` on (the repeats an
 * input replaced), as they are added. */
static void print_warnings(const gb_results *out, size_t from) {
    for (size_t i = from; i < out->warnings.n; i++) fprintf(stderr, "gpubench merge: warning: %s\n", out->warnings.item[i]);
}

int gb_cmd_merge(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"name", required_argument, 0, 'n'},
                                         {"allow-missing", no_argument, 0, 'A'},
                                         {"note", required_argument, 0, 'N'},
                                         {"verbose", no_argument, 0, 'v'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *output = NULL;
    const char *names[256], *notes[256];
    int nnames = 0, nnotes = 0, allow_missing = 0, verbose = 0;
    optind = 1;
    int c;
    while ((c = gb_cli_getopt(argc, argv, "o:n:vh", opts)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'n':
            if (nnames < 256) names[nnames++] = optarg;
            break;
        case 'A': allow_missing = 1; break;
        case 'v': verbose = 1; break;
        case 'N':
            if (nnotes == 256) {
                fprintf(stderr, "gpubench merge: more than 256 --note\n");
                return GB_EXIT_USAGE;
            }
            notes[nnotes++] = optarg;
            break;
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: return gb_cli_bad_option("merge", argc, argv, "o:n:h");
        }
    }
    int ninputs = argc - optind;
    if (ninputs < 1 || !output) {
        fprintf(stderr, "gpubench merge: expected input files and -o OUTPUT\n");
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    if (nnames > ninputs) {
        fprintf(stderr, "gpubench merge: %d --name for %d inputs\n", nnames, ninputs);
        return GB_EXIT_USAGE;
    }

    gb_err e = {{0}};
    gb_file_roles roles = {0};
    for (int i = optind; i < argc; i++) gb_roles_input(&roles, "the input", argv[i]);
    gb_roles_output(&roles, "-o", output);
    /* before reading (maybe many) inputs */
    if (gb_roles_check(&roles, &e) != GB_OK || gb_output_check(output, &e) != GB_OK) {
        fprintf(stderr, "gpubench merge: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    int rc = GB_EXIT_USAGE;
    gb_merge m;
    if (gb_merge_init(&m, output, &e) != GB_OK) {
        fprintf(stderr, "gpubench merge: out of memory\n");
        goto out;
    }
    gb_results *out = &m.out;
    int left_out = 0;
    for (int in = 0; in < ninputs; in++) {
        const char *path = argv[optind + in];
        gb_results doc;
        int st = gb_results_load(path, &doc, &e);
        if (st != GB_OK && allow_missing) {
            /* the load message starts with the path and says why */
            char line[GB_MSG_LEN + 32];
            snprintf(line, sizeof line, "not merged: %s", e.msg);
            fprintf(stderr, "gpubench merge: warning: %s\n", line);
            left_out++;
            if (gb_merge_warn(&m, line, &e) != GB_OK) {
                fprintf(stderr, "gpubench merge: %s\n", e.msg);
                goto out;
            }
            continue;
        }
        size_t warned = out->warnings.n, detailed = m.details.n;
        if (st == GB_OK) st = gb_merge_add(&m, &doc, path, in < nnames ? names[in] : NULL, &e);
        for (size_t i = detailed; verbose && i < m.details.n; i++)
            fprintf(stderr, "gpubench merge: replaced: %s\n", m.details.item[i]);
        print_warnings(out, warned);
        gb_results_free(&doc);
        if (st != GB_OK) {
            fprintf(stderr, "gpubench merge: %s\n", e.msg);
            goto out;
        }
    }
    gb_merge_finish(&m);
    if (left_out == ninputs) {
        fprintf(stderr, "gpubench merge: none of the %d input%s could be merged; nothing written\n", ninputs,
                ninputs == 1 ? "" : "s");
        goto out;
    }
    for (int i = 0; i < nnotes; i++) {
        fprintf(stderr, "gpubench merge: note: %s\n", notes[i]);
        if (gb_merge_warn(&m, notes[i], &e) != GB_OK) {
            fprintf(stderr, "gpubench merge: %s\n", e.msg);
            goto out;
        }
    }
    gb_results_summarize(out); /* over what was kept */
    if (gb_results_write(out, output, 0, &e) != GB_OK) {
        fprintf(stderr, "gpubench merge: %s\n", e.msg);
        goto out;
    }
    if (strcmp(output, "-") != 0)
        fprintf(stderr, "gpubench merge: %zu run%s, %zu cases -> %s\n", out->nruns, out->nruns == 1 ? "" : "s",
                out->ncases, output);
    rc = GB_EXIT_OK;
out:
    gb_merge_free(&m);
    return rc;
}
