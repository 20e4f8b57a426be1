#include "dequantize_ops.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"
#include "quant_blocks.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kThreads = 256;

// Eight decoded values to dst (16-byte aligned) in whole 16-byte stores, so a warp writes 512
// (fp16) or 1024 (float32) contiguous bytes per instruction instead of 2 or 4 bytes a lane
// spread over all of them.
__device__ __forceinline__ void store8(const float* v, __half* dst)
{
    *reinterpret_cast<uint4*>(dst) =
        make_uint4(pack_half2(__float2half_rn(v[0]), __float2half_rn(v[1])),
                   pack_half2(__float2half_rn(v[2]), __float2half_rn(v[3])),
                   pack_half2(__float2half_rn(v[4]), __float2half_rn(v[5])),
                   pack_half2(__float2half_rn(v[6]), __float2half_rn(v[7])));
}
__device__ __forceinline__ void store8(const float* v, float* dst)
{
    reinterpret_cast<float4*>(dst)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(dst)[1] = make_float4(v[4], v[5], v[6], v[7]);
}

// One thread per eight elements: row `ids ? ids[t] : first_row + t`, elements 8g..8g+7.
// `count` (rows * cols / 8) fits an int (launch checks it): 32-bit index arithmetic, which is a
// few instructions where a 64-bit division is dozens.
template <typename B, typename Out>
__global__ void dequantize_kernel(const uint8_t* blocks, int cols, int64_t first_row, const int32_t* ids, int count,
                                  Out* out)
{
    const int groups_per_row = cols / 8;
    const int blocks_per_row = cols / B::kElems;
    for (int item = blockIdx.x * blockDim.x + threadIdx.x; item < count; item += gridDim.x * blockDim.x) {
        const int t = item / groups_per_row;
        const int c0 = (item - t * groups_per_row) * 8;
        const int64_t row = ids ? int64_t(ids[t]) : first_row + t;
        float values[8];
        quant::decode8<B>(B::locate(blocks, row * blocks_per_row + c0 / B::kElems), c0 % B::kElems, values);
        store8(values, out + int64_t(t) * cols + c0);
    }
}

void launch(TensorType type, const void* blocks, int64_t cols, int64_t first_row, const int32_t* ids, int64_t rows,
            void* out, Precision out_type, cudaStream_t stream)
{
    const int64_t count = rows * (cols / 8);
    if (count == 0)
        return;
    quant::check_block_alignment(blocks, "dequantize");
    if (count > std::numeric_limits<int>::max() || cols > std::numeric_limits<int>::max())
        throw Error("dequantize: " + std::to_string(rows) + " rows of " + std::to_string(cols) +
                    " elements in one launch are more than its int indices count");
    if (reinterpret_cast<uintptr_t>(out) % 16 != 0)
        throw Error("dequantize: the output must be 16-byte aligned");
    const int grid = static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65536));
    const bool known = quant::dispatch_block(type, [&](auto block) {
        using B = decltype(block);
        if (cols % B::kElems != 0)
            throw Error("dequantize: rows of " + std::to_string(cols) + " elements are not whole " +
                        std::string(tensor_type_traits(type).name) + " blocks");
        dispatch(out_type, [&](auto* tag) {
            using T = std::remove_pointer_t<decltype(tag)>;
            launch_kernel(dequantize_kernel<B, T>, grid, kThreads, 0, stream,
                          static_cast<const uint8_t*>(blocks), static_cast<int>(cols), first_row, ids,
                          static_cast<int>(count), static_cast<T*>(out));
        });
    });
    if (!known)
        throw Error("dequantize: tensor type " + std::string(tensor_type_traits(type).name) +
                    " is not a quantized block type");
    check_launch("dequantize_kernel");
}

} // namespace

bool stays_quantized(TensorType type)
{
    return quant::dispatch_block(type, [](auto) {});
}

void dequantize_rows(TensorType type, const void* blocks, int64_t cols, int64_t first_row, int64_t rows, void* out,
                     Precision out_type, cudaStream_t stream)
{
    launch(type, blocks, cols, first_row, nullptr, rows, out, out_type, stream);
}

void dequantize_gathered_rows(TensorType type, const void* blocks, int64_t cols, const int32_t* ids, int n,
                              float* out, cudaStream_t stream)
{
    launch(type, blocks, cols, 0, ids, n, out, Precision::Fp32, stream);
}

} // namespace pyramid::cuda
