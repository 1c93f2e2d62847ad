/* cuda_fft.c — 2-D forward FFT of a real rows×cols array with cuFFT.
 *
 * r2c: cufftExecR2C / D2Z, out-of-place, output rows×(cols/2+1) complex.
 * c2c: cufftExecC2C / Z2Z on the input promoted to complex in prepare (the
 *      device input and its pinned mirror for end_to_end are complex, so
 *      both timings move what a complex transform really reads).
 * cuFFT's forward transform is unnormalised with sign -1, like FFTW's.
 *
 * Input preservation: cuFFT documents that an out-of-place complex-to-real
 * transform overwrites its input; it makes no such statement for R2C or C2C,
 * so repetitions reuse the uploaded input without restoring it. Because a
 * silently modified input would make every repetition after the first
 * transform different data, fetch() downloads the device input after the
 * last repetition and compares it bit for bit with the pinned mirror: if
 * cuFFT ever did overwrite it, the case fails with that message instead of
 * reporting a time for the wrong computation. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.h"

typedef struct {
    gb_cuda_io io;
    gb_dtype dtype;
    int kind; /* gb_fft_kind */
    int rows, cols;
    cufftHandle plan;
    int have_plan;
    size_t work_bytes;
    void *in, *out;
} fft_state;

static cufftType fft_type(gb_dtype d, int kind) {
    if (kind == GB_FFT_C2C) return d == GB_FLOAT32 ? CUFFT_C2C : CUFFT_Z2Z;
    return d == GB_FLOAT32 ? CUFFT_R2C : CUFFT_D2Z;
}

static const char *fft_routine(gb_dtype d, int kind) {
    if (kind == GB_FFT_C2C) return d == GB_FLOAT32 ? "cufftExecC2C" : "cufftExecZ2Z";
    return d == GB_FLOAT32 ? "cufftExecR2C" : "cufftExecD2Z";
}

static size_t out_count(int rows, int cols, int kind) {
    return (size_t)rows * (size_t)(kind == GB_FFT_C2C ? cols : cols / 2 + 1);
}

static int fft_supports(const gb_case *c, gb_err *why) {
    if (c->shape[0] > INT_MAX || c->shape[1] > INT_MAX)
        return gb_errf(why, GB_SKIP, "dimension exceeds cuFFT's 32-bit int");
    int rows = (int)c->shape[0], cols = (int)c->shape[1], kind = c->params.fft_kind;
    double real = gb_dtype_size(c->dtype);
    double in_bytes = (double)rows * cols * (kind == GB_FFT_C2C ? 2 * real : real);
    double out_bytes = (double)out_count(rows, cols, kind) * 2 * real;
    size_t work = 0;
    /* An estimate without creating a plan; if cuFFT cannot say, assume a
     * work area as large as the output (its usual order of magnitude). */
    if (cufftEstimate2d(rows, cols, fft_type(c->dtype, kind), &work) != CUFFT_SUCCESS) work = (size_t)out_bytes;
    return gb_cuda_fits(in_bytes + out_bytes + (double)work, why);
}

