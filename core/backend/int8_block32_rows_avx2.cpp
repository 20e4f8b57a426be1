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
#include <type_traits>

namespace pyramid::cpu::int8_avx2 {
namespace {

using namespace block_layout;

// acc[t] += d * (activation scale) * (the 32 signed weights w . activation block b).
template <int T>
PYRAMID_AVX2 inline void add_signed_block(__m256i w, float d, int64_t b, const Tokens& x, __m256* acc)
{
    const __m256i w_abs = _mm256_abs_epi8(w);
    for (int t = 0; t < T; ++t)
        add_scaled(acc[t], dot_signed(w, w_abs, x.q[t] + 32 * b), d * x.scale[t][b]);
}

// Q8_0: value d * q
template <int T>
PYRAMID_AVX2 inline void q8_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    add_signed_block<T>(load32(blk + Q8_0::kQs), half_at(blk + Q8_0::kD), b, x, acc);
}

// Q4_0: value d * (q - 8)
template <int T>
PYRAMID_AVX2 inline void q4_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    add_signed_block<T>(_mm256_sub_epi8(nibbles32(blk + Q4_0::kQs), bytes(8)), half_at(blk + Q4_0::kD), b, x, acc);
}

// Q5_0: value d * ((q | fifth bit << 4) - 16)
template <int T>
PYRAMID_AVX2 inline void q5_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    add_signed_block<T>(_mm256_sub_epi8(nibble_block_values<Q5_0>(blk), bytes(16)), half_at(blk + Q5_0::kD), b, x, acc);
}

template <int T, size_t BlockBytes, void (*Block)(const uint8_t*, int64_t, const Tokens&, __m256*)>
PYRAMID_AVX2 void simple_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    const int64_t blocks = cols / QK;
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

// Q4_1 and Q5_1 rows: value d * q + m, q unsigned. The m terms, m times each block's rounded
// activation sum, are taken eight blocks at a time from the activations' per-16 sums.
template <int T, bool with_fifth_bit>
PYRAMID_AVX2 void min_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    using L = std::conditional_t<with_fifth_bit, Q5_1, Q4_1>;
    constexpr size_t kBytes = L::kBytes;
    Accumulators<T> acc;
    clear(acc);
    float tail[T] = {};  // m terms of a last run of fewer than eight blocks
    const __m256i ones = _mm256_set1_epi16(1);
    const int64_t blocks = cols / QK;
    for (int64_t b0 = 0; b0 < blocks; b0 += 8) {
        const int count = static_cast<int>(std::min<int64_t>(8, blocks - b0));
        prefetch_ahead(row + b0 * kBytes, 8 * kBytes);
        alignas(32) float mins[8];
        for (int i = 0; i < count; ++i) {
            const int64_t b = b0 + i;
            const uint8_t* blk = row + b * kBytes;
            const float d = half_at(blk + L::kD);
            mins[i] = half_at(blk + L::kM);
            const __m256i w = nibble_block_values<L>(blk);
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
        return {{simple_row<1, Q8_0::kBytes, q8_0_block<1>>, simple_row<2, Q8_0::kBytes, q8_0_block<2>>,
                 simple_row<3, Q8_0::kBytes, q8_0_block<3>>, simple_row<4, Q8_0::kBytes, q8_0_block<4>>}};
    case TensorType::Q4_0:
        return {{simple_row<1, Q4_0::kBytes, q4_0_block<1>>, simple_row<2, Q4_0::kBytes, q4_0_block<2>>,
                 simple_row<3, Q4_0::kBytes, q4_0_block<3>>, simple_row<4, Q4_0::kBytes, q4_0_block<4>>}};
    case TensorType::Q5_0:
        return {{simple_row<1, Q5_0::kBytes, q5_0_block<1>>, simple_row<2, Q5_0::kBytes, q5_0_block<2>>,
                 simple_row<3, Q5_0::kBytes, q5_0_block<3>>, simple_row<4, Q5_0::kBytes, q5_0_block<4>>}};
    case TensorType::Q4_1:
        return {{min_row<1, false>, min_row<2, false>, min_row<3, false>, min_row<4, false>}};
    case TensorType::Q5_1:
        return {{min_row<1, true>, min_row<2, true>, min_row<3, true>, min_row<4, true>}};
    default: return {};
    }
}

} // namespace pyramid::cpu::int8_avx2

#endif
