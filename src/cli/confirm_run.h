/* confirm_run.h — compare --confirm's re-measurement: the suspects run again
 * in fresh processes of this same gpubench binary. */
#ifndef GB_CONFIRM_RUN_H
#define GB_CONFIRM_RUN_H
#include <stddef.h>

#include "results_model.h"

typedef struct {
    char dir[256];          /* the private temporary directory (mkdtemp) */
    gb_results *docs;       /* runs results files, loaded */
    char **paths;           /* their paths (inside dir) */
    int loaded;             /* docs loaded so far */
    double seconds;         /* wall time of the runs */
} gb_confirm_runs;

/* Run `gpubench run SUITE --case C... --out DIR/confirm-K.json --no-peak`
 * `runs` times, one after another (each a fresh process), and load their
 * results. The children's output goes to stderr, or with quiet to
 * DIR/confirm-K.log. 0, or -1 with why (naming the run and the reason:
 * its exit status, a signal, a results file that cannot be read); on
 * failure the directory is kept for its logs and why names it. */
int gb_confirm_run(const char *suite, const char *const *cases, size_t ncases, int runs, int quiet,
                   gb_confirm_runs *out, char *why, size_t len);
/* Free the documents and remove the directory and its files. */
void gb_confirm_free(gb_confirm_runs *c, int remove_dir);

/* From the command's signal handler (async-signal-safe): when a
 * confirmation run is under way, pass the signal on to it (SIGTERM for
 * SIGPIPE), wait for it to end (it writes and cleans up within about a
 * second; SIGKILL after GB_CONFIRM_CHILD_GRACE_S), and remove the
 * temporary directory with what is in it. A SIGTERM to `compare --confirm`
 * used to end the comparison at once and leave its child measuring on,
 * orphaned, and the directory behind. */
#define GB_CONFIRM_CHILD_GRACE_S 5
void gb_confirm_stop_signal_safe(int sig);
#endif
