/* child_env.c — see child_env.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "child_env.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node_env.h"

extern char **environ;

#define ORIGINAL_PREFIX "GPUBENCH_ORIGINAL_"
/* gpubench's own markers, never a child's business (cpu_environment.c) */
static const char *const internal_prefixes[] = {ORIGINAL_PREFIX, "GPUBENCH_REEXEC", "GPUBENCH_OPENBLAS_CORE_", NULL};

enum { MAX_NOTES = 16, MAX_NAME = 64, MAX_VALUE = 4096 };
static struct {
    char name[MAX_NAME];
    char value[MAX_VALUE];
    int set; /* the user had it set (value holds it) */
} notes[MAX_NOTES];
static int nnotes;

static int find_note(const char *name) {
    for (int i = 0; i < nnotes; i++)
        if (!strcmp(notes[i].name, name)) return i;
    return -1;
}

void gb_child_env_note_original(const char *name, const char *value) {
    if (find_note(name) >= 0 || nnotes == MAX_NOTES || strlen(name) >= MAX_NAME) return;
    if (value && strlen(value) >= MAX_VALUE) return; /* not kept: the child then sees the current value */
    snprintf(notes[nnotes].name, MAX_NAME, "%s", name);
    notes[nnotes].set = value != NULL;
    snprintf(notes[nnotes].value, MAX_VALUE, "%s", value ? value : "");
    nnotes++;
}

const char *gb_child_env_original(const char *name) {
    int i = find_note(name);
    if (i < 0) return getenv(name);
    return notes[i].set ? notes[i].value : NULL;
}

int gb_child_env_changed(const char *name) { return find_note(name) >= 0; }

void gb_child_env_export_originals(void) {
    for (int i = 0; i < nnotes; i++) {
        char key[MAX_NAME + sizeof ORIGINAL_PREFIX], val[MAX_VALUE + 2];
        memcpy(key, ORIGINAL_PREFIX, sizeof ORIGINAL_PREFIX - 1);
        memcpy(key + sizeof ORIGINAL_PREFIX - 1, notes[i].name, strlen(notes[i].name) + 1); /* < MAX_NAME */
        /* "=value" for a set variable (an empty one too), "" for unset */
        snprintf(val, sizeof val, "%s%s", notes[i].set ? "=" : "", notes[i].value);
        setenv(key, val, 1);
    }
}

int gb_child_env_import_originals(int token_ok) {
    int ignored = 0;
    for (;;) { /* unsetenv changes environ: start over after each */
        char name[MAX_NAME + sizeof ORIGINAL_PREFIX] = "";
        const char *value = NULL;
        for (char **e = environ; *e; e++) {
            if (strncmp(*e, ORIGINAL_PREFIX, strlen(ORIGINAL_PREFIX))) continue;
            const char *eq = strchr(*e, '=');
            size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
            if (len >= sizeof name) len = sizeof name - 1;
            memcpy(name, *e, len);
            name[len] = 0;
            value = eq ? eq + 1 : "";
            break;
        }
        if (!*name) break;
        if (token_ok && strlen(name) > strlen(ORIGINAL_PREFIX))
            gb_child_env_note_original(name + strlen(ORIGINAL_PREFIX), *value == '=' ? value + 1 : NULL);
        else
            ignored++;
        unsetenv(name);
    }
    return ignored;
}

static int is_internal(const char *entry) {
    for (const char *const *p = internal_prefixes; *p; p++)
        if (!strncmp(entry, *p, strlen(*p))) return 1;
    return 0;
}

/* entry is "NAME=..." for name */
static int entry_names(const char *entry, const char *name, size_t len) {
    return !strncmp(entry, name, len) && entry[len] == '=';
}

char **gb_child_envp(char *const *extra) {
    size_t n = 0, nextra = 0;
    while (environ[n]) n++;
    while (extra && extra[nextra]) nextra++;
    char **out = calloc(n + (size_t)nnotes + nextra + 1, sizeof *out);
    if (!out) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = environ[i];
        if (is_internal(e)) continue;
        int drop = 0;
        for (int j = 0; j < nnotes && !drop; j++) drop = entry_names(e, notes[j].name, strlen(notes[j].name));
        for (size_t j = 0; j < nextra && !drop; j++) {
            const char *eq = strchr(extra[j], '=');
            drop = eq && entry_names(e, extra[j], (size_t)(eq - extra[j]));
        }
        if (drop) continue;
        if (!(out[k++] = strdup(e))) goto oom;
    }
    for (int j = 0; j < nnotes; j++) {
        if (!notes[j].set) continue;
        size_t len = strlen(notes[j].name) + strlen(notes[j].value) + 2;
        if (!(out[k] = malloc(len))) goto oom;
        snprintf(out[k++], len, "%s=%s", notes[j].name, notes[j].value);
    }
    for (size_t j = 0; j < nextra; j++)
        if (!(out[k++] = strdup(extra[j]))) goto oom;
    out[k] = NULL;
    return out;
oom:
    gb_child_envp_free(out);
    return NULL;
}

void gb_child_envp_free(char **envp) {
    if (!envp) return;
    for (char **e = envp; *e; e++) free(*e);
    free(envp);
}

int gb_child_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions, char *const argv[],
                   char *const *extra, int search_path) {
    char **envp = gb_child_envp(extra);
    if (!envp) return -1;
    gb_thread_mask m;
    gb_node_thread_widen(&m); /* a spawned child inherits the caller's mask */
    int rc = search_path ? posix_spawnp(pid, path, actions, NULL, argv, envp)
                         : posix_spawn(pid, path, actions, NULL, argv, envp);
    gb_node_thread_restore(&m);
    gb_child_envp_free(envp);
    return rc;
}

void gb_child_before_fork(void) {
    size_t size;
    (void)gb_node_original_mask(&size); /* read now: after fork only a system call is safe */
}

void gb_child_after_fork(void) {
    size_t size = 0;
    const cpu_set_t *original = gb_node_original_mask_if_read(&size);
    if (original) sched_setaffinity(0, size, original);
}
