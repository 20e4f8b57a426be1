// AVX2 integer dot products of quantized weights with int8 activations. Per block of 32: the
// weights are unpacked to bytes, multiplied with the activation bytes and summed in pairs
// (maddubs: unsigned x signed bytes into int16), summed again in int32 (madd, which also
// applies the 16-element scales of Q2_K, Q3_K and Q6_K), converted to float once and scaled by the block's
// weight scale times its activation scale.
//
// Q4_0, Q5_0 and Q8_0 are signed: they use |w| and sign(x, w), since maddubs wants its first
// operand unsigned; Q4_1 and Q5_1 add their minimum times the block's activation sum. The K-quants stay unsigned (q, not q - offset); what each weight would subtract
// (Q2_K/Q4_K/Q5_K's group minimum, Q3_K's 4 * scale, Q6_K's 32 * scale) meets the
// activations' integer sums per 16 values once per super-block instead.
//
// Bounds: |q| <= 128 and |x| <= 127 keep each maddubs pair sum within int16 (Q6_K's
// 2 * 63 * 127 = 16002 is the largest unsigned one), and a block's int32 sum stays below 2^24,
// so its conversion to float is exact.
//
// Every function carries the AVX2 target attribute instead of the whole file being compiled
// for AVX2: nothing here may run (or be merged into code that runs) on a CPU without it.
#include "backend/int8_matmul.h"

#include <algorithm>
#include <cstring>

#include "util/float16.h"

namespace pyramid::cpu {

bool int8_matmul_supported(TensorType type)
{
    switch (type) {
    case TensorType::Q4_0:
    case TensorType::Q4_1:
    case TensorType::Q5_0:
    case TensorType::Q5_1:
    case TensorType::Q8_0:
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
    case TensorType::Q2_K:
    case TensorType::Q3_K: return true;
    default: return false;
    }
}

} // namespace pyramid::cpu

#if defined(__x86_64__) || defined(__i386__)
#include "backend/avx2_blocks.h"

namespace pyramid::cpu {
namespace {

using namespace avx2;

constexpr int kMaxTokens = 4;  // tokens per pass over a row: more would run out of registers

// The activations of the tokens one pass handles.
struct Tokens {
    const int8_t* q[kMaxTokens];
    const float* scale[kMaxTokens];
    const int16_t* group_sum[kMaxTokens];
};

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

// --- 32-element block types: block b of the row meets activation block b ----------------

// Q8_0 block: f16 d | i8 q[32]
template <int T>
PYRAMID_AVX2 inline void q8_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    const float d = half_at(blk);
    const __m256i w = load32(blk + 2);
    const __m256i w_abs = _mm256_abs_epi8(w);
    for (int t = 0; t < T; ++t)
        add_scaled(acc[t], dot_signed(w, w_abs, x.q[t] + 32 * b), d * x.scale[t][b]);
}

// The 32 4-bit values of 16 quant bytes as bytes in element order: low nibbles are elements
// 0..15, high nibbles 16..31 (Q4_0, Q4_1, Q5_0, Q5_1).
PYRAMID_AVX2 inline __m256i nibbles32(const uint8_t* qs)
{
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
    const __m128i low = _mm_and_si128(packed, _mm_set1_epi8(0x0f));
    const __m128i high = _mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(0x0f));
    return _mm256_set_m128i(high, low);
}

// Byte j = 16 where bit j of the 32-bit qh at p is set, else 0: the fifth bits of Q5_0/Q5_1.
PYRAMID_AVX2 inline __m256i fifth_bits(const uint8_t* p)
{
    uint32_t qh;
    std::memcpy(&qh, p, 4);
    // Bytes 8k..8k+7 take byte k of qh (the shuffle indexes within each 128-bit half, and
    // each half holds qh four times), then each keeps its own bit.
    const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(qh)),
                                               _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202,
                                                                 0x0101010101010101, 0));
    const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
    return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit), bytes(16));
}

// Q4_0 block: f16 d | u8 qs[16], value q - 8
template <int T>
PYRAMID_AVX2 inline void q4_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    const float d = half_at(blk);
    const __m256i w = _mm256_sub_epi8(nibbles32(blk + 2), bytes(8));
    const __m256i w_abs = _mm256_abs_epi8(w);
    for (int t = 0; t < T; ++t)
        add_scaled(acc[t], dot_signed(w, w_abs, x.q[t] + 32 * b), d * x.scale[t][b]);
}

