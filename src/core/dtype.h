/* dtype.h — the element types a case is computed in, as one table.
 *
 * A dtype is an entry of gb_dtypes[] (dtype.c): its name, its size, what its
 * tolerances are built from, whether it is a floating type, the type sums are
 * carried in, and the host array element types that hold it. Code that needs
 * one of these facts looks it up here instead of testing for GB_FLOAT32; what
 * stays a test of a dtype is the choice of a typed routine or kernel
 * (cblas_sgemm or cblas_dgemm), which belongs to the file computing it.
 *
 * Part of the plugin ABI (gb.h includes it): gb_case.dtype is an index into
 * this table, so a new dtype goes at the end of the enum and of the table,
 * and GB_ABI_VERSION goes up with it. */
#ifndef GB_DTYPE_H
#define GB_DTYPE_H

#include <stddef.h>

/* The dtypes, in the order of gb_dtypes[] (and of results' "dtype" names). */
typedef enum {
    GB_FLOAT32 = 0, GB_FLOAT64 = 1,
    /* the reduced precisions of issue #27: GEMM (and bfloat16/float16
     * elementwise and reduction) only; not run by a suite naming no dtypes */
    GB_BFLOAT16 = 2, GB_FLOAT16 = 3, GB_FLOAT8_E4M3 = 4, GB_INT8 = 5,
    GB_DTYPE_COUNT
} gb_dtype;

/* Element types of arrays handed between driver and backends. Complex types
 * are interleaved (re, im) pairs, the layout of fftw_complex and cuComplex. */
typedef enum {
    GB_E_F32, GB_E_F64, GB_E_C64, GB_E_C128, GB_E_I32, GB_E_I64,
    /* stored as their bits (precision.h converts): uint16_t, uint16_t,
     * uint8_t; int8 as int8_t */
    GB_E_BF16, GB_E_F16, GB_E_F8E4M3, GB_E_I8
} gb_elem;

typedef struct {
    const char *name;       /* as suites, results and tables spell it: "float32" */
    size_t size;            /* bytes of one element in host and device arrays */
    int is_float;           /* 1: a floating type; 0: an integer type */
    /* Unit roundoff u = 2^-p, p the significand's bits (the implicit one
     * included); every op's tolerance is a multiple of it. 0 for integers,
     * which are checked exactly. */
    double unit_roundoff;
    /* The type sums and products are carried in by the libraries, as
     * results name it ("float32" for float32 and bfloat16, "int32" for int8),
     * and its unit roundoff (0: exact). float8's is 2^-14, not float32's:
     * Hopper's FP8 tensor cores keep about 14 bits in their partial sums
     * (DeepSeek-V3 report, §3.3.2) before cuBLASLt promotes them to FP32. */
    const char *accumulate;
    double accumulate_roundoff;
    /* A GEMM of this dtype: its output's element type (the input's for
     * bfloat16 and float16, as PyTorch; float32 for float8; int32 for int8)
     * and that type's name. */
    gb_elem gemm_out;
    const char *gemm_out_name;
    gb_elem elem;           /* host array element type of a real array of it */
    gb_elem complex_elem;   /* its complex twin (FFT outputs); elem where there is none */
    const char *c_type;     /* the C type arrays of it are stored as: "float", "double" */
    int suite_default;      /* 1: run by a suite that names no "dtypes" */
    /* The key of its GEMM ceiling in a backend's peaks ("gemm_float32_gflops"):
     * what a compute-bound case of this dtype is held against. */
    const char *gemm_peak;
} gb_dtype_info;

/* The table, indexed by gb_dtype. */
extern const gb_dtype_info gb_dtypes[GB_DTYPE_COUNT];

/* The entry of d; NULL when d is not a dtype. */
const gb_dtype_info *gb_dtype_get(gb_dtype d);
/* "float32"; "?" when d is not a dtype. */
const char *gb_dtype_name(gb_dtype d);
/* The dtype named name, or -1. */
int gb_dtype_parse(const char *name);
/* Bytes of one element (0 when d is not a dtype). */
size_t gb_dtype_size(gb_dtype d);
/* The same as a double, for the byte counts of ops. */
double gb_dtype_bytes(gb_dtype d);
/* Unit roundoff of d (2^-24 for float32, 2^-53 for float64): tolerances are multiples of it. */
double gb_eps(gb_dtype d);
/* Element type of a real array of this dtype, and its complex twin. */
gb_elem gb_real_elem(gb_dtype d);
gb_elem gb_complex_elem(gb_dtype d);
/* Its GEMM ceiling's key in peaks (NULL: none, or d is not a dtype). */
const char *gb_dtype_gemm_peak(gb_dtype d);
/* Element type and unit roundoff of a GEMM's output in d (0: exact). */
gb_elem gb_gemm_out_elem(gb_dtype d);
double gb_gemm_out_roundoff(gb_dtype d);
/* Bits of the dtypes every op computes (float32, float64): an op's
 * gb_op.dtypes is this unless it has reduced-precision paths. */
#define GB_DTYPES_CLASSIC (1u << GB_FLOAT32 | 1u << GB_FLOAT64)
/* Bit d set for every dtype a suite runs when it names none. */
unsigned gb_dtype_default_mask(void);
/* The names, ", "-separated in table order ("float32, float64"), into buf,
 * for error messages; returns buf. */
char *gb_dtype_list(char *buf, size_t len);

#endif
