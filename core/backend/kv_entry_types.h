#pragma once
// The types a CPU KV cache row is stored in, and the one definition of the quantized layouts.
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
// attention kernels a block is four 8-lane vectors under one scale, and a row is still a
// contiguous run of bytes, so a head's rows lie in order like float rows (cache_rows.h).
//
// A stored value is scale * code computed in float32, exact: the fp16 scale has an 11-bit
// significand and the code at most 8 bits. So attention over quantized rows can give the very
// floats of attention over the rows' dequantized float32 values.
#include <cstdint>

#include "util/float16.h"

namespace pyramid {

inline constexpr int kKvBlockValues = 32;

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

// How many values one stored element holds: 1 for float and Half, 32 for a block.
template <typename Stored>
inline constexpr int kValuesPerElement = 1;
template <>
inline constexpr int kValuesPerElement<KvQ8Block> = kKvBlockValues;
template <>
inline constexpr int kValuesPerElement<KvQ4Block> = kKvBlockValues;

// Value i of a row as float32 (exact, see above).
inline float value_at(const float* row, int64_t i) { return row[i]; }
inline float value_at(const Half* row, int64_t i) { return to_float(row[i]); }
inline float value_at(const KvQ8Block* row, int64_t i)
{
    const KvQ8Block& b = row[i / kKvBlockValues];
    return to_float(b.scale) * static_cast<float>(b.q[i % kKvBlockValues]);
}
inline float value_at(const KvQ4Block* row, int64_t i)
{
    const KvQ4Block& b = row[i / kKvBlockValues];
    const int at = static_cast<int>(i % kKvBlockValues);
    const int nibble = at < kKvBlockValues / 2 ? b.q[at] & 0x0F : b.q[at - kKvBlockValues / 2] >> 4;
    return to_float(b.scale) * static_cast<float>(nibble - 8);
}

// Stores n float32 values as n / kValuesPerElement<Stored> elements: as they are, rounded to
// the nearest half, or quantized per block (the block's largest magnitude maps to the largest
// code; codes round to nearest). For blocks n must be a multiple of 32.
template <typename Stored>
void store_values(const float* values, int64_t n, Stored* out);

// The n values of `stored` as float32 (value_at for each).
template <typename Stored>
void load_values(const Stored* stored, int64_t n, float* out);

} // namespace pyramid
