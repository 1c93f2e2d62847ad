/* cuda_common.h — what every op file of the CUDA backend shares: the one
 * device context (stream and library handles bound to it), error checking
 * that names the call and the library's status string, and the two timings.
 *
 * Every op follows the same shape (see cuda_matmul.c for the simplest one):
 *   prepare: gb_cuda_io_input() for each input (device buffer + pinned host
 *            mirror, uploaded once), gb_cuda_io_output() for each output
 *            (poisoned with NaN), plans/workspaces; nothing timed.
 *   run:     gb_cuda_time(io, timing, issue, state, &seconds, e) where
 *            issue() enqueues the operation on gb_cuda.stream only.
 *   fetch:   gb_cuda_io_fetch() copies the outputs back into host arrays.
 */
#ifndef GB_CUDA_COMMON_H
#define GB_CUDA_COMMON_H

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cufft.h>
#include <cusolverDn.h>
#include <cusparse.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Inside the C block: gb.h and backend.h are C headers without their own
 * guards, and the .cu files must see gb_errf & co. with C linkage. */
#include "gb.h"
#include "backend.h"
#include "op_id.h"

typedef struct {
    int device;
    struct cudaDeviceProp prop;   /* "struct": the header is C as well as C++ */
    cudaStream_t stream;          /* the backend's own non-default stream */
    cudaEvent_t ev_start, ev_stop;
    cublasHandle_t cublas;        /* all handles bound to stream */
    cusolverDnHandle_t cusolver;
    cusparseHandle_t cusparse;
    cudaMemPool_t pool;           /* device's default pool, release threshold raised */
    void *l2_buf;                 /* cold-cache mode's flush buffer (cuda_health.c) */
    size_t l2_bytes;
    unsigned l2_pass;
    /* The overlapped end-to-end timing's streams (chunks go round-robin over
     * them) and the events that join them back into stream. */
    cudaStream_t chunk_stream[4];
    cudaEvent_t chunk_done[4], ev_fork;
    int lost;                     /* a sticky error happened: backend disabled */
    char lost_reason[GB_MSG_LEN];
} gb_cuda_context;

/* One context per device of --devices, in the order listed. gb_cuda is the
 * one the calling host thread uses (the backend's use_device sets it), so an
 * op file written for one device runs unchanged on whichever device, and
 * threads of --devices-concurrent each keep their own. */
