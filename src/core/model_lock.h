/* model_lock.h — the results model's lock and the run's progress count,
 * shared by the runner, the writer of files and the signal watchdog. */
#ifndef GB_MODEL_LOCK_H
#define GB_MODEL_LOCK_H

/* The results model's lock. The runner holds it while it changes the model
 * (cfg->results) and lets go of it while a backend or a library works
 * (making inputs, prepare, the timed repetitions, fetch and verify,
 * release), so the model is whole whenever the lock is free. The run's
 * signal watchdog (run_signals.h) takes it to write the results so far when
 * a library call does not return after a stop signal; whoever changes the
 * model outside the runner (cmd_run's last steps) holds it too. */
void gb_model_lock(void);
void gb_model_unlock(void);
/* 0 when locked within seconds, -1 when not. */
int gb_model_timedlock(double seconds);
/* A count that moves while the run makes progress: each gb_model_lock (a
 * backend call returned), each case done or listed, each MiB written. The
 * signal watchdog acts only when it stands still (run_signals.h). */
void gb_progress_tick(void);
long gb_progress_count(void);

#endif