// Q5_0 block: f16 d | u32 qh | u8 qs[16], value (q | fifth bit << 4) - 16
template <int T>
PYRAMID_AVX2 inline void q5_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    const float d = half_at(blk);
    const __m256i w = _mm256_sub_epi8(_mm256_or_si256(nibbles32(blk + 6), fifth_bits(blk + 2)), bytes(16));
    const __m256i w_abs = _mm256_abs_epi8(w);
    for (int t = 0; t < T; ++t)
        add_scaled(acc[t], dot_signed(w, w_abs, x.q[t] + 32 * b), d * x.scale[t][b]);
}

template <int T, size_t BlockBytes, void (*Block)(const uint8_t*, int64_t, const Tokens&, __m256*)>
PYRAMID_AVX2 void simple_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    const int64_t blocks = cols / 32;
    int64_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        Block(row + b * BlockBytes, b, x, acc.even);
        Block(row + (b + 1) * BlockBytes, b + 1, x, acc.odd);
    }
    if (b < blocks)
        Block(row + b * BlockBytes, b, x, acc.even);
    finish(acc, out);
}

// Q4_1 (f16 d | f16 m | u8 qs[16]) and Q5_1 (f16 d | f16 m | u32 qh | u8 qs[16]) rows: value
// d * q + m, q unsigned. The m terms, m times each block's rounded activation sum, are taken
// eight blocks at a time from the activations' per-16 sums.
template <int T, bool with_fifth_bit>
PYRAMID_AVX2 void min_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    constexpr size_t kBytes = with_fifth_bit ? 24 : 20;
    Accumulators<T> acc;
    clear(acc);
    float tail[T] = {};  // m terms of a last run of fewer than eight blocks
    const __m256i ones = _mm256_set1_epi16(1);
    const int64_t blocks = cols / 32;
    for (int64_t b0 = 0; b0 < blocks; b0 += 8) {
        const int count = static_cast<int>(std::min<int64_t>(8, blocks - b0));
        alignas(32) float mins[8];
        for (int i = 0; i < count; ++i) {
            const int64_t b = b0 + i;
            const uint8_t* blk = row + b * kBytes;
            const float d = half_at(blk);
            mins[i] = half_at(blk + 2);
            const __m256i w =
                with_fifth_bit ? _mm256_or_si256(nibbles32(blk + 8), fifth_bits(blk + 4)) : nibbles32(blk + 4);
            for (int t = 0; t < T; ++t)
                add_scaled(i % 2 ? acc.odd[t] : acc.even[t], dot_unsigned(w, x.q[t] + 32 * b, ones), d * x.scale[t][b]);
        }
        for (int t = 0; t < T; ++t) {
            const int16_t* sums = x.group_sum[t] + 2 * b0;
            if (count == 8) {
                const __m256i block_sums = _mm256_madd_epi16(load32(sums), ones);
                const __m256 factors = _mm256_mul_ps(_mm256_load_ps(mins), _mm256_loadu_ps(x.scale[t] + b0));
                acc.even[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(block_sums), factors, acc.even[t]);
            } else {
                for (int i = 0; i < count; ++i)
                    tail[t] += mins[i] * x.scale[t][b0 + i] * static_cast<float>(sums[2 * i] + sums[2 * i + 1]);
            }
        }
    }
    finish(acc, out);
    for (int t = 0; t < T; ++t)
        out[t] += tail[t];
}

// --- K-quants: super-block s of 256 meets activation blocks 8s .. 8s+7 ------------------

// The eight 6-bit scales and mins of a Q4_K/Q5_K block from their 12 packed bytes, as int16:
// scale j in lane j of `scales`; min j in lanes 2j and 2j+1 of `mins`, once per 16 activations.
// Bytes 0-3 hold scales 0-3 and bytes 4-7 mins 0-3 in their low 6 bits; bytes 8-11 hold the
// low 4 bits of scales 4-7 (low nibble) and mins 4-7 (high nibble), whose top 2 bits are the
// top bits of bytes 0-3 (scales) and 4-7 (mins).
PYRAMID_AVX2 inline void k4_scales_mins(const uint8_t* packed, __m128i& scales, __m256i& mins)
{
    uint32_t w[3];
    std::memcpy(w, packed, 12);
    constexpr uint32_t low6 = 0x3f3f3f3f, low4 = 0x0f0f0f0f, top2 = 0x03030303;
    const uint32_t scales_high = (w[2] & low4) | (((w[0] >> 6) & top2) << 4);
    const uint32_t mins_high = ((w[2] >> 4) & low4) | (((w[1] >> 6) & top2) << 4);
    const __m128i s8 = _mm_cvtsi64_si128(static_cast<int64_t>((w[0] & low6) | uint64_t(scales_high) << 32));
    const __m128i m8 = _mm_cvtsi64_si128(static_cast<int64_t>((w[1] & low6) | uint64_t(mins_high) << 32));
    scales = _mm_cvtepu8_epi16(s8);
    mins = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(m8, m8));
}

