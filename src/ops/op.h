/* op.h — the op catalogue: what each operation is, independent of backend.
 *
 * An op knows how to read its sizes and params from a suite, how much work a
 * case is (flops, minimum bytes), how to make its inputs (seeded,
 * deterministic, never zeros), and how to check an answer. Backends only
 * compute; they never decide whether an answer is right.
 *
 * Array names and layouts each op hands to / expects from backends:
 *   matmul      in: A (m×k), B (k×n)             out: C (m×n)        row-major
 *   elementwise in: a, b (rows·cols)             out: out            out = a*b + sin(a) + cos(b)
 *   reduction   in: x (rows·cols)                out: stats (3 × F64: sum, mean, std)
 *                                                     std is the population standard deviation
 *   fft         in: x (n×n real, row-major)      out: X: r2c n×(n/2+1) complex, c2c n×n complex
 *                                                     (unnormalised forward transform, FFTW sign -1)
 *   solve       in: A (n×n SPD), B (n×nrhs)      out: X (n×nrhs)     column-major (LAPACK)
 *   spgemm      in: A_rowptr, A_colind (I32), A_val, B_rowptr, B_colind, B_val   (CSR, n×n,
 *                   column indices sorted within each row)
 *               out: C_rowptr, C_colind (I32), C_val (CSR; column order within a row free)
 *   matmul_xt, solve_mg, fft_xt: as matmul, solve and fft (fft_xt: always c2c)
 *   svd         in: A (m×n, column-major)        out: S (min(m,n)), U (m×k), VT (k×n), k = min(m,n),
 *                                                     column-major, singular values descending
 *   transfer    in: x (bytes / element size)     out: y: x where the (first) copy put it (the device
 *                                                     for h2d and both, read back untimed; the host
 *                                                     target for d2h; the CPU's local copy);
 *                                                     y_back (direction both): the D2H leg's copy
 *   batched_matmul in: A (batch×m×k), B (batch×k×n) out: C (batch×m×n), each product row-major,
 *                                                     products stored one after another
 *   stencil     in: p0, f (rows×cols, row-major) out: p (rows×cols, after iters sweeps; boundary ring = p0's),
 *                                                     norms (F64, iters / norm_every of them)
 *   slicing     in: x (rows×cols, row-major)     out: y: x[::2, ::2] (ceil(rows/2)×ceil(cols/2)) or
 *                                                     x.T (cols×rows), row-major
 */
#ifndef GB_OP_H
#define GB_OP_H

#include <cjson/cJSON.h>
#include "gb.h"
#include "op_id.h"

/* One entry of an op's parameter table; the suite parser validates params
 * against it generically (type, range, allowed values, unknown keys). */
typedef enum { GB_PARAM_INT, GB_PARAM_DOUBLE, GB_PARAM_BOOL, GB_PARAM_ENUM } gb_param_type;
typedef struct {
    const char *key;
    gb_param_type type;
    size_t offset;              /* offsetof(gb_params, field): int for INT/BOOL/ENUM, double for DOUBLE */
    double min, max;            /* INT and DOUBLE: inclusive range */
    const char *const *values;  /* ENUM: NULL-terminated names; the index is stored */
    const char *help;
} gb_param_spec;

/* The outcome of checking one backend's output. */
typedef enum { GB_VERIFY_NOT_CHECKED = 0, GB_VERIFY_PASSED, GB_VERIFY_FAILED } gb_verify_status;
typedef struct {
    gb_verify_status status;
    char against[16];    /* "cpu" (another backend's output) or "reference" (the op's own check) */
    char metric[48];     /* e.g. "max_rel_err", "scaled_residual" */
    double error;        /* the measured value of metric */
    double tolerance;    /* the bound it was held to */
    char detail[256];    /* what was compared, where it first went wrong */
} gb_verdict;

/* Facts a backend reports about how it ran a case, stored under "extra" in
 * the results (e.g. {"routine": "dgesdd"}, {"output_nnz": 1234}). */

