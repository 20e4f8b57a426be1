#include "backend/quant_matmul.h"

#include <algorithm>

#include "backend/float_dot.h"
#include "backend/tile_decoder.h"

namespace pyramid::cpu {

void matmul_rows(const WeightView& w, const float* x, int n, float* y, int64_t row_begin, int64_t row_end,
                 KernelIsa isa)
{
    // One token stays on the AVX2 tile path, whose rows stream from memory as one sequence: 4
    // rows at a time made a decode step 1.5x slower. From 2 tokens on the blocks win (batch 8
    // decode of F32 weights 1.6x).
    if (isa == KernelIsa::Avx512Vnni && n >= 2)
        detail::matmul_rows_avx512(w, x, n, y, row_begin, row_end);
    else if (runs_avx2(isa))
        detail::matmul_rows_avx2(w, x, n, y, row_begin, row_end);
    else
        detail::matmul_rows_generic(w, x, n, y, row_begin, row_end);
}

void detail::matmul_rows_generic(const WeightView& w, const float* x, int n, float* y, int64_t row_begin,
                                 int64_t row_end)
{
    const int64_t cols = w.cols;
    const auto& traits = tensor_type_traits(w.type);
    const size_t row_bytes = w.row_bytes();
    const TileDecoder decode = tile_decoder(w.type, KernelIsa::Generic);
    float tile[kDecodeTileElems];
    float sums[kMatmulTokenTile];
    for (int t0 = 0; t0 < n; t0 += kMatmulTokenTile) {
        const int nt = std::min(kMatmulTokenTile, n - t0);
        const float* xt = x + static_cast<int64_t>(t0) * cols;
        for (int64_t r = row_begin; r < row_end; ++r) {
            const std::byte* row = w.data + static_cast<size_t>(r) * row_bytes;
            std::fill_n(sums, nt, 0.0f);
            for (int64_t c0 = 0; c0 < cols; c0 += kDecodeTileElems) {
                const int64_t len = std::min(kDecodeTileElems, cols - c0);
                const std::byte* src = row + static_cast<size_t>(c0 / traits.block_elems) * traits.block_bytes;
                const float* wt = tile;
                if (w.type == TensorType::F32)
                    wt = reinterpret_cast<const float*>(src);
                else
                    decode(src, tile, len);
                for (int t = 0; t < nt; ++t)
                    sums[t] += dot(wt, xt + t * cols + c0, len);
            }
            for (int t = 0; t < nt; ++t)
                y[static_cast<int64_t>(t0 + t) * w.rows + r] = sums[t];
        }
    }
}

} // namespace pyramid::cpu
