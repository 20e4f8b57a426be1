#pragma once
// IEEE half precision (fp16) and bfloat16 conversions. Decoding is exact; encoding rounds to
// nearest, ties to even, as ggml and PyTorch do, so converted files compare bit for bit.
#include <bit>
#include <cstddef>
#include <cstdint>

#include "util/half.h"

namespace pyramid {

// Inline and branch-free so callers' loops inline and vectorise it.
inline float fp16_to_fp32(uint16_t h)
{
    // With the half in the top 16 bits and the sign shifted out, its exponent and mantissa
    // sit 4 bits left of their float32 places.
    const uint32_t w = static_cast<uint32_t>(h) << 16;
    const uint32_t sign = w & 0x80000000u;
    const uint32_t two_w = w + w;
    // Normal, inf and NaN: rebias the exponent by 224 so 31 lands on 255 (inf/NaN), then
    // scale by 2^-112, which leaves the net +112 rebias a normal half needs. Exact.
    const float normal = std::bit_cast<float>((two_w >> 4) + (224u << 23)) * 0x1.0p-112f;
    // Zero and subnormal (exponent 0): the mantissa m is the fraction of 0.5 + m * 2^-24;
    // subtracting 0.5 leaves m * 2^-24 exactly.
    const float subnormal = std::bit_cast<float>((two_w >> 17) | (126u << 23)) - 0.5f;
    const uint32_t is_subnormal = 0u - static_cast<uint32_t>(two_w < (1u << 27));  // all ones or zero
    const uint32_t magnitude = (std::bit_cast<uint32_t>(subnormal) & is_subnormal) |
                               (std::bit_cast<uint32_t>(normal) & ~is_subnormal);
    return std::bit_cast<float>(sign | magnitude);
}

uint16_t fp32_to_fp16(float f);
// n floats as halves, each exactly as fp32_to_fp16 rounds it (with F16C where the CPU has it:
// the same bits, NaN included, in one instruction per eight).
void fp32_to_fp16_row(const float* src, uint16_t* dst, int64_t n);

inline float to_float(Half h) { return fp16_to_fp32(h.bits); }
inline Half to_half(float f) { return {fp32_to_fp16(f)}; }

// bfloat16 is the top half of a float32.
inline float bf16_to_fp32(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }
uint16_t fp32_to_bf16(float f);

// Whole runs, reading possibly unaligned little-endian source bytes.
void fp16_to_fp32_row(const void* src, float* dst, int64_t n);
void bf16_to_fp32_row(const void* src, float* dst, int64_t n);

} // namespace pyramid
