/* plugin.h — finding and opening the CUDA backend plugin at run time, so the
 * same gpubench binary starts on machines without the NVIDIA driver or the
 * CUDA libraries and says why CUDA is unavailable. */
#ifndef GB_PLUGIN_H
#define GB_PLUGIN_H
#include <stddef.h>
#include "backend.h"

/* Search order: $GPUBENCH_CUDA_PLUGIN (a file path); next to the executable
 * (gpubench-cuda.so, the build tree); <exe dir>/../lib/gpubench/ (bundle and
 * `make install`). Returns the backend, or NULL with the reason in why
 * ("built without CUDA", "libcudart.so.13: cannot open shared object file",
 * "plugin ABI 2, gpubench expects 1"). */
const gb_backend *gb_plugin_load_cuda(gb_err *why);
/* dlclose at exit (after the backend's shutdown). */
void gb_plugin_unload(void);
#endif
