// The AVX2 int8 row kernels of the K-quants: super-block s of a row (256 elements) meets
// activation blocks 8s .. 8s+7. The weights stay unsigned (q, not q - offset); what each
// weight would subtract (Q2_K/Q4_K/Q5_K's group minimum, Q3_K's 4 * scale, Q6_K's 32 * scale)
// meets the activations' integer sums per 16 values once per super-block instead. madd
// applies the 16-element scales of Q2_K, Q3_K and Q6_K to the pair sums.
//
// Every function carries the AVX2 target attribute instead of the whole file being compiled
// for AVX2: nothing here may run (or be merged into code that runs) on a CPU without it.
#if defined(__x86_64__) || defined(__i386__)
#include "backend/int8_rows_avx2.h"

#include <cstring>
#include <type_traits>

namespace pyramid::cpu::int8_avx2 {
namespace {

using namespace block_layout;

// The eight scales and mins of a Q4_K/Q5_K block as int16 (k4_scale_min_bytes): scale j in
// lane j of `scales`; min j in lanes 2j and 2j+1 of `mins`, once per 16 activations.
PYRAMID_AVX2 inline void k4_scales_mins(const uint8_t* packed, __m128i& scales, __m256i& mins)
{
    uint64_t scale_bytes, min_bytes;
    k4_scale_min_bytes(packed, scale_bytes, min_bytes);
    const __m128i m8 = _mm_cvtsi64_si128(static_cast<int64_t>(min_bytes));
    scales = _mm_cvtepu8_epi16(_mm_cvtsi64_si128(static_cast<int64_t>(scale_bytes)));
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

// Adds activation block 8s + b's products with the 32 weights w (each pair sum times
// `weights16`) to every token's accumulator: even blocks to one, odd to the other.
template <int T>
PYRAMID_AVX2 inline void add_block(Accumulators<T>& acc, __m256i w, __m256i weights16, const Tokens& x, int64_t s,
                                   int b, const BlockFactors<T>& f)
{
    for (int t = 0; t < T; ++t)
        add_scaled(b % 2 ? acc.odd[t] : acc.even[t], dot_unsigned(w, x.q[t] + 256 * s + 32 * b, weights16),
                   f.of[t][b]);
}

// The int16 pair scales of activation block b, for scales of 16 elements each: scale 2b for
// the block's first 16 elements, 2b + 1 for the rest (Q2_K, Q3_K, Q6_K).
template <typename S>
PYRAMID_AVX2 inline __m256i pair_scales(const S* scales, int b)
{
    return _mm256_set_m128i(_mm_set1_epi16(scales[2 * b + 1]), _mm_set1_epi16(scales[2 * b]));
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
    using L = std::conditional_t<with_fifth_bit, Q5_K, Q4_K>;
    constexpr size_t kBytes = L::kBytes;
    Accumulators<T> acc;
    clear(acc);
    const __m256i ones = _mm256_set1_epi16(1);
    for (int64_t s = 0; s < cols / QK_K; ++s) {
        const uint8_t* blk = row + s * kBytes;
        prefetch_ahead(blk, kBytes);
        __m128i scales;
        __m256i mins;
        k4_scales_mins(blk + L::kScales, scales, mins);
        BlockFactors<T> f;
        block_factors(
            _mm256_mul_ps(_mm256_set1_ps(half_at(blk + L::kD)), _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(scales))), x,
            s, f);
        const uint8_t* qs = blk + L::kQs;
        __m256i qh = with_fifth_bit ? load32(blk + Q5_K::kQh) : _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j) {
            __m256i low, high;
            k4_group_pair<with_fifth_bit>(load32(qs + 32 * j), qh, low, high);
            if constexpr (with_fifth_bit)
                qh = _mm256_srli_epi16(qh, 2);
            add_block(acc, low, ones, x, s, 2 * j, f);
            add_block(acc, high, ones, x, s, 2 * j + 1, f);
        }
        subtract_group_terms<T>(mins, half_at(blk + L::kDmin), x, s, acc.even);
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
    for (int64_t s = 0; s < cols / QK_K; ++s) {
        const uint8_t* blk = row + s * Q6_K::kBytes;
        prefetch_ahead(blk, Q6_K::kBytes);
        const auto* sc = reinterpret_cast<const int8_t*>(blk + Q6_K::kScales);
        const float d = half_at(blk + Q6_K::kD);
        BlockFactors<T> f;
        block_factors(_mm256_set1_ps(d), x, s, f);
        for (int half = 0; half < 2; ++half) {
            __m256i q[4];
            unpack_q6_k_half(blk, half, q);
            for (int k = 0; k < 4; ++k) {
                const int b = 4 * half + k;  // activation block 8s + b
                add_block(acc, q[k], pair_scales(sc, b), x, s, b, f);
            }
        }
        subtract_group_terms<T>(_mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sc))), 32.0f * d,
                                x, s, acc.odd);
    }
    finish(acc, out);
}

