/* catalog.c — the list of ops, in the order `gpubench list` shows them,
 * made from the table of ops (ops.def). */
#include <stdio.h>
#include <string.h>
#include "op.h"

/* Each op's entry, defined in its op file (ops with variants define several;
 * an op named twice is declared twice, which C allows). */
#define GB_OP(ID, name, cpu, cuda) extern const gb_op gb_op_##name;
#include "ops.def"

const gb_op *const gb_ops[GB_OP_COUNT] = {
#define GB_OP(ID, name, cpu, cuda) [GB_OP_##ID] = &gb_op_##name,
#include "ops.def"
};

const gb_op *gb_op_find(const char *name) {
    for (int i = 0; i < GB_OP_COUNT; i++)
        if (gb_ops[i] && strcmp(gb_ops[i]->name, name) == 0) return gb_ops[i];
    return NULL;
}

char *gb_op_list(char *buf, size_t len) {
    size_t at = 0;
    if (len) buf[0] = '\0';
    for (int i = 0; i < GB_OP_COUNT && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", gb_ops[i]->name);
    return buf;
}
