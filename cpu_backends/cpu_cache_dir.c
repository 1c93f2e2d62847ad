/* cpu_cache_dir.c — the folder where the CPU side keeps what it measured once
 * (cpu_backend.h). Apart from cpu_backend.c, which calls every op file, so
 * that the op files reading it (cpu_fft.c, cpu_gemm_choice.c) depend on no
 * caller of theirs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpu_backend.h"

const char *gb_cpu_cache_dir(char *buf, size_t len) {
    const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (cache && *cache) snprintf(buf, len, "%s/gpubench", cache);
    else if (home && *home) snprintf(buf, len, "%s/.cache/gpubench", home);
    else return NULL;
    char parent[2048];
    snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(buf, '/') - buf), buf);
    mkdir(parent, 0755);
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return NULL;
    return buf;
}
