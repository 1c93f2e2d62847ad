/* op_matmul.c — C = A·B (A m×k, B k×n, C m×n, row-major), and
 * batched_matmul: `batch` independent such products stored one after
 * another (A batch×m×k, …), for the question where many small problems stop
 * paying on the GPU. One catalogue code for both: matmul is a batch of one.
 *
 * Verification. Against another backend: max|C−Cref|/max|Cref|. On its own:
 * a randomized Freivalds check, C·x against A·(B·x) for two random vectors
 * x, computed in higher precision than the data (double for float32, long
 * double for float64), O(mk + kn + mn) instead of a second GEMM.
 *
 * Both tolerances rest on the probabilistic rounding-error analysis of inner
 * products (Higham & Mary, SIAM J. Sci. Comput. 2019): with independent,
 * mean-zero rounding errors an inner product of length k is off by about
 * sqrt(k)·u·(typical partial sum) rather than the worst-case k·u·Σ|a||b|.
 * Blocked BLAS kernels (OpenBLAS, cuBLAS) only shorten the partial sums. The
 * worst-case bound is orders of magnitude too loose to catch a wrong answer,
 * so the tolerances below are statistical, with a margin over what correct
 * GEMMs measure on our uniform [-1,1) inputs (OpenBLAS, float32 and float64,
 * shapes 64³ … 2048³, [4096,16,4096], [16,4096,16], [3,5000,7],
 * [2000,3000,100]; numbers quoted below). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "op.h"
#include "rng.h"
#include "matmul_lowp.h"

/* Input streams: one per array so A and B are independent; Freivalds
 * vectors use streams of their own. */
enum { STREAM_A = 1, STREAM_B = 2, STREAM_X = 100 };
#define FREIVALDS_VECTORS 2

/* TF32 keeps 10 explicit mantissa bits: unit roundoff 2^-11. */
#define TF32_U 0x1.0p-11

/* Products in the case: batched_matmul's `batch`, 1 for matmul. */
static size_t batch_of(const gb_case *c) {
    return c->op_id == GB_OP_BATCHED_MATMUL ? (size_t)c->params.batch : 1;
}

static const char *const math_values[] = {"default", "tf32", NULL};
static const gb_param_spec params[] = {
    {"math", GB_PARAM_ENUM, offsetof(gb_params, math), 0, 0, math_values,
     "GPU float32 math: \"default\" (full FP32) or \"tf32\" (tensor cores, 10-bit mantissa inputs); "
     "the CPU always computes full FP32"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static int parse_size(const cJSON *size, gb_case *c, gb_err *e) {
    return gb_parse_shape(size, 3, c, e); /* n → n×n×n; [m, k, n] */
}


static void count(gb_case *c) {
    double m = (double)c->shape[0], k = (double)c->shape[1], n = (double)c->shape[2], b = (double)batch_of(c);
    c->flops = 2.0 * m * n * k * b;
    /* read A and B once, write C once (int8's C is int32, float8's float32) */
    c->bytes = b * (gb_dtype_bytes(c->dtype) * (m * k + k * n) + (double)gb_elem_size(gb_gemm_out_elem(c->dtype)) * m * n);
}

static double host_bytes(const gb_case *c) {
    double m = (double)c->shape[0], k = (double)c->shape[1], n = (double)c->shape[2], b = (double)batch_of(c);
    /* A, B; C inside a backend plus one fetched copy per backend (cpu, cuda). */
    return b * (gb_dtype_bytes(c->dtype) * (m * k + k * n) + (double)gb_elem_size(gb_gemm_out_elem(c->dtype)) * 3.0 * m * n);
}

static int make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2], b = batch_of(c);
    if (gb_matmul_is_lowp(c->dtype)) return gb_matmul_lowp_inputs(c, b, in, e);
    gb_array *A = gb_arrays_add(in, "A", gb_real_elem(c->dtype), b * m * k, e);
    if (!A) return GB_SKIP;
    gb_array *B = gb_arrays_add(in, "B", gb_real_elem(c->dtype), b * k * n, e);
    if (!B) return GB_SKIP;
    /* Uniform [-1, 1): mean zero, so C has no dominant constant part that
     * would hide errors, and entries are O(sqrt(k)). */
    if (c->dtype == GB_FLOAT32) {
        gb_rng_fill_f32(A->data, b * m * k, c->seed, STREAM_A, -1.0, 1.0);
        gb_rng_fill_f32(B->data, b * k * n, c->seed, STREAM_B, -1.0, 1.0);
    } else {
        gb_rng_fill_f64(A->data, b * m * k, c->seed, STREAM_A, -1.0, 1.0);
        gb_rng_fill_f64(B->data, b * k * n, c->seed, STREAM_B, -1.0, 1.0);
    }
    return GB_OK;
}

