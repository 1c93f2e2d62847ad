/* op_id.h — the ops' ids, made from the one table of ops (ops.def).
 *
 * GB_OP_<ID> is the op's position in that table and the index of gb_ops[]
 * (op.h) and of each backend's implementations; gb_case.op_id holds it.
 * Code names an id only where it treats that op differently (an op file's
 * variants: batched_matmul in op_matmul.c); lists of ops come from the table. */
#ifndef GB_OP_ID_H
#define GB_OP_ID_H

typedef enum {
#define GB_OP(ID, name, cpu, cuda) GB_OP_##ID,
#include "ops.def"
    GB_OP_COUNT
} gb_op_id;

#endif