extern gb_cuda_context gb_cuda_devs[GB_MAX_DEVICES];
extern int gb_cuda_ndevs;
extern __thread gb_cuda_context *gb_cuda_cur;
#define gb_cuda (*gb_cuda_cur)
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (nvidia-smi's form) of prop's uuid. */
void gb_cuda_uuid_text(const struct cudaDeviceProp *prop, char *out, size_t cap);

/* Each returns GB_OK, or fills e with "<call>: <status name>: <description>"
 * and returns GB_FAIL (GB_FATAL for sticky CUDA errors that lose the
 * context, after which the backend refuses further work; GB_SKIP "out of
 * device memory: ..." for allocation failures, as for host memory). A failed
 * library call also asks the stream whether a sticky error lies behind it. */
int gb_cuda_check(cudaError_t rc, const char *call, gb_err *e);
int gb_cublas_check(cublasStatus_t rc, const char *call, gb_err *e);
int gb_cufft_check(cufftResult rc, const char *call, gb_err *e);
int gb_cusolver_check(cusolverStatus_t rc, const char *call, gb_err *e);
int gb_cusparse_check(cusparseStatus_t rc, const char *call, gb_err *e);
/* After a kernel launch: cudaGetLastError, checked. */
int gb_cuda_check_launch(const char *kernel, gb_err *e);
/* GB_OK, or GB_FATAL "CUDA context lost earlier: <reason>" once a sticky
 * error has happened. Every entry point of the backend starts with it. */
int gb_cuda_lost_check(gb_err *e);

/* Evaluate a checked call inside a function that has `gb_err *e` and a
 * `fail:` label with an `int status` variable. */
#define GB_TRY(checker, call) \
    do { status = checker((call), #call, e); if (status != GB_OK) goto fail; } while (0)
#define CUDA_TRY(call)     GB_TRY(gb_cuda_check, call)
#define CUBLAS_TRY(call)   GB_TRY(gb_cublas_check, call)
#define CUFFT_TRY(call)    GB_TRY(gb_cufft_check, call)
#define CUSOLVER_TRY(call) GB_TRY(gb_cusolver_check, call)
#define CUSPARSE_TRY(call) GB_TRY(gb_cusparse_check, call)

/* Device buffers with pinned host mirrors, for both timings. */
typedef struct {
    void *dev;
    void *pinned;      /* page-locked host copy: source of H2D / target of D2H */
    size_t pinned_bytes; /* its allocation (kept for the next case: cuda_common.c) */
    size_t bytes;
    gb_elem elem;
    size_t count;
    char name[24];
} gb_cuda_buffer;

typedef struct {
    int n_in, n_out;
    gb_cuda_buffer in[GB_MAX_ARRAYS], out[GB_MAX_ARRAYS];
    int last_timing;   /* the timing of the last repetition (see gb_cuda_io_fetch) */
} gb_cuda_io;

/* Device copy + pinned mirror of a host input, uploaded once (outside timers). */
int gb_cuda_io_input(gb_cuda_io *io, const gb_array *host, void **dev, gb_err *e);
/* Device output of count elements + pinned mirror; device side poisoned (NaN). */
int gb_cuda_io_output(gb_cuda_io *io, const char *name, gb_elem elem, size_t count, void **dev, gb_err *e);
/* Time one repetition.
 *   timing 0 "device":     event on stream, issue(), event, sync, elapsed.
 *   timing 1 "end_to_end": sync, host clock, H2D of every input from its
 *                          pinned mirror, issue(), D2H of every output into
 *                          its pinned mirror, stream sync, host clock.
 * issue() must enqueue on gb_cuda.stream only and not synchronize, unless
 * the library forces it (then say so in a comment). */
enum { GB_CUDA_TIMING_DEVICE = 0, GB_CUDA_TIMING_END_TO_END = 1, GB_CUDA_TIMING_OVERLAPPED = 2 }; /* backend.timings order */
typedef int (*gb_cuda_issue_fn)(void *state, gb_err *e);
int gb_cuda_time(gb_cuda_io *io, int timing, gb_cuda_issue_fn issue, void *state,
                 double *seconds, gb_err *e);

/* The overlapped end-to-end timing (timing 2, "end_to_end_overlapped"), for
 * ops whose work splits into independent chunks: what a careful user writes
 * when the data lives in (pinned) host memory.
 *   sync, host clock; chunk(state, k, nchunks, stream_k) for k = 0..nchunks-1,
 *   stream_k = gb_cuda.chunk_stream[k % GB_CUDA_CHUNK_STREAMS], each enqueuing
 *   the H2D of chunk k's inputs from the pinned mirrors, its compute and the
 *   D2H of its outputs into the pinned mirrors (only on that stream); then
 *   gb_cuda.stream waits for every chunk stream, join(state) (may be NULL)
 *   enqueues what needs all chunks (a final reduction and its D2H) on
 *   gb_cuda.stream; stream sync, host clock.
 * Copies of one chunk overlap the compute of another and the copies the
 * other way (H100: one copy engine per direction). */
#define GB_CUDA_CHUNK_STREAMS 4
typedef int (*gb_cuda_chunk_fn)(void *state, size_t chunk, size_t nchunks, cudaStream_t stream, gb_err *e);
int gb_cuda_time_overlapped(gb_cuda_io *io, size_t nchunks, gb_cuda_chunk_fn chunk, gb_cuda_issue_fn join,
                            void *state, double *seconds, gb_err *e);
/* How many chunks for an op moving `bytes` over PCIe each way at most: about
 * 4 MiB each (big enough that a copy runs at full speed, small enough that
 * the pipeline fills), at least 1, at most 64. */
size_t gb_cuda_overlap_chunks(double bytes);
/* [lo, hi) of chunk k of n items cut into nchunks, lo a multiple of align. */
void gb_cuda_chunk_range(size_t n, size_t nchunks, size_t k, size_t align, size_t *lo, size_t *hi);
/* gb_op_impl.has_timing for ops that implement the overlapped timing. */
int gb_cuda_has_overlapped(const gb_case *c, int timing);
/* Copy every output into host arrays named like the buffers: from the
 * device, or, when the last repetition was the overlapped end-to-end, from
 * the pinned mirrors its chunks downloaded into, so that verification sees
 * what the host received (a chunk missed on the way up, in the kernel or on
 * the way down fails it: gb_cuda_time_overlapped poisons the outputs on both
 * sides before its first repetition after another timing). */
int gb_cuda_io_fetch(gb_cuda_io *io, gb_arrays *out, gb_err *e);
void gb_cuda_io_free(gb_cuda_io *io);
/* Page-locked host memory from the blocks kept between cases (or a new
 * cudaMallocHost), and its return to them. Under unified addressing (every
 * 64-bit CUDA platform) it is also mapped: a kernel may dereference it. */
cudaError_t gb_cuda_pinned_get(void **p, size_t bytes);
void gb_cuda_pinned_put(void *p, size_t bytes);
/* Free the pinned blocks kept between cases (at shutdown). */
void gb_cuda_pinned_release_all(void);

/* dst[i] = src[i] converted, float32 → float64 or float64 → float32, n
 * elements of device memory, enqueued on gb_cuda.stream (cuda_convert.cu). */
int gb_cuda_convert(const void *src, gb_elem from, void *dst, gb_elem to, size_t n, gb_err *e);
/* batch row-major rows×cols matrices of bytes (float8, int8) into their
 * cols×rows transposes, on the backend's stream (cuda_convert.cu). */
int gb_cuda_transpose_bytes(const void *src, void *dst, size_t rows, size_t cols, size_t batch, gb_err *e);

/* Free device memory now, for the memory estimate in supports(). */
int gb_cuda_fits(double bytes_needed, gb_err *why);
/* The CUDA library data type of a real array of dtype d (CUDA_R_32F for
 * float32): the one place the CUDA backend maps dtypes to cudaDataType. */
cudaDataType gb_cuda_data_type(gb_dtype d);

/* Ceilings, health and cold-cache support (cuda_peak.c, cuda_health.c). */
int gb_cuda_measure_peaks(cJSON *peaks, gb_err *e);  /* d2d copy, GEMMs, H2D/D2H */
/* The reduced-precision dtypes whose tensor-core GEMM ceilings
 * gb_cuda_measure_peaks adds (gb_backend_options.peak_dtypes; cuda_peak.c). */
extern unsigned gb_cuda_peak_dtypes;
void gb_cuda_health(cJSON *health);                  /* clocks, throttle, ECC: read only */
int gb_cuda_nvml_driver_version(char *buf, size_t len); /* nvmlSystemGetDriverVersion: 1, or 0 without NVML */
void *gb_cuda_nvml_symbol(const char *name);         /* an NVML function opened at run time, or NULL */
const char *gb_cuda_nvml_problem(void);              /* why NVML is absent; "" when open */
/* Energy and clocks of device k (cuda_energy.c): gb_backend.monitor_info / monitor_read. */
int gb_cuda_monitor_info(int k, gb_monitor_info *info);
int gb_cuda_monitor_read(int k, gb_monitor_sample *s);
void gb_cuda_flush_l2(void);                         /* write a buffer larger than L2 */

/* The per-op implementations (one file each), as the table of ops names
 * them (src/ops/ops.def, column cuda). The multi-GPU library routines
 * (matmul_xt, solve_mg, fft_xt) run over gb_cuda_devs[0 .. gpus-1]. */
#define GB_OP(ID, name, cpu, cuda) extern const gb_op_impl cuda;
#include "ops.def"
/* GB_OK when the case's `gpus` devices are there (and at least `min` are
 * asked for), else GB_SKIP with the reason. */
int gb_cuda_multigpu_supports(const gb_case *c, int min, const char *routine, gb_err *why);
/* The ordinals of the first `gpus` devices of --devices, into ids. */
void gb_cuda_multigpu_ids(int gpus, int *ids);
/* Wait for all work on each of the devices, then make this thread's own
 * device current again (the libraries switch devices as they go). */
int gb_cuda_multigpu_sync(int gpus, const int *ids, gb_err *e);
/* Let each of the devices reach the others' memory where the hardware can
 * (cuSOLVERMg and cuFFT's multi-GPU plans exchange tiles between them). */
void gb_cuda_multigpu_peer(int gpus, const int *ids);
/* Page-locked host memory usable from every device (cudaHostAllocPortable). */
int gb_cuda_host_alloc(void **p, size_t bytes, gb_err *e);

#ifdef __cplusplus
}
#endif
#endif
