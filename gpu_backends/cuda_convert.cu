// cuda_convert.cu — float32 ↔ float64 conversion of a device array on the
// backend's stream: the kernel behind mixed-precision routes (svd's
// gesvdp64 runs cuSOLVER in float64 on float32 data). cuBLAS and cudaMemcpy
// copy, they do not convert.
#include "cuda_common.h"

namespace {

template <typename From, typename To>
__global__ void __launch_bounds__(256) convert_kernel(const From *__restrict__ src, To *__restrict__ dst, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = (To)src[i];
}

} // namespace

extern "C" int gb_cuda_convert(const void *src, gb_elem from, void *dst, gb_elem to, size_t n, gb_err *e) {
    if (n == 0) return GB_OK;
    // Enough blocks to fill the device several times over; the grid-stride
    // loop covers the rest.
    size_t want = (n + 255) / 256, cap = (size_t)gb_cuda.prop.multiProcessorCount * 8;
    unsigned blocks = (unsigned)(want < cap ? want : cap);
    if (from == GB_E_F32 && to == GB_E_F64) {
        convert_kernel<float, double><<<blocks, 256, 0, gb_cuda.stream>>>((const float *)src, (double *)dst, n);
        return gb_cuda_check_launch("convert_kernel<float, double>", e);
    }
    if (from == GB_E_F64 && to == GB_E_F32) {
        convert_kernel<double, float><<<blocks, 256, 0, gb_cuda.stream>>>((const double *)src, (float *)dst, n);
        return gb_cuda_check_launch("convert_kernel<double, float>", e);
    }
    return gb_errf(e, GB_FAIL, "gb_cuda_convert: only float32 <-> float64 is supported");
}
