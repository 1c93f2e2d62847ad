/* testlib_ops.h — helpers of the op tests (tests/ops/testlib_ops.c). */
#ifndef GB_TESTLIB_OPS_H
#define GB_TESTLIB_OPS_H
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "op.h"

/* A 2-D case of op id (m x n, seed 42, default params, FFTW's fast planner). */
gb_case gb_test_op_case(gb_op_id id, gb_dtype d, int64_t m, int64_t n);
/* The CPU backend, initialised on the first call. */
void gb_test_cpu_up(void);
/* Prepare, run `reps` repetitions, fetch into out. Returns the status. */
int gb_test_run_cpu(const gb_case *c, const gb_arrays *in, gb_arrays *out, int reps, gb_err *e);
/* Make inputs, run on the CPU, verify; returns the verdict status. */
gb_verify_status gb_test_run_and_verify(gb_case *c, gb_arrays *in, gb_arrays *out, gb_verdict *v);
/* The real part of element i, whatever the element type. */
void gb_test_set_real(gb_array *a, size_t i, double x);
double gb_test_get_real(const gb_array *a, size_t i);
/* A deep copy of a set of arrays (to corrupt one without touching the other). */
void gb_test_copy_arrays(const gb_arrays *src, gb_arrays *dst);

#endif
