#pragma once
// Q4_K and Q5_K read 16 bytes a lane, as the int8 matvec (quant_matvec_int8.cu) walks them:
// eight lanes take one block, so a warp covers four blocks per step with one 16-byte load of
// quants per lane (and, for Q5_K, one of fifth bits), and a row of 4096 columns is four steps
// whose loads can all be in flight at once. The word layout of k4_words.cuh gives a lane 4
// bytes a block: a decode step's matrices are too small for that to keep enough bytes moving
// (the H100 run measured Q4_K's int8 matvec at 18 % of the copy bandwidth).
//
// Segment s (0-7) of a block is bytes 16s..16s+15 of its 128 bytes of quants: chunk c = s / 2
// of 64 elements, half h = s % 2. Its low nibbles are elements 64c + 16h + 0..15 (group 2c,
// elements 16h..16h+15 of it) and its high nibbles the same 32 further on (group 2c + 1). Their
// fifth bits are bits 2c and 2c + 1 of qh bytes 16h..16h+15. The block's first 16 bytes are d,
// dmin and the packed scales. Blocks are 144 (Q4_K) and 176 (Q5_K) bytes, whole 16-byte
// lines, so every block of a 16-byte aligned row is aligned too; rows must start so.
#include <cstdint>

#include "k4_words.cuh"

namespace pyramid::cuda {

static_assert(K4Layout<false>::kBytes % 16 == 0 && K4Layout<true>::kBytes % 16 == 0 &&
                  K4Layout<false>::kQs % 16 == 0 && K4Layout<true>::kQs % 16 == 0 &&
                  block_layout::Q5_K::kQh % 16 == 0 && K4Layout<false>::kD == 0 && K4Layout<true>::kD == 0 &&
                  K4Layout<false>::kScales == 4 && K4Layout<true>::kScales == 4,
              "k4_segment loads the header, quants and fifth bits as aligned 16-byte lines");

constexpr int kK4Segments = 8;  // lanes per block

// The block element where segment s's low group starts; its high group's is 32 further.
__device__ __forceinline__ int k4_segment_first_element(int segment)
{
    return 64 * (segment / 2) + 16 * (segment % 2);
}

// The bytes one lane loads of a block: three (Q4_K: two) 16-byte lines.
struct K4SegmentBytes {
    uint4 head;  // d, dmin, the packed scales
    uint4 q;     // its 16 bytes of quants
    uint4 qh;    // Q5_K: qh bytes 16h..16h+15; else zero
};

// Loads only, so that a lane can have several blocks' loads in flight before it waits on the
// first (a load whose bytes are unpacked at once makes the next one wait behind it).
template <bool kFifthBit>
__device__ __forceinline__ K4SegmentBytes k4_segment_bytes(const uint8_t* block, int segment)
{
    using L = K4Layout<kFifthBit>;
    K4SegmentBytes bytes;
    bytes.head = *reinterpret_cast<const uint4*>(block);
    bytes.q = *reinterpret_cast<const uint4*>(block + L::kQs + 16 * segment);
    bytes.qh = kFifthBit ? *reinterpret_cast<const uint4*>(block + block_layout::Q5_K::kQh + 16 * (segment % 2))
                         : uint4{0, 0, 0, 0};
    return bytes;
}

// What one lane takes of a block: its 32 quants as bytes (fifth bit included), 16 of each group.
struct K4Segment {
    uint32_t low[4];   // group 2c: elements 16h + 4i + 0..3 in word i
    uint32_t high[4];  // group 2c + 1, the same elements
    K4ChunkScales groups;
    float d, dmin;
};

__device__ __forceinline__ K4Segment k4_segment(const K4SegmentBytes& bytes, int segment)
{
    const int chunk = segment / 2;
    const uint32_t qs[4] = {bytes.q.x, bytes.q.y, bytes.q.z, bytes.q.w};
    const uint32_t his[4] = {bytes.qh.x, bytes.qh.y, bytes.qh.z, bytes.qh.w};
    constexpr uint32_t kLowBits = 0x01010101u;
    K4Segment s;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const uint32_t fifth = his[i] >> (2 * chunk);
        s.low[i] = (qs[i] & 0x0f0f0f0fu) | ((fifth & kLowBits) << 4);
        s.high[i] = ((qs[i] >> 4) & 0x0f0f0f0fu) | (((fifth >> 1) & kLowBits) << 4);
    }
    s.groups = k4_chunk_scales(bytes.head.y, bytes.head.z, bytes.head.w, chunk);
    s.d = k4_d(bytes.head.x);
    s.dmin = k4_dmin(bytes.head.x);
    return s;
}

} // namespace pyramid::cuda
