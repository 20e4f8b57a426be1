#include "int8_rows.h"

#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "int8_rounding.cuh"
#include "kernel_launch.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;

size_t quants_bytes(int n, int64_t cols) { return (size_t(n) * size_t(cols) + 15) / 16 * 16; }

// A warp per block of 32 values, a lane per value.
template <typename X>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    round_rows_kernel(const X* x, int64_t blocks, int8_t* q, float2* factors)
{
    wait_for_prior_grids();
    const int lane = threadIdx.x % 32;
    const int64_t b = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
    if (b >= blocks)
        return;
    round_block_int8(to_float(x[b * kInt8Block + lane]), q + b * kInt8Block + lane, factors + b);
}

} // namespace

size_t int8_rows_bytes(int n, int64_t cols)
{
    return quants_bytes(n, cols) + size_t(n) * size_t(cols / kInt8Block) * sizeof(float2);
}

Int8Rows int8_rows_in(void* buffer, int n, int64_t cols)
{
    if (cols % kInt8Block != 0)
        throw Error("int8 rows: rows of " + std::to_string(cols) + " values are not whole blocks of 32");
    // The matvec kernels read the quants 8 bytes at a time (a misaligned address faults on a GPU).
    if (reinterpret_cast<uintptr_t>(buffer) % 16 != 0)
        throw Error("int8 rows: the buffer is not 16-byte aligned");
    auto* q = static_cast<int8_t*>(buffer);
    auto* factors = reinterpret_cast<float2*>(static_cast<std::byte*>(buffer) + quants_bytes(n, cols));
    return {q, factors, cols};
}

Int8Rows round_rows_int8(const void* x, Precision x_type, int n, int64_t cols, void* buffer, KernelStream stream)
{
    const Int8Rows rows = int8_rows_in(buffer, n, cols);
    const int64_t blocks = int64_t(n) * (cols / kInt8Block);
    if (blocks > 0) {
        const auto grid = static_cast<unsigned>((blocks + kWarpsPerBlock - 1) / kWarpsPerBlock);
        dispatch(x_type, [&](auto* tag) {
            using X = std::remove_pointer_t<decltype(tag)>;
            launch_kernel(round_rows_kernel<X>, grid, kWarpsPerBlock * 32, 0, stream, static_cast<const X*>(x), blocks,
                          rows.q, rows.factors);
        });
        check_launch("round_rows_int8");
    }
    return rows;
}

} // namespace pyramid::cuda
