/* commands.h — one function per subcommand; argv[0] is the subcommand name.
 * Each parses its own flags with getopt_long, has --help, and returns the
 * process exit code: 0 success, 1 a check failed (verification, regression),
 * 2 usage or input error. */
#ifndef GB_COMMANDS_H
#define GB_COMMANDS_H
#include <stdio.h>
#include <cjson/cJSON.h>
#include "backends.h"
enum { GB_EXIT_OK = 0, GB_EXIT_CHECK = 1, GB_EXIT_USAGE = 2,
       GB_EXIT_NO_GPU = 3 /* run --require-gpu: no device measured (run_require_gpu.h) */ };

/* The whole command line as main() received it (provenance, re-exec). */
extern int gb_full_argc;
extern char **gb_full_argv;

/* A whole decimal number in [lo, hi] (a flag's value): 0, or -1 when s is
 * anything else. */
int gb_cli_parse_int(const char *s, long lo, long hi, long *out);
/* What getopt_long (opterr off: main.c) refused, in one line with the
 * command and where help is, instead of the whole usage:
 *   gpubench run: unrecognized option '--bogus' (see gpubench run --help)
 * argc/argv and optstring as given to getopt_long; returns GB_EXIT_USAGE. */
int gb_cli_bad_option(const char *command, int argc, char *const *argv, const char *optstring);
/* A warning, "WARNING: text", as every command prints one: wrapped to 100
 * columns (continuations indented) when out is a terminal, one line when it
 * is piped (a log, grep). */
void gb_cli_warning(FILE *out, const char *text);
/* getopt_long for every command, with one addition: a command line
 * holding --gpubench-options prints the command's option table, a line an
 * option ("--name<TAB>none|required|optional", then "-x<TAB>..." for each
 * short option of shorts) and ends the process with 0. What the man page and
 * the shell completions are generated from (scripts/dev/gen-man.sh), so they
 * list the options the command takes, not a copy of them. */
struct option;
int gb_cli_getopt(int argc, char *const argv[], const char *shorts, const struct option *opts);
/* A positive duration with its unit (a flag's value): "1s", "500ms",
 * "250us", "2min"; 0 with *seconds set, or -1 (no unit, unknown unit, not a
 * positive number). A bare number is refused: "--max-time 5" could mean
 * seconds or milliseconds, and a wrong guess costs hours or all precision. */
int gb_cli_parse_duration(const char *s, double *seconds);
/* The backends' own options, for the commands that measure or describe the
 * machine (run, peak, info): they append gb_backend_options_getopt's to their
 * getopt table and hand each option getopt returns here first: -1 when ch
 * is not a backend's option, else an exit code (GB_EXIT_USAGE after printing
 * why). */
int gb_cli_backend_option(const char *command, int ch, const char *value);
/* The backends' honest process settings, with the options given (the CPU's:
 * the OpenBLAS core, OpenMP's wait policy), before anything else. May
 * re-execute the process, once. Returns an exit code: GB_EXIT_OK, or
 * GB_EXIT_USAGE after printing why. */
int gb_cli_setup_process(const char *command);
/* Every warning about this process and machine: each backend's own check
 * (OpenBLAS core, threads, OpenMP policy) and the generic ones (threads,
 * governor, load). Returns the count. */
int gb_cli_checks(const gb_backend_set *set, const cJSON *context, cJSON *warnings);

int gb_cmd_run(int argc, char **argv);
int gb_cmd_list(int argc, char **argv);
int gb_cmd_info(int argc, char **argv);
int gb_cmd_validate(int argc, char **argv);
int gb_cmd_report(int argc, char **argv);
int gb_cmd_compare(int argc, char **argv);
int gb_cmd_merge(int argc, char **argv);
int gb_cmd_peak(int argc, char **argv);
int gb_cmd_export(int argc, char **argv);
int gb_cmd_slurm(int argc, char **argv);
int gb_cmd_history(int argc, char **argv);
/* run --history: add the results file at path to the history db ("": the
 * default); path NULL: the run was not written to a file, or was stopped,
 * and is not added (said on stderr). Returns an exit code. */
int gb_cli_history_add_run(const char *db, const char *path);
/* run --history, before the run: can db ("": the default) be opened (or
 * made) as a history? GB_EXIT_OK, or GB_EXIT_USAGE after saying why. */
int gb_cli_history_ready(const char *db);
#endif
