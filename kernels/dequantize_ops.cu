#include "dequantize_ops.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"
#include "quant_blocks.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kThreads = 256;

// One thread per eight elements: row `ids ? ids[t] : first_row + t`, elements 8g..8g+7.
template <typename B, typename Out>
__global__ void dequantize_kernel(const uint8_t* blocks, int64_t cols, int64_t first_row, const int32_t* ids,
                                  int64_t rows, Out* out)
{
    const int64_t groups_per_row = cols / 8;
    const int64_t row_bytes = cols / B::kElems * B::kBytes;
    const int64_t count = rows * groups_per_row;
    for (int64_t item = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; item < count;
         item += int64_t(gridDim.x) * blockDim.x) {
        const int64_t t = item / groups_per_row;
        const int64_t c0 = (item % groups_per_row) * 8;
        const int64_t row = ids ? int64_t(ids[t]) : first_row + t;
        const uint8_t* block = blocks + row * row_bytes + c0 / B::kElems * B::kBytes;
        float values[8];
        quant::decode8<B>(block, int(c0 % B::kElems), values);
        Out* dst = out + t * cols + c0;
        for (int i = 0; i < 8; ++i)
            dst[i] = from_float<Out>(values[i]);
    }
}

void launch(TensorType type, const void* blocks, int64_t cols, int64_t first_row, const int32_t* ids, int64_t rows,
            void* out, Precision out_type, cudaStream_t stream)
{
    const int64_t count = rows * (cols / 8);
    if (count == 0)
        return;
    quant::check_block_alignment(blocks, "dequantize");
    const int grid = static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65536));
    const bool known = quant::dispatch_block(type, [&](auto block) {
        using B = decltype(block);
        if (cols % B::kElems != 0)
            throw Error("dequantize: rows of " + std::to_string(cols) + " elements are not whole " +
                        std::string(tensor_type_traits(type).name) + " blocks");
        dispatch(out_type, [&](auto* tag) {
            using T = std::remove_pointer_t<decltype(tag)>;
            launch_kernel(dequantize_kernel<B, T>, grid, kThreads, 0, stream,
                          static_cast<const uint8_t*>(blocks), cols, first_row, ids, rows, static_cast<T*>(out));
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