// Of each token, the factors of super-block s's eight activation blocks: `weight_scales`
// (one per block) times the activations' scales.
template <int T>
struct BlockFactors {
    alignas(32) float of[T][8];
};

template <int T>
PYRAMID_AVX2 inline void block_factors(__m256 weight_scales, const Tokens& x, int64_t s, BlockFactors<T>& f)
{
    for (int t = 0; t < T; ++t)
        _mm256_store_ps(f.of[t], _mm256_mul_ps(weight_scales, _mm256_loadu_ps(x.scale[t] + 8 * s)));
}

// acc[t] -= (per block of super-block s: the sum of weights16 times the activations' sums per
// 16) * factor * (the block's activation scale): what every weight of a K-quant subtracts,
// applied to the activations' block sums.
template <int T>
PYRAMID_AVX2 inline void subtract_group_terms(__m256i weights16, float factor, const Tokens& x, int64_t s, __m256* acc)
{
    for (int t = 0; t < T; ++t) {
        const __m256i per_block = _mm256_madd_epi16(weights16, load32(x.group_sum[t] + 16 * s));
        const __m256 scales = _mm256_mul_ps(_mm256_set1_ps(factor), _mm256_loadu_ps(x.scale[t] + 8 * s));
        acc[t] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(per_block), scales, acc[t]);
    }
}

// Q4_K (with_fifth_bit false) and Q5_K: w = (d * sc_j) * q - (dmin * m_j) for the 32 elements
// of group j (activation block 8s + j), q unsigned (4 or 5 bits).
template <int T, bool with_fifth_bit>
PYRAMID_AVX2 void k4_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    constexpr size_t kBytes = with_fifth_bit ? 176 : 144;
    Accumulators<T> acc;
    clear(acc);
    const __m256i ones = _mm256_set1_epi16(1);
    for (int64_t s = 0; s < cols / 256; ++s) {
        const uint8_t* blk = row + s * kBytes;
        __m128i scales;
        __m256i mins;
        k4_scales_mins(blk + 4, scales, mins);
        BlockFactors<T> f;
        block_factors(_mm256_mul_ps(_mm256_set1_ps(half_at(blk)), _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(scales))), x,
                      s, f);
        const uint8_t* qs = blk + (with_fifth_bit ? 48 : 16);
        const __m256i qh = with_fifth_bit ? load32(blk + 16) : _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j) {
            const __m256i q = load32(qs + 32 * j);
            __m256i low = _mm256_and_si256(q, bytes(0x0f));
            __m256i high = _mm256_and_si256(_mm256_srli_epi16(q, 4), bytes(0x0f));
            if constexpr (with_fifth_bit) {
                const __m256i u1 = bytes(1 << (2 * j)), u2 = bytes(2 << (2 * j));
                low = _mm256_or_si256(low, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u1), u1), bytes(16)));
                high = _mm256_or_si256(high, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u2), u2), bytes(16)));
            }
            for (int t = 0; t < T; ++t) {
                const int8_t* xq = x.q[t] + 256 * s + 64 * j;
                add_scaled(acc.even[t], dot_unsigned(low, xq, ones), f.of[t][2 * j]);
                add_scaled(acc.odd[t], dot_unsigned(high, xq + 32, ones), f.of[t][2 * j + 1]);
            }
        }
        subtract_group_terms<T>(mins, half_at(blk + 2), x, s, acc.even);
    }
    finish(acc, out);
}

// Q6_K: w = d * sc * (q - 32), q 6 bits, one int8 scale per 16 elements (unpack_q6_k_half):
// output o of half h is element 128h + o, so each of the four 32-byte q vectors of a half is
// one activation block with two scales.
template <int T>
PYRAMID_AVX2 void q6_k_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    for (int64_t s = 0; s < cols / 256; ++s) {
        const uint8_t* blk = row + s * 210;
        const auto* sc = reinterpret_cast<const int8_t*>(blk + 192);
        const float d = half_at(blk + 208);
        BlockFactors<T> f;
        block_factors(_mm256_set1_ps(d), x, s, f);
        for (int half = 0; half < 2; ++half) {
            __m256i q[4];
            unpack_q6_k_half(blk, half, q);
            for (int k = 0; k < 4; ++k) {
                const int8_t* g = sc + 8 * half + 2 * k;  // scales of the block's two halves
                const __m256i scales = _mm256_set_m128i(_mm_set1_epi16(g[1]), _mm_set1_epi16(g[0]));
                const int b = 4 * half + k;  // activation block 8s + b
                for (int t = 0; t < T; ++t)
                    add_scaled(k % 2 ? acc.odd[t] : acc.even[t], dot_unsigned(q[k], x.q[t] + 256 * s + 32 * b, scales),
                               f.of[t][b]);
            }
        }
        subtract_group_terms<T>(_mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sc))), 32.0f * d,
                                x, s, acc.odd);
    }
    finish(acc, out);
}

