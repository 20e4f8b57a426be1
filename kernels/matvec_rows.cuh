#pragma once
// What the matvec kernels (quant_matvec.cu: float activations; quant_matvec_int8.cu: int8
// activations; half_matvec.cu: fp16 weights) share: a warp per output row, in blocks of
// kMatvecWarps warps, the part of a launch a block computes, and how the lanes' partial sums
// become the row's outputs.
#include <string>

#include "cuda_check.h"
#include "element_type.cuh"
#include "grid_dependency.cuh"
#include "quant_blocks.cuh"
#include "matvec_parts.h"
#include "quant_matvec.h"

namespace pyramid::cuda {

constexpr int kMatvecWarps = 4;
constexpr int kMatvecStretch = 32 * 8;  // elements a warp covers per step: eight per lane

// Part blockIdx.y of the launch (grid y: one per part). Picked by constant indices: a kernel
// parameter indexed by a register would be copied to local memory.
__device__ __forceinline__ MatvecPart this_part(const MatvecParts& parts)
{
    static_assert(kMaxMatvecParts == 3, "this_part picks among three parts");
    const unsigned i = blockIdx.y;
    return i == 0 ? parts.part[0] : i == 1 ? parts.part[1] : parts.part[2];
}

// The output row of the calling warp.
__device__ __forceinline__ int64_t matvec_row() { return int64_t(blockIdx.x) * kMatvecWarps + threadIdx.x / 32; }

// Before wait_for_prior_grids() in a launch that overlaps the kernel before it (the kernels'
// `prefetch_weights`): asks L2 for the weights of the calling block's rows of a matrix of
// `rows` rows, `row_bytes` each, so they arrive while that kernel ends (grid_dependency.cuh).
// Where the device keeps blocks in groups of eight (device_weight_layout.h) a row's bytes are
// its blocks' share of their groups, and the d's of a last, partial group (a few bytes past
// rows * row_bytes) are left to the loads.
__device__ __forceinline__ void prefetch_block_rows(const void* weights, int64_t rows, int64_t row_bytes)
{
    const int64_t first = int64_t(blockIdx.x) * kMatvecWarps;
    if (first >= rows)
        return;
    const int64_t end = first + kMatvecWarps < rows ? first + kMatvecWarps : rows;
    prefetch_to_l2(static_cast<const uint8_t*>(weights) + first * row_bytes, size_t((end - first) * row_bytes));
}

// y[t, r] = the warp's sum of acc[t] (+ beta y[t, r]) for t < n, written by lane 0.
__device__ __forceinline__ void write_row_sums(const float (&acc)[kMaxMatvecRows], int n, int lane, float* y,
                                               int64_t rows, int64_t r, float beta)
{
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

// The walk the line kernels of quant_matvec_int8.cu share (Q4_K/Q5_K segments, Q6_K lines,
// Q4_0/Q8_0 blocks): kLanes lanes a block, so a warp covers 32 / kLanes blocks a step; a lane
// takes blocks lane / kLanes, + 32 / kLanes, ... of a row of `blocks`, and issues the loads of
// kInFlight steps (load(b) gives block b's bytes) before it adds the first (add(bytes, b)). Past
// the row's end a lane loads its last block again and adds nothing: loads without a branch, so
// all of them are issued before the first is waited on.
template <int kLanes, int kInFlight, typename Load, typename Add>
__device__ __forceinline__ void walk_row_blocks(int64_t blocks, int lane, Load&& load, Add&& add)
{
    constexpr int kBlocksPerStep = 32 / kLanes;
    using Bytes = decltype(load(int64_t(0)));
    for (int64_t b0 = lane / kLanes; b0 < blocks; b0 += kInFlight * kBlocksPerStep) {
        Bytes bytes[kInFlight];
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) {
            const int64_t b = b0 + j * kBlocksPerStep;
            bytes[j] = load(b < blocks ? b : blocks - 1);
        }
#pragma unroll
        for (int j = 0; j < kInFlight; ++j)
            if (b0 + j * kBlocksPerStep < blocks)
                add(bytes[j], b0 + j * kBlocksPerStep);
    }
}

// Blocks of the launch for `rows` output rows.
inline unsigned matvec_grid(int64_t rows) { return static_cast<unsigned>((rows + kMatvecWarps - 1) / kMatvecWarps); }

// Host side: checks n, cols and the blocks' alignment, then calls k4_kernel(is_q5_k) for Q4_K and Q5_K rows the
// caller's Q4_K/Q5_K kernels can read (`k4_fits`: their alignment; k4_words.cuh, k4_segments.cuh), else
// block_kernel(quant::Block<type>{}), and checks the launch. `what` names the caller in errors.
template <typename K4Kernel, typename BlockKernel>
void launch_matvec(const char* what, TensorType type, const void* blocks, int64_t rows, int64_t cols, int n,
                   bool k4_fits, K4Kernel&& k4_kernel, BlockKernel&& block_kernel)
{
    if (n <= 0 || rows == 0)
        return;
    quant::check_block_alignment(blocks, what);
    if (n > kMaxMatvecRows)
        throw Error(std::string(what) + ": " + std::to_string(n) + " input rows, at most " +
                    std::to_string(kMaxMatvecRows));
    // Launched once per projection of every decode step: strings only on the error paths.
    const auto type_name = [&] { return std::string(tensor_type_traits(type).name); };
    if ((type == TensorType::Q4_K || type == TensorType::Q5_K) && cols % 256 == 0 && k4_fits)
        k4_kernel(type == TensorType::Q5_K);
    else if (!quant::dispatch_block(type, [&](auto block) {
                 if (cols % decltype(block)::kElems != 0)
                     throw Error(std::string(what) + ": rows of " + std::to_string(cols) + " elements are not whole " +
                                 type_name() + " blocks");
                 block_kernel(block);
             }))
        throw Error(std::string(what) + ": tensor type " + type_name() + " is not a quantized block type");
    check_launch(what);
}

} // namespace pyramid::cuda
