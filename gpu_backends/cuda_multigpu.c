/* cuda_multigpu.c — what the multi-GPU library routines (cuBLASXt,
 * cuSOLVERMg, cuFFT multi-GPU plans) share: which devices they spread over
 * (the first `gpus` of --devices), waiting for all of them, peer access, and
 * page-locked host memory every device can reach.
 *
 * Their timings. The routines drive several devices from the host, so no
 * single stream's events can time them: both timings are the host clock
 * around the repetition, after waiting for every device. "device" keeps the
 * operands where the routine keeps them between calls (cuSOLVERMg and cuFFT:
 * tiles resident on the devices; cuBLASXt: host memory, by design — it
 * streams tiles itself), "end_to_end" adds the host-to-device distribution
 * and the gather of the result where the routine has them as separate steps.
 * Each op file says what its repetition holds. */
#include <stdio.h>
#include "cuda_common.h"

void gb_cuda_multigpu_ids(int gpus, int *ids) {
    for (int i = 0; i < gpus && i < gb_cuda_ndevs; i++) ids[i] = gb_cuda_devs[i].device;
}

int gb_cuda_multigpu_sync(int gpus, const int *ids, gb_err *e) {
    int status = GB_OK;
    for (int i = 0; i < gpus; i++) {
        CUDA_TRY(cudaSetDevice(ids[i]));
        CUDA_TRY(cudaDeviceSynchronize());
    }
    CUDA_TRY(cudaSetDevice(gb_cuda.device));
fail:
    return status;
}

/* Pairs (from, to) whose peer access this process enabled: enabling one
 * twice is an error (cudaErrorPeerAccessAlreadyEnabled) that
 * compute-sanitizer reports on every later case. */
static unsigned char peer_enabled[GB_MAX_DEVICES][GB_MAX_DEVICES];

void gb_cuda_multigpu_peer(int gpus, const int *ids) {
    for (int i = 0; i < gpus; i++) {
        if (ids[i] < 0 || ids[i] >= GB_MAX_DEVICES || cudaSetDevice(ids[i]) != cudaSuccess) continue;
        for (int j = 0; j < gpus; j++) {
            int can = 0;
            if (i == j || ids[j] < 0 || ids[j] >= GB_MAX_DEVICES || peer_enabled[ids[i]][ids[j]] ||
                cudaDeviceCanAccessPeer(&can, ids[i], ids[j]) != cudaSuccess || !can)
                continue;
            if (cudaDeviceEnablePeerAccess(ids[j], 0) == cudaSuccess) peer_enabled[ids[i]][ids[j]] = 1;
        }
    }
    (void)cudaGetLastError();
    (void)cudaSetDevice(gb_cuda.device);
}

int gb_cuda_host_alloc(void **p, size_t bytes, gb_err *e) {
    int status = GB_OK;
    *p = NULL;
    CUDA_TRY(cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocPortable));
fail:
    return status;
}
