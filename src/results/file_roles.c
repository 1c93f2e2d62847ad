/* file_roles.c — refuse a command whose output is one of its inputs or
 * another of its outputs (file_roles.h), by inode. */
#include "file_roles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results_io.h"

enum { ROLE_IN, ROLE_OUT, ROLE_DIR };

struct gb_file_role {
    const char *what, *path;
    int role;
    int known;          /* 0: nothing that can be replaced (a stream, a device, not there) */
    dev_t dev;
    ino_t ino;
    char name[256];     /* a file not there yet: its name in the directory dev:ino */
};

static void identify(gb_file_role *x) {
    struct stat st;
    x->known = 0;
    /* a directory to write into that is not there yet is known as a file is */
    int dir_there = x->role == ROLE_DIR && stat(x->path, &st) == 0;
    if (dir_there) {
        /* st is the directory */
    } else if (x->role != ROLE_IN) {
        gb_out_target t;
        gb_err e;
        if (gb_output_resolve(x->path, &t, &e) != GB_OK || t.kind == GB_OUT_STREAM) return;
        if (t.kind == GB_OUT_FD) {
            if (fstat(t.fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
        } else if (stat(t.path, &st) != 0) {
            if (stat(t.dir, &st) != 0) return;
            snprintf(x->name, sizeof x->name, "%s", t.base);
        }
    } else {
        int ok = strcmp(x->path, "-") ? stat(x->path, &st) == 0 : fstat(0, &st) == 0;
        if (!ok || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return;
    }
    x->known = 1;
    x->dev = st.st_dev;
    x->ino = st.st_ino;
}

static void add(gb_file_roles *r, const char *what, const char *path, int role) {
    if (!path) return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        gb_file_role *more = realloc(r->item, cap * sizeof *more);
        if (!more) {
            r->oom = 1;
            return;
        }
        r->item = more;
        r->cap = cap;
    }
    gb_file_role *x = &r->item[r->n++];
    memset(x, 0, sizeof *x);
    x->what = what;
    x->path = path;
    x->role = role;
}

void gb_roles_input(gb_file_roles *r, const char *what, const char *path) { add(r, what, path, ROLE_IN); }
void gb_roles_output(gb_file_roles *r, const char *what, const char *path) { add(r, what, path, ROLE_OUT); }
void gb_roles_output_dir(gb_file_roles *r, const char *what, const char *path) { add(r, what, path, ROLE_DIR); }

int gb_roles_check(gb_file_roles *r, gb_err *e) {
    int rc = GB_OK;
    if (r->oom) rc = gb_errf(e, GB_FAIL, "out of memory checking the files");
    for (size_t i = 0; i < r->n && rc == GB_OK; i++) identify(&r->item[i]);
    for (size_t i = 0; i < r->n && rc == GB_OK; i++) {
        const gb_file_role *a = &r->item[i];
        if (!a->known) continue;
        for (size_t k = i + 1; k < r->n && rc == GB_OK; k++) {
            const gb_file_role *b = &r->item[k];
            if (!b->known || a->dev != b->dev || a->ino != b->ino || strcmp(a->name, b->name) != 0) continue;
            if (a->role == ROLE_IN && b->role == ROLE_IN) continue; /* read twice: harmless */
            const gb_file_role *w = a->role == ROLE_IN ? b : a, *o = w == a ? b : a;
            if (o->role == ROLE_IN)
                rc = gb_errf(e, GB_FAIL, "%s %s is %s %s: gpubench never writes over one of its own inputs%s%s", w->what,
                             w->path, o->what, o->path, w->what[0] == '-' ? "; give another " : "",
                             w->what[0] == '-' ? w->what : "");
            else
                rc = gb_errf(e, GB_FAIL, "%s %s and %s %s are the same %s: one would replace the other", a->what, a->path,
                             b->what, b->path, a->role == ROLE_DIR || b->role == ROLE_DIR ? "path" : "file");
        }
    }
    /* then a directory to write into that is there as something else (a results
     * file): said before anything is measured, not after the run */
    for (size_t i = 0; i < r->n && rc == GB_OK; i++) {
        struct stat st;
        const gb_file_role *d = &r->item[i];
        if (d->role == ROLE_DIR && stat(d->path, &st) == 0 && !S_ISDIR(st.st_mode))
            rc = gb_errf(e, GB_FAIL, "%s %s: there is a file of that name, not a directory to write into", d->what,
                         d->path);
    }
    free(r->item);
    memset(r, 0, sizeof *r);
    return rc;
}