// Q2_K and Q3_K share the element order: plane p (bits 2p) of quant half h (32 bytes) holds
// elements 128h + 32p + 0..31, activation block 4h + p of the super-block, with scales
// 8h + 2p and 8h + 2p + 1 (one per 16 elements).
PYRAMID_AVX2 inline __m256i plane(__m256i q, int p)
{
    return _mm256_and_si256(_mm256_srli_epi16(q, 2 * p), bytes(3));
}

// The int16 pair scales of activation block b: scale 2b for its first 16 elements, 2b + 1 for the rest.
PYRAMID_AVX2 inline __m256i pair_scales(const int16_t* scales, int b)
{
    return _mm256_set_m128i(_mm_set1_epi16(scales[2 * b + 1]), _mm_set1_epi16(scales[2 * b]));
}

// Q2_K: w = (d * sc_g) * q - (dmin * m_g), q 2 bits, 4-bit scale (low nibble) and min (high
// nibble) per group g of 16 elements.
template <int T>
PYRAMID_AVX2 void q2_k_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    for (int64_t s = 0; s < cols / 256; ++s) {
        const uint8_t* blk = row + s * 84;
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk));
        const __m128i low4 = _mm_set1_epi8(0x0f);
        alignas(32) int16_t scales[16];
        _mm256_store_si256(reinterpret_cast<__m256i*>(scales), _mm256_cvtepu8_epi16(_mm_and_si128(packed, low4)));
        const __m256i mins = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), low4));
        BlockFactors<T> f;
        block_factors(_mm256_set1_ps(half_at(blk + 80)), x, s, f);
        for (int h = 0; h < 2; ++h) {
            const __m256i q = load32(blk + 16 + 32 * h);
            for (int p = 0; p < 4; ++p) {
                const int b = 4 * h + p;
                const __m256i w = plane(q, p);
                const __m256i sc = pair_scales(scales, b);
                for (int t = 0; t < T; ++t)
                    add_scaled(p % 2 ? acc.odd[t] : acc.even[t], dot_unsigned(w, x.q[t] + 256 * s + 32 * b, sc),
                               f.of[t][b]);
            }
        }
        subtract_group_terms<T>(mins, half_at(blk + 82), x, s, acc.odd);
    }
    finish(acc, out);
}

// The 16 scales of Q3_K as int16 (6 bits minus 32), from their 12 packed bytes: the low 4
// bits of scales 0-7 are the low nibbles of bytes 0-7 and those of 8-15 the high nibbles; the
// top 2 bits of scale s are bits 2(s / 4) of byte 8 + s % 4.
PYRAMID_AVX2 inline __m256i q3_k_scales(const uint8_t* packed)
{
    uint32_t a[3];
    std::memcpy(a, packed, 12);
    constexpr uint32_t low4 = 0x0f0f0f0f, top2 = 0x03030303;
    const __m128i unsigned_scales = _mm_set_epi32(
        static_cast<int>(((a[1] >> 4) & low4) | (((a[2] >> 6) & top2) << 4)),
        static_cast<int>(((a[0] >> 4) & low4) | (((a[2] >> 4) & top2) << 4)),
        static_cast<int>((a[1] & low4) | (((a[2] >> 2) & top2) << 4)), static_cast<int>((a[0] & low4) | ((a[2] & top2) << 4)));
    return _mm256_sub_epi16(_mm256_cvtepu8_epi16(unsigned_scales), _mm256_set1_epi16(32));
}

