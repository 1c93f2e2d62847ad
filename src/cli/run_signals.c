/* run_signals.c — stop handlers, watchdog and hard stop of `gpubench run`
 * (run_signals.h). */
#include "node_env.h"
#include "run_signals.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "output_lock.h"
#include "results_io.h"
#include "runner.h"

static struct timespec first_signal;
static sem_t wake;
static int started;
static gb_results *watched;
static const char *watched_path;
static size_t watched_planned; /* the suite's cases */
static volatile int final_written;
static int stderr_tty; /* the progress line is there to clear first */

/* The one line a stop signal gets at once, so that the wait that follows
 * reads as stopping, not as a hang (write(2): async-signal-safe). SIGPIPE
 * has none: its reader went away, and `| head` wants no words about it. */
static void say_stopping(int sig) {
    static const char clear[] = "\r\033[K";
    static const char intr[] = "gpubench run: SIGINT: stopping after the current repetition… "
                               "(Ctrl-C again to stop at once)\n";
    static const char term[] = "gpubench run: SIGTERM: stopping after the current repetition…\n";
    static const char hup[] = "gpubench run: SIGHUP: stopping after the current repetition…\n";
    const char *m = sig == SIGINT ? intr : sig == SIGTERM ? term : sig == SIGHUP ? hup : NULL;
    if (!m) return;
    ssize_t ignored = 0;
    if (stderr_tty) ignored += write(STDERR_FILENO, clear, sizeof clear - 1);
    ignored += write(STDERR_FILENO, m, strlen(m));
    (void)ignored;
}

const char *gb_signal_name(int sig) {
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    default: return "signal";
    }
}

/* Remove what a write in progress and the run's lock left, and end with the
 * shell's code for "stopped by signal N". Async-signal-safe. */
static void end_now(int sig) {
    gb_output_remove_temp();
    gb_output_unlock_signal_safe();
    _exit(128 + sig);
}

static void on_stop_signal(int sig) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
    if (gb_interrupted) {
        if (sig != SIGPIPE && (now.tv_sec - first_signal.tv_sec >= 2 ||
                               (now.tv_sec - first_signal.tv_sec == 1 && now.tv_nsec >= first_signal.tv_nsec)))
            end_now(sig);
        return;
    }
    first_signal = now;
    gb_interrupted = sig;
    say_stopping(sig);
    alarm(GB_STOP_HARD_S); /* the hard stop (on_hard_stop) */
    if (started) sem_post(&wake);
}

/* GB_STOP_HARD_S after the first signal, whatever the process is doing. */
static void on_hard_stop(int sig) {
    (void)sig;
    end_now(gb_interrupted ? gb_interrupted : SIGALRM);
}

/* The results the stuck call was measuring have no sample yet: they are
 * marked as the runner marks a result the interruption kept from running
 * (skipped, "interrupted"), never left "ok" with nothing measured. */
static int mark_unmeasured(gb_results *r) {
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t k = 0; k < r->cases[i].nresults; k++) {
            gb_result *x = &r->cases[i].results[k];
            if (x->status != GB_RS_OK || x->nsamples > 0) continue;
            x->status = GB_RS_SKIPPED;
            x->has |= GB_R_HAS_REASON;
            if (gb_set_string(&x->reason, "interrupted") != GB_OK) return GB_FAIL;
        }
    return GB_OK;
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

/* The results so far, marked interrupted by `by` (a signal's name), with
 * what was not measured marked so: what a stop that cannot wait for the
 * runner writes. The model lock is held. */
static void write_partial(const char *by, const char *how) {
    gb_err e = {{0}};
    watched->complete = 0;
    watched->interrupted = 1;
    int ok = gb_set_string(&watched->interrupted_by, by) == GB_OK && mark_unmeasured(watched) == GB_OK;
    gb_results_summarize(watched);
    /* stopped inside a call, the runner never listed the cases after it:
     * the file still says how many of the suite's were not reached */
    long unlisted = watched_planned > watched->ncases ? (long)(watched_planned - watched->ncases) : 0;
    if (unlisted > 0)
        watched->summary.not_reached = (watched->summary.not_reached > 0 ? watched->summary.not_reached : 0) + unlisted;
    if (ok && gb_results_write(watched, watched_path, GB_WRITE_SAMPLES_6G, &e) == GB_OK) {
        fprintf(stderr, "results: %s (interrupted by %s: partial results, %s)\n", watched_path, by, how);
        if (watched->summary.not_reached > 0)
            fprintf(stderr, "gpubench run: %ld of the suite's %zu cases not reached\n", watched->summary.not_reached,
                    watched_planned);
    } else {
        fprintf(stderr, "gpubench run: the results so far could not be written: %s\n",
                e.msg[0] ? e.msg : "out of memory");
    }
}

