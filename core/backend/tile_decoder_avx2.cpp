// AVX2 decoders of every quantized and half-precision weight type, bit-identical to the
// scalar ones in model/tensor_type.cpp.
//
// Bit-exactness needs ggml's float32 operations in ggml's order: each weight is a product
// (d * q, or (d * sc) * q with the block scale computed first, as a scalar, exactly like the
// reference) optionally followed by one addition or subtraction. The pragma keeps the compiler
// from fusing those two steps into a multiply-add, which would round once instead of twice.
// Only the integer unpacking differs from the scalar code, and integers are exact.
//
// Every function carries the AVX2 target attribute instead of the whole file being compiled
// for AVX2: nothing here may run (or be merged into code that runs) on a CPU without it.
#include "backend/tile_decoder.h"

#include <cstring>

#include "util/float16.h"

#if defined(__x86_64__) || defined(__i386__)
#pragma GCC optimize("fp-contract=off")

#include "backend/avx2_blocks.h"

namespace pyramid::cpu {
namespace {

using namespace avx2;
using namespace block_layout;
using quant::k4_scale_min;
using quant::q3_k_scales;

// What happens to float(q) * d: nothing more, + m, or - m (one rounding each, as in ggml).
enum class Affine { Scale, Plus, Minus };

template <Affine A>
PYRAMID_AVX2 inline __m256 affine(__m256 q, __m256 d, __m256 m)
{
    const __m256 p = _mm256_mul_ps(q, d);
    if constexpr (A == Affine::Plus)
        return _mm256_add_ps(p, m);
    else if constexpr (A == Affine::Minus)
        return _mm256_sub_ps(p, m);
    else
        return p;
}

// The low eight signed bytes of v as floats.
PYRAMID_AVX2 inline __m256 i8_to_ps(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)); }

// dst[0..15] = affine(float(q[i])) for 16 signed bytes q.
template <Affine A>
PYRAMID_AVX2 inline void store16(__m128i q, float d, float m, float* dst)
{
    const __m256 vd = _mm256_set1_ps(d), vm = _mm256_set1_ps(m);
    _mm256_storeu_ps(dst, affine<A>(i8_to_ps(q), vd, vm));
    _mm256_storeu_ps(dst + 8, affine<A>(i8_to_ps(_mm_srli_si128(q, 8)), vd, vm));
}

// dst[0..31] = affine(float(q[i])) for 32 signed bytes q, one scale for all.
template <Affine A>
PYRAMID_AVX2 inline void store32(__m256i q, float d, float m, float* dst)
{
    store16<A>(_mm256_castsi256_si128(q), d, m, dst);
    store16<A>(_mm256_extracti128_si256(q, 1), d, m, dst + 16);
}

// --- simple block types (32 elements) ---------------------------------------------------

PYRAMID_AVX2 void q4_0_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q4_0::kBytes, dst += QK)
        store32<Affine::Scale>(_mm256_sub_epi8(nibbles32(b + Q4_0::kQs), bytes(8)), half_at(b + Q4_0::kD), 0.0f, dst);
}

PYRAMID_AVX2 void q4_1_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q4_1::kBytes, dst += QK)
        store32<Affine::Plus>(nibbles32(b + Q4_1::kQs), half_at(b + Q4_1::kD), half_at(b + Q4_1::kM), dst);
}

PYRAMID_AVX2 void q5_0_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q5_0::kBytes, dst += QK) {
        const __m256i q = _mm256_or_si256(nibbles32(b + Q5_0::kQs), fifth_bits(u32_at(b + Q5_0::kQh)));
        store32<Affine::Scale>(_mm256_sub_epi8(q, bytes(16)), half_at(b + Q5_0::kD), 0.0f, dst);
    }
}

PYRAMID_AVX2 void q5_1_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q5_1::kBytes, dst += QK) {
        const __m256i q = _mm256_or_si256(nibbles32(b + Q5_1::kQs), fifth_bits(u32_at(b + Q5_1::kQh)));
        store32<Affine::Plus>(q, half_at(b + Q5_1::kD), half_at(b + Q5_1::kM), dst);
    }
}

