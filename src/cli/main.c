/* main.c — dispatch to a subcommand (src/cmd_*.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "gb.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"run", gb_cmd_run, "run a suite (or --op OP --sizes N,... without one) on the CPU and GPU, write results JSON"},
    {"list", gb_cmd_list, "list the ops and the backends of this build (available or why not)"},
    {"info", gb_cmd_info, "describe this system: CPU, ISA, memory, GPU, library versions, build"},
    {"validate", gb_cmd_validate, "check a suite file without running it"},
    {"peak", gb_cmd_peak, "measure this machine's ceilings (memory bandwidth, GEMM, transfers)"},
    {"report", gb_cmd_report, "re-render saved results (table, md, csv, html); --pair: one CPU against another GPU"},
    {"compare", gb_cmd_compare, "compare two results files and flag regressions (for CI)"},
    {"merge", gb_cmd_merge, "merge several results files into one"},
    {"export", gb_cmd_export, "export results to Google Benchmark or benchmark-action JSON"},
    {"slurm", gb_cmd_slurm, "write (and submit) a SLURM job array running a suite on many nodes"},
};

static void usage(FILE *out) {
    fprintf(out,
            "gpubench %s — honest CPU-vs-GPU benchmarks\n\n"
            "usage: gpubench COMMAND [options]    (gpubench COMMAND --help for its options)\n\n"
            "commands:\n",
            GB_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nexit codes: 0 success, 1 a check failed (verification, regression), "
                 "2 usage or input error\n");
}

int main(int argc, char **argv) {
    /* Keep the command line as typed: getopt_long permutes argv in place. */
    static char *original[1024];
    gb_full_argc = argc < 1023 ? argc : 1023;
    for (int i = 0; i < gb_full_argc; i++) original[i] = argv[i];
    original[gb_full_argc] = NULL;
    gb_full_argv = original;
    if (argc < 2) {
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return GB_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("gpubench %s\n", GB_VERSION);
        return GB_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "gpubench: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return GB_EXIT_USAGE;
}
