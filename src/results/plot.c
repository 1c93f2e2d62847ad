/* plot.c — find scripts/plot.py and a Python with matplotlib, run it. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gb.h"
#include "data_files.h"
#include "python.h"


int gb_plot_find_script(const char *exe_dir, char *path, size_t len, gb_err *e) {
    return gb_data_file_find(exe_dir, "scripts", "plot.py", path, len, e);
}

int gb_plot_find_python(char *path, size_t len, gb_err *e) {
    static const char install[] =
        "install matplotlib (Debian/Ubuntu: apt-get install python3-matplotlib; elsewhere: "
        "python3 -m pip install matplotlib) or point GPUBENCH_PYTHON at a python that has it";
    return gb_python_find("matplotlib", install, path, len, e);
}

/* The script on n results files (several: drawn overlaid). */
static int run_script(const char *exe_dir, const char *const *jsons, size_t n, const char *out_dir,
                      const char *format, const char *ops, gb_err *e) {
    char script[PATH_MAX], python[PATH_MAX];
    gb_err found = {{0}};
    if (!format || (strcmp(format, "png") && strcmp(format, "svg")))
        return gb_errf(e, GB_FAIL, "plot format \"%s\" is not png or svg", format ? format : "(null)");
    if (gb_plot_find_script(exe_dir, script, sizeof script, e) != GB_OK) return GB_SKIP;
    if (gb_plot_find_python(python, sizeof python, &found) != GB_OK)
        return gb_errf(e, GB_SKIP, "cannot draw plots: %s", found.msg);
    char **argv = calloc(n + 10, sizeof *argv);
    if (!argv) return gb_errf(e, GB_FAIL, "out of memory");
    size_t a = 0;
    argv[a++] = python;
    argv[a++] = script;
    for (size_t i = 0; i < n; i++) argv[a++] = (char *)jsons[i];
    argv[a++] = "--out";
    argv[a++] = (char *)out_dir;
    argv[a++] = "--format";
    argv[a++] = (char *)format;
    if (ops) {
        argv[a++] = "--op";
        argv[a++] = (char *)ops;
    }
    argv[a] = NULL;
    int err = 0;
    fflush(stdout);
    fflush(stderr);
    /* The script's progress goes to our stderr: stdout may be a report. */
    int rc = gb_spawn_wait(argv, 2, 0, &err);
    free(argv);
    if (rc < 0) return gb_errf(e, GB_FAIL, "cannot run %s: %s", python, strerror(err));
    if (rc != 0) return gb_errf(e, GB_FAIL, "%s %s exited with status %d (its messages are above)", python, script, rc);
    return GB_OK;
}

int gb_plot_run_from(const char *exe_dir, const char *results_json, const char *out_dir,
                     const char *format, const char *ops, gb_err *e) {
    return run_script(exe_dir, &results_json, 1, out_dir, format, ops, e);
}

int gb_plot_run_many(const char *const *jsons, size_t n, const char *out_dir, const char *format, const char *ops,
                     gb_err *e) {
    return run_script(NULL, jsons, n, out_dir, format, ops, e); /* NULL: beside this executable (gb_data_file_find) */
}

int gb_plot_run(const char *results_json, const char *out_dir, const char *format, const char *ops, gb_err *e) {
    return gb_plot_run_many(&results_json, 1, out_dir, format, ops, e);
}