// Q2_K: w = (d * sc_g) * q - (dmin * m_g), q 2 bits, 4-bit scale (low nibble) and min (high
// nibble) per group g of 16 elements.
template <int T>
PYRAMID_AVX2 void q2_k_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    for (int64_t s = 0; s < cols / QK_K; ++s) {
        const uint8_t* blk = row + s * Q2_K::kBytes;
        prefetch_ahead(blk, Q2_K::kBytes);
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + Q2_K::kScales));
        const __m128i low4 = _mm_set1_epi8(0x0f);
        alignas(32) int16_t scales[16];
        _mm256_store_si256(reinterpret_cast<__m256i*>(scales), _mm256_cvtepu8_epi16(_mm_and_si128(packed, low4)));
        const __m256i mins = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), low4));
        BlockFactors<T> f;
        block_factors(_mm256_set1_ps(half_at(blk + Q2_K::kD)), x, s, f);
        for (int h = 0; h < 2; ++h) {
            const __m256i q = load32(blk + Q2_K::kQs + 32 * h);
            for (int p = 0; p < 4; ++p) {
                const int b = 4 * h + p;
                add_block(acc, plane(q, p), pair_scales(scales, b), x, s, b, f);
            }
        }
        subtract_group_terms<T>(mins, half_at(blk + Q2_K::kDmin), x, s, acc.odd);
    }
    finish(acc, out);
}

// Q3_K: w = (d * sc_g) * (u - 4), u = q + 4 * (the element's bit of hmask), 0..7; the -4
// meets the activations' sums like Q6_K's -32. Bit 4h + p of hmask byte l belongs to element
// l of plane p of half h.
template <int T>
PYRAMID_AVX2 void q3_k_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    for (int64_t s = 0; s < cols / QK_K; ++s) {
        const uint8_t* blk = row + s * Q3_K::kBytes;
        prefetch_ahead(blk, Q3_K::kBytes);
        const __m256i scales16 = q3_k_scales(blk + Q3_K::kScales);
        alignas(32) int16_t scales[16];
        _mm256_store_si256(reinterpret_cast<__m256i*>(scales), scales16);
        const float d = half_at(blk + Q3_K::kD);
        BlockFactors<T> f;
        block_factors(_mm256_set1_ps(d), x, s, f);
        const __m256i hmask = load32(blk + Q3_K::kHmask);
        for (int h = 0; h < 2; ++h) {
            const __m256i q = load32(blk + Q3_K::kQs + 32 * h);
            for (int p = 0; p < 4; ++p) {
                const int b = 4 * h + p;
                const __m256i w = _mm256_or_si256(plane(q, p), where_bits(hmask, bytes(1 << b), 4));
                add_block(acc, w, pair_scales(scales, b), x, s, b, f);
            }
        }
        subtract_group_terms<T>(scales16, 4.0f * d, x, s, acc.odd);
    }
    finish(acc, out);
}

} // namespace

RowKernels kquant_row_kernels(TensorType type)
{
    switch (type) {
    case TensorType::Q2_K: return {{q2_k_row<1>, q2_k_row<2>, q2_k_row<3>, q2_k_row<4>}};
    case TensorType::Q3_K: return {{q3_k_row<1>, q3_k_row<2>, q3_k_row<3>, q3_k_row<4>}};
    case TensorType::Q4_K: return {{k4_row<1, false>, k4_row<2, false>, k4_row<3, false>, k4_row<4, false>}};
    case TensorType::Q5_K: return {{k4_row<1, true>, k4_row<2, true>, k4_row<3, true>, k4_row<4, true>}};
    case TensorType::Q6_K: return {{q6_k_row<1>, q6_k_row<2>, q6_k_row<3>, q6_k_row<4>}};
    default: return {};
    }
}

} // namespace pyramid::cpu::int8_avx2

#endif
