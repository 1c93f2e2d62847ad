/* commands.h — one function per subcommand; argv[0] is the subcommand name.
 * Each parses its own flags with getopt_long, has --help, and returns the
 * process exit code: 0 success, 1 a check failed (verification, regression),
 * 2 usage or input error. */
#ifndef GB_COMMANDS_H
#define GB_COMMANDS_H
enum { GB_EXIT_OK = 0, GB_EXIT_CHECK = 1, GB_EXIT_USAGE = 2 };

/* The whole command line as main() received it (provenance, re-exec). */
extern int gb_full_argc;
extern char **gb_full_argv;

/* --openblas-core VALUE, shared by run, info and peak: "auto" picks the
 * core the CPU supports; a name sets OPENBLAS_CORETYPE. Either re-executes
 * the process when the variable must change (OpenBLAS reads it only at load).
 * Returns only if nothing changed; non-zero with a message on failure. */
int gb_apply_openblas_core(const char *value, char *why, unsigned long why_len);
int gb_cmd_run(int argc, char **argv);
int gb_cmd_list(int argc, char **argv);
int gb_cmd_info(int argc, char **argv);
int gb_cmd_validate(int argc, char **argv);
int gb_cmd_report(int argc, char **argv);
int gb_cmd_compare(int argc, char **argv);
int gb_cmd_merge(int argc, char **argv);
int gb_cmd_peak(int argc, char **argv);
int gb_cmd_export(int argc, char **argv);
#endif
