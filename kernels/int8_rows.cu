#include "int8_rows.h"

#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;

size_t quants_bytes(int n, int64_t cols) { return (size_t(n) * size_t(cols) + 15) / 16 * 16; }

// A warp per block of 32 values, a lane per value. The operations are the CPU's, one by one:
// the largest magnitude, scale = amax / 127, inverse = 1 / scale, q = round_even(x * inverse).
template <typename X>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    round_rows_kernel(const X* x, int64_t blocks, int8_t* q, float2* factors)
{
    const int lane = threadIdx.x % 32;
    const int64_t b = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
    if (b >= blocks)
        return;
    const float v = to_float(x[b * kInt8Block + lane]);
    const float amax = warp_max(fabsf(v));
    const float scale = __fdiv_rn(amax, 127.0f);
    const float inverse = scale > 0.0f ? __fdiv_rn(1.0f, scale) : 0.0f;
    const int r = __float2int_rn(__fmul_rn(v, inverse));
    q[b * kInt8Block + lane] = static_cast<int8_t>(r);
    const float sum = warp_sum(float(r));  // at most 32 * 127: exact
    if (lane == 0)
        factors[b] = make_float2(scale, __fmul_rn(scale, sum));
}

} // namespace

size_t int8_rows_bytes(int n, int64_t cols)
{
    return quants_bytes(n, cols) + size_t(n) * size_t(cols / kInt8Block) * sizeof(float2);
}

Int8Rows round_rows_int8(const void* x, Precision x_type, int n, int64_t cols, void* buffer, cudaStream_t stream)
{
    if (cols % kInt8Block != 0)
        throw Error("round_rows_int8: rows of " + std::to_string(cols) + " values are not whole blocks of 32");
    auto* q = static_cast<int8_t*>(buffer);
    auto* factors = reinterpret_cast<float2*>(static_cast<std::byte*>(buffer) + quants_bytes(n, cols));
    const int64_t blocks = int64_t(n) * (cols / kInt8Block);
    if (blocks > 0) {
        const auto grid = static_cast<unsigned>((blocks + kWarpsPerBlock - 1) / kWarpsPerBlock);
        dispatch(x_type, [&](auto* tag) {
            using X = std::remove_pointer_t<decltype(tag)>;
            launch_kernel(round_rows_kernel<X>, grid, kWarpsPerBlock * 32, 0, stream, static_cast<const X*>(x), blocks,
                          q, factors);
        });
        check_launch("round_rows_int8");
    }
    return {q, factors, cols};
}

} // namespace pyramid::cuda
