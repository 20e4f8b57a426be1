#pragma once
// Q6_K read in 16-byte lines, as the int8 matvec (quant_matvec_int8.cu) walks it: four lanes
// take one block, so a warp covers eight blocks per step. On the device Q6_K's blocks lie in
// groups of eight (backend/device_weight_layout.h), each block's quants (ql, 128 bytes), high
// bits (qh, 64) and scales (16) on 16-byte boundaries of a 16-byte aligned matrix, its d
// apart. A lane loads three 16-byte lines, eight bytes of scales and d: five loads for 64
// weights, where the file's 210-byte blocks allow only 16-bit loads, ten for eight weights.
//
// Lane s (0-3) of a block takes half h = s / 2 of its 256 elements and, in each of the half's
// four runs of 32 (k = 0..3), the 16 elements from l0 = 16 (s % 2): elements 128 h + 32 k + l0
// + i, i < 16 (quant_blocks.cuh's mapping: nibble k / 2 of ql byte 64 h + 32 (k % 2) + l0 + i,
// bits 2k..2k+1 of qh byte 32 h + l0 + i, scale 8 h + 2 k + s % 2). So its ql lines are bytes
// 64 h + l0 (k = 0, 2) and 64 h + 32 + l0 (k = 1, 3), its qh line bytes 32 h + l0, and its
// four scales bytes s % 2 + 2k of the eight from 8 h.
#include <cstdint>

#include "backend/device_weight_layout.h"
#include "quant_blocks.cuh"

namespace pyramid::cuda {

static_assert(kDeviceBodyBytes<block_layout::Q6_K> % 16 == 0 && block_layout::Q6_K::kQl % 16 == 0 &&
                  block_layout::Q6_K::kQh % 16 == 0 && block_layout::Q6_K::kScales % 8 == 0,
              "q6k_line_bytes loads the quants and high bits as aligned 16-byte lines, the scales as 8 bytes");

constexpr int kQ6KLanes = 4;  // lanes per block

// The bytes one lane loads of a block.
struct Q6KLineBytes {
    uint4 low;      // ql bytes 64 h + l0 ..: runs k = 0 (low nibbles) and 2 (high nibbles)
    uint4 high;     // ql bytes 64 h + 32 + l0 ..: runs 1 and 3
    uint4 bits;     // qh bytes 32 h + l0 ..: bits 2k..2k+1 for run k
    uint2 scales;   // scale bytes 8 h .. 8 h + 7
    uint32_t d;     // the block's fp16 d, in the low 16 bits
};

// The block element where lane s's run 0 starts; run k starts 32k further.
__device__ __forceinline__ int q6k_lane_first_element(int lane_in_block)
{
    return 128 * (lane_in_block / 2) + 16 * (lane_in_block % 2);
}

// Loads only, so that a lane can have several blocks' loads in flight before it waits on the
// first.
__device__ __forceinline__ Q6KLineBytes q6k_line_bytes(const quant::GroupedRef& block, int lane_in_block)
{
    using L = block_layout::Q6_K;
    static_assert(kDeviceBodyStart<L> == 0, "Q6_K's body is its file block up to d");
    const int h = lane_in_block / 2, l0 = 16 * (lane_in_block % 2);
    Q6KLineBytes bytes;
    bytes.low = *reinterpret_cast<const uint4*>(block.body + L::kQl + 64 * h + l0);
    bytes.high = *reinterpret_cast<const uint4*>(block.body + L::kQl + 64 * h + 32 + l0);
    bytes.bits = *reinterpret_cast<const uint4*>(block.body + L::kQh + 32 * h + l0);
    bytes.scales = *reinterpret_cast<const uint2*>(block.body + L::kScales + 8 * h);
    bytes.d = quant::u16_at(block.d);
    return bytes;
}

// Run k's 16 quants (0..63, element = d * scale * (quant - 32)) as bytes, elements 4w..4w+3 in
// word w.
template <int k>
__device__ __forceinline__ void q6k_run(const Q6KLineBytes& bytes, uint32_t (&q)[4])
{
    const uint4 ql = k % 2 == 0 ? bytes.low : bytes.high;
    const uint32_t lows[4] = {ql.x, ql.y, ql.z, ql.w};
    const uint32_t his[4] = {bytes.bits.x, bytes.bits.y, bytes.bits.z, bytes.bits.w};
#pragma unroll
    for (int w = 0; w < 4; ++w)
        q[w] = ((lows[w] >> (4 * (k / 2))) & 0x0f0f0f0fu) | (((his[w] >> (2 * k)) & 0x03030303u) << 4);
}

// d times run k's int8 scale, as Block<Q6_K>::scale computes it.
template <int k>
__device__ __forceinline__ float q6k_run_scale(const Q6KLineBytes& bytes, int lane_in_block)
{
    // Byte s % 2 + 2k of the eight loaded: runs 0 and 1 in the first word, 2 and 3 in the second.
    const uint32_t word = k < 2 ? bytes.scales.x : bytes.scales.y;
    const uint32_t biased = ((word >> (8 * (lane_in_block % 2 + 2 * (k % 2)))) & 0xffu) ^ 0x80u;  // int8 + 128
    return __fmul_rn(quant::half_from_bits(bytes.d), quant::small_float(biased, 128));
}

} // namespace pyramid::cuda
