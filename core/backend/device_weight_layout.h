#pragma once
// How the CUDA backend keeps a weight matrix in device memory: what its kernels read
// (kernels/device_weights.h, kernels/quant_blocks.cuh) and what an estimate of its memory before
// a load counts (app/inspect). Plain C++17, so that nvcc-compiled code can include it.
//
// Quantized matrices keep their blocks in the file's order (row after row), each block's fields
// as the file has them (model/quant_block_layout.h), with one exception. A Q6_K block is 210
// bytes: 208 of quants (ql), high bits (qh) and scales, then its fp16 d. 210 bytes apart, a
// block is only 2-byte aligned, so reading one takes ten 16-bit loads for every eight weights.
// On the device the matrix's blocks go in groups of eight (numbered through the matrix, not
// per row): the eight blocks' first 208 bytes one after another, then their eight d's. A group
// is 1680 bytes, eight blocks' worth, so the matrix takes what the file takes (a last group of
// fewer blocks is padded to a whole one), and in a 16-byte aligned matrix every block's
// quants, high bits and scales start on 16-byte boundaries: the int8 matvec reads them as
// 16-byte lines (kernels/q6k_lines.cuh), five loads for 64 weights.
#include <cstddef>
#include <cstdint>

#include "model/quant_block_layout.h"
#include "model/tensor_type.h"

namespace pyramid {

inline constexpr int kDeviceQ6KGroupBlocks = 8;
inline constexpr int kDeviceQ6KBlockBytes = block_layout::Q6_K::kD;  // a block's bytes before d
inline constexpr int kDeviceQ6KGroupBytes = kDeviceQ6KGroupBlocks * block_layout::Q6_K::kBytes;
inline constexpr int kDeviceQ6KGroupDs = kDeviceQ6KGroupBlocks * kDeviceQ6KBlockBytes;  // where the d's start
static_assert(block_layout::Q6_K::kD + 2 == block_layout::Q6_K::kBytes && kDeviceQ6KBlockBytes % 16 == 0 &&
                  kDeviceQ6KGroupBytes % 16 == 0,
              "Q6_K's device groups: d last in a block, blocks and groups on 16-byte boundaries");

// Bytes `blocks` consecutive blocks of the quantized `type` take on the device, from the first
// of a matrix.
inline size_t device_blocks_bytes(TensorType type, int64_t blocks)
{
    if (type == TensorType::Q6_K)
        return static_cast<size_t>((blocks + kDeviceQ6KGroupBlocks - 1) / kDeviceQ6KGroupBlocks) *
               kDeviceQ6KGroupBytes;
    return static_cast<size_t>(blocks) * tensor_type_traits(type).block_bytes;
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
