/* replay.c — run a fuzz harness on files, without libFuzzer: what `make
 * test` does with every committed corpus file and past crash, built with the
 * normal compiler (no clang needed). Arguments: files or directories (their
 * regular files, not recursively). Prints the count; a crash is a crash. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int one(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *b = realloc(buf, cap *= 2);
            if (!b) free(buf);
            buf = b;
        }
    }
    fclose(f);
    if (!buf) return -1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    long files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) continue; /* an empty crash folder is not in git */
        if (!S_ISDIR(st.st_mode)) {
            bad += one(argv[i]) != 0;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
            if (stat(p, &st) != 0 || !S_ISREG(st.st_mode) || de->d_name[0] == '.') continue;
            bad += one(p) != 0;
            files++;
        }
        if (d) closedir(d);
    }
    fprintf(stderr, "replay %s: %ld input%s\n", argv[0], files, files == 1 ? "" : "s");
    return bad ? 1 : 0;
}