static int fft_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    fft_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    gb_arrays promoted = {0};
    s->dtype = c->dtype;
    s->kind = c->params.fft_kind;
    s->rows = (int)c->shape[0];
    s->cols = (int)c->shape[1];
    const gb_array *x = gb_arrays_find(in, "x");
    size_t n = (size_t)s->rows * (size_t)s->cols;
    if (!x || x->count != n) {
        status = gb_errf(e, GB_FAIL, "fft: input x of %zu elements expected", n);
        goto fail;
    }
    if (s->kind == GB_FFT_C2C) {
        /* (re, 0) pairs: the real input as the complex array C2C reads. */
        gb_array *z = gb_arrays_add(&promoted, "x", gb_complex_elem(s->dtype), n, e);
        if (!z) {
            status = GB_SKIP;
            goto fail;
        }
        if (s->dtype == GB_FLOAT32) {
            const float *src = x->data;
            float *dst = z->data;
            for (size_t i = 0; i < n; i++) {
                dst[2 * i] = src[i];
                dst[2 * i + 1] = 0.0f;
            }
        } else {
            const double *src = x->data;
            double *dst = z->data;
            for (size_t i = 0; i < n; i++) {
                dst[2 * i] = src[i];
                dst[2 * i + 1] = 0.0;
            }
        }
        x = z;
    }
    status = gb_cuda_io_input(&s->io, x, &s->in, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_io_output(&s->io, "X", gb_complex_elem(s->dtype), out_count(s->rows, s->cols, s->kind),
                               &s->out, e);
    if (status != GB_OK) goto fail;
    CUFFT_TRY(cufftCreate(&s->plan));
    s->have_plan = 1;
    /* rows is the slowest-varying dimension, cols the contiguous one: the
     * row-major layout of x. The plan allocates its work area here. */
    CUFFT_TRY(cufftMakePlan2d(s->plan, s->rows, s->cols, fft_type(s->dtype, s->kind), &s->work_bytes));
    CUFFT_TRY(cufftSetStream(s->plan, gb_cuda.stream));
    gb_arrays_free(&promoted);
    *state = s;
    return GB_OK;
fail:
    gb_arrays_free(&promoted);
    if (s->have_plan) (void)cufftDestroy(s->plan);
    gb_cuda_io_free(&s->io);
    free(s);
    return status;
}

static int fft_issue(void *state, gb_err *e) {
    fft_state *s = state;
    int status = GB_OK;
    if (s->kind == GB_FFT_C2C) {
        if (s->dtype == GB_FLOAT32)
            CUFFT_TRY(cufftExecC2C(s->plan, s->in, s->out, CUFFT_FORWARD));
        else
            CUFFT_TRY(cufftExecZ2Z(s->plan, s->in, s->out, CUFFT_FORWARD));
    } else {
        if (s->dtype == GB_FLOAT32)
            CUFFT_TRY(cufftExecR2C(s->plan, s->in, s->out));
        else
            CUFFT_TRY(cufftExecD2Z(s->plan, s->in, s->out));
    }
    return GB_OK;
fail:
    return status;
}

static int fft_run(void *state, int timing, double *seconds, gb_err *e) {
    fft_state *s = state;
    return gb_cuda_time(&s->io, timing, fft_issue, s, seconds, e);
}

/* The input on the device must still equal what was uploaded (see top). */
static int check_input_preserved(fft_state *s, gb_err *e) {
    int status = GB_OK;
    gb_cuda_buffer *b = &s->io.in[0];
    void *now = malloc(b->bytes ? b->bytes : 1);
    if (!now) return gb_errf(e, GB_SKIP, "out of host memory checking the FFT input");
    CUDA_TRY(cudaMemcpyAsync(now, b->dev, b->bytes, cudaMemcpyDeviceToHost, gb_cuda.stream));
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
    if (memcmp(now, b->pinned, b->bytes) != 0)
        status = gb_errf(e, GB_FAIL,
                         "%s overwrote its out-of-place input: repetitions after the first transformed "
                         "modified data (cuFFT %d×%d)",
                         fft_routine(s->dtype, s->kind), s->rows, s->cols);
fail:
    free(now);
    return status;
}

static int fft_fetch(void *state, gb_arrays *out, gb_err *e) {
    fft_state *s = state;
    int status = check_input_preserved(s, e);
    if (status != GB_OK) return status;
    return gb_cuda_io_fetch(&s->io, out, e);
}

static void fft_annotate(void *state, cJSON *extra) {
    fft_state *s = state;
    cJSON_AddStringToObject(extra, "routine", fft_routine(s->dtype, s->kind));
    cJSON_AddStringToObject(extra, "placement", "out-of-place");
    cJSON_AddNumberToObject(extra, "work_bytes", (double)s->work_bytes);
    cJSON_AddBoolToObject(extra, "input_preserved_checked", 1);
}

static void fft_release(void *state) {
    fft_state *s = state;
    if (!s) return;
    if (s->have_plan) (void)cufftDestroy(s->plan);
    gb_cuda_io_free(&s->io);
    free(s);
}

const gb_op_impl gb_cuda_fft = {
    .supports = fft_supports,
    .prepare = fft_prepare,
    .run = fft_run,
    .fetch = fft_fetch,
    .annotate = fft_annotate,
    .release = fft_release,
};
