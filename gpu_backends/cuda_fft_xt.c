/* cuda_fft_xt.c — the 2-D FFT by cuFFT's multi-GPU plans over the first
 * `gpus` devices of --devices (cufftXtSetGPUs, cufftMakePlan2d,
 * cufftXtMalloc, cufftXtExecDescriptor): complex-to-complex, forward,
 * unnormalised, the fft op's c2c case (the real input promoted to complex,
 * as the CPU does).
 *
 * cuFFT spreads a transform over 2 or more GPUs: with gpus = 1 the case is
 * skipped with that reason (the code is still built). The plan works in
 * place on a descriptor whose rows are split over the devices; after the
 * transform the data is in cuFFT's shuffled order, which cufftXtMemcpy to
 * the host puts back in natural order.
 *
 * A repetition (both timings on the host clock, cuda_multigpu.c):
 *   device:     restore the input from a pristine descriptor (one device-to-
 *               device copy per GPU: the transform is in place), execute,
 *               wait for all;
 *   end_to_end: cufftXtMemcpy host → devices, execute, cufftXtMemcpy
 *               devices → host, wait for all. */
#include <stdlib.h>
#include <string.h>
#include <cufftXt.h>

#include "cuda_common.h"
#include "timer.h"

typedef struct {
    cufftHandle plan;
    int have_plan;
    cudaLibXtDesc *work, *pristine;
    gb_dtype dtype;
    size_t n, csz;               /* n×n, bytes of one complex element */
    int gpus;
    int ids[GB_MAX_DEVICES];
    size_t work_bytes[GB_MAX_DEVICES];
    void *h_in, *h_out;          /* page-locked complex input and output */
} fftxt_state;

static int fftxt_supports(const gb_case *c, gb_err *why) {
    int status = gb_cuda_multigpu_supports(c, 2, "cuFFT's multi-GPU plans (cufftXtSetGPUs)", why);
    if (status != GB_OK) return status;
    if (c->shape[0] < c->params.gpus)
        return gb_errf(why, GB_SKIP, "n = %lld is less than gpus = %d", (long long)c->shape[0], c->params.gpus);
    double csz = (double)gb_elem_size(gb_complex_elem(c->dtype)), n = (double)c->shape[0];
    /* this device's share of the work and pristine descriptors, and as much again of plan workspace */
    return gb_cuda_fits(3.0 * csz * n * n / c->params.gpus, why);
}

static void fftxt_release(void *state) {
    fftxt_state *s = state;
    if (!s) return;
    if (s->gpus > 0) (void)gb_cuda_multigpu_sync(s->gpus, s->ids, NULL);
    if (s->work) (void)cufftXtFree(s->work);
    if (s->pristine) (void)cufftXtFree(s->pristine);
    if (s->have_plan) (void)cufftDestroy(s->plan);
    if (s->h_in) cudaFreeHost(s->h_in);
    if (s->h_out) cudaFreeHost(s->h_out);
    (void)cudaGetLastError();
    (void)cudaSetDevice(gb_cuda.device);
    free(s);
}

static int fftxt_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    fftxt_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->n = (size_t)c->shape[0];
    s->csz = gb_elem_size(gb_complex_elem(c->dtype));
    s->gpus = c->params.gpus;
    gb_cuda_multigpu_ids(s->gpus, s->ids);
    const gb_array *x = gb_arrays_find(in, "x");
    if (!x || x->count != s->n * s->n) {
        status = gb_errf(e, GB_FAIL, "fft_xt: input x (n×n real) expected");
        goto fail;
    }
    if ((status = gb_cuda_host_alloc(&s->h_in, s->n * s->n * s->csz, e)) != GB_OK) goto fail;
    if ((status = gb_cuda_host_alloc(&s->h_out, s->n * s->n * s->csz, e)) != GB_OK) goto fail;
    /* the real data promoted to complex (imaginary parts zero) */
    for (size_t i = 0; i < s->n * s->n; i++) {
        if (c->dtype == GB_FLOAT32) {
            ((float *)s->h_in)[2 * i] = ((const float *)x->data)[i];
            ((float *)s->h_in)[2 * i + 1] = 0;
        } else {
            ((double *)s->h_in)[2 * i] = ((const double *)x->data)[i];
            ((double *)s->h_in)[2 * i + 1] = 0;
        }
    }
    memset(s->h_out, 0xff, s->n * s->n * s->csz); /* NaN until fetched */
    gb_cuda_multigpu_peer(s->gpus, s->ids);
    CUFFT_TRY(cufftCreate(&s->plan));
    s->have_plan = 1;
    CUFFT_TRY(cufftXtSetGPUs(s->plan, s->gpus, s->ids));
    CUFFT_TRY(cufftMakePlan2d(s->plan, (int)s->n, (int)s->n, c->dtype == GB_FLOAT32 ? CUFFT_C2C : CUFFT_Z2Z,
                              s->work_bytes));
    CUFFT_TRY(cufftXtMalloc(s->plan, &s->work, CUFFT_XT_FORMAT_INPLACE));
    CUFFT_TRY(cufftXtMalloc(s->plan, &s->pristine, CUFFT_XT_FORMAT_INPLACE));
    CUFFT_TRY(cufftXtMemcpy(s->plan, s->pristine, s->h_in, CUFFT_COPY_HOST_TO_DEVICE));
    if ((status = gb_cuda_multigpu_sync(s->gpus, s->ids, e)) != GB_OK) goto fail;
    *state = s;
    return GB_OK;
