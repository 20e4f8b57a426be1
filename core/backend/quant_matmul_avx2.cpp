// The AVX2 + FMA matmul: SIMD tile decoding (tile_decoder_avx2.cpp), then fused multiply-adds
// of the decoded tile against up to three tokens at once, each token with several independent
// eight-lane sums so the adds do not wait on each other.
//
// Every function carries the AVX2 target attribute instead of the whole file being compiled
// for AVX2: nothing here may run (or be merged into code that runs) on a CPU without it.
#include "backend/quant_matmul.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "backend/tile_decoder.h"
#include "util/float16.h"

#if defined(__x86_64__) || defined(__i386__)
#include "backend/avx2_blocks.h"

namespace pyramid::cpu {
namespace {

constexpr int kChains = 4;  // independent sums per token (FMA latency 4, two per cycle)

// Lanes [0, rem) set, for the last rem (1..7) floats of a row whose length is not a
// multiple of 8 (only plain float rows can be).
PYRAMID_AVX2 inline __m256i tail_mask(int64_t rem)
{
    static const int32_t table[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table + 8 - rem));
}

// Eight weights as float32: a decoded (or F32) row's, or an F16 row's converted by F16C, which
// is exact: the same floats a decoded tile holds.
PYRAMID_AVX2 inline __m256 weights8(const float* w) { return _mm256_loadu_ps(w); }
PYRAMID_AVX2 inline __m256 weights8(const Half* w)
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w)));
}
// The last rem (1..7) weights, zero past them.
PYRAMID_AVX2 inline __m256 weights_tail(const float* w, __m256i mask) { return _mm256_maskload_ps(w, mask); }
PYRAMID_AVX2 inline __m256 weights_tail(const Half* w, int64_t rem)
{
    alignas(32) float tail[8] = {};
    for (int64_t i = 0; i < rem; ++i)
        tail[i] = to_float(w[i]);
    return _mm256_load_ps(tail);
}

// acc[t * kChains + c] += partial sums of w[0, len) * x[t * stride + i] for t < T. One load of
// w serves T tokens.
template <int T, typename Weight>
PYRAMID_AVX2 inline void accumulate(const Weight* w, int64_t len, const float* x, int64_t stride, __m256* acc)
{
    __m256 a[T][kChains];
    for (int t = 0; t < T; ++t)
        for (int c = 0; c < kChains; ++c)
            a[t][c] = acc[t * kChains + c];
    int64_t i = 0;
    for (; i + 8 * kChains <= len; i += 8 * kChains)
        for (int c = 0; c < kChains; ++c) {
            const __m256 wv = weights8(w + i + 8 * c);
            for (int t = 0; t < T; ++t)
                a[t][c] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(x + t * stride + i + 8 * c), a[t][c]);
        }
    for (; i + 8 <= len; i += 8) {
        const __m256 wv = weights8(w + i);
        for (int t = 0; t < T; ++t)
            a[t][0] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(x + t * stride + i), a[t][0]);
    }
    if (i < len) {
        const __m256i mask = tail_mask(len - i);
        __m256 wv;
        if constexpr (std::is_same_v<Weight, float>)
            wv = weights_tail(w + i, mask);
        else
            wv = weights_tail(w + i, len - i);
        for (int t = 0; t < T; ++t)
            a[t][0] = _mm256_fmadd_ps(wv, _mm256_maskload_ps(x + t * stride + i, mask), a[t][0]);
    }
    for (int t = 0; t < T; ++t)
        for (int c = 0; c < kChains; ++c)
            acc[t * kChains + c] = a[t][c];
}

// Tokens in groups of up to three, each with all kChains sums: the order of a token's additions
// then never depends on how many tokens share its group, so a row gives the same result alone
// or inside a batch. Four tokens would run out of the 16 vector registers.
template <typename Weight>
PYRAMID_AVX2 void accumulate_tokens(const Weight* w, int64_t len, const float* x, int64_t stride, int n, __m256* acc)
{
    for (int t = 0; t < n; t += 3, x += 3 * stride, acc += 3 * kChains) {
        switch (std::min(3, n - t)) {
        case 1: accumulate<1>(w, len, x, stride, acc); break;
        case 2: accumulate<2>(w, len, x, stride, acc); break;
        default: accumulate<3>(w, len, x, stride, acc); break;
        }
    }
}

PYRAMID_AVX2 inline float horizontal_sum(const __m256* chains)
{
    const __m256 s = _mm256_add_ps(_mm256_add_ps(chains[0], chains[1]), _mm256_add_ps(chains[2], chains[3]));
    __m128 v = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    v = _mm_add_ps(v, _mm_movehl_ps(v, v));
    v = _mm_add_ss(v, _mm_movehdup_ps(v));
    return _mm_cvtss_f32(v);
}

} // namespace

