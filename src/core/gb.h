/* gb.h — types shared by the driver, the op catalogue and every backend.
 *
 * This header is part of the plugin ABI: the CUDA backend (a shared object
 * loaded with dlopen) is compiled against it. Change a struct here and bump
 * GB_ABI_VERSION so that a stale plugin is refused instead of misread. */
#ifndef GB_H
#define GB_H

#include <stddef.h>
#include <stdint.h>
#include "dtype.h"

#define GB_VERSION "0.1.0"
#define GB_ABI_VERSION 6
#define GB_MSG_LEN 512

/* Status codes returned by every function that can fail. The order matters:
 * a larger value is a worse outcome. */
typedef enum {
    GB_OK = 0,
    GB_SKIP = 1,  /* cannot run here (unsupported, too big): recorded with its reason */
    GB_FAIL = 2,  /* this case failed (library error, wrong answer); the run goes on */
    GB_FATAL = 3  /* the backend is unusable from now on (lost CUDA context) */
} gb_status;

/* An error message that names what failed and why. */
typedef struct {
    char msg[GB_MSG_LEN];
} gb_err;

/* Fill e->msg printf-style and return status (so callers write
 * `return gb_errf(e, GB_FAIL, "cublasSgemm: %s", ...)`). e may be NULL. */
int gb_errf(gb_err *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* gb_dtype (the dtype table) and gb_elem (host array element types): dtype.h. */

/* A named host array, 64-byte aligned, owned by the gb_arrays holding it. */
typedef struct {
    char name[24];
    gb_elem elem;
    size_t count; /* elements, not bytes */
    void *data;
} gb_array;

#define GB_MAX_ARRAYS 10
typedef struct {
    int count;
    gb_array item[GB_MAX_ARRAYS];
} gb_arrays;

/* Op parameters from the suite file. One struct for all ops: each op's
 * parameter table (src/ops/op.h) says which fields it reads; the rest keep their
 * defaults. Enums are stored as their index in the spec's value list. */
typedef enum { GB_MATH_DEFAULT = 0, GB_MATH_TF32 = 1 } gb_math;
typedef enum { GB_FFT_R2C = 0, GB_FFT_C2C = 1 } gb_fft_kind;
typedef enum { GB_PLAN_ESTIMATE = 0, GB_PLAN_MEASURE = 1, GB_PLAN_PATIENT = 2 } gb_fft_planner;
typedef enum {
    GB_SVD_AUTO = 0, GB_SVD_GESDD, GB_SVD_GESVD, GB_SVD_GESVDJ, GB_SVD_GESVDP,
    GB_SVD_XGESVD, GB_SVD_XGESVDP,
    GB_SVD_GESVDP64, /* float32 input and output, Xgesvdp computed in float64 */
    GB_SVD_XGESVDR,  /* randomized SVD at full rank */
    GB_SVD_METHOD_COUNT
} gb_svd_method;
typedef enum { GB_SLICE_STRIDE2 = 0, GB_SLICE_TRANSPOSE = 1 } gb_slice_kind;
/* Their names, as suites and results spell them (NULL-terminated; gb.c). */
extern const char *const gb_svd_method_names[GB_SVD_METHOD_COUNT + 1];
/* transfer: which way the bytes go, and what host memory they live in. */
typedef enum { GB_DIR_H2D = 0, GB_DIR_D2H = 1, GB_DIR_BOTH = 2 } gb_direction;
typedef enum { GB_MEM_PAGEABLE = 0, GB_MEM_PINNED = 1, GB_MEM_MAPPED = 2 } gb_host_memory;

typedef struct {
    int math;          /* matmul: gb_math */
    int fast_math;     /* elementwise: 1 = fast sin/cos intrinsics on the GPU */
    int fft_kind;      /* fft: gb_fft_kind */
    int fft_planner;   /* fft: gb_fft_planner (FFTW planning rigour) */
    int nrhs;          /* solve: right-hand sides */
    double density;    /* spgemm: fraction of non-zeros in A and B */
    int svd_method;    /* svd: gb_svd_method */
    double svd_tol;    /* svd, gesvdj: convergence tolerance; 0 = cuSOLVER's default */
    int direction;     /* transfer: gb_direction */
    int memory;        /* transfer: gb_host_memory */
    int batch;         /* batched_matmul: independent products */
    int gpus;          /* multi-GPU ops (matmul_xt, solve_mg, fft_xt): devices the library spreads over */
    int block;         /* matmul_xt: cuBLASXt block dim; solve_mg: column tile; 0 = the routine's default */
    int iters;         /* stencil: Jacobi sweeps per repetition */
    int norm_every;    /* stencil: residual norm every this many sweeps */
    int slice_kind;    /* slicing: gb_slice_kind */
} gb_params;

/* One benchmark case: op × shape × dtype × params. Built by the suite
 * parser, read-only for backends. */
typedef struct gb_case {
    int op_id;               /* GB_OP_<ID>: the op's line in the table of ops (src/ops/ops.def, op_id.h) */
    const struct gb_op *op;  /* driver side only: plugins must not call it */
    gb_dtype dtype;
    int64_t shape[3];        /* matmul, batched_matmul: m,k,n; svd: m,n; transfer: bytes; others: rows,cols */
    int rank;                /* how many entries of shape are used */
    gb_params params;
    uint64_t seed;
    char label[64];          /* "512x512x512": the shape as printed */
    double flops;            /* from the op catalogue; 0 where not meaningful */
    double bytes;            /* minimum bytes moved (inputs read + outputs written) */
    int memory_bound;        /* the op's rate is judged in bytes moved (op.h rate_kind "bytes") */
} gb_case;

/* One device of a backend, as a result names it (results: "device"). */
#define GB_MAX_DEVICES 16
typedef struct {
    int index;             /* the backend's ordinal (CUDA: the device number as this process sees it) */
    char name[256];        /* cudaDeviceProp.name is 256 bytes */
    char uuid[48];         /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it; "" unknown */
    char pci_bus_id[32];   /* "00000000:19:00.0"; "" unknown */
} gb_device_info;
/* The stencil's facts every backend needs (src/ops/op_stencil.c says why):
 * how many residual norms a repetition computes, and dx² with dx = 1/(cols−1). */
static inline size_t gb_stencil_norm_count(const gb_params *p) {
    return p->norm_every > 0 && p->iters > 0 ? (size_t)(p->iters / p->norm_every) : 0;
}
static inline double gb_stencil_h2(const gb_case *c) {
    double dx = 1.0 / (double)(c->shape[1] - 1);
    return dx * dx;
}
/* The slicing output's shape: x[::2, ::2] is ceil(rows/2)×ceil(cols/2), the
 * transposed copy cols×rows. */
static inline void gb_slicing_out_shape(const gb_case *c, int64_t *rows, int64_t *cols) {
    if (c->params.slice_kind == GB_SLICE_TRANSPOSE) {
        *rows = c->shape[1];
        *cols = c->shape[0];
    } else {
        *rows = (c->shape[0] + 1) / 2;
        *cols = (c->shape[1] + 1) / 2;
    }
}

/* What a backend is to the comparison: the host side every speedup is
 * measured against, or an accelerator. Code outside the backends reads this
 * (a backend registers it; a results file records it in context.backends)
 * instead of naming a backend. */
typedef enum { GB_ROLE_HOST = 0, GB_ROLE_ACCELERATOR = 1 } gb_backend_role;

/* Whether a multi-GPU routine can run a case asking for `gpus` devices when
 * the run has `ndevices` (--devices): GB_OK, or GB_SKIP with the reason
 * ("cuFFT multi-GPU needs at least 2 GPUs (gpus = 1)", "gpus = 4 but this
 * run has 1 device ..."). Shared by the plugin and the tests. */
int gb_multigpu_check(int gpus, int min, int ndevices, const char *routine, gb_err *why);

/* Strict number reading for every value a person writes (command-line flags,
 * suite and policy strings): strtod and strtol also take leading blanks, a
 * sign, hexadecimal ("0x10"), "inf" and "nan", so "--max-time 0x10s" was 16 s.
 * gb_scan_decimal reads [0-9]+(.[0-9]+)?([eE][+-]?[0-9]+)? at s, nothing else;
 * the value in *v and the first byte after it in *end; -1 when s does not
 * start so or the value is not finite. gb_parse_count: the whole of s is
 * [0-9]+ (no sign, no blank, no other base) from lo to hi; -1 otherwise. */
int gb_scan_decimal(const char *s, double *v, const char **end);
int gb_parse_count(const char *s, long long lo, long long hi, long long *out);
/* The whole of s a decimal as gb_scan_decimal reads it, from lo to hi
 * (inclusive); -1 otherwise ("0x10", "inf", " 5", "1e300" past hi). */
int gb_parse_real(const char *s, double lo, double hi, double *out);
/* An ISO 8601 date or time as git and people write them: YYYY-MM-DD, then
 * optionally THH:MM or THH:MM:SS, then optionally Z or +HH:MM / -HH:MM; the
 * fields in range (month 1-12, day 1 to the month's last, hour 0-23, ...),
 * years 1970-9999. 0 when s is one, -1 otherwise ("next tuesday",
 * "yesterday", "2026-02-30"). */
int gb_parse_iso_time(const char *s);

/* An NVIDIA driver version as the driver prints it: two or more groups of
 * digits joined by dots ("580.159.04", "535.54"). */
int gb_is_driver_version(const char *s);
/* The driver version from the text of /proc/driver/nvidia/version: the first
 * word of its NVRM line that is one ("NVRM version: NVIDIA UNIX Open Kernel
 * Module for x86_64  580.159.04  Release Build ..." gives 580.159.04; the word
 * after "Kernel Module" was "for" there). 1 with it in buf, 0 when none.
 * Shared by the CUDA plugin and the tests. */
int gb_nvidia_driver_from_proc(const char *text, char *buf, size_t len);

/* Is name one of the entries of a comma-separated list ("cpu,cuda")? */
int gb_list_contains(const char *list, const char *name);
/* Does a case name ("matmul/float32/256x256x256/math=default/cpu/host")
 * match pattern: a glob (fnmatch) when it has * ? or [, else a substring;
 * NULL or "" matches every name. What `history show`, `history export` and
 * GPUBENCH_FAULT_SLOW all mean by a case pattern. */
int gb_name_matches(const char *pattern, const char *name);
/* name as part of a file name: at most len-1 bytes of [A-Za-z0-9._-], every
 * other byte as '_', no leading '.' (so never "..", never a path, never
 * hidden); "_" when name is empty. A suite's name or a host name from a file
 * never escapes the directory it is put in. */
void gb_safe_file_name(const char *name, char *out, size_t len);
/* The folder where gpubench keeps what it measured once per machine and
 * build (the CPU's GEMM library choice, FFTW wisdom, the ceilings):
 * $XDG_CACHE_HOME/gpubench, else ~/.cache/gpubench, made when missing; buf,
 * or NULL when there is none. */
const char *gb_cache_dir(char *buf, size_t len);

/* Array helpers (src/core/gb.c; the plugin compiles the same file in). */
void *gb_alloc(size_t bytes);  /* 64-byte aligned; NULL on failure */
void gb_free(void *p);
size_t gb_elem_size(gb_elem e);
/* Append a new array of count elements; returns it or NULL (message in e). */
gb_array *gb_arrays_add(gb_arrays *a, const char *name, gb_elem elem, size_t count, gb_err *e);
/* Append a new array holding a copy of count elements at data (fetch). */
gb_array *gb_arrays_add_copy(gb_arrays *a, const char *name, gb_elem elem, size_t count,
                             const void *data, gb_err *e);
/* Append an array adopting an existing gb_alloc'd buffer. */
gb_array *gb_arrays_adopt(gb_arrays *a, const char *name, gb_elem elem, size_t count, void *data, gb_err *e);
gb_array *gb_arrays_find(const gb_arrays *a, const char *name);
/* A CSR matrix's three arrays, named PREFIX_rowptr, PREFIX_colind and
 * PREFIX_val (spgemm's inputs and outputs); 1 when all three are there. */
int gb_arrays_find_csr(const gb_arrays *a, const char *prefix, const gb_array **rowptr, const gb_array **colind,
                       const gb_array **val);
void gb_arrays_free(gb_arrays *a);
/* Fill a float array with NaN (outputs are poisoned before runs, so an element
 * a backend forgot to write fails verification). Integer arrays get -1. */
void gb_array_poison(gb_array *a);
/* memcpy, spread over the OpenMP threads when it is large: set-up and
 * verification copy whole inputs and outputs (a 512 MiB output is a
 * quarter of a second on one thread, page faults of a fresh buffer
 * included). Not for timed work, which copies the way a user would. */
void gb_copy(void *dst, const void *src, size_t bytes);
/* memset, likewise spread over the threads when large. */
void gb_fill(void *dst, int byte, size_t bytes);

#endif