static void *watchdog(void *arg) {
    (void)arg;
    while (sem_wait(&wake) != 0)
        if (errno != EINTR) return NULL;
    int sig = gb_interrupted;
    /* A run stopping in order moves the progress count (model_lock.h): it is
     * left to finish, and the hard stop moves on with it. One whose count
     * stands still for GB_STOP_GRACE_S is inside a call that has not
     * returned. */
    long seen = gb_progress_count();
    for (int still_ms = 0; still_ms < GB_STOP_GRACE_S * 1000;) {
        sleep_ms(250); /* looked at 4 times a second: it acts within 1.25 s of the last progress */
        if (final_written) return NULL;
        long now = gb_progress_count();
        if (now == seen) {
            still_ms += 250;
        } else {
            seen = now;
            still_ms = 0;
            alarm(GB_STOP_HARD_S);
        }
    }
    /* The model is whole whenever its lock is free; the main thread holds it
     * only while it changes or writes the model, which moves the count. */
    int locked = 0;
    for (int still = 0; !locked && still < GB_STOP_HARD_S - GB_STOP_GRACE_S;) {
        locked = gb_model_timedlock(1.0) == 0;
        long now = gb_progress_count();
        if (now != seen) {
            seen = now;
            still = 0;
            alarm(GB_STOP_HARD_S);
        } else {
            still++;
        }
    }
    if (locked && final_written) {
        gb_model_unlock();
        return NULL; /* the results are final: the hard stop bounds the rest */
    }
    if (locked && watched && watched_path) {
        char how[80];
        snprintf(how, sizeof how, "written while a call had not returned %d s after the signal", GB_STOP_GRACE_S);
        write_partial(gb_signal_name(sig), how);
    }
    end_now(sig);
    return NULL;
}

static volatile int leaving; /* main has the command's exit code */

/* exit() before main has the command's code: not gpubench's own leaving (a
 * finished command ends through _exit in main, a sanitized build's return
 * after gb_run_signals_leaving), so a library ended the process: libgomp
 * does when it cannot start its threads (their stacks do not fit under
 * `ulimit -v`; it happens while the CPU backend starts and pins its pool,
 * before the results exist, or in a later parallel region). The
 * libraries' exit handlers would come next, and OpenBLAS's joins worker
 * threads stuck retrying mmap: the process never ended, and its lock
 * stayed. So: the results so far (when there are any), the lock and
 * temporary files removed, and out at once with exit status 2 (the run
 * could not go on). */
static void on_exit_during_run(void) {
    if (leaving) return;
    fflush(stderr);
    fprintf(stderr, "gpubench run: a library ended the process during the run (its message is above)\n");
    if (watched && watched_path && !final_written && gb_model_timedlock(1.0) == 0) {
        if (!final_written) write_partial("library-exit", "the run could not go on");
        gb_model_unlock();
    } else if (!watched && !final_written) {
        fprintf(stderr, "gpubench run: it ended before the run's first case: no results written\n");
    }
    fflush(NULL);
    gb_output_remove_temp();
    gb_output_unlock_signal_safe();
    _exit(GB_EXIT_USAGE);
}

void gb_run_signals_watch(gb_results *r, const char *path, size_t planned_cases) {
    watched = r;
    watched_path = path;
    watched_planned = planned_cases;
}

void gb_run_signals_final_written(void) {
    final_written = 1;
    /* after a stop signal, the table, export and plots that follow have
     * GB_STOP_HARD_S from now */
    if (gb_interrupted) alarm(GB_STOP_HARD_S);
}

void gb_run_signals_arm_exit(void) {
    static int armed;
    if (!armed) armed = atexit(on_exit_during_run) == 0;
}

void gb_run_signals_leaving(void) { leaving = 1; }

void gb_run_signals_catch(void) {
    stderr_tty = isatty(STDERR_FILENO);
    if (!started && sem_init(&wake, 0, 0) == 0) {
        /* a small stack (it serialises the model; cJSON's printer recurses
         * only as deep as the document), so that it starts under a tight
         * `ulimit -v`; every signal blocked in it, so they reach the main
         * thread and interrupt its system calls as before */
        pthread_attr_t attr;
        pthread_t t;
        sigset_t all, old;
        sigfillset(&all);
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 1 << 20);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        /* not on the main thread's one CPU (cpu_bind.c): anywhere in the set */
        size_t set_size = 0;
        const cpu_set_t *set = gb_node_original_mask(&set_size);
        if (set) pthread_attr_setaffinity_np(&attr, set_size, set);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        started = pthread_create(&t, &attr, watchdog, NULL) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
        if (!started)
            fprintf(stderr, "warning: no signal watchdog (%s): a stop signal during a call that does not return ends "
                            "the run only after %d s\n", "cannot start a thread", GB_STOP_HARD_S);
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_hard_stop;
    sigaction(SIGALRM, &sa, NULL);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
    /* under nohup SIGHUP stays ignored */
    if (sigaction(SIGHUP, NULL, &old) != 0 || old.sa_handler != SIG_IGN) sigaction(SIGHUP, &sa, NULL);
}
