// Key tiles and their dot kernels (key_tiles.h). Built with -ffp-contract=off (core/CMakeLists.txt):
// AVX-512 brings FMA with it, and a fused multiply-add would round once where float_dot.h's
// dot rounds the product and the sum apart.
#include "backend/key_tiles.h"

#include <algorithm>
#include <cassert>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pyramid::cpu {
namespace {

// Values [i_begin, n) of keys [0, count) of a tile at `tile`, value by value.
template <typename Stored>
void lay_out_values(const Stored* rows, int64_t stride, int count, int n, int i_begin, float* tile)
{
    for (int j = 0; j < count; ++j) {
        const Stored* row = rows + j * stride;
        for (int i = i_begin; i < n; ++i)
            tile[static_cast<size_t>(i) * KeyTiles::kWidth + j] = value_at(row, i);
    }
}

#if defined(__x86_64__) || defined(__i386__)
// GCC 12's AVX-512 intrinsics pass an undefined vector (`__Y = __Y`) as the unused source of
// their unmasked forms, which -Wmaybe-uninitialized reports once they are inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Sixteen values of a row as float32: F16C's conversion is exact, as fp16_to_fp32 is.
__attribute__((target("avx512f"))) inline __m512 sixteen_values(const float* row) { return _mm512_loadu_ps(row); }
__attribute__((target("avx512f"))) inline __m512 sixteen_values(const Half* row)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row)));
}

// Keys [0, count) (count <= 16) of a tile at `tile`, values in whole groups of sixteen: the
// sixteen keys' values i0 to i0 + 15 are loaded as rows of a 16 x 16 matrix (zero past count)
// and transposed, so that row i of the result, stored at value i of the tile, holds the keys'
// value i. The transpose interleaves pairs, then quads of rows within 128-bit lanes, then
// gathers the lanes of four rows.
template <typename Stored>
__attribute__((target("avx512f"))) void lay_out_groups_avx512(const Stored* rows, int64_t stride, int count,
                                                              int groups, float* tile)
{
    for (int group = 0; group < groups; ++group) {
        const int i0 = group * 16;
        __m512 r[16];
        for (int j = 0; j < 16; ++j)
            r[j] = j < count ? sixteen_values(rows + j * stride + i0) : _mm512_setzero_ps();
        __m512 t[16], u[16];
        for (int j = 0; j < 16; j += 2) {  // t[j], t[j + 1]: rows j, j + 1 interleaved
            t[j] = _mm512_unpacklo_ps(r[j], r[j + 1]);
            t[j + 1] = _mm512_unpackhi_ps(r[j], r[j + 1]);
        }
        for (int b = 0; b < 16; b += 4) {  // u[b + c], lane L: rows b to b + 3, value 4L + c
            const __m512d p0 = _mm512_castps_pd(t[b]), p1 = _mm512_castps_pd(t[b + 1]),
                          p2 = _mm512_castps_pd(t[b + 2]), p3 = _mm512_castps_pd(t[b + 3]);
            u[b] = _mm512_castpd_ps(_mm512_unpacklo_pd(p0, p2));
            u[b + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(p0, p2));
            u[b + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(p1, p3));
            u[b + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(p1, p3));
        }
        float* out = tile + static_cast<size_t>(i0) * KeyTiles::kWidth;
        for (int c = 0; c < 4; ++c) {
            // Lanes 0 and 2 (even), 1 and 3 (odd) of rows 0-3 beside 4-7, and of 8-11 beside 12-15.
            const __m512 even_low = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
            const __m512 odd_low = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xdd);
            const __m512 even_high = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
            const __m512 odd_high = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xdd);
            _mm512_storeu_ps(out + (c) * 16, _mm512_shuffle_f32x4(even_low, even_high, 0x88));
            _mm512_storeu_ps(out + (8 + c) * 16, _mm512_shuffle_f32x4(even_low, even_high, 0xdd));
            _mm512_storeu_ps(out + (4 + c) * 16, _mm512_shuffle_f32x4(odd_low, odd_high, 0x88));
            _mm512_storeu_ps(out + (12 + c) * 16, _mm512_shuffle_f32x4(odd_low, odd_high, 0xdd));
        }
    }
}
#pragma GCC diagnostic pop
#endif

} // namespace

