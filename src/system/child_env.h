/* child_env.h — what a process gpubench starts gets: the user's own
 * environment and the CPU set gpubench itself was given, not the settings
 * gpubench made for its own measurements.
 *
 * Why: gpubench changes its own process before it measures — it may
 * re-execute itself with OPENBLAS_CORETYPE set (cpu_environment.c) and it
 * pins its main thread to one CPU (cpu_bind.c). A child started plainly
 * inherits both: the confirming runs of `compare --confirm` then recorded
 * gpubench's core as the user's environment, the plot script and the
 * framework workers (NumPy, PyTorch) ran on the main thread's one CPU, and
 * a framework's OpenBLAS took a core the user never chose. Every child is
 * started through this module, which gives it the environment as the user
 * set it (each variable gpubench changed restored to its original value or
 * removed, gpubench's internal markers removed) and the original CPU set.
 *
 * The original values survive gpubench's re-execution: cpu_environment.c
 * hands them over as markers (gb_child_env_export_originals) and takes them
 * back after the exec (gb_child_env_import_originals). */
#ifndef GB_CHILD_ENV_H
#define GB_CHILD_ENV_H
#include <spawn.h>
#include <sys/types.h>

/* gpubench is about to change variable name for itself: remember its value
 * now (NULL: unset) as the user's. The first note of a name wins. */
void gb_child_env_note_original(const char *name, const char *value);
/* The user's value of name: the noted original where gpubench changed it,
 * else the current one; NULL when unset. */
const char *gb_child_env_original(const char *name);
/* Was name changed by gpubench (noted)? */
int gb_child_env_changed(const char *name);

/* The markers that carry the noted originals through an exec: setenv'd by
 * export (GPUBENCH_ORIGINAL_<NAME>), read, checked and removed by import.
 * Import takes them only when token matches (the re-exec's own token, see
 * cpu_environment.c); markers without a valid token are removed and
 * ignored, and import returns how many it ignored. */
void gb_child_env_export_originals(void);
int gb_child_env_import_originals(int token_ok);

/* The environment for a child: the current one with every noted name
 * restored to the user's value (or removed) and every GPUBENCH_ORIGINAL_*
 * and re-exec marker removed, then extra ("NAME=value" strings, NULL-ended;
 * may be NULL) set on top. NULL on out of memory; free with
 * gb_child_envp_free. */
char **gb_child_envp(char *const *extra);
void gb_child_envp_free(char **envp);

/* posix_spawn (path as given, no PATH search; spawnp: with PATH search) of
 * a child with gb_child_envp(extra) and the process's original CPU set:
 * the calling thread's own mask is widened to the set for the spawn and put
 * back after it (a spawned child inherits the caller's mask). Returns
 * posix_spawn's result (0 on success). */
int gb_child_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions, char *const argv[],
                   char *const *extra, int search_path);

/* Around fork(): before it, in the parent (reads the original CPU set,
 * which may allocate); in the child, before exec: that set (a system call
 * only, safe between fork and exec). */
void gb_child_before_fork(void);
void gb_child_after_fork(void);
#endif
