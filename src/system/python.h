/* python.h — the one way gpubench finds a Python interpreter and runs its
 * own scripts (found by data_files.h) in a child: the plot script
 * (results/plot.c) and the framework peers' worker (peer_backends/). */
#ifndef GB_PYTHON_H
#define GB_PYTHON_H
#include <stddef.h>
#include "gb.h"

/* A Python 3 that can `import module` (NULL: any that runs): $GPUBENCH_PYTHON
 * if set (used as given, no fallback), else /usr/bin/python3, else python3 on
 * PATH. GB_OK and its path, or GB_SKIP with why in e (none found / found but
 * without module, then install: what to do about it, "install matplotlib
 * (...)"). */
int gb_python_find(const char *module, const char *install, char *path, size_t len, gb_err *e);
/* Does python run and import module? 0 yes; 1 runs without it; -1 does not run. */
int gb_python_probe(const char *python, const char *module);

/* Run argv (argv[0] a path) through gb_child_spawn with stdout going to
 * out_fd (or /dev/null when -1) and stderr to /dev/null when quiet; returns
 * the exit status (128 + signal when killed), or -1 if it could not start
 * (errno kept in *err). */
int gb_spawn_wait(char *const argv[], int out_fd, int quiet, int *err);
#endif