typedef struct gb_op {
    gb_op_id id;
    const char *name;        /* as written in suites: "matmul" */
    const char *summary;     /* one line for `gpubench list` */
    const char *rate_kind;   /* "flops" (judged in GFLOP/s) or "bytes" (GB/s) */
    int size_in_bytes;       /* a case's size is a byte count (transfer): words write it in KiB/MiB/GiB */
    /* How to read this op's table where it differs from the other ops (printed
     * under the op's caption by `report` and `run`); NULL for none. */
    const char *note;
    const gb_param_spec *params;  /* terminated by an entry with key == NULL */
    /* Params added after results were recorded (NULL-terminated; may be
     * NULL): left out of a case's params (results, tables) while at their
     * default, so that those results still match new ones (compare keys
     * cases by their params). */
    const char *const *late_params;
    /* Params only accelerator backends read (NULL-terminated; may be NULL):
     * a host backend computes the same thing whatever their values, so
     * run/run_shared.c shares a host result between cases differing only in them. */
    const char *const *accelerator_params;
    /* Read one entry of "sizes" (a positive integer n, or an explicit shape
     * array) into c->shape / c->rank / c->label. Returns GB_OK or GB_FAIL
     * with the reason (without the JSON path: the caller adds it). */
    int (*parse_size)(const cJSON *size, gb_case *c, gb_err *e);
    /* Work counts for rates; fill c->flops and c->bytes. */
    void (*count)(gb_case *c);
    /* Bytes of host memory the case needs (inputs + outputs + references),
     * so the runner can skip what does not fit. */
    double (*host_bytes)(const gb_case *c);
    /* Make the inputs, deterministic from c->seed. */
    int (*make_inputs)(const gb_case *c, gb_arrays *in, gb_err *e);
    /* Check out. If ref is non-NULL it is another backend's output for the
     * same inputs, already verified against the op's own check. */
    void (*verify)(const gb_case *c, const gb_arrays *in, const gb_arrays *out,
                   const gb_arrays *ref, gb_verdict *v);
    /* Bits (1 << gb_dtype) of the dtypes it computes; 0 means
     * GB_DTYPES_CLASSIC (float32, float64). A case in another dtype is
     * recorded as skipped on every backend, with the reason, not run. */
    unsigned dtypes;
    /* 1: one repetition spreads over several devices of a backend (the
     * multi-GPU library routines, param "gpus"): the runner visits it once
     * per backend, not once per device of --devices. */
    int multi_device;
} gb_op;

/* The "gpus" param of the multi-GPU ops: how many devices of --devices the
 * library routine spreads over (the first gpus of the list). */
#define GB_PARAM_GPUS                                                                               \
    {"gpus", GB_PARAM_INT, offsetof(gb_params, gpus), 1, GB_MAX_DEVICES, NULL,                      \
     "devices the routine spreads over: the first gpus of --devices (default 1); the CPU side "     \
     "ignores it"}

/* The catalogue, in the order of `gpubench list` (that of ops.def). */
extern const gb_op *const gb_ops[GB_OP_COUNT];
const gb_op *gb_op_find(const char *name);
/* The names, ", "-separated in catalogue order, into buf (for error
 * messages: "known: matmul, elementwise, ..."); returns buf. */
char *gb_op_list(char *buf, size_t len);

/* Shared helpers for ops (src/ops/op_common.c). */
/* GB_OK when op computes dtype d; GB_SKIP with the reason ("fft has no
 * bfloat16 path: ...") otherwise. */
int gb_op_computes(const gb_op *op, gb_dtype d, gb_err *why);
/* The defaults of every param, in one place: math default, fast_math off,
 * fft r2c planned with FFTW_MEASURE, nrhs 1, density 0.01, svd auto, transfer
 * h2d from pinned memory, batch 1000, stencil 100 sweeps with a norm each,
 * slicing stride2. */
void gb_params_default(gb_params *p);
/* Parse a size that is a positive integer n → rows = cols = n (rank 2). */
int gb_parse_square_size(const cJSON *size, gb_case *c, gb_err *e);
/* Parse a size that is n or an array of exactly `rank` positive integers. */
int gb_parse_shape(const cJSON *size, int rank, gb_case *c, gb_err *e);
/* max |out-ref| / max(|ref|) over two real or complex arrays, NaN-aware
 * (any NaN in out gives +inf). Also reports the first bad index. */
double gb_max_rel_err(const gb_array *out, const gb_array *ref, size_t *worst_index);
/* rows × cols of a 2-D case (the bytes of one element: gb_dtype_bytes, dtype.h). */
double gb_case_elements(const gb_case *c);
/* A verdict that could not compare (inputs or outputs missing or
 * mis-sized): status FAILED (error +inf) or NOT_CHECKED (error NaN), and the
 * detail printf-style. */
void gb_verdict_unmeasured(gb_verdict *v, gb_verify_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Unit roundoff of the dtype, tolerances' unit: gb_eps (dtype.h). */
/* Parse "sizes" entries that are byte counts: a positive integer up to 2^40,
 * or a string "<n>KiB" / "<n>MiB" / "<n>GiB" (op_transfer.c). */
int gb_parse_bytes(const cJSON *size, int64_t *bytes, gb_err *e);


#endif