template <typename Stored>
void KeyTiles::lay_out(const Stored* rows, int64_t stride, int count, int n, KernelIsa isa)
{
    static_assert(kWidth == 16, "the AVX-512 layout transposes 16 x 16 blocks");
    if (rows == rows_ && count == count_ && n == n_)
        return;
    const int tiles = (count + kWidth - 1) / kWidth;
    values_.assign(static_cast<size_t>(tiles) * n * kWidth, 0.0f);
    for (int t = 0; t < tiles; ++t) {
        const Stored* first = rows + static_cast<int64_t>(t) * kWidth * stride;
        const int keys = std::min(kWidth, count - t * kWidth);
        float* tile = values_.data() + static_cast<size_t>(t) * n * kWidth;
        int laid = 0;  // values laid out sixteen at a time
#if defined(__x86_64__) || defined(__i386__)
        if (isa == KernelIsa::Avx512Vnni) {
            if constexpr (std::is_same_v<Stored, float> || std::is_same_v<Stored, Half>) {
                lay_out_groups_avx512(first, stride, keys, n / 16, tile);
                laid = n / 16 * 16;
            } else {  // q8 and q4 blocks: the tile's keys decoded (load_values), then as float32
                decoded_.resize(static_cast<size_t>(kWidth) * n);
                for (int j = 0; j < keys; ++j)
                    load_values(first + j * stride, n, decoded_.data() + static_cast<size_t>(j) * n);
                lay_out_groups_avx512(decoded_.data(), n, keys, n / 16, tile);
                lay_out_values(decoded_.data(), n, keys, n, n / 16 * 16, tile);
                continue;
            }
        }
#endif
        lay_out_values(first, stride, keys, n, laid, tile);
    }
    rows_ = rows;
    count_ = count;
    n_ = n;
}

template void KeyTiles::lay_out(const float*, int64_t, int, int, KernelIsa);
template void KeyTiles::lay_out(const Half*, int64_t, int, int, KernelIsa);
template void KeyTiles::lay_out(const KvQ8Block*, int64_t, int, int, KernelIsa);
template void KeyTiles::lay_out(const KvQ4Block*, int64_t, int, int, KernelIsa);

#if defined(__x86_64__) || defined(__i386__)
namespace {

// Queries qs[0] to qs[Q - 1] (n values each) against tiles 0 to tiles - 1, dots into os[k] + j.
// acc[k][l] is lane l of query k's sixteen dots: eight chains a query, finished in dot's order.
// The unrolling keeps the chains in registers (a loop left rolled kept them on the stack); two
// queries' chains take 16 of AVX-512's 32 registers.
template <int Q>
__attribute__((target("avx512f"))) void tile_dots_avx512(const KeyTiles& keys, int tiles, const float* const* qs,
                                                         float* const* os)
{
    constexpr int kWidth = KeyTiles::kWidth;
    const int n = keys.values_per_key();
    for (int t = 0; t < tiles; ++t) {
        const float* tile = keys.tile(t);
        __m512 acc[Q][8];
#pragma GCC unroll 2
        for (int k = 0; k < Q; ++k)
#pragma GCC unroll 8
            for (int l = 0; l < 8; ++l)
                acc[k][l] = _mm512_setzero_ps();
        // Value i adds to lane i % 8 (for a tail's value, i - whole as dot has it).
        for (int i0 = 0; i0 < n; i0 += 8) {
#pragma GCC unroll 8
            for (int l = 0; l < 8; ++l) {
                const int i = i0 + l;
                if (i >= n)
                    break;
                __m512 values = _mm512_loadu_ps(tile + static_cast<size_t>(i) * kWidth);
                // Loaded once for both queries: left to itself the compiler reads the tile in
                // each multiply, and the kernel ran at 0.55x this speed.
                __asm__("" : "+v"(values));
#pragma GCC unroll 2
                for (int k = 0; k < Q; ++k)
                    acc[k][l] = _mm512_add_ps(acc[k][l], _mm512_mul_ps(values, _mm512_set1_ps(qs[k][i])));
            }
        }
#pragma GCC unroll 2
        for (int k = 0; k < Q; ++k) {
            const __m512 low = _mm512_add_ps(_mm512_add_ps(acc[k][0], acc[k][4]), _mm512_add_ps(acc[k][1], acc[k][5]));
            const __m512 high = _mm512_add_ps(_mm512_add_ps(acc[k][2], acc[k][6]), _mm512_add_ps(acc[k][3], acc[k][7]));
            _mm512_storeu_ps(os[k] + t * kWidth, _mm512_add_ps(low, high));
        }
    }
}

} // namespace
#endif

void key_tile_dots(const KeyTiles& keys, const float* q, int64_t q_stride, int n_q, int count, float* out,
                   int64_t out_stride, KernelIsa isa)
{
    assert(isa == KernelIsa::Avx512Vnni && count <= keys.keys());
#if defined(__x86_64__) || defined(__i386__)
    const int tiles = (count + KeyTiles::kWidth - 1) / KeyTiles::kWidth;
    int r = 0;
    for (; r + 2 <= n_q; r += 2) {
        const float* qs[2] = {q + r * q_stride, q + (r + 1) * q_stride};
        float* os[2] = {out + r * out_stride, out + (r + 1) * out_stride};
        tile_dots_avx512<2>(keys, tiles, qs, os);
    }
    if (r < n_q) {
        const float* qs[1] = {q + r * q_stride};
        float* os[1] = {out + r * out_stride};
        tile_dots_avx512<1>(keys, tiles, qs, os);
    }
#endif
}

} // namespace pyramid::cpu