// Q3_K: w = (d * sc_g) * (u - 4), u = q + 4 * (the element's bit of hmask), 0..7; the -4
// meets the activations' sums like Q6_K's -32. Bit 4h + p of hmask byte l belongs to element
// l of plane p of half h.
template <int T>
PYRAMID_AVX2 void q3_k_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    for (int64_t s = 0; s < cols / 256; ++s) {
        const uint8_t* blk = row + s * 110;
        const __m256i scales16 = q3_k_scales(blk + 96);
        alignas(32) int16_t scales[16];
        _mm256_store_si256(reinterpret_cast<__m256i*>(scales), scales16);
        const float d = half_at(blk + 108);
        BlockFactors<T> f;
        block_factors(_mm256_set1_ps(d), x, s, f);
        const __m256i hmask = load32(blk);
        for (int h = 0; h < 2; ++h) {
            const __m256i q = load32(blk + 32 + 32 * h);
            for (int p = 0; p < 4; ++p) {
                const int b = 4 * h + p;
                const __m256i bit = bytes(1 << b);
                const __m256i high = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(hmask, bit), bit), bytes(4));
                const __m256i w = _mm256_or_si256(plane(q, p), high);
                const __m256i sc = pair_scales(scales, b);
                for (int t = 0; t < T; ++t)
                    add_scaled(p % 2 ? acc.odd[t] : acc.even[t], dot_unsigned(w, x.q[t] + 256 * s + 32 * b, sc),
                               f.of[t][b]);
            }
        }
        subtract_group_terms<T>(scales16, 4.0f * d, x, s, acc.odd);
    }
    finish(acc, out);
}

using RowDot = void (*)(const uint8_t* row, int64_t cols, const Tokens& x, float* out);

// The kernel of `type` for 1..4 tokens at a time.
struct RowKernels {
    RowDot for_tokens[kMaxTokens];
};

RowKernels kernels_for(TensorType type)
{
    switch (type) {
    case TensorType::Q8_0:
        return {{simple_row<1, 34, q8_0_block<1>>, simple_row<2, 34, q8_0_block<2>>,
                 simple_row<3, 34, q8_0_block<3>>, simple_row<4, 34, q8_0_block<4>>}};
    case TensorType::Q4_0:
        return {{simple_row<1, 18, q4_0_block<1>>, simple_row<2, 18, q4_0_block<2>>,
                 simple_row<3, 18, q4_0_block<3>>, simple_row<4, 18, q4_0_block<4>>}};
    case TensorType::Q4_K: return {{k4_row<1, false>, k4_row<2, false>, k4_row<3, false>, k4_row<4, false>}};
    case TensorType::Q5_K: return {{k4_row<1, true>, k4_row<2, true>, k4_row<3, true>, k4_row<4, true>}};
    case TensorType::Q6_K: return {{q6_k_row<1>, q6_k_row<2>, q6_k_row<3>, q6_k_row<4>}};
    case TensorType::Q5_0:
        return {{simple_row<1, 22, q5_0_block<1>>, simple_row<2, 22, q5_0_block<2>>,
                 simple_row<3, 22, q5_0_block<3>>, simple_row<4, 22, q5_0_block<4>>}};
    case TensorType::Q4_1:
        return {{min_row<1, false>, min_row<2, false>, min_row<3, false>, min_row<4, false>}};
    case TensorType::Q5_1:
        return {{min_row<1, true>, min_row<2, true>, min_row<3, true>, min_row<4, true>}};
    case TensorType::Q2_K: return {{q2_k_row<1>, q2_k_row<2>, q2_k_row<3>, q2_k_row<4>}};
    case TensorType::Q3_K: return {{q3_k_row<1>, q3_k_row<2>, q3_k_row<3>, q3_k_row<4>}};
    default: return {};
    }
}

} // namespace

void matmul_rows_int8(const WeightView& w, const Int8Activations& a, int token_begin, int token_end, float* y,
                      int64_t row_begin, int64_t row_end)
{
    const RowKernels kernels = kernels_for(w.type);
    const size_t row_bytes = w.row_bytes();
    float out[kMaxTokens];
    for (int64_t r = row_begin; r < row_end; ++r) {
        const auto* row = reinterpret_cast<const uint8_t*>(w.data) + static_cast<size_t>(r) * row_bytes;
        for (int t0 = token_begin; t0 < token_end; t0 += kMaxTokens) {
            const int count = std::min(kMaxTokens, token_end - t0);
            Tokens x;
            for (int t = 0; t < count; ++t) {
                x.q[t] = a.q_row(t0 + t);
                x.scale[t] = a.scale_row(t0 + t);
                x.group_sum[t] = a.group_sum_row(t0 + t);
            }
            kernels.for_tokens[count - 1](row, w.cols, x, out);
            for (int t = 0; t < count; ++t)
                y[static_cast<int64_t>(t0 + t) * w.rows + r] = out[t];
        }
    }
}

} // namespace pyramid::cpu

#else // not x86: no AVX2, so QuantizedDot::Int8 is never chosen

#include "util/error.h"

namespace pyramid::cpu {
void matmul_rows_int8(const WeightView&, const Int8Activations&, int, int, float*, int64_t, int64_t)
{
    throw Error("the int8 matmul kernels need an x86-64 CPU with AVX2");
}
} // namespace pyramid::cpu

#endif
