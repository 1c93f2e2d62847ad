/* backends.h — the backends of this build: the CPU one (linked in) and the
 * CUDA one (plugin), brought up once per process, each available or not with
 * the reason. */
#ifndef GB_BACKENDS_H
#define GB_BACKENDS_H
#include <cjson/cJSON.h>
#include "backend.h"

typedef struct {
    const gb_backend *b;     /* NULL when the plugin could not be loaded */
    const char *name;
    int available;
    int selected;            /* will run cases */
    int disabled;            /* a fatal error during the run: no more cases */
    char reason[GB_MSG_LEN]; /* why unavailable / disabled */
} gb_backend_slot;

#define GB_MAX_BACKENDS 4

typedef struct {
    int count;
    gb_backend_slot slot[GB_MAX_BACKENDS];
} gb_backend_set;

/* Bring every backend up. requested: comma list of names to select, or NULL
 * for every available one. Asking for an unknown or unavailable backend is an
 * error (GB_FAIL, "--backend cuda: unavailable: no CUDA device"). */
int gb_backends_init(gb_backend_set *set, const char *requested, const gb_backend_options *opt,
                     gb_err *e);
/* Add each available backend's description, and "backends": {name:
 * {available, selected, reason}} to ctx. */
void gb_backends_describe(const gb_backend_set *set, cJSON *ctx);
/* Each available backend's own check of its settings (gb_backend.check):
 * warnings appended; returns how many. */
int gb_backends_check(const gb_backend_set *set, const cJSON *ctx, cJSON *warnings);
/* Mark a backend unusable for the rest of the run. */
void gb_backends_disable(gb_backend_slot *slot, const char *reason);
void gb_backends_shutdown(gb_backend_set *set);
#endif
