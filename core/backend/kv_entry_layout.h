#pragma once
// The one definition of the quantized KV cache layouts, shared by the CPU backend
// (backend/kv_entry_types.h: storing, decoding, the row kernels) and the CUDA kernels
// (kernels/kv_entry.cuh), which is why it is C++17 and its small functions are host-device.
//
// A row is one KV head's key or value of one token: head_dim values. float32 and fp16 (Half)
// rows are head_dim elements. Quantized rows are head_dim / 32 blocks, each 32 consecutive
// values of the row with their own fp16 scale, the codes symmetric around zero:
//
//   KvQ8Block (34 bytes):  scale | q[0] ... q[31]              value i = scale * q[i],  q in [-127, 127]
//   KvQ4Block (18 bytes):  scale | b[0] ... b[15]              value i = scale * (nibble i - 8), nibble in [1, 15]
//                                  nibble i < 16: low 4 bits of b[i]; nibble i >= 16: high 4 bits of b[i - 16]
//
// Why blocks of 32 along the head dimension rather than one scale per head row: a head's values
// can differ widely in size (outlier channels), and 4 bits with one scale for
// 64 or 128 of them leave the small ones at zero; a block of 32 keeps their scale close, for
// 2 bytes in 32 (q8: 1.06 bytes a value, q4: 0.56), as llama.cpp's q8_0 and q4_0 do. For the
// attention kernels a block is four 8-lane vectors (CPU) or one warp's 32 lanes (GPU) under one
// scale, and a row is still a contiguous run of bytes, so a head's rows lie in order like float
// rows.
//
// A stored value is scale * code computed in float32, exact: the fp16 scale has an 11-bit
// significand and the code at most 8 bits. So attention over quantized rows can give the very
// floats of attention over the rows' dequantized float32 values.
//
// Storing (the CPU's store_values, the GPU's store kernels; they give the same bytes): the
// block's largest magnitude divided by the largest code, capped at 65504, rounded to the
// nearest half is the scale; each code is value * (1 / scale) rounded to nearest even and
// clamped to the largest code (0 for an all-zero block).
#include <cstdint>

#include "util/half.h"
#include "util/host_device.h"

namespace pyramid {

inline constexpr int kKvBlockValues = 32;
inline constexpr int kKvQ8MaxCode = 127;
inline constexpr int kKvQ4MaxCode = 7;
inline constexpr float kKvLargestScale = 65504.0f;  // the largest half: a larger scale would round to infinity

struct KvQ8Block {
    Half scale;
    int8_t q[kKvBlockValues];
};
static_assert(sizeof(KvQ8Block) == 2 + kKvBlockValues, "a q8 block is its scale and 32 codes, unpadded");

struct KvQ4Block {
    Half scale;
    uint8_t q[kKvBlockValues / 2];
};
static_assert(sizeof(KvQ4Block) == 2 + kKvBlockValues / 2, "a q4 block is its scale and 16 bytes of nibbles, unpadded");

// How many values one stored element holds: 1 for float and Half (and CUDA's __half), 32 for a block.
template <typename Stored>
inline constexpr int kValuesPerElement = 1;
template <>
inline constexpr int kValuesPerElement<KvQ8Block> = kKvBlockValues;
template <>
inline constexpr int kValuesPerElement<KvQ4Block> = kKvBlockValues;

// The code of value i (0 <= i < 32) of a q4 block, in [-7, 7].
PYRAMID_HOST_DEVICE inline int kv_q4_code(const KvQ4Block& b, int i)
{
    const int nibble = i < kKvBlockValues / 2 ? b.q[i] & 0x0F : b.q[i - kKvBlockValues / 2] >> 4;
    return nibble - 8;
}

// Byte i of a q4 block from the codes of values i and i + 16.
PYRAMID_HOST_DEVICE inline uint8_t kv_q4_byte(int code_i, int code_i_plus_16)
{
    return static_cast<uint8_t>((code_i + 8) | ((code_i_plus_16 + 8) << 4));
}

} // namespace pyramid
