/* plot.h — drawing a results file with scripts/plot.py (Python 3 + matplotlib).
 *
 * The plots are made by a Python script because matplotlib is what people
 * reading the numbers already use; gpubench only finds the script and a
 * Python that can import matplotlib, runs it (no shell), and says plainly
 * what is missing when it cannot. */
#ifndef GB_PLOT_H
#define GB_PLOT_H
#include <stddef.h>

#include "gb.h"

/* Draw results_json into out_dir (created if missing) as format "png" or
 * "svg", only the ops in the comma list ops (NULL: every op). Finds scripts/plot.py next to the executable (see
 * gb_plot_find_script) and a Python with matplotlib (gb_plot_find_python).
 * Returns 0 (GB_OK) when the plots were written; GB_SKIP (1) when the
 * script or a Python with matplotlib is missing; GB_FAIL (2) when the
 * script ran and failed. Every non-zero return fills e with what to do. The
 * script reads the file itself (scripts/plot.py); `gpubench report --plot`
 * has loaded and checked it through the results model first. */
int gb_plot_run(const char *results_json, const char *out_dir, const char *format, const char *ops, gb_err *e);

/* Several results files drawn overlaid (each run its own series). */
int gb_plot_run_many(const char *const *jsons, size_t n, const char *out_dir, const char *format, const char *ops,
                     gb_err *e);

/* The same, locating scripts/plot.py relative to exe_dir instead of the
 * running executable's directory (tests; tools embedding gpubench). */
int gb_plot_run_from(const char *exe_dir, const char *results_json, const char *out_dir,
                     const char *format, const char *ops, gb_err *e);

/* plot.py relative to the executable's directory, first that exists:
 *   <exe_dir>/scripts/plot.py                  (build tree)
 *   <exe_dir>/../scripts/plot.py               (bundle)
 *   <exe_dir>/../share/gpubench/scripts/plot.py (make install)
 * Returns GB_OK and the path, or GB_SKIP with the places looked at in e. */
int gb_plot_find_script(const char *exe_dir, char *path, size_t len, gb_err *e);

/* A Python 3 that can `import matplotlib`: $GPUBENCH_PYTHON if set (used as
 * given, no fallback), else /usr/bin/python3, else python3 on PATH. Returns
 * GB_OK and its path, or GB_SKIP with why in e (none found / found but
 * without matplotlib, and how to install it). */
int gb_plot_find_python(char *path, size_t len, gb_err *e);
#endif
