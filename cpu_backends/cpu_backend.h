/* cpu_backend.h — shared by the CPU backend's op files. */
#ifndef GB_CPU_BACKEND_H
#define GB_CPU_BACKEND_H
#include "backend.h"
#include "op_id.h"

/* The implementation of op op_id (GB_OP_*); NULL when there is no such op. */
const gb_op_impl *gb_cpu_op_impl(int op_id);

/* Threads the CPU backend uses (from --threads; default all cores). Ops set
 * their library's thread count from this (OpenBLAS, FFTW, GraphBLAS, OpenMP). */
int gb_cpu_threads(void);
/* Set by the backend's init (cpu_threads.c: apart from cpu_backend.c, which
 * calls every op file, so that an op file reading it depends on no caller). */
void gb_cpu_set_threads(int n);
/* Bind the n OpenMP threads one per CPU of the process's CPU set, unless the
 * user chose (OMP_PROC_BIND / OMP_PLACES set, or from "threads_option":
 * --threads given, more than the set has); from: what decided n (node_env.h's names). And the
 * choice as context.cpu_binding {threads_from, bound, how, user_setting}
 * (cpu_bind.c). */
void gb_cpu_bind_threads(int n, const char *from);
/* The OpenMP team of a prepared op that has a thread setter
 * (impl->set_threads): all threads for a case of 2 ms or more, else one
 * thread where measured on the state 10% faster than all; the choice kept
 * per machine and build under case_key and used again by later processes
 * (NULL: measured, not kept) (cpu_team.c). The team is set on the state and
 * returned; why (a line for extra.team) into why. */
int gb_cpu_team_choose(const gb_op_impl *impl, void *state, const char *case_key, char *why, size_t len);
/* The key a case's choices are kept under: "op dtype shape params". */
void gb_cpu_case_key(const gb_case *c, char *buf, size_t len);
struct cJSON;
void gb_cpu_describe_binding(struct cJSON *ctx);
/* cpu_runtime.c: what the process runs on, read from it — context.cpu_runtime
 * (OpenBLAS's threading, the wait policy, the BLAS/LAPACK/OpenMP libraries
 * mapped, the user's steering variables); the warnings about them (a second
 * pool, the user's wait policy and other settings, forged markers); and the
 * threads alive now (/proc/self/task; -1 when unreadable). */
void gb_cpu_runtime_describe(struct cJSON *ctx);
int gb_cpu_runtime_check(const struct cJSON *context, struct cJSON *warnings);
int gb_cpu_threads_alive(void);
/* The re-exec markers that were found without this process's token and
 * ignored (cpu_environment.c), "" when none. */
const char *gb_cpu_ignored_markers(void);

/* The folder where the CPU side keeps what it measured once (FFTW wisdom,
 * the float32 GEMM library choice): $XDG_CACHE_HOME/gpubench, else
 * ~/.cache/gpubench, created on first use; into buf, or NULL when there is
 * neither variable or it cannot be made. (cpu_cache_dir.c: apart from
 * cpu_backend.c for the reason gb_cpu_set_threads is.) */
const char *gb_cpu_cache_dir(char *buf, size_t len);

/* The CPU GEMM libraries: --cpu-gemm auto|openblas|onednn|blis; CBLAS is
 * the site's library named by --cpu-blas PATH (cpu_environment.c declares
 * both options). */
typedef enum {
    GB_CPU_GEMM_AUTO = 0,
    GB_CPU_GEMM_OPENBLAS = 1,
    GB_CPU_GEMM_ONEDNN = 2,
    GB_CPU_GEMM_BLIS = 3,
    GB_CPU_GEMM_CBLAS = 4
} gb_cpu_gemm_lib;

/* cpu_gemm_choice.c: --cpu-gemm, the library a case's GEMM runs on
 * (float32/float64: the fastest for its dtype and shape class — large,
 * skinny, small, huge, giant — measured where each class's cases are, interleaved,
 * OpenBLAS kept unless another is 3% faster at 95%, kept per CPU, libraries and build), how it was
 * chosen and the class (for the results), a kept line parsed, and the
 * libraries' names ("openblas", ...; gb_cpu_gemm_lib_parse: -1 unknown). */
