/* cmd_common.c — pieces several subcommands share. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <unistd.h>

#include "commands.h"
#include "report.h"
#include "report_table.h"
#include "backend.h"
#include "sanity.h"

int gb_full_argc;
char **gb_full_argv;

int gb_cli_parse_int(const char *s, long lo, long hi, long *out) {
    long long v;
    if (gb_parse_count(s, lo, hi, &v) != 0) return -1; /* digits only: "+5", " 5", "0x5", "5k" refused */
    *out = (long)v;
    return 0;
}

void gb_cli_warning(FILE *out, const char *text) {
    if (!isatty(fileno(out))) {
        fprintf(out, "WARNING: %s\n", text);
        return;
    }
    fputs("WARNING: ", out);
    gb_wrap_text(out, text, GB_REPORT_COLUMNS, 9, 4);
    fputc('\n', out);
}

int gb_cli_getopt(int argc, char *const argv[], const char *shorts, const struct option *opts) {
    if (optind <= 1) /* the first call (0: glibc's full re-initialisation) */
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], "--gpubench-options") != 0) continue;
            static const char *const kinds[] = {"none", "required", "optional"};
            for (const struct option *o = opts; o && o->name; o++)
                printf("--%s\t%s\n", o->name, kinds[o->has_arg >= 0 && o->has_arg <= 2 ? o->has_arg : 0]);
            for (const char *c = shorts; *c; c++)
                if (*c != ':') printf("-%c\t%s\n", *c, c[1] != ':' ? "none" : c[2] == ':' ? "optional" : "required");
            fflush(stdout);
            _exit(ferror(stdout) ? GB_EXIT_USAGE : GB_EXIT_OK); /* no command ran: none of its exit handlers */
        }
    return getopt_long(argc, argv, shorts, opts, NULL);
}

int gb_cli_bad_option(const char *command, int argc, char *const *argv, const char *optstring) {
    int at = optind - 1 < argc ? optind - 1 : argc - 1;
    const char *arg = at > 0 ? argv[at] : "";
    char what[256];
    if (optopt == 0) { /* a long option getopt does not know (or a prefix of two) */
        snprintf(what, sizeof what, "unrecognized option '%s'", arg);
    } else if (!strncmp(arg, "--", 2)) {
        const char *eq = strchr(arg, '=');
        if (eq) snprintf(what, sizeof what, "option '%.*s' takes no value", (int)(eq - arg), arg);
        else snprintf(what, sizeof what, "option '%s' needs a value", arg);
    } else if (optopt > 0 && optopt < 128 && strchr(optstring, optopt)) {
        snprintf(what, sizeof what, "option '-%c' needs a value", optopt);
    } else {
        snprintf(what, sizeof what, "unrecognized option '-%c'", optopt > 0 && optopt < 128 ? optopt : '?');
    }
    fprintf(stderr, "gpubench %s: %s (see gpubench %s --help)\n", command, what, command);
    return GB_EXIT_USAGE;
}

int gb_cli_parse_duration(const char *s, double *seconds) {
    static const struct { const char *unit; double scale; } units[] = {
        {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"s", 1}, {"min", 60}};
    double v;
    const char *end;
    if (gb_scan_decimal(s, &v, &end) != 0 || !(v > 0)) return -1; /* decimal only: "0x10s" refused */
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].unit)) {
            *seconds = v * units[i].scale;
            return isfinite(*seconds) ? 0 : -1;
        }
    return -1;
}

int gb_cli_backend_option(const char *command, int ch, const char *value) {
    if (ch < GB_BACKEND_OPTION) return -1;
    gb_err e = {{0}};
    if (gb_backend_option_set(ch, value, &e) == GB_OK) return GB_EXIT_OK;
    fprintf(stderr, "gpubench %s: %s\n", command, e.msg);
    return GB_EXIT_USAGE;
}

int gb_cli_setup_process(const char *command) {
    gb_err e = {{0}};
    if (gb_backends_setup_process(gb_full_argv, &e) == GB_OK) return GB_EXIT_OK;
    fprintf(stderr, "gpubench %s: %s\n", command, e.msg);
    return GB_EXIT_USAGE;
}

int gb_cli_checks(const gb_backend_set *set, const cJSON *context, cJSON *warnings) {
    return gb_backends_check(set, context, warnings) + gb_sanity_check(context, warnings);
}