/* The unit roundoff an answer is held to: float32 / float64, or TF32 for
 * float32 with math == tf32 (its inputs are rounded to 10 mantissa bits; the
 * accumulation stays FP32, covered by adding the FP32 term). */
static double unit_roundoff(const gb_case *c) {
    double u = gb_eps(c->dtype);
    if (c->dtype == GB_FLOAT32 && c->params.math == GB_MATH_TF32) u += TF32_U;
    return u;
}

/* Against another backend: a correct GEMM differs from the exact product by
 * about 0.4·sqrt(k)·u·max|C| in max-norm by the statistical model; OpenBLAS
 * measures 5–9·u for k = 64 … 5000 (blocking keeps partial sums short), so
 * two correct backends differ by at most ~18·u. 8·sqrt(k)·u + 16·u is 80·u at
 * k = 64 and grows as sqrt(k) for long inner products, where another
 * summation order (GPU split-K) may follow the model more closely. TF32
 * inputs: each product is off by ~(δa+δb)·|ab|, a relative difference of
 * ~0.8·2^-11 ≈ 4e-4 independent of k (measured 2.0–3.2e-4 against OpenBLAS
 * FP32 with round-to-nearest TF32); 16·2^-11 ≈ 7.8e-3 leaves 20x, also for
 * truncating conversion. A transposed or shifted operand, a missing block or
 * a NaN is off by O(1) and fails. */
static double ref_tolerance(const gb_case *c) {
    double tol = (8.0 * sqrt((double)c->shape[1]) + 16.0) * gb_eps(c->dtype);
    if (c->dtype == GB_FLOAT32 && c->params.math == GB_MATH_TF32) tol += 16.0 * TF32_U;
    return tol;
}

/* Freivalds, own check. For each random x (entries ±[1,2): never zero, so a
 * NaN anywhere in C reaches C·x) and each row i:
 *     r_i = |(C·x)_i − (A·(B·x))_i| / (|A|·(|B|·|x|))_i
 * Worst case r_i <= γ_k ≈ k·u. Statistically the GEMM error E_ij is about
 * 0.55·u·(|A||B|)_ij with random sign, and x has random signs, so
 * (E·x)_i ≈ sqrt(n)·0.55·u·(|A||B||x|)_i / n. The reported metric
 *     scaled_residual = max_i r_i · sqrt(n) / u
 * is therefore O(1) whatever m, k, n: about 3 (the max over m rows of a
 * normal variable of size 0.6) for a correct float32 or float64 GEMM;
 * OpenBLAS measures 0.1–1.8 on the shapes above (TF32-rounded inputs:
 * 0.01–0.6 with u = 2^-11). A tolerance of 64 leaves a 20x margin, yet catches a single element of C off
 * by ~8·u·sqrt(k·n) relative to max|C| (5e-4 at k = n = 1024 in float32).
 * The reference sums are exact to far below u: double for float32 data
 * (2^-29 smaller), long double (64-bit mantissa, 2^-11 smaller) for float64. */
#define FREIVALDS_TOL 64.0

#define DEFINE_FREIVALDS(NAME, T, ACC, ABS)                                                      \
    static double NAME(const T *A, const T *B, const T *C, size_t m, size_t k, size_t n,     \
                       const ACC *x, ACC *bx, ACC *abx, size_t *worst_row) {                 \
        /* bx = B·x and abx = |B|·|x|, row by row. */                                         \
        _Pragma("omp parallel for schedule(static)")                                         \
        for (size_t l = 0; l < k; l++) {                                                     \
            ACC s = 0, sa = 0;                                                               \
            const T *row = B + l * n;                                                        \
            for (size_t j = 0; j < n; j++) {                                                 \
                s += (ACC)row[j] * x[j];                                                     \
                sa += ABS((ACC)row[j]) * ABS(x[j]);                                          \
            }                                                                                \
            bx[l] = s;                                                                       \
            abx[l] = sa;                                                                     \
        }                                                                                    \
        double worst = 0;                                                                    \
        size_t where = 0;                                                                    \
        _Pragma("omp parallel")                                                              \
        {                                                                                    \
            double my_worst = 0;                                                             \
            size_t my_where = 0;                                                             \
            _Pragma("omp for schedule(static)")                                              \
            for (size_t i = 0; i < m; i++) {                                                 \
                ACC cx = 0, z = 0, w = 0;                                                    \
                const T *crow = C + i * n, *arow = A + i * k;                                \
                for (size_t j = 0; j < n; j++) cx += (ACC)crow[j] * x[j];                    \
                for (size_t l = 0; l < k; l++) {                                             \
                    z += (ACC)arow[l] * bx[l];                                               \
                    w += ABS((ACC)arow[l]) * abx[l];                                         \
                }                                                                            \
                double d = (double)ABS(cx - z);                                             \
                double r = w > 0 ? d / (double)w : (d == 0 ? 0 : INFINITY);                  \
                if (isnan(r)) r = INFINITY; /* NaN or Inf in C */                             \
                if (r > my_worst) { my_worst = r; my_where = i; }                            \
            }                                                                                \
            _Pragma("omp critical")                                                          \
            if (my_worst > worst) {                                                          \
                worst = my_worst;                                                            \
                where = my_where;                                                            \
            }                                                                                \
        }                                                                                    \
        *worst_row = where;                                                                  \
        return worst;                                                                        \
    }

