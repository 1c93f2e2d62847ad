/* file_roles.h — no command writes over one of its own inputs, nor two of
 * its outputs over each other.
 *
 * Every command that writes registers, before any work, each file it reads
 * (inputs) and each file or directory it writes (outputs), with the words
 * that name it to a user ("the suite", "--out"); gb_roles_check then refuses
 * the command when two of them are the same file — the same inode, however
 * it was named: a hard link, a symbolic link, "./x" for "x" — and one of the
 * two is written:
 *   "--out s.json is the suite s.json: gpubench never writes over one of its
 *    own inputs; give another --out"
 *   "--out r.json and --export-gbench ./r.json are the same file: one would
 *    replace the other"
 * A file not there yet is known by its directory and name. Standard output, a
 * character device or a FIFO is not a file that is replaced (/dev/null may
 * be given twice). */
#ifndef GB_FILE_ROLES_H
#define GB_FILE_ROLES_H
#include <stddef.h>

#include "gb.h"

typedef struct gb_file_role gb_file_role;
typedef struct {
    gb_file_role *item;
    size_t n, cap;
    int oom;
} gb_file_roles;

/* what and path are kept as pointers: they must outlive the check. */
void gb_roles_input(gb_file_roles *r, const char *what, const char *path);
void gb_roles_output(gb_file_roles *r, const char *what, const char *path);
/* A directory files are written into (--plot DIR): no input or output may be
 * that directory itself. */
void gb_roles_output_dir(gb_file_roles *r, const char *what, const char *path);
/* GB_OK, or GB_FAIL naming both paths; frees what r holds either way. */
int gb_roles_check(gb_file_roles *r, gb_err *e);

#endif
