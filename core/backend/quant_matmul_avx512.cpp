// The AVX-512 float32 matmul of two or more tokens (prompts, batches): blocks of 4 rows x 3
// tokens, each (row, token) sum in two 16-lane accumulators, so one load of a row's 16 weights serves 3 tokens and one load
// of a token's 16 activations serves 4 rows (the AVX2 kernel loads 4 vectors per 3 FMAs). F16
// rows are converted as they are loaded (exactly: the floats a decoded row holds), which halves
// the bytes a prompt reads from L2 per token group; other types are decoded first
// (decoded_rows).
//
// Bit for bit the AVX2 kernel's result (quant_matmul_avx2.cpp): its chain c of a (row, token)
// takes elements 8c..8c+7 of every 32, so lanes 0-7 and 8-15 of the first accumulator are its
// chains 0 and 1, of the second its chains 2 and 3, each element by the same fused
// multiply-add; leftover eights and the tail go to chain 0 as there, and the four chains are
// summed in its order (four rows' sums side by side). A token's result so never depends on the
// kernel or its neighbours.
//
// Every function carries the target attribute instead of the whole file being compiled for
// AVX-512: nothing here may run (or be merged into code that runs) on a CPU without it.
#include "backend/quant_matmul.h"

#include <algorithm>
#include <array>
#include <utility>

#include "util/float16.h"

#if defined(__x86_64__) || defined(__i386__)
#include "backend/avx2_blocks.h"

namespace pyramid::cpu {
namespace {

constexpr int kBlockRows = 4;
constexpr int kBlockTokens = 3;  // 4 x 3 x 2 accumulators + 4 rows' weights: 28 of 32 registers

// (The zero-masked forms of shuffles and conversions: GCC 12 warns that the plain ones'
// undefined source is used uninitialized.)

// The eight-lane sums of rows a and b: [c0 + c1 of a | of b] + [c2 + c3 of a | of b].
PYRAMID_AVX512VNNI inline __m512 sums_of_two_rows(__m512 a01, __m512 a23, __m512 b01, __m512 b23)
{
    const __m512 c01 = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(0xffff, a01, b01, _MM_SHUFFLE(1, 0, 1, 0)),
                                     _mm512_maskz_shuffle_f32x4(0xffff, a01, b01, _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512 c23 = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(0xffff, a23, b23, _MM_SHUFFLE(1, 0, 1, 0)),
                                     _mm512_maskz_shuffle_f32x4(0xffff, a23, b23, _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm512_add_ps(c01, c23);
}

// The AVX2 kernel's horizontal_sum of the chains (c0 | c1) and (c2 | c3) of four (row, token)
// pairs at once, lane r of the result for row r: each pair meets the same additions in the
// same order, (c0 + c1) + (c2 + c3) over eight lanes, then lanes 0-3 + 4-7, then
// (0 + 2) + (1 + 3). Four sums take about the instructions one took alone.
PYRAMID_AVX512VNNI inline __m128 horizontal_sums(const __m512 (&c01)[kBlockRows], const __m512 (&c23)[kBlockRows])
{
    const __m512 s01 = sums_of_two_rows(c01[0], c23[0], c01[1], c23[1]);
    const __m512 s23 = sums_of_two_rows(c01[2], c23[2], c01[3], c23[3]);
    // Row r's four lanes 0-3 + 4-7 in 128-bit block r.
    const __m512 v = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(0xffff, s01, s23, _MM_SHUFFLE(2, 0, 2, 0)),
                                   _mm512_maskz_shuffle_f32x4(0xffff, s01, s23, _MM_SHUFFLE(3, 1, 3, 1)));
    const __m512 w = _mm512_add_ps(v, _mm512_maskz_permute_ps(0xffff, v, _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512 z = _mm512_add_ps(w, _mm512_maskz_movehdup_ps(0xffff, w));
    const __m512i lane0_of_blocks = _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    return _mm512_maskz_extractf32x4_ps(0xf, _mm512_maskz_permutexvar_ps(0xf, lane0_of_blocks, z), 0);
}

// Sixteen weights as float32, and the first `lanes` of them (zero past).
PYRAMID_AVX512VNNI inline __m512 weights16(const float* w) { return _mm512_loadu_ps(w); }
PYRAMID_AVX512VNNI inline __m512 weights16(const Half* w)
{
    return _mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)));
}
PYRAMID_AVX512VNNI inline __m512 weights16(const float* w, __mmask16 lanes) { return _mm512_maskz_loadu_ps(lanes, w); }
PYRAMID_AVX512VNNI inline __m512 weights16(const Half* w, __mmask16 lanes)
{
    return _mm512_maskz_cvtph_ps(0xffff, _mm256_maskz_loadu_epi16(lanes, w));
}

// y[t * y_stride + r] = row r of w (R rows of `cols`) . token t of x (T tokens of `cols`).
// With Prefetch (a call's first token group, which reads the rows from memory) each step asks
// for the same columns two blocks of rows further on, the next rows this thread reads.
template <int R, int T, bool Prefetch, typename Weight>
PYRAMID_AVX512VNNI void dot_block(const Weight* w, const float* x, int64_t cols, float* y, int64_t y_stride)
{
    __m512 acc[R][T][2];
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t)
            acc[r][t][0] = acc[r][t][1] = _mm512_setzero_ps();
    __m512 wv[R];
    int64_t i = 0;
    for (; i + 32 <= cols; i += 32) {
        if constexpr (Prefetch)  // one line a row (F32's second line too measured no faster)
            for (int r = 2 * kBlockRows; r < 3 * kBlockRows; ++r)  // past the end: a hint, no fault
                _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(w + i) +
                                                           r * cols * sizeof(Weight)),
                             _MM_HINT_T0);
        for (int h = 0; h < 2; ++h) {
            for (int r = 0; r < R; ++r) {
                wv[r] = weights16(w + r * cols + i + 16 * h);
                // In a register: GCC would otherwise fold the load into each of the T
                // multiply-adds, loading (and converting) the same weights T times.
                asm("" : "+v"(wv[r]));
            }
            for (int t = 0; t < T; ++t) {
                const __m512 xv = _mm512_loadu_ps(x + t * cols + i + 16 * h);
                for (int r = 0; r < R; ++r)
                    acc[r][t][h] = _mm512_fmadd_ps(wv[r], xv, acc[r][t][h]);
            }
        }
    }
    // Eights, then the tail zero-filled as the AVX2 masked loads do, into chain 0 (lanes 0-7).
    for (; i < cols; i += 8) {
        const __mmask16 load = i + 8 <= cols ? __mmask16(0xff) : __mmask16((1u << (cols - i)) - 1);
        for (int r = 0; r < R; ++r)
            wv[r] = weights16(w + r * cols + i, load);
        for (int t = 0; t < T; ++t) {
            const __m512 xv = _mm512_maskz_loadu_ps(load, x + t * cols + i);
            for (int r = 0; r < R; ++r)
                acc[r][t][0] = _mm512_mask3_fmadd_ps(wv[r], xv, acc[r][t][0], 0xff);
        }
    }
    // Rows past R sum zeros, and are not stored.
    for (int t = 0; t < T; ++t) {
        __m512 c01[kBlockRows], c23[kBlockRows];
        for (int r = 0; r < kBlockRows; ++r) {
            c01[r] = r < R ? acc[r][t][0] : _mm512_setzero_ps();
            c23[r] = r < R ? acc[r][t][1] : _mm512_setzero_ps();
        }
        _mm_mask_storeu_ps(y + t * y_stride, __mmask8((1u << R) - 1), horizontal_sums(c01, c23));
    }
}