DEFINE_FREIVALDS(freivalds_f32, float, double, fabs)
DEFINE_FREIVALDS(freivalds_f64, double, long double, fabsl)

/* The scaled residual of one product (+inf for NaN/Inf in C, NAN when out
 * of memory), and where it is worst. */
static double scaled_residual(gb_dtype dtype, double u, const void *A, const void *B, const void *C, size_t m,
                              size_t k, size_t n, uint64_t seed, size_t *worst_row, int *worst_vec) {
    /* One buffer for x, B·x and |B|·|x| in the wider type. */
    size_t acc = dtype == GB_FLOAT32 ? sizeof(double) : sizeof(long double);
    unsigned char *buf = gb_alloc(acc * (n + 2 * k));
    if (!buf) return NAN;
    double worst = 0;
    *worst_row = 0;
    *worst_vec = 0;
    for (int t = 0; t < FREIVALDS_VECTORS; t++) {
        size_t row = 0;
        double r;
        if (dtype == GB_FLOAT32) {
            double *x = (double *)buf, *bx = x + n, *abx = bx + k;
            for (size_t j = 0; j < n; j++) {
                uint64_t bits = gb_rng_bits(seed, STREAM_X + (uint64_t)t, j);
                x[j] = (bits & 1 ? -1.0 : 1.0) * (1.0 + (double)(bits >> 11) * 0x1.0p-53);
            }
            r = freivalds_f32(A, B, C, m, k, n, x, bx, abx, &row);
        } else {
            long double *x = (long double *)buf, *bx = x + n, *abx = bx + k;
            for (size_t j = 0; j < n; j++) {
                uint64_t bits = gb_rng_bits(seed, STREAM_X + (uint64_t)t, j);
                x[j] = (bits & 1 ? -1.0L : 1.0L) * (1.0L + (long double)(bits >> 11) * 0x1.0p-53L);
            }
            r = freivalds_f64(A, B, C, m, k, n, x, bx, abx, &row);
        }
        if (r > worst || isinf(r)) { worst = r; *worst_row = row; *worst_vec = t; }
    }
    gb_free(buf);
    return isinf(worst) ? INFINITY : worst * sqrt((double)n) / u;
}

/* Freivalds on every product of the batch; the worst. */
static void verify_own(const gb_case *c, const gb_arrays *in, const gb_array *C, gb_verdict *v) {
    size_t m = (size_t)c->shape[0], k = (size_t)c->shape[1], n = (size_t)c->shape[2], b = batch_of(c);
    const gb_array *A = gb_arrays_find(in, "A"), *B = gb_arrays_find(in, "B");
    snprintf(v->against, sizeof v->against, "reference");
    snprintf(v->metric, sizeof v->metric, "scaled_residual");
    v->tolerance = FREIVALDS_TOL;
    if (!A || !B || A->count != b * m * k || B->count != b * k * n) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "inputs A (m×k) and B (k×n) missing or mis-sized");
        return;
    }
    size_t esz = gb_elem_size(C->elem), worst_item = 0, worst_row = 0;
    int worst_vec = 0, oom = 0;
    v->error = 0;
    /* The products of a batch in parallel (a batch of 1000 was seconds of a
     * default run serially); the worst, the first in batch order among equals. */
#pragma omp parallel for schedule(dynamic, 8) if (b > 1)
    for (size_t i = 0; i < b; i++) {
        size_t row = 0;
        int vec = 0;
        double r = scaled_residual(c->dtype, unit_roundoff(c), (const char *)A->data + i * m * k * esz,
                                   (const char *)B->data + i * k * n * esz, (const char *)C->data + i * m * n * esz,
                                   m, k, n, c->seed, &row, &vec);
#pragma omp critical(gb_batched_worst)
        {
            if (isnan(r)) oom = 1;
            else if (r > v->error || (isinf(r) && !isinf(v->error)) || (r == v->error && r > 0 && i < worst_item)) {
                v->error = r;
                worst_item = i;
                worst_row = row;
                worst_vec = vec;
            }
        }
    }
    if (oom) {
        v->status = GB_VERIFY_NOT_CHECKED;
        v->error = NAN;
        snprintf(v->detail, sizeof v->detail, "out of host memory for the Freivalds vectors");
        return;
    }
    v->status = v->error <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    char product[48] = "";
    if (b > 1) snprintf(product, sizeof product, "product %zu of %zu, ", worst_item, b);
    snprintf(v->detail, sizeof v->detail,
             "Freivalds: |C·x − A·(B·x)| / (|A|·|B|·|x|) · sqrt(n)/u over %d random vectors; "
             "worst at %srow %zu (vector %d)%s",
             FREIVALDS_VECTORS, product, worst_row, worst_vec,
             isinf(v->error) ? ": NaN/Inf in C" : "");
}

