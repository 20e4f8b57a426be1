#pragma once
// How the CUDA backend keeps a weight matrix in device memory: what its kernels read
// (kernels/device_weights.h, kernels/quant_blocks.cuh) and what an estimate of its memory before
// a load counts (app/inspect). Plain C++17, so that nvcc-compiled code can include it.
//
// Quantized matrices keep their blocks in the file's order (row after row), each block's fields
// as the file has them (model/quant_block_layout.h), with one exception: the types whose block
// is one fp16 scale d and a body of whole 16-byte lines, Q4_0 (d, 16 bytes of nibbles), Q8_0
// (d, 32 bytes of int8 quants) and Q6_K (208 bytes of quants, high bits and scales, then d).
// Their blocks are 18, 34 and 210 bytes, so in the file they are only 2-byte aligned, and a
// kernel reads eight weights with several 16-bit loads. On the device such a matrix's blocks go
// in groups of eight (numbered through the matrix, not per row): the eight bodies one after
// another, then the eight d's. A group is eight blocks' bytes, so the matrix takes what the file
// takes (a last group of fewer blocks is padded to a whole one), and in a 16-byte aligned matrix
// every body starts on a 16-byte boundary: the int8 matvecs read bodies as 16-byte lines
// (kernels/block32_lines.cuh, kernels/q6k_lines.cuh).
#include <cstddef>
#include <cstdint>

#include "model/quant_block_layout.h"
#include "model/tensor_type.h"

namespace pyramid {

inline constexpr int kDeviceGroupBlocks = 8;

// Whether the device keeps `type`'s blocks in groups of eight, as above.
constexpr bool device_groups_blocks(TensorType type)
{
    return type == TensorType::Q4_0 || type == TensorType::Q8_0 || type == TensorType::Q6_K;
}

// Of a grouped type's block layout L: the block without its d, and where that begins in the
// file's block (d is first or last).
template <typename L>
inline constexpr int kDeviceBodyBytes = L::kBytes - block_layout::kHalf;
template <typename L>
inline constexpr int kDeviceBodyStart = L::kD == 0 ? block_layout::kHalf : 0;

template <typename L>
constexpr bool body_in_lines()
{
    return (L::kD == 0 || L::kD == L::kBytes - block_layout::kHalf) && kDeviceBodyBytes<L> % 16 == 0;
}
static_assert(body_in_lines<block_layout::Q4_0>() && body_in_lines<block_layout::Q8_0>() &&
                  body_in_lines<block_layout::Q6_K>(),
              "a grouped type's block is d and a body of whole 16-byte lines, d first or last");

// Bytes `blocks` consecutive blocks of the quantized `type` take on the device, from the first
// of a matrix.
inline size_t device_blocks_bytes(TensorType type, int64_t blocks)
{
    const size_t block_bytes = tensor_type_traits(type).block_bytes;
    if (device_groups_blocks(type))
        return static_cast<size_t>((blocks + kDeviceGroupBlocks - 1) / kDeviceGroupBlocks) * kDeviceGroupBlocks *
               block_bytes;
    return static_cast<size_t>(blocks) * block_bytes;
}

// Bytes a matrix of `elements` elements stored in the file as `type` takes on the device: a
// quantized type's blocks as above; a float type's elements converted to `float_bytes` each
// (the backend's precision: 2 for fp16, 4 for fp32).
inline size_t device_matrix_bytes(TensorType type, int64_t elements, size_t float_bytes)
{
    if (!is_block_quantized(type))
        return static_cast<size_t>(elements) * float_bytes;
    return device_blocks_bytes(type, elements / tensor_type_traits(type).block_elems);
}

} // namespace pyramid
