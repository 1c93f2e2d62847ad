/* catalog.c — the list of ops, in the order `gpubench list` shows them. */
#include <string.h>
#include "op.h"

extern const gb_op gb_op_matmul, gb_op_elementwise, gb_op_reduction, gb_op_fft,
    gb_op_solve, gb_op_spgemm, gb_op_svd;
extern const gb_op gb_op_transfer;
extern const gb_op gb_op_batched_matmul;
extern const gb_op gb_op_matmul_xt, gb_op_solve_mg, gb_op_fft_xt; /* multi-GPU routines */
extern const gb_op gb_op_stencil;
extern const gb_op gb_op_slicing;

const gb_op *const gb_ops[GB_OP_COUNT] = {
    [GB_OP_MATMUL] = &gb_op_matmul,
    [GB_OP_ELEMENTWISE] = &gb_op_elementwise,
    [GB_OP_REDUCTION] = &gb_op_reduction,
    [GB_OP_FFT] = &gb_op_fft,
    [GB_OP_SOLVE] = &gb_op_solve,
    [GB_OP_SPGEMM] = &gb_op_spgemm,
    [GB_OP_SVD] = &gb_op_svd,
    [GB_OP_TRANSFER] = &gb_op_transfer,
    [GB_OP_BATCHED_MATMUL] = &gb_op_batched_matmul,
    [GB_OP_MATMUL_XT] = &gb_op_matmul_xt,
    [GB_OP_SOLVE_MG] = &gb_op_solve_mg,
    [GB_OP_FFT_XT] = &gb_op_fft_xt,
    [GB_OP_STENCIL] = &gb_op_stencil,
    [GB_OP_SLICING] = &gb_op_slicing,
};

const gb_op *gb_op_find(const char *name) {
    for (int i = 0; i < GB_OP_COUNT; i++)
        if (gb_ops[i] && strcmp(gb_ops[i]->name, name) == 0) return gb_ops[i];
    return NULL;
}
