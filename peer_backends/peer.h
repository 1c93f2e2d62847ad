/* peer.h — the framework peers (issue #46, docs/frameworks.md): NumPy,
 * SciPy, CuPy, PyTorch and JAX measured as backends beside the libraries.
 *
 * Each peer is a backend like the others (the runner's warm-up, stopping
 * rule, rounds and verification serve it); what it runs is one Python worker
 * process per framework (peer_worker.h), which makes the case's inputs with
 * gpubench's generator and times each call with its own clock. Asked for
 * with --peers (none by default: a default run is unchanged). */
#ifndef GB_PEER_H
#define GB_PEER_H
#include "backend.h"

/* --peers LIST|auto, --python PATH, --peer-timeout SECONDS */
const gb_backend_process *gb_peer_process(void);
/* How many peers --peers asked for, and the i-th one's backend. */
int gb_peer_count(void);
const gb_backend *gb_peer_backend(int i);
#endif