template <typename Weight>
using DotBlock = void (*)(const Weight*, const float*, int64_t, float*, int64_t);

template <typename Weight, bool Prefetch, int R, int... T>
constexpr std::array<DotBlock<Weight>, kBlockTokens> blocks_of_rows(std::integer_sequence<int, T...>)
{
    return {dot_block<R, T + 1, Prefetch, Weight>...};
}

template <typename Weight, bool Prefetch, int... R>
constexpr std::array<std::array<DotBlock<Weight>, kBlockTokens>, kBlockRows> all_blocks(std::integer_sequence<int, R...>)
{
    return {blocks_of_rows<Weight, Prefetch, R + 1>(std::make_integer_sequence<int, kBlockTokens>{})...};
}

// kDotBlocks[R - 1][T - 1]: the R rows x T tokens block, for the edges of a call.
template <typename Weight, bool Prefetch>
constexpr auto kDotBlocks = all_blocks<Weight, Prefetch>(std::make_integer_sequence<int, kBlockRows>{});

// y[t * y_stride + r] for rows [0, row_count) of `rows` and tokens [0, n) of x.
template <typename Weight>
PYRAMID_AVX512VNNI void matmul_blocks(const Weight* rows, int64_t cols, const float* x, int n, float* y,
                                      int64_t y_stride, int64_t row_count)
{
    // A group of tokens stays in L1 while the call's rows (in L2) pass under it.
    for (int t0 = 0; t0 < n; t0 += kBlockTokens) {
        const int nt = std::min(kBlockTokens, n - t0);
        for (int64_t r0 = 0; r0 < row_count; r0 += kBlockRows) {
            const int64_t nr = std::min<int64_t>(kBlockRows, row_count - r0);
            // The first group's pass reads the rows from memory; the later ones find them cached.
            const auto& blocks = t0 == 0 ? kDotBlocks<Weight, true> : kDotBlocks<Weight, false>;
            blocks[nr - 1][nt - 1](rows + r0 * cols, x + t0 * cols, cols, y + t0 * y_stride + r0, y_stride);
        }
    }
}

} // namespace

void detail::matmul_rows_avx512(const WeightView& w, const float* x, int n, float* y, int64_t row_begin,
                                int64_t row_end)
{
    if (w.type == TensorType::F16) {
        const Half* rows = reinterpret_cast<const Half*>(w.data) + row_begin * w.cols;
        matmul_blocks(rows, w.cols, x, n, y + row_begin, w.rows, row_end - row_begin);
        return;
    }
    const float* rows = decoded_rows(w, row_begin, row_end, tile_decoder(w.type, KernelIsa::Avx2));
    matmul_blocks(rows, w.cols, x, n, y + row_begin, w.rows, row_end - row_begin);
}

} // namespace pyramid::cpu

#else // not x86: the generic kernels stand in (kernel_isa_supported(Avx512Vnni) is false there)

namespace pyramid::cpu {
void detail::matmul_rows_avx512(const WeightView& w, const float* x, int n, float* y, int64_t row_begin,
                                int64_t row_end)
{
    matmul_rows_generic(w, x, n, y, row_begin, row_end);
}
} // namespace pyramid::cpu

#endif
