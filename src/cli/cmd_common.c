/* cmd_common.c — pieces several subcommands share. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "backend.h"
#include "sanity.h"

int gb_full_argc;
char **gb_full_argv;

int gb_cli_parse_int(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int gb_cli_parse_duration(const char *s, double *seconds) {
    static const struct { const char *unit; double scale; } units[] = {
        {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"s", 1}, {"min", 60}};
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0) || !isfinite(v)) return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].unit)) {
            *seconds = v * units[i].scale;
            return 0;
        }
    return -1;
}

int gb_cli_setup_cpu(const char *command, const char *core_flag) {
    gb_err e = {{0}};
    if (gb_cpu_setup_process(core_flag, gb_full_argv, &e) == GB_OK) return GB_EXIT_OK;
    fprintf(stderr, "gpubench %s: --openblas-core: %s\n", command, e.msg);
    return GB_EXIT_USAGE;
}

int gb_cli_checks(const gb_backend_set *set, const cJSON *context, cJSON *warnings) {
    return gb_backends_check(set, context, warnings) + gb_sanity_check(context, warnings);
}
