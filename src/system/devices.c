/* devices.c — see devices.h. */
#include "devices.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int gb_devices_parse(const char *text, gb_backend_options *opt, gb_err *e) {
    opt->ndevices = 0;
    opt->all_devices = 0;
    if (!strcmp(text, "all")) {
        opt->all_devices = 1;
        return GB_OK;
    }
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char tok[32];
        if (len == 0 || len >= sizeof tok)
            return gb_errf(e, GB_FAIL, "--devices \"%s\": %s (expected all or a list such as 0,2,3)", text,
                           len == 0 ? "an empty entry" : "an entry too long to be a device ordinal");
        memcpy(tok, p, len);
        tok[len] = '\0';
        long long v;
        if (gb_parse_count(tok, 0, 1024, &v) != 0) /* digits only: no sign, blank or other base */
            return gb_errf(e, GB_FAIL,
                           "--devices \"%s\": \"%s\" is not a device ordinal (expected all or a list such as 0,2,3)",
                           text, tok);
        for (int i = 0; i < opt->ndevices; i++)
            if (opt->devices[i] == (int)v)
                return gb_errf(e, GB_FAIL, "--devices \"%s\": device %lld is listed twice", text, v);
        if (opt->ndevices == GB_MAX_DEVICES)
            return gb_errf(e, GB_FAIL, "--devices \"%s\": more than %d devices", text, GB_MAX_DEVICES);
        opt->devices[opt->ndevices++] = (int)v;
        if (!p[len]) break;
        p += len + 1;
    }
    return GB_OK;
}
