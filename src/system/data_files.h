/* data_files.h — gpubench's own files, found beside its executable wherever
 * it was put: its scripts (scripts/: the plot script, the peers' worker) and
 * its suites (suites/: `gpubench run quick` from any directory). */
#ifndef GB_DATA_FILES_H
#define GB_DATA_FILES_H
#include <stddef.h>
#include "gb.h"

/* folder/name relative to the executable's directory, first that exists:
 *   <exe_dir>/folder/name                   (build tree)
 *   <exe_dir>/../folder/name                (bundle)
 *   <exe_dir>/../share/gpubench/folder/name (make install)
 * exe_dir NULL: this executable's. GB_OK and the path, or GB_SKIP with the
 * places looked at in e. */
int gb_data_file_find(const char *exe_dir, const char *folder, const char *name, char *path, size_t len, gb_err *e);
/* The folder itself, first of those places that is a directory (`list`
 * names the suites in it). */
int gb_data_folder_find(const char *exe_dir, const char *folder, char *dir, size_t len, gb_err *e);
#endif
