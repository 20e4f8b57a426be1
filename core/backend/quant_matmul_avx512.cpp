// The AVX-512 float32 matmul of two or more tokens (prompts, batches): blocks of 4 rows x 3 tokens, each (row, token) sum
// in two 16-lane accumulators, so one load of a row's 16 weights serves 3 tokens and one load
// of a token's 16 activations serves 4 rows (the AVX2 kernel loads 4 vectors per 3 FMAs).
//
// Bit for bit the AVX2 kernel's result (quant_matmul_avx2.cpp): its chain c of a (row, token)
// takes elements 8c..8c+7 of every 32, so lanes 0-7 and 8-15 of the first accumulator are its
// chains 0 and 1, of the second its chains 2 and 3, each element by the same fused
// multiply-add; leftover eights and the tail go to chain 0 as there, and the four chains are
// summed in its order. A token's result so never depends on the kernel or its neighbours.
//
// Every function carries the target attribute instead of the whole file being compiled for
// AVX-512: nothing here may run (or be merged into code that runs) on a CPU without it.
#include "backend/quant_matmul.h"

#include <algorithm>
#include <array>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include "backend/avx2_blocks.h"

namespace pyramid::cpu {
namespace {

constexpr int kBlockRows = 4;
constexpr int kBlockTokens = 3;  // 4 x 3 x 2 accumulators + 4 rows' weights: 28 of 32 registers

// (The zero-masked forms of shuffle and extract: GCC 12 warns that the plain ones' undefined
// source is used uninitialized.)

// Lanes 0-7 of the result: v's lanes 0-7 plus its lanes 8-15.
PYRAMID_AVX512VNNI inline __m512 add_halves(__m512 v)
{
    return _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4(0xffff, v, v, _MM_SHUFFLE(1, 0, 3, 2)));
}

// The AVX2 kernel's horizontal_sum of chains (c0 | c1) and (c2 | c3).
PYRAMID_AVX512VNNI inline float horizontal_sum(__m512 c01, __m512 c23)
{
    const __m512 s = _mm512_add_ps(add_halves(c01), add_halves(c23));
    __m128 v = _mm_add_ps(_mm512_maskz_extractf32x4_ps(0xf, s, 0), _mm512_maskz_extractf32x4_ps(0xf, s, 1));
    v = _mm_add_ps(v, _mm_movehl_ps(v, v));
    v = _mm_add_ss(v, _mm_movehdup_ps(v));
    return _mm_cvtss_f32(v);
}

// y[t * y_stride + r] = row r of w (R rows of `cols`) . token t of x (T tokens of `cols`).
template <int R, int T>
PYRAMID_AVX512VNNI void dot_block(const float* w, const float* x, int64_t cols, float* y, int64_t y_stride)
{
    __m512 acc[R][T][2];
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t)
            acc[r][t][0] = acc[r][t][1] = _mm512_setzero_ps();
    __m512 wv[R];
    int64_t i = 0;
    for (; i + 32 <= cols; i += 32)
        for (int h = 0; h < 2; ++h) {
            for (int r = 0; r < R; ++r) {
                wv[r] = _mm512_loadu_ps(w + r * cols + i + 16 * h);
                // In a register: GCC would otherwise fold the load into each of the T
                // multiply-adds, loading the same weights T times.
                asm("" : "+v"(wv[r]));
            }
            for (int t = 0; t < T; ++t) {
                const __m512 xv = _mm512_loadu_ps(x + t * cols + i + 16 * h);
                for (int r = 0; r < R; ++r)
                    acc[r][t][h] = _mm512_fmadd_ps(wv[r], xv, acc[r][t][h]);
            }
        }
    // Eights, then the tail zero-filled as the AVX2 masked loads do, into chain 0 (lanes 0-7).
    for (; i < cols; i += 8) {
        const __mmask16 load = i + 8 <= cols ? __mmask16(0xff) : __mmask16((1u << (cols - i)) - 1);
        for (int r = 0; r < R; ++r)
            wv[r] = _mm512_maskz_loadu_ps(load, w + r * cols + i);
        for (int t = 0; t < T; ++t) {
            const __m512 xv = _mm512_maskz_loadu_ps(load, x + t * cols + i);
            for (int r = 0; r < R; ++r)
                acc[r][t][0] = _mm512_mask3_fmadd_ps(wv[r], xv, acc[r][t][0], 0xff);
        }
    }
    for (int t = 0; t < T; ++t)
        for (int r = 0; r < R; ++r)
            y[t * y_stride + r] = horizontal_sum(acc[r][t][0], acc[r][t][1]);
}

using DotBlock = void (*)(const float*, const float*, int64_t, float*, int64_t);

template <int R, int... T>
constexpr std::array<DotBlock, kBlockTokens> blocks_of_rows(std::integer_sequence<int, T...>)
{
    return {dot_block<R, T + 1>...};
}

template <int... R>
constexpr std::array<std::array<DotBlock, kBlockTokens>, kBlockRows> all_blocks(std::integer_sequence<int, R...>)
{
    return {blocks_of_rows<R + 1>(std::make_integer_sequence<int, kBlockTokens>{})...};
}

// kDotBlocks[R - 1][T - 1]: the R rows x T tokens block, for the edges of a call.
constexpr auto kDotBlocks = all_blocks(std::make_integer_sequence<int, kBlockRows>{});

} // namespace

void detail::matmul_rows_avx512(const WeightView& w, const float* x, int n, float* y, int64_t row_begin,
                                int64_t row_end)
{
    const int64_t cols = w.cols;
    const float* rows = decoded_rows(w, row_begin, row_end, tile_decoder(w.type, KernelIsa::Avx2));
    // A group of tokens stays in L1 while the call's rows (in L2) pass under it.
    for (int t0 = 0; t0 < n; t0 += kBlockTokens) {
        const int nt = std::min(kBlockTokens, n - t0);
        for (int64_t r0 = row_begin; r0 < row_end; r0 += kBlockRows) {
            const int64_t nr = std::min<int64_t>(kBlockRows, row_end - r0);
            kDotBlocks[nr - 1][nt - 1](rows + (r0 - row_begin) * cols, x + t0 * cols, cols, y + t0 * w.rows + r0,
                                       w.rows);
        }
    }
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
