/* main.c — dispatch to a subcommand (src/cmd_*.c); what every command shares
 * at its start (signals) and at its end (standard output flushed and
 * checked). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "confirm_run.h"
#include "gb.h"
#include "json_strict.h"
#include "output_lock.h"
#include "run_signals.h"
#include "results_io.h"
#include "sysinfo.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"run", gb_cmd_run, "run a suite (or --op OP --sizes N,... without one) on the CPU and GPU, write results JSON"},
    {"list", gb_cmd_list, "list the ops, the suites found by name and the backends of this build"},
    {"info", gb_cmd_info, "describe this system: CPU, ISA, memory, GPU, library versions, build"},
    {"validate", gb_cmd_validate, "check a suite file without running it"},
    {"peak", gb_cmd_peak, "measure this machine's ceilings (memory bandwidth, GEMM, transfers)"},
    {"report", gb_cmd_report, "re-render saved results (table, md, csv, html); --pair: one CPU against another GPU"},
    {"compare", gb_cmd_compare, "compare two results files and flag regressions (for CI)"},
    {"merge", gb_cmd_merge, "merge several results files into one"},
    {"export", gb_cmd_export, "export results to Google Benchmark or benchmark-action JSON"},
    {"history", gb_cmd_history, "keep runs in an SQLite history: trends, a dashboard, CI against the trend"},
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
                 "2 usage or input error or an output not written, 128+N stopped by signal N\n");
}

/* A command ended by a signal leaves no temp file and no lock file behind:
 * remove them, then end of the signal as before (the shell sees 128+N).
 * `run` replaces these handlers with its own: it stops in order and writes
 * what it measured (cmd_run.c). */
static void on_fatal_signal(int sig) {
    gb_confirm_stop_signal_safe(sig); /* compare --confirm's child and its directory */
    gb_output_remove_temp();
    gb_output_unlock_signal_safe();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signals(void) {
    /* Over `ulimit -f` a write then fails with EFBIG, which the writer
     * reports and cleans up after, instead of a silent death with a temp
     * file left. */
    signal(SIGXFSZ, SIG_IGN);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        /* nohup's SIGHUP stays ignored */
        if (sigs[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* Everything a command printed reached its destination: `report > /dev/full`
 * must not exit 0 with nothing written. A reader that went away (EPIPE) is
 * not an error to print: the command was told by SIGPIPE. */
static int finish_stdout(const char *cmd, int rc) {
    int err = fflush(stdout) != 0 ? errno : 0, failed = ferror(stdout) || err;
    if (fclose(stdout) != 0 && !err) err = errno, failed = 1;
    if (!failed) return rc;
    if (err == EPIPE) return rc != GB_EXIT_OK ? rc : 128 + SIGPIPE;
    /* a command that failed has said why; an error found only now is told */
    if (rc == GB_EXIT_OK || err)
        fprintf(stderr, "gpubench %s: cannot write standard output: %s\n", cmd,
                err ? strerror(err) : "a write to it failed");
    return rc != GB_EXIT_OK ? rc : GB_EXIT_USAGE;
}

/* Every argument is UTF-8 text: run records its whole command line in the
 * results (context.command_line), merge its inputs' paths and names, compare
 * and the fleet report their files' paths in their JSON, and a JSON reader
 * (Python's json.load, this gpubench's own) refuses what is not UTF-8. One
 * rule for every command: an argument that is not UTF-8 is refused before
 * anything is read or written. (What gpubench records from the machine,
 * not from the user — hostname, environment values, /proc — is written with
 * each bad byte replaced by '?': gb_json_scrub.) */
static int arguments_are_text(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        long at = gb_utf8_invalid_at(argv[i]);
        if (at < 0) continue;
        fprintf(stderr, "gpubench: argument %d is not UTF-8 text (byte %ld is 0x%02X): arguments are recorded in "
                        "JSON files, which hold UTF-8 only\n", i, at + 1, (unsigned char)argv[i][at]);
        return 0;
    }
    return 1;
}

static int dispatch(int argc, char **argv) {
    install_signals();
    opterr = 0; /* each command says what getopt refused in one line (gb_cli_bad_option) */
    if (!arguments_are_text(argc, argv)) return GB_EXIT_USAGE;
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
        return finish_stdout("--help", GB_EXIT_OK);
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        /* the commit and the compiler: which build a bug report is about */
        printf("gpubench %s (commit %s, %s)\n", GB_VERSION, gb_sysinfo_build_commit(), gb_sysinfo_build_compiler());
        return finish_stdout("--version", GB_EXIT_OK);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return finish_stdout(argv[1], commands[i].fn(argc - 1, argv + 1));
    fprintf(stderr, "gpubench: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return GB_EXIT_USAGE;
}

/* A command that has finished leaves at once, without the libraries' exit
 * handlers: under a tight memory limit (`ulimit -v`, a SLURM task's) the
 * OpenBLAS worker threads retry mmap forever, and OpenBLAS's shutdown joins
 * them, so a run that had written everything never exited. Every file is
 * written and closed by the command, standard output by finish_stdout;
 * what is left to flush is flushed here. Sanitized builds (GB_CHECKED_EXIT)
 * return normally, so that LeakSanitizer still checks at exit. */
int main(int argc, char **argv) {
    int rc = dispatch(argc, argv);
    gb_run_signals_leaving();
#ifndef GB_CHECKED_EXIT
    fflush(NULL);
    _exit(rc);
#endif
    return rc;
}
