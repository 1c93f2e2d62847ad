/* devices.h — which devices of a backend a run measures (`--devices`). */
#ifndef GB_DEVICES_H
#define GB_DEVICES_H
#include "backend.h"

/* Read `--devices` into opt: "all" (opt->all_devices), or a comma list of
 * distinct device ordinals ("0,2,3", in the order measured). GB_OK, or
 * GB_FAIL with a message that names the bad token:
 *   --devices "0,x": "x" is not a device ordinal (expected all or a list such as 0,2,3) */
int gb_devices_parse(const char *text, gb_backend_options *opt, gb_err *e);

#endif
