// Key tiles and their dot kernels (key_tiles.h). Built with -ffp-contract=off (core/CMakeLists.txt):
// AVX-512 brings FMA with it, and a fused multiply-add would round once where float_dot.h's
// dot rounds the product and the sum apart.
#include "backend/key_tiles.h"

#include <cassert>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pyramid::cpu {

template <typename Stored>
void KeyTiles::lay_out(const Stored* rows, int64_t stride, int count, int n)
{
    if (rows == rows_ && count == count_ && n == n_)
        return;
    const int tiles = (count + kWidth - 1) / kWidth;
    values_.assign(static_cast<size_t>(tiles) * n * kWidth, 0.0f);
    for (int j = 0; j < count; ++j) {
        const Stored* row = rows + j * stride;
        float* column = values_.data() + static_cast<size_t>(j / kWidth) * n * kWidth + j % kWidth;
        for (int i = 0; i < n; ++i)
            column[static_cast<size_t>(i) * kWidth] = value_at(row, i);
    }
    rows_ = rows;
    count_ = count;
    n_ = n;
}

template void KeyTiles::lay_out(const float*, int64_t, int, int);
template void KeyTiles::lay_out(const Half*, int64_t, int, int);
template void KeyTiles::lay_out(const KvQ8Block*, int64_t, int, int);
template void KeyTiles::lay_out(const KvQ4Block*, int64_t, int, int);

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