void gb_cpu_set_gemm(int lib);
int gb_cpu_gemm_library_for(const gb_case *c);
const char *gb_cpu_gemm_choice_reason_for(const gb_case *c);
const char *gb_cpu_gemm_shape_class(const gb_case *c);
int gb_cpu_gemm_parse_choice(const char *line, gb_dtype *d, int *cls, int *lib);
/* The kept file's first line: "key cpu=MODEL; cpus=N; threads=N; openblas=CONFIG;
 * core=CORE; onednn=VER; blis=NAME|none; build=COMMIT" (what decides the choice). */
const char *gb_cpu_gemm_choice_key(void);
const char *gb_cpu_gemm_lib_name(int lib);
int gb_cpu_gemm_lib_parse(const char *name);

/* cpu_gemm_dl.c: the GEMM libraries opened at run time, BLIS and the
 * --cpu-blas one (lib: GB_CPU_GEMM_BLIS or GB_CPU_GEMM_CBLAS), each opened on
 * first use. available: GB_OK, or GB_SKIP with why (not found, a symbol
 * missing); name: what the results record (NULL when unavailable); gemm:
 * row-major C = A·B in float32 or float64, no transposes. */
void gb_cpu_set_blas_path(const char *path);
const char *gb_cpu_blas_path(void);
int gb_cpu_dl_available(int lib, gb_err *why);
const char *gb_cpu_dl_name(int lib);
void gb_cpu_dl_set_threads(int lib, int n);
int gb_cpu_dl_threads_settable(int lib);
void gb_cpu_dl_gemm(int lib, gb_dtype d, int m, int n, int k, const void *A, const void *B, void *C);

/* What OpenBLAS detected by itself when gpubench chose another core (NULL
 * when not known: OPENBLAS_CORETYPE was set before gpubench started). */
const char *gb_cpu_openblas_detected_core(void);

/* Honest-numbers hooks (cpu_peak.c, cpu_flush.c, cpu_health.c): measured
 * ceilings, cold-cache flush, read-only health; sum of all last-level caches. */
int gb_cpu_measure_peaks(cJSON *peaks, gb_err *e);
/* The reduced-precision dtypes whose GEMM ceilings gb_cpu_measure_peaks
 * adds (gb_backend_options.peak_dtypes). */
void gb_cpu_set_peak_dtypes(unsigned mask);
/* Quick ceilings (gb_backend_options.peaks_quick): each GEMM size timed to
 * about 0.08 s instead of 0.3 s, STREAM for 0.4 s instead of 2 s. */
void gb_cpu_set_peak_quick(int quick);
/* The ISA's theoretical GEMM ceilings per dtype, isa_gemm_*_gflops, and
 * isa_peak_inputs saying from what (cpu_isa_peak.c). */
void gb_cpu_isa_peaks(cJSON *peaks, int threads);
/* The measured FMA peak (GFLOP/s) of a register-only FMA loop of width 512
 * or 256 bits in float32 (f64 0) or float64 on `threads` threads at once;
 * gb_cpu_isa_peaks adds it as fma_gemm_float32/64_gflops with
 * fma_peak_inputs (the loop, the clock it implies). */
double gb_cpu_fma_peak(int threads, int width, int f64);
/* FLOP (int8: operations) per cycle per core of a GEMM in d by the best
 * instruction a /proc/cpuinfo flags line offers, that instruction in *how;
 * 0 (and NULL) when none computes d. */
int gb_cpu_isa_per_cycle(const char *flags, gb_dtype d, const char **how);
void gb_cpu_flush_caches(void);
void gb_cpu_health(cJSON *health);
size_t gb_cpu_llc_bytes(void);

/* The per-op implementations (one file each), as the table of ops names
 * them (src/ops/ops.def, column cpu). Each op times one repetition with the
 * host monotonic clock (gb_now() in src/core/timer.h). */
#define GB_OP(ID, name, cpu, cuda) extern const gb_op_impl cpu;
#include "ops.def"
#endif