PYRAMID_AVX2 void q8_0_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q8_0::kBytes, dst += QK)
        store32<Affine::Scale>(load32(b + Q8_0::kQs), half_at(b + Q8_0::kD), 0.0f, dst);
}

// --- K-quants (256-element super-blocks) -------------------------------------------------

PYRAMID_AVX2 void q2_k_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK_K; ++i, b += Q2_K::kBytes) {
        const uint8_t* scales = b + Q2_K::kScales;
        const float d = half_at(b + Q2_K::kD);
        const float dmin = half_at(b + Q2_K::kDmin);
        // Each 32 bytes of q hold four 2-bit planes of 32 elements; each half of a plane (16
        // elements) has its own 4-bit scale and 4-bit min.
        for (int half = 0; half < 2; ++half) {
            const __m256i q = load32(b + Q2_K::kQs + 32 * half);
            for (int plane = 0; plane < 4; ++plane, dst += 32) {
                const __m256i v = _mm256_and_si256(_mm256_srli_epi16(q, 2 * plane), bytes(3));
                const int is = 8 * half + 2 * plane;
                store16<Affine::Minus>(_mm256_castsi256_si128(v), d * (scales[is] & 0x0f), dmin * (scales[is] >> 4),
                                       dst);
                store16<Affine::Minus>(_mm256_extracti128_si256(v, 1), d * (scales[is + 1] & 0x0f),
                                       dmin * (scales[is + 1] >> 4), dst + 16);
            }
        }
    }
}

PYRAMID_AVX2 void q3_k_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    int8_t scales[16];
    for (int64_t i = 0; i < n / QK_K; ++i, b += Q3_K::kBytes) {
        const __m256i hmask = load32(b + Q3_K::kHmask);
        q3_k_scales(b + Q3_K::kScales, scales);
        const float d = half_at(b + Q3_K::kD);
        // As Q2_K, plus a high bit per element from hmask (bit 4*half + plane): when it is
        // clear the value drops by 4.
        for (int half = 0; half < 2; ++half) {
            const __m256i q = load32(b + Q3_K::kQs + 32 * half);
            for (int plane = 0; plane < 4; ++plane, dst += 32) {
                const __m256i low = _mm256_and_si256(_mm256_srli_epi16(q, 2 * plane), bytes(3));
                const __m256i high_clear =
                    _mm256_cmpeq_epi8(_mm256_and_si256(hmask, bytes(1 << (4 * half + plane))), _mm256_setzero_si256());
                const __m256i v = _mm256_sub_epi8(low, _mm256_and_si256(high_clear, bytes(4)));
                const int is = 8 * half + 2 * plane;
                store16<Affine::Scale>(_mm256_castsi256_si128(v), d * scales[is], 0.0f, dst);
                store16<Affine::Scale>(_mm256_extracti128_si256(v, 1), d * scales[is + 1], 0.0f, dst + 16);
            }
        }
    }
}

PYRAMID_AVX2 void q4_k_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK_K; ++i, b += Q4_K::kBytes) {
        const float d = half_at(b + Q4_K::kD);
        const float dmin = half_at(b + Q4_K::kDmin);
        // Each 32 bytes of q: low nibbles are 32 elements with scale 2j, high nibbles the next
        // 32 with scale 2j+1.
        for (int j = 0; j < 4; ++j, dst += 64) {
            const __m256i q = load32(b + Q4_K::kQs + 32 * j);
            uint8_t sc, m;
            k4_scale_min(2 * j, b + Q4_K::kScales, sc, m);
            store32<Affine::Minus>(_mm256_and_si256(q, bytes(0x0f)), d * sc, dmin * m, dst);
            k4_scale_min(2 * j + 1, b + Q4_K::kScales, sc, m);
            store32<Affine::Minus>(_mm256_and_si256(_mm256_srli_epi16(q, 4), bytes(0x0f)), d * sc, dmin * m, dst + 32);
        }
    }
}

