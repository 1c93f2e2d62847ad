/* run_signals.h — how `gpubench run` stops on a signal, within a bounded time.
 *
 * SIGINT, SIGTERM and SIGHUP mean "stop" (`timeout`, SLURM at a job's time
 * limit and Kubernetes send SIGTERM, a closed terminal SIGHUP); SIGPIPE — the
 * reader of standard output went away — is a stop too. On the first:
 *   1. the run stops after the current repetition and writes what it
 *      measured, marked interrupted (runner.h: gb_interrupted), as before;
 *   2. and a watchdog thread, woken by the handler (sem_post is
 *      async-signal-safe), watches the run's progress count
 *      (model_lock.h: it moves with every backend call returned, every case
 *      done or listed, every MiB written). While it moves, the run is
 *      stopping in order and is left to. Once it has stood still for
 *      GB_STOP_GRACE_S (1 s) — the main thread inside a library call that
 *      does not return (OpenBLAS retrying mmap under `ulimit -v`), a
 *      repetition of minutes — the watchdog takes the results model's lock
 *      (free whenever the model is whole), writes the results so far marked
 *      interrupted by the signal (results with no sample yet skipped
 *      "interrupted"), removes its temp and lock files and ends with 128+N;
 *   3. the hard stop: SIGALRM, GB_STOP_HARD_S (10 s) after the last progress
 *      seen (after the signal, or after the final results were written, for
 *      the table, --export-gbench and --plot that follow), ends the process
 *      with 128+N, its temp and lock files removed: a write that blocks, a
 *      lock never freed. The results file then holds the last checkpoint,
 *      valid.
 * A second signal a second or more after the first stops at once (Ctrl-C
 * twice); one sooner is the same request delivered twice (`timeout` signals
 * the command and then its whole process group). */
#ifndef GB_RUN_SIGNALS_H
#define GB_RUN_SIGNALS_H
#include "results_model.h"

#define GB_STOP_GRACE_S 1
#define GB_STOP_HARD_S 10

/* Install the handlers and start the watchdog (once per process). */
void gb_run_signals_catch(void);
/* What the watchdog writes: the model r to path (NULL: nothing), for a run
 * of planned_cases cases (those it never reached are counted in the file's
 * summary.not_reached: the runner had no chance to list them). Set it
 * before the run, while no signal has come. */
void gb_run_signals_watch(gb_results *r, const char *path, size_t planned_cases);
/* Called under gb_model_lock once the final results are written: the
 * watchdog then writes nothing; the hard stop still ends the process. */
void gb_run_signals_final_written(void);
/* From now on an exit() that is not gpubench's own (a library's: libgomp's
 * when it cannot start its threads) writes what the watchdog would, removes
 * the run's lock and temporary files, and ends the process with exit 2,
 * before the libraries' exit handlers (OpenBLAS's can hang). Call first
 * thing in `run`. */
void gb_run_signals_arm_exit(void);
/* main has the command's exit code: an exit() from now on is its own. */
void gb_run_signals_leaving(void);
/* "SIGTERM" for SIGTERM, ... */
const char *gb_signal_name(int sig);

#endif
