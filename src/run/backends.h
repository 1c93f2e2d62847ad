/* backends.h — the backends of this build: the CPU one (linked in) and the
 * CUDA one (plugin), brought up once per process, each available or not with
 * the reason. */
#ifndef GB_BACKENDS_H
#define GB_BACKENDS_H
#include <getopt.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "backend.h"

typedef struct {
    const gb_backend *b;     /* NULL when the plugin could not be loaded */
    const char *name;
    int available;
    int selected;            /* will run cases */
    int disabled;            /* a fatal error during the run: no more cases */
    int peer;                /* a framework peer (--peers, peer_backends/): selected whatever --backend says */
    char reason[GB_MSG_LEN]; /* why unavailable / disabled */
    /* A backend with devices (gb_backend.device_count) has one slot per
     * device of --devices, in the order listed, all with the backend's name:
     * the runner measures each in turn. device_pos is the position in that
     * list (gb_backend.use_device), device what its results name. */
    int has_device, device_pos;
    gb_device_info device;
} gb_backend_slot;

/* the host backend, an accelerator on each of GB_MAX_DEVICES devices, one spare, the six framework peers */
#define GB_MAX_BACKENDS (2 + GB_MAX_DEVICES + 6)

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
/* Make slot's device the current one of this thread (gb_backend.use_device);
 * GB_OK at once for a slot without a device. */
int gb_backends_use(const gb_backend_slot *slot, gb_err *e);
/* Whether slot is the first (or only) slot of its backend: the one whose
 * ceilings, health and description stand for the backend. */
int gb_backends_first_of_backend(const gb_backend_slot *slot);
/* How many selected slots measure a device (the devices of the run). */
int gb_backends_device_count(const gb_backend_set *set);
/* Mark a backend unusable for the rest of the run. */
void gb_backends_disable(gb_backend_slot *slot, const char *reason);
void gb_backends_shutdown(gb_backend_set *set);
/* ---- the backends' own options (backend.h, gb_backend_process) ------------
 * A command that sets the process up appends them to its getopt table; getopt
 * then returns GB_BACKEND_OPTION + i for the i-th, which the command hands to
 * gb_backend_option_set with its value. */
#define GB_BACKEND_OPTION 0x4000
/* Append the linked-in backends' options to opts (n entries, room for cap
 * with the terminating {0}); the new count, the terminator written. */
int gb_backend_options_getopt(struct option *opts, int n, int cap);
/* Hand option `val` (GB_BACKEND_OPTION + i) and its value to its backend.
 * GB_OK, or GB_FAIL with the reason. */
int gb_backend_option_set(int val, const char *value, gb_err *e);
/* The backends' options for a usage text: each one's synopsis, after a
 * space ("[--openblas-core auto|detected|NAME]"), or each one's help lines. */
void gb_backend_options_synopsis(FILE *out);
void gb_backend_options_help(FILE *out);
/* Every linked-in backend's process set-up, with the options given (before
 * anything is measured or described; may re-execute the process, argv).
 * GB_OK, or GB_FAIL with the reason. */
int gb_backends_setup_process(char **argv, gb_err *e);

#endif
