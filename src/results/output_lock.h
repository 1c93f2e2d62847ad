/* output_lock.h — one run per results file.
 *
 * Two runs writing the same --out would each replace the other's file and
 * one run's results would be lost without a word. A run therefore holds an
 * advisory lock (fcntl, a write lock) on PATH.lock next to its results file
 * (the target of a symbolic link) from before it measures anything until
 * its last write; the file holds the holder's pid for a person looking, and
 * is removed when the run ends (and by the signal handlers). A second run on
 * the same path is refused with the holder's pid, unless --force. The
 * kernel drops the lock of a killed process, so a lock file left by SIGKILL
 * never blocks the next run. Standard output, a device or a FIFO is not
 * locked: nothing there is replaced. */
#ifndef GB_OUTPUT_LOCK_H
#define GB_OUTPUT_LOCK_H
#include "gb.h"

/* Lock path's lock file. GB_OK (locked, or not a file; with force, also
 * when another process holds it: a warning on stderr), or GB_FAIL:
 *   "r.json: another gpubench run is writing it (pid 4242, lock r.json.lock);
 *    wait for it to end, give another --out, or --force to write it anyway" */
int gb_output_lock(const char *path, int force, gb_err *e);
/* Release it and remove the lock file; nothing when none is held. */
void gb_output_unlock(void);
/* From a signal handler that ends the process: remove the lock file. */
void gb_output_unlock_signal_safe(void);
#endif
