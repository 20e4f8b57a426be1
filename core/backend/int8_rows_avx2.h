#pragma once
// What the AVX2 int8 row kernels share (x86 only; include inside an x86 guard): the tokens a
// pass over a weight row handles, the integer dot of 32 weight bytes with 32 activation bytes,
// float accumulators, and the table of a type's row kernels. The kernels themselves are in
// int8_block32_rows_avx2.cpp (the 32-element types) and int8_kquant_rows_avx2.cpp; the
// scheme and its bounds are described in int8_matmul_avx2.cpp.
//
// Every function carries the AVX2 target attribute instead of the whole file being compiled
// for AVX2: nothing here may run (or be merged into code that runs) on a CPU without it.
#include <cstdint>
#include <cstring>

#include "backend/avx2_blocks.h"
#include "model/tensor_type.h"

namespace pyramid::cpu::int8_avx2 {

using namespace avx2;

constexpr int kMaxTokens = 4;  // tokens per pass over a row: more would run out of registers

// The activations of the tokens one pass handles.
struct Tokens {
    const int8_t* q[kMaxTokens];
    const float* scale[kMaxTokens];
    const int16_t* group_sum[kMaxTokens];
};

// The eight 6-bit scales and mins of a Q4_K/Q5_K block from their 12 packed bytes, byte j of
// `scales` and `mins` for group j. Bytes 0-3 hold scales 0-3 and bytes 4-7 mins 0-3 in their
// low 6 bits; bytes 8-11 hold the low 4 bits of scales 4-7 (low nibble) and mins 4-7 (high
// nibble), whose top 2 bits are the top bits of bytes 0-3 (scales) and 4-7 (mins).
inline void k4_scale_min_bytes(const uint8_t* packed, uint64_t& scales, uint64_t& mins)
{
    uint32_t w[3];
    std::memcpy(w, packed, 12);
    constexpr uint32_t low6 = 0x3f3f3f3f, low4 = 0x0f0f0f0f, top2 = 0x03030303;
    const uint32_t scales_high = (w[2] & low4) | (((w[0] >> 6) & top2) << 4);
    const uint32_t mins_high = ((w[2] >> 4) & low4) | (((w[1] >> 6) & top2) << 4);
    scales = (w[0] & low6) | uint64_t(scales_high) << 32;
    mins = (w[1] & low6) | uint64_t(mins_high) << 32;
}

// Q4_K and Q5_K: 32 bytes of quants (q, bytes 32j..32j+31) hold groups 2j (low nibbles) and
// 2j + 1 (high nibbles), as unsigned bytes in `low` and `high`. Q5_K's fifth bits come from qh:
// bits 2j and 2j + 1 of its byte l are those of element l of the two groups, so the caller
// shifts qh down two bits per j and they are always bits 0 and 1 here. (16-bit shifts carry
// bits between the two bytes of a lane, but the mask keeps only bit 4 of each byte, which came
// from that same byte.)
template <bool with_fifth_bit>
PYRAMID_AVX2 inline void k4_group_pair(__m256i q, __m256i qh, __m256i& low, __m256i& high)
{
    low = _mm256_and_si256(q, bytes(0x0f));
    high = _mm256_and_si256(_mm256_srli_epi16(q, 4), bytes(0x0f));
    if constexpr (with_fifth_bit) {
        low = _mm256_or_si256(low, _mm256_and_si256(_mm256_slli_epi16(qh, 4), bytes(16)));
        high = _mm256_or_si256(high, _mm256_and_si256(_mm256_slli_epi16(qh, 3), bytes(16)));
    }
}

// Q2_K and Q3_K share the element order: plane p (bits 2p) of quant half h (32 bytes) holds
// elements 128h + 32p + 0..31, activation block 4h + p of the super-block, with scales
// 8h + 2p and 8h + 2p + 1 (one per 16 elements).
PYRAMID_AVX2 inline __m256i plane(__m256i q, int p)
{
    return _mm256_and_si256(_mm256_srli_epi16(q, 2 * p), bytes(3));
}

// The 16 scales of Q3_K as int16 (6 bits minus 32), from their 12 packed bytes: the low 4
// bits of scales 0-7 are the low nibbles of bytes 0-7 and those of 8-15 the high nibbles; the
// top 2 bits of scale s are bits 2(s / 4) of byte 8 + s % 4.
PYRAMID_AVX2 inline __m256i q3_k_scales(const uint8_t* packed)
{
    uint32_t a[3];
    std::memcpy(a, packed, 12);
    constexpr uint32_t low4 = 0x0f0f0f0f, top2 = 0x03030303;
    const __m128i unsigned_scales = _mm_set_epi32(static_cast<int>(((a[1] >> 4) & low4) | (((a[2] >> 6) & top2) << 4)),
                                                  static_cast<int>(((a[0] >> 4) & low4) | (((a[2] >> 4) & top2) << 4)),
                                                  static_cast<int>((a[1] & low4) | (((a[2] >> 2) & top2) << 4)),
                                                  static_cast<int>((a[0] & low4) | ((a[2] & top2) << 4)));
    return _mm256_sub_epi16(_mm256_cvtepu8_epi16(unsigned_scales), _mm256_set1_epi16(32));
}

// Eight int32 partial sums of 32 byte products, weights unsigned (0..63), each int16 pair
// sum multiplied by `weights16` (the weights' integer scales).
PYRAMID_AVX2 inline __m256i dot_unsigned(__m256i w, const int8_t* x, __m256i weights16)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(w, load32(x)), weights16);
}

// The same for signed weights, |w| given, every pair sum taken once.
PYRAMID_AVX2 inline __m256i dot_signed(__m256i w, __m256i w_abs, const int8_t* x)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(w_abs, _mm256_sign_epi8(load32(x), w)), _mm256_set1_epi16(1));
}

PYRAMID_AVX2 inline void add_scaled(__m256& acc, __m256i sums, float scale)
{
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), _mm256_set1_ps(scale), acc);
}

PYRAMID_AVX2 inline float horizontal_sum(__m256 s)
{
    __m128 v = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    v = _mm_add_ps(v, _mm_movehl_ps(v, v));
    v = _mm_add_ss(v, _mm_movehdup_ps(v));
    return _mm_cvtss_f32(v);
}

// Two accumulators per token, for alternate blocks, so one block's multiply-add need not
// wait for the previous one.
template <int T>
struct Accumulators {
    __m256 even[T], odd[T];
};

template <int T>
PYRAMID_AVX2 inline void finish(Accumulators<T>& acc, float* out)
{
    for (int t = 0; t < T; ++t)
        out[t] = horizontal_sum(_mm256_add_ps(acc.even[t], acc.odd[t]));
}

template <int T>
PYRAMID_AVX2 inline void clear(Accumulators<T>& acc)
{
    for (int t = 0; t < T; ++t)
        acc.even[t] = acc.odd[t] = _mm256_setzero_ps();
}

// out[t] = the dot of one weight row (cols elements) with token t's activations, t < T.
using RowDot = void (*)(const uint8_t* row, int64_t cols, const Tokens& x, float* out);

// The kernels of one type for 1..kMaxTokens tokens at a time (null where the type has none).
struct RowKernels {
    RowDot for_tokens[kMaxTokens];
};

// Q4_0, Q4_1, Q5_0, Q5_1, Q8_0.
RowKernels block32_row_kernels(TensorType type);
// Q2_K, Q3_K, Q4_K, Q5_K, Q6_K.
RowKernels kquant_row_kernels(TensorType type);

} // namespace pyramid::cpu::int8_avx2
