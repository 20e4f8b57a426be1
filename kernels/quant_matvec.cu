#include "quant_matvec.h"

#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"
#include "quant_blocks.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kStretch = 32 * 8;  // elements a warp covers per step: eight per lane

template <typename B, typename X>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    quant_matvec_kernel(const uint8_t* blocks, int64_t rows, int64_t cols, const X* x, int n, float* y, float beta)
{
    const int lane = threadIdx.x % 32;
    const int64_t r = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
    if (r >= rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const int64_t row_bytes = cols / B::kElems * B::kBytes;
    const uint8_t* row = blocks + r * row_bytes;
    float acc[kMaxMatvecRows];
#pragma unroll
    for (int t = 0; t < kMaxMatvecRows; ++t)
        acc[t] = 0.0f;
    for (int64_t c0 = int64_t(lane) * 8; c0 < cols; c0 += kStretch) {
        float w[8];
        B::decode8(row + c0 / B::kElems * B::kBytes, int(c0 % B::kElems), w);
#pragma unroll
        for (int t = 0; t < kMaxMatvecRows; ++t) {
            if (t < n) {
                const X* xt = x + int64_t(t) * cols + c0;
                float sum = acc[t];
#pragma unroll
                for (int i = 0; i < 8; ++i)
                    sum += w[i] * to_float(xt[i]);
                acc[t] = sum;
            }
        }
    }
#pragma unroll
    for (int t = 0; t < kMaxMatvecRows; ++t) {
        if (t < n) {
            const float total = warp_sum(acc[t]);
            if (lane == 0) {
                float* out = y + int64_t(t) * rows + r;
                *out = beta == 0.0f ? total : total + beta * *out;
            }
        }
    }
}

} // namespace

void quant_matvec(TensorType type, const void* blocks, int64_t rows, int64_t cols, const void* x, Precision x_type,
                  int n, float* y, float beta, cudaStream_t stream)
{
    if (n <= 0 || rows == 0)
        return;
    if (n > kMaxMatvecRows)
        throw Error("quant_matvec: " + std::to_string(n) + " input rows, at most " + std::to_string(kMaxMatvecRows));
    const int grid = static_cast<int>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
    const bool known = quant::dispatch_block(type, [&](auto block) {
        using B = decltype(block);
        if (cols % B::kElems != 0)
            throw Error("quant_matvec: rows of " + std::to_string(cols) + " elements are not whole " +
                        std::string(tensor_type_traits(type).name) + " blocks");
        dispatch(x_type, [&](auto* tag) {
            using X = std::remove_pointer_t<decltype(tag)>;
            launch_kernel(quant_matvec_kernel<B, X>, grid, kWarpsPerBlock * 32, 0, stream,
                          static_cast<const uint8_t*>(blocks), rows, cols, static_cast<const X*>(x), n, y, beta);
        });
    });
    if (!known)
        throw Error("quant_matvec: tensor type " + std::string(tensor_type_traits(type).name) +
                    " is not a quantized block type");
    check_launch("quant_matvec_kernel");
}

} // namespace pyramid::cuda