static void verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out,
                   const gb_arrays *ref, gb_verdict *v) {
    size_t m = (size_t)c->shape[0], n = (size_t)c->shape[2], b = batch_of(c);
    memset(v, 0, sizeof *v);
    const gb_array *C = gb_arrays_find(out, "C");
    if (!C || C->count != b * m * n || C->elem != gb_gemm_out_elem(c->dtype)) {
        v->status = GB_VERIFY_FAILED;
        v->error = INFINITY;
        /* Against another backend, `against` stays empty: the runner names it. */
    if (!ref) snprintf(v->against, sizeof v->against, "reference");
        snprintf(v->metric, sizeof v->metric, "max_rel_err");
        snprintf(v->detail, sizeof v->detail, "output C (%zu × %zu×%zu %s) missing or mis-sized", b, m, n,
                 gb_dtype_name(c->dtype));
        return;
    }
    int lowp = gb_matmul_is_lowp(c->dtype);
    if (!ref) {
        if (lowp) gb_matmul_lowp_verify(c, b, in, C, v);
        else verify_own(c, in, C, v);
        return;
    }
    const gb_array *R = gb_arrays_find(ref, "C");
    snprintf(v->metric, sizeof v->metric, "max_rel_err");
    v->tolerance = lowp ? gb_matmul_lowp_tolerance(c, 1) : ref_tolerance(c);
    if (!R) {
        v->status = GB_VERIFY_NOT_CHECKED;
        v->error = NAN;
        snprintf(v->detail, sizeof v->detail, "reference output has no C");
        return;
    }
    size_t where = 0;
    v->error = gb_max_rel_err(C, R, &where);
    v->status = v->error <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    char product[48] = "";
    if (b > 1) snprintf(product, sizeof product, " of product %zu", where / (m * n));
    snprintf(v->detail, sizeof v->detail, "max|C−Cref|/max|Cref|, worst at C[%zu][%zu]%s",
             where % (m * n) / n, where % n, product);
}

const gb_op gb_op_matmul = {
    .id = GB_OP_MATMUL,
    .name = "matmul",
    .dtypes = (1u << GB_DTYPE_COUNT) - 1, /* all, the reduced precisions included */
    .summary = "C = A·B, dense, m×k times k×n (size n or [m,k,n]); 2mnk flops",
    .rate_kind = "flops",
    .params = params,
    .accelerator_params = (const char *const[]){"math", NULL},
    .parse_size = parse_size,
    .count = count,
    .host_bytes = host_bytes,
    .make_inputs = make_inputs,
    .verify = verify,
};

static const gb_param_spec batched_params[] = {
    {"batch", GB_PARAM_INT, offsetof(gb_params, batch), 1, 1e7, NULL,
     "independent products in the batch (default 1000)"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

const gb_op gb_op_batched_matmul = {
    .id = GB_OP_BATCHED_MATMUL,
    .name = "batched_matmul",
    .dtypes = (1u << GB_DTYPE_COUNT) - 1,
    .summary = "batch independent products C_i = A_i·B_i, m×k times k×n (size n or [m,k,n], param batch); "
               "2mnk·batch flops",
    .rate_kind = "flops",
    .params = batched_params,
    .parse_size = parse_size,
    .count = count,
    .host_bytes = host_bytes,
    .make_inputs = make_inputs,
    .verify = verify,
};

/* The same product by cuBLASXt: host-resident operands tiled over `gpus`
 * devices, so A, B and C may together exceed one GPU's memory. Read,
 * counted, made and checked exactly as matmul. */
static const gb_param_spec xt_params[] = {
    GB_PARAM_GPUS,
    {"block", GB_PARAM_INT, offsetof(gb_params, block), 0, 65536, NULL,
     "cuBLASXt tile edge (cublasXtSetBlockDim); 0 = the library's default"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

const gb_op gb_op_matmul_xt = {
    .id = GB_OP_MATMUL_XT,
    .name = "matmul_xt",
    .summary = "matmul by cuBLASXt over `gpus` devices, operands in host memory (out-of-core); 2mnk flops",
    .rate_kind = "flops",
    .params = xt_params,
    .parse_size = parse_size,
    .count = count,
    .host_bytes = host_bytes,
    .make_inputs = make_inputs,
    .verify = verify,
    .multi_device = 1,
};
