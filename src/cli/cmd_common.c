/* cmd_common.c — pieces several subcommands share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "sanity.h"

int gb_full_argc;
char **gb_full_argv;

int gb_apply_openblas_core(const char *value, char *why, unsigned long why_len) {
    if (!value) return 0;
    if (strcmp(value, "auto") == 0) return gb_openblas_core_auto(gb_full_argv, why, why_len);
    const char *now = getenv("OPENBLAS_CORETYPE");
    if (now && strcmp(now, value) == 0) return 0;
    setenv("OPENBLAS_CORETYPE", value, 1);
    execv("/proc/self/exe", gb_full_argv);
    snprintf(why, why_len, "--openblas-core %s: re-executing with OPENBLAS_CORETYPE=%s failed", value, value);
    return 1;
}