PYRAMID_AVX2 const float* detail::decoded_rows(const WeightView& w, int64_t row_begin, int64_t row_end,
                                               TileDecoder decode)
{
    const std::byte* first = w.data + static_cast<size_t>(row_begin) * w.row_bytes();
    if (w.type == TensorType::F32)
        return reinterpret_cast<const float*>(first);
    thread_local std::vector<float> buffer;
    const int64_t n = (row_end - row_begin) * w.cols;
    buffer.resize(static_cast<size_t>(n));
    // A tile at a time, each asking for the bytes ahead as the tile path does: without it a
    // one-token decode step over F16 weights ran at half the speed. Whole rows are whole blocks,
    // and a tile (256 elements) whole blocks of every type.
    const auto& traits = tensor_type_traits(w.type);
    for (int64_t e = 0; e < n; e += kDecodeTileElems) {
        const int64_t len = std::min(kDecodeTileElems, n - e);
        const std::byte* src = first + static_cast<size_t>(e / traits.block_elems) * traits.block_bytes;
        avx2::prefetch_ahead(src, static_cast<size_t>(len / traits.block_elems) * traits.block_bytes);
        decode(src, buffer.data() + e, len);
    }
    return buffer.data();
}

PYRAMID_AVX2 void detail::matmul_rows_avx2(const WeightView& w, const float* x, int n, float* y, int64_t row_begin,
                                           int64_t row_end)
{
    const int64_t cols = w.cols;
    const TileDecoder decode = tile_decoder(w.type, KernelIsa::Avx2);
    __m256 acc[kMatmulTokenTile * kChains];
    if (n > kMatmulTokenTile) {
        // A prompt: the rows decoded once, then every tile of tokens over them. A whole row
        // sums in the order of its 256-element tiles (a multiple of the 32 a chain step takes).
        const float* rows = decoded_rows(w, row_begin, row_end, decode);
        for (int t0 = 0; t0 < n; t0 += kMatmulTokenTile) {
            const int nt = std::min(kMatmulTokenTile, n - t0);
            const float* xt = x + static_cast<int64_t>(t0) * cols;
            for (int64_t r = row_begin; r < row_end; ++r) {
                for (int i = 0; i < nt * kChains; ++i)
                    acc[i] = _mm256_setzero_ps();
                accumulate_tokens(rows + (r - row_begin) * cols, cols, xt, cols, nt, acc);
                for (int t = 0; t < nt; ++t)
                    y[static_cast<int64_t>(t0 + t) * w.rows + r] = horizontal_sum(acc + t * kChains);
            }
        }
        return;
    }
    const auto& traits = tensor_type_traits(w.type);
    const size_t row_bytes = w.row_bytes();
    alignas(32) float tile[kDecodeTileElems];
    for (int64_t r = row_begin; r < row_end; ++r) {
        const std::byte* row = w.data + static_cast<size_t>(r) * row_bytes;
        for (int i = 0; i < n * kChains; ++i)
            acc[i] = _mm256_setzero_ps();
        for (int64_t c0 = 0; c0 < cols; c0 += kDecodeTileElems) {
            const int64_t len = std::min(kDecodeTileElems, cols - c0);
            const std::byte* src = row + static_cast<size_t>(c0 / traits.block_elems) * traits.block_bytes;
            // Float32 rows are read densely by the multiply-adds themselves, and the
            // hardware prefetcher keeps up (0.93x with prefetching; F16 1.43x, BF16 1.17x).
            if (w.type == TensorType::F32) {
                accumulate_tokens(reinterpret_cast<const float*>(src), len, x + c0, cols, n, acc);
                continue;
            }
            avx2::prefetch_ahead(src, static_cast<size_t>(len / traits.block_elems) * traits.block_bytes);
            // F16 converts in registers as it is read: through the tile, every weight was
            // stored and loaded again, and one-token decode ran at 0.8x llama.cpp's speed.
            if (w.type == TensorType::F16) {
                accumulate_tokens(reinterpret_cast<const Half*>(src), len, x + c0, cols, n, acc);
                continue;
            }
            decode(src, tile, len);
            accumulate_tokens(tile, len, x + c0, cols, n, acc);
        }
        for (int t = 0; t < n; ++t)
            y[static_cast<int64_t>(t) * w.rows + r] = horizontal_sum(acc + t * kChains);
    }
}

} // namespace pyramid::cpu

#else // not x86: the generic kernels stand in (kernel_isa_supported(Avx2) is false there)

namespace pyramid::cpu {
void detail::matmul_rows_avx2(const WeightView& w, const float* x, int n, float* y, int64_t row_begin,
                              int64_t row_end)
{
    matmul_rows_generic(w, x, n, y, row_begin, row_end);
}
} // namespace pyramid::cpu

#endif