PYRAMID_AVX2 void q5_k_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK_K; ++i, b += Q5_K::kBytes) {
        const float d = half_at(b + Q5_K::kD);
        const float dmin = half_at(b + Q5_K::kDmin);
        const __m256i qh = load32(b + Q5_K::kQh);
        // As Q4_K, with the fifth bit of element l of group pair j in bits 2j and 2j+1 of qh[l].
        for (int j = 0; j < 4; ++j, dst += 64) {
            const __m256i q = load32(b + Q5_K::kQs + 32 * j);
            const __m256i h1 = where_bits(qh, bytes(1 << (2 * j)), 16);
            const __m256i h2 = where_bits(qh, bytes(2 << (2 * j)), 16);
            uint8_t sc, m;
            k4_scale_min(2 * j, b + Q5_K::kScales, sc, m);
            store32<Affine::Minus>(_mm256_or_si256(_mm256_and_si256(q, bytes(0x0f)), h1), d * sc, dmin * m, dst);
            k4_scale_min(2 * j + 1, b + Q5_K::kScales, sc, m);
            store32<Affine::Minus>(_mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), bytes(0x0f)), h2),
                                   d * sc, dmin * m, dst + 32);
        }
    }
}

PYRAMID_AVX2 void q6_k_avx2(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    float ds[16];
    for (int64_t i = 0; i < n / QK_K; ++i, b += Q6_K::kBytes) {
        const auto* sc = reinterpret_cast<const int8_t*>(b + Q6_K::kScales);
        const float d = half_at(b + Q6_K::kD);
        for (int j = 0; j < 16; ++j)  // (d * sc) * q, as ggml groups it
            ds[j] = d * sc[j];
        // Each half holds 128 outputs; output o of the half uses scale o / 16.
        for (int half = 0; half < 2; ++half, dst += 128) {
            __m256i q[4];
            unpack_q6_k_half(b, half, q);
            const float* s = ds + 8 * half;
            for (int k = 0; k < 4; ++k) {
                const __m256i v = _mm256_sub_epi8(q[k], bytes(32));
                store16<Affine::Scale>(_mm256_castsi256_si128(v), s[2 * k], 0.0f, dst + 32 * k);
                store16<Affine::Scale>(_mm256_extracti128_si256(v, 1), s[2 * k + 1], 0.0f, dst + 32 * k + 16);
            }
        }
    }
}

// --- half-precision types ---------------------------------------------------------------

PYRAMID_AVX2 void f16_avx2(const void* src, float* dst, int64_t n)
{
    const auto* p = static_cast<const uint8_t*>(src);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i))));
    fp16_to_fp32_row(p + 2 * i, dst + i, n - i);
}

PYRAMID_AVX2 void bf16_avx2(const void* src, float* dst, int64_t n)
{
    const auto* p = static_cast<const uint8_t*>(src);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i)));
        _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16)));
    }
    bf16_to_fp32_row(p + 2 * i, dst + i, n - i);
}

} // namespace

TileDecoder detail::avx2_tile_decoder(TensorType type)
{
    switch (type) {
    case TensorType::F16: return f16_avx2;
    case TensorType::BF16: return bf16_avx2;
    case TensorType::Q4_0: return q4_0_avx2;
    case TensorType::Q4_1: return q4_1_avx2;
    case TensorType::Q5_0: return q5_0_avx2;
    case TensorType::Q5_1: return q5_1_avx2;
    case TensorType::Q8_0: return q8_0_avx2;
    case TensorType::Q2_K: return q2_k_avx2;
    case TensorType::Q3_K: return q3_k_avx2;
    case TensorType::Q4_K: return q4_k_avx2;
    case TensorType::Q5_K: return q5_k_avx2;
    case TensorType::Q6_K: return q6_k_avx2;
    case TensorType::F32: return nullptr;
    }
    return nullptr;
}

} // namespace pyramid::cpu

#else // not x86: no SIMD decoders

namespace pyramid::cpu {
TileDecoder detail::avx2_tile_decoder(TensorType) { return nullptr; }
} // namespace pyramid::cpu

#endif