fail:
    fftxt_release(s);
    return status;
}

/* The pristine input into the work descriptor, one copy per GPU. */
static int restore_input(fftxt_state *s, gb_err *e) {
    int status = GB_OK;
    const cudaXtDesc *src = s->pristine->descriptor;
    cudaXtDesc *dst = s->work->descriptor;
    for (int i = 0; i < src->nGPUs; i++) {
        CUDA_TRY(cudaSetDevice(src->GPUs[i]));
        CUDA_TRY(cudaMemcpyAsync(dst->data[i], src->data[i], src->size[i], cudaMemcpyDeviceToDevice, 0));
    }
    s->work->subFormat = s->pristine->subFormat;
fail:
    return status;
}

static int fftxt_run(void *state, int timing, double *seconds, gb_err *e) {
    fftxt_state *s = state;
    int status = gb_cuda_multigpu_sync(s->gpus, s->ids, e);
    if (status != GB_OK) return status;
    double t0 = gb_now();
    if (timing == GB_CUDA_TIMING_DEVICE) {
        if ((status = restore_input(s, e)) != GB_OK) goto fail;
        /* the copies went on each device's legacy stream; cuFFT's work on the
         * plan's streams must not start before them */
        if ((status = gb_cuda_multigpu_sync(s->gpus, s->ids, e)) != GB_OK) goto fail;
    } else {
        CUFFT_TRY(cufftXtMemcpy(s->plan, s->work, s->h_in, CUFFT_COPY_HOST_TO_DEVICE));
    }
    CUFFT_TRY(cufftXtExecDescriptor(s->plan, s->work, s->work, CUFFT_FORWARD));
    if (timing != GB_CUDA_TIMING_DEVICE) CUFFT_TRY(cufftXtMemcpy(s->plan, s->h_out, s->work, CUFFT_COPY_DEVICE_TO_HOST));
    if ((status = gb_cuda_multigpu_sync(s->gpus, s->ids, e)) != GB_OK) goto fail;
    *seconds = gb_now() - t0;
fail:
    (void)cudaSetDevice(gb_cuda.device);
    return status;
}

static int fftxt_fetch(void *state, gb_arrays *out, gb_err *e) {
    fftxt_state *s = state;
    int status = GB_OK;
    /* natural order, whatever order the devices hold it in */
    CUFFT_TRY(cufftXtMemcpy(s->plan, s->h_out, s->work, CUFFT_COPY_DEVICE_TO_HOST));
    if ((status = gb_cuda_multigpu_sync(s->gpus, s->ids, e)) != GB_OK) goto fail;
    if (!gb_arrays_add_copy(out, "X", gb_complex_elem(s->dtype), s->n * s->n, s->h_out, e)) status = GB_FAIL;
fail:
    (void)cudaSetDevice(gb_cuda.device);
    return status;
}

static void fftxt_annotate(void *state, cJSON *extra) {
    fftxt_state *s = state;
    cJSON_AddStringToObject(extra, "routine", s->dtype == GB_FLOAT32 ? "cufftXtExecDescriptor (C2C)"
                                                                     : "cufftXtExecDescriptor (Z2Z)");
    cJSON *ids = cJSON_AddArrayToObject(extra, "devices");
    for (int i = 0; i < s->gpus; i++) cJSON_AddItemToArray(ids, cJSON_CreateNumber(s->ids[i]));
    double work = 0;
    for (int i = 0; i < s->gpus; i++) work += (double)s->work_bytes[i];
    cJSON_AddNumberToObject(extra, "plan_workspace_bytes", work);
}

const gb_op_impl gb_cuda_fft_xt = {
    .supports = fftxt_supports,
    .prepare = fftxt_prepare,
    .run = fftxt_run,
    .fetch = fftxt_fetch,
    .annotate = fftxt_annotate,
    .release = fftxt_release,
};
