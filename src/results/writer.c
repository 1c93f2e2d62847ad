/* writer.c — the list of output formats (writer.h). Their order is
 * gb_format's (report.h): table, md, csv, html. */
#include <string.h>

#include "writer.h"

static const gb_writer *const gb_writers[] = {&gb_writer_term, &gb_writer_md, &gb_writer_csv, &gb_writer_html};
enum { NWRITERS = sizeof gb_writers / sizeof gb_writers[0] };

const gb_writer *gb_writer_find(const char *name) {
    for (int i = 0; name && i < NWRITERS; i++)
        if (!strcmp(gb_writers[i]->name, name)) return gb_writers[i];
    return NULL;
}

const gb_writer *gb_writer_at(int i) { return i >= 0 && i < NWRITERS ? gb_writers[i] : NULL; }

int gb_writer_index(const gb_writer *w) {
    for (int i = 0; i < NWRITERS; i++)
        if (gb_writers[i] == w) return i;
    return -1;
}
