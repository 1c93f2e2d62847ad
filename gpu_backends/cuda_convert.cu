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

// Row-major rows×cols bytes → cols×rows, per matrix of a batch; 32×32
// tiles through shared memory so both reads and writes are coalesced.
__global__ void transpose_bytes_kernel(const unsigned char *__restrict__ src, unsigned char *__restrict__ dst,
                                       size_t rows, size_t cols) {
    __shared__ unsigned char tile[32][33];
    const size_t off = (size_t)blockIdx.z * rows * cols;
    size_t c = (size_t)blockIdx.x * 32 + threadIdx.x, r0 = (size_t)blockIdx.y * 32;
    for (unsigned j = threadIdx.y; j < 32; j += blockDim.y)
        if (r0 + j < rows && c < cols) tile[j][threadIdx.x] = src[off + (r0 + j) * cols + c];
    __syncthreads();
    size_t r = r0 + threadIdx.x, c0 = (size_t)blockIdx.x * 32;
    for (unsigned j = threadIdx.y; j < 32; j += blockDim.y)
        if (c0 + j < cols && r < rows) dst[off + (c0 + j) * rows + r] = tile[threadIdx.x][j];
}

} // namespace

extern "C" int gb_cuda_transpose_bytes(const void *src, void *dst, size_t rows, size_t cols, size_t batch, gb_err *e) {
    if (rows == 0 || cols == 0 || batch == 0) return GB_OK;
    if (batch > 65535 || (rows + 31) / 32 > 65535)
        return gb_errf(e, GB_SKIP, "transpose: %zu matrices of %zu rows exceed the grid", batch, rows);
    dim3 grid((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32), (unsigned)batch), block(32, 8);
    transpose_bytes_kernel<<<grid, block, 0, gb_cuda.stream>>>((const unsigned char *)src, (unsigned char *)dst, rows,
                                                                cols);
    return gb_cuda_check_launch("transpose_bytes_kernel", e);
}

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
