#pragma once
// Q4_K and Q5_K, the types most of a Q4_K_M or Q5_K_M model's bytes are in, read in 32-bit
// words by a warp, as both matvecs (quant_matvec.cu, quant_matvec_int8.cu) walk them: a block
// is d and dmin (1 word), 3 words of packed scales and mins, for Q5_K 8 words of fifth bits
// (qh), then 32 words of quants. Lane i takes quant word i, bytes 4i..4i+3 of the 128: chunk
// c = i / 8 of 64 elements, whose low nibbles are elements 64c + 4(i % 8) + 0..3 (group 2c)
// and high nibbles the same 32 further on (group 2c + 1). Their fifth bits are bits 2c and
// 2c + 1 of the same bytes of qh, word i % 8. So a warp's quant loads are one coalesced
// 128-byte line per block, and every lane unpacks its two groups' scales and mins from the
// same 3 words with masks instead of byte loads. Rows must start 4-byte aligned.
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "model/quant_block_layout.h"

namespace pyramid::cuda {

template <bool kFifthBit>
using K4Layout = std::conditional_t<kFifthBit, block_layout::Q5_K, block_layout::Q4_K>;

// What the word reads below take for granted: d and dmin are the low and high half of one
// word; the scales, qh and qs start on words; a block is whole words, so every block of a
// 4-byte aligned row is aligned too.
template <bool kFifthBit, typename L = K4Layout<kFifthBit>>
constexpr bool kK4InWords = L::kD % 4 == 0 && L::kDmin == L::kD + 2 && L::kScales % 4 == 0 && L::kQs % 4 == 0 &&
                            L::kBytes % 4 == 0;
static_assert(kK4InWords<false> && kK4InWords<true> && block_layout::Q5_K::kQh % 4 == 0);

template <bool kFifthBit>
constexpr int kK4BlockWords = K4Layout<kFifthBit>::kBytes / 4;

// The first element of lane's low group within the block; its high group's is 32 further.
__device__ __forceinline__ int k4_first_element(int lane) { return 64 * (lane / 8) + 4 * (lane % 8); }

// The 6-bit scales and minimums of chunk c's groups 2c and 2c + 1, unpacked from the block's
// three words of packed scales (w0, w1, w2) with masks instead of byte loads.
struct K4ChunkScales {
    uint32_t scale[2];
    uint32_t min[2];
};

__device__ __forceinline__ K4ChunkScales k4_chunk_scales(uint32_t w0, uint32_t w1, uint32_t w2, int chunk)
{
    const int byte_shift = 8 * (2 * chunk % 4);  // of groups 2c, 2c + 1 in their 4-group word
    // Scales 0-3 and mins 0-3 are the low 6 bits of w0 and w1; groups 4-7 take the low
    // (scales) or high (mins) nibbles of w2 and the top 2 bits of w0 (scales) or w1 (mins).
    const uint32_t scales = chunk < 2 ? w0 & 0x3f3f3f3fu : (w2 & 0x0f0f0f0fu) | ((w0 >> 2) & 0x30303030u);
    const uint32_t mins = chunk < 2 ? w1 & 0x3f3f3f3fu : ((w2 >> 4) & 0x0f0f0f0fu) | ((w1 >> 2) & 0x30303030u);
    K4ChunkScales s;
    for (int u = 0; u < 2; ++u) {
        s.scale[u] = (scales >> (byte_shift + 8 * u)) & 0xffu;
        s.min[u] = (mins >> (byte_shift + 8 * u)) & 0xffu;
    }
    return s;
}

// d and dmin from the block's first word.
__device__ __forceinline__ float k4_d(uint32_t dm)
{
    return __half2float(__ushort_as_half(static_cast<unsigned short>(dm & 0xffffu)));
}
__device__ __forceinline__ float k4_dmin(uint32_t dm)
{
    return __half2float(__ushort_as_half(static_cast<unsigned short>(dm >> 16)));
}

// What one lane takes of a block.
struct K4Lane {
    uint32_t q;         // its quant word
    uint32_t qh;        // Q5_K: bit 0 of each byte the fifth bit in group 2c, bit 1 in 2c + 1; else 0
    K4ChunkScales groups;  // of groups 2c and 2c + 1
    float d, dmin;
};

template <bool kFifthBit>
__device__ __forceinline__ K4Lane k4_lane(const uint32_t* block, int lane)
{
    const int chunk = lane / 8;
    using L = K4Layout<kFifthBit>;
    const uint32_t* packed = block + L::kScales / 4;
    const uint32_t dm = block[L::kD / 4];
    K4Lane l;
    l.q = block[L::kQs / 4 + lane];
    l.qh = kFifthBit ? block[block_layout::Q5_K::kQh / 4 + lane % 8] >> (2 * chunk) : 0;
    l.groups = k4_chunk_scales(packed[0], packed[1], packed[2], chunk);
    l.d = k4_d(dm);
    l.dmin = k4_dmin(dm);
    return l;
}

} // namespace pyramid::cuda
