/* matmul_lowp.h — matmul and batched_matmul in the reduced precisions
 * (bfloat16, float16, float8_e4m3, int8): inputs and the check against a
 * float64 reference (matmul_lowp.c). op_matmul.c keeps float32 and float64. */
#ifndef GB_MATMUL_LOWP_H
#define GB_MATMUL_LOWP_H

#include "op.h"

/* 1 for the dtypes this file handles. */
int gb_matmul_is_lowp(gb_dtype d);
/* A and B (b products) of the dtype, rounded from the same uniform draws as
 * float64's (streams 1 and 2); int8 in [-r, r], r = gb_int8_range(k). */
int gb_matmul_lowp_inputs(const gb_case *c, size_t b, gb_arrays *in, gb_err *e);
/* The bound on max|C − Cexact| / max|Cexact|: 4·u_out + (8·sqrt(k) + 16)·u_acc
 * (u_out the output format's unit roundoff, u_acc the accumulation's); 0 for
 * int8, whose int32 answer is exact. Against another backend's output the
 * same bound doubled (each side is within it of the exact product). */
double gb_matmul_lowp_tolerance(const gb_case *c, int against_backend);
/* C (b products, the dtype's GEMM output type) against a float64 reference
 * from the same rounded inputs: every row when the case is small, else
 * sampled rows (all of their columns), and a NaN/Inf scan of all of C. */
void gb_matmul_lowp_verify(const gb_case *c, size_t b, const gb_arrays *in, const gb_array *C, gb_verdict *v);

#endif
