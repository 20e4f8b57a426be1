// The AVX2 int8 row kernels of the 32-element block types: block b of a row meets activation
// block b. Q4_0, Q5_0 and Q8_0 are signed: they use |w| and sign(x, w), since maddubs wants its
// first operand unsigned; Q4_1 and Q5_1 stay unsigned and add their minimum times the block's
// activation sum.
//
// Every function carries the AVX2 target attribute instead of the whole file being compiled
// for AVX2: nothing here may run (or be merged into code that runs) on a CPU without it.
#if defined(__x86_64__) || defined(__i386__)
#include "backend/int8_rows_avx2.h"

#include <algorithm>

namespace pyramid::cpu::int8_avx2 {
namespace {

// acc[t] += d * (activation scale) * (the 32 signed weights w . activation block b).
template <int T>
PYRAMID_AVX2 inline void add_signed_block(__m256i w, float d, int64_t b, const Tokens& x, __m256* acc)
{
    const __m256i w_abs = _mm256_abs_epi8(w);
    for (int t = 0; t < T; ++t)
        add_scaled(acc[t], dot_signed(w, w_abs, x.q[t] + 32 * b), d * x.scale[t][b]);
}

// Q8_0 block: f16 d | i8 q[32]
template <int T>
PYRAMID_AVX2 inline void q8_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    add_signed_block<T>(load32(blk + 2), half_at(blk), b, x, acc);
}

// Q4_0 block: f16 d | u8 qs[16], value q - 8
template <int T>
PYRAMID_AVX2 inline void q4_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    add_signed_block<T>(_mm256_sub_epi8(nibbles32(blk + 2), bytes(8)), half_at(blk), b, x, acc);
}

// Q5_0 block: f16 d | u32 qh | u8 qs[16], value (q | fifth bit << 4) - 16
template <int T>
PYRAMID_AVX2 inline void q5_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    const __m256i q = _mm256_or_si256(nibbles32(blk + 6), fifth_bits(u32_at(blk + 2)));
    add_signed_block<T>(_mm256_sub_epi8(q, bytes(16)), half_at(blk), b, x, acc);
}

template <int T, size_t BlockBytes, void (*Block)(const uint8_t*, int64_t, const Tokens&, __m256*)>
PYRAMID_AVX2 void simple_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    const int64_t blocks = cols / 32;
    int64_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        prefetch_ahead(row + b * BlockBytes, 2 * BlockBytes);
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
        prefetch_ahead(row + b0 * kBytes, 8 * kBytes);
        alignas(32) float mins[8];
        for (int i = 0; i < count; ++i) {
            const int64_t b = b0 + i;
            const uint8_t* blk = row + b * kBytes;
            const float d = half_at(blk);
            mins[i] = half_at(blk + 2);
            const __m256i w =
                with_fifth_bit ? _mm256_or_si256(nibbles32(blk + 8), fifth_bits(u32_at(blk + 4))) : nibbles32(blk + 4);
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

} // namespace

RowKernels block32_row_kernels(TensorType type)
{
    switch (type) {
    case TensorType::Q8_0:
        return {{simple_row<1, 34, q8_0_block<1>>, simple_row<2, 34, q8_0_block<2>>,
                 simple_row<3, 34, q8_0_block<3>>, simple_row<4, 34, q8_0_block<4>>}};
    case TensorType::Q4_0:
        return {{simple_row<1, 18, q4_0_block<1>>, simple_row<2, 18, q4_0_block<2>>,
                 simple_row<3, 18, q4_0_block<3>>, simple_row<4, 18, q4_0_block<4>>}};
    case TensorType::Q5_0:
        return {{simple_row<1, 22, q5_0_block<1>>, simple_row<2, 22, q5_0_block<2>>,
                 simple_row<3, 22, q5_0_block<3>>, simple_row<4, 22, q5_0_block<4>>}};
    case TensorType::Q4_1:
        return {{min_row<1, false>, min_row<2, false>, min_row<3, false>, min_row<4, false>}};
    case TensorType::Q5_1:
        return {{min_row<1, true>, min_row<2, true>, min_row<3, true>, min_row<4, true>}};
    default: return {};
    }
}

} // namespace pyramid::cpu::int8_avx2

#endif
