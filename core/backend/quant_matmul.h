#pragma once
// The float32 side of the CPU matmul, single-threaded, directly on a weight matrix as it is
// stored: the path of F32, F16 and BF16 weights, and of quantized ones under
// QuantizedDot::Exact (kernel_config.h). For one token (up to 16 on AVX2) each row is decoded a
// tile at a time into a small float32 buffer (tile_decoder.h) and dotted there with every
// token's activations; for more the call's rows are decoded once, whole, and every token passes
// over them while they sit in L2. Either way a quantized model never exists as float32.
//
// The products are exactly those of the dequantized float32 matrix; only the float32
// summation order differs (eight lanes and several independent sums on AVX2, the same for a
// stored F32 row as for a decoded tile), so results match a float32 model built from
// to_float to rounding. cpu::matmul (cpu_kernels.h) splits rows over threads and calls this.
#include <cstdint>

#include "backend/kernel_config.h"
#include "backend/tile_decoder.h"
#include "model/weight_view.h"

namespace pyramid::cpu {

// Weights decoded per tile: one K-quant super-block, eight blocks of the 32-element types.
constexpr int64_t kDecodeTileElems = 256;
// Tokens whose activations are reused while a decoded tile sits in L1. A call with more tokens
// decodes its rows once (detail::decoded_rows) and runs them past tiles of this many tokens.
constexpr int kMatmulTokenTile = 16;

// y[t * w.rows + r] = sum_c w[r, c] * x[t * w.cols + c] for t < n and r in [row_begin, row_end),
// on the calling thread with the kernels of `isa` (which must be supported: kernel_config.h).
void matmul_rows(const WeightView& w, const float* x, int n, float* y, int64_t row_begin, int64_t row_end,
                 KernelIsa isa);

namespace detail {
// Rows [row_begin, row_end) of w as float32, one after another: w's own rows for F32, else
// decoded by `decode` into the calling thread's buffer, valid until its next call. x86 only
// (the AVX2 and AVX-512 kernels call it).
const float* decoded_rows(const WeightView& w, int64_t row_begin, int64_t row_end, TileDecoder decode);

void matmul_rows_generic(const WeightView& w, const float* x, int n, float* y, int64_t row_begin, int64_t row_end);
void matmul_rows_avx2(const WeightView& w, const float* x, int n, float* y, int64_t row_begin, int64_t row_end);
// Two or more tokens on AVX-512 (KernelIsa::Avx512Vnni), bit for bit what matmul_rows_avx2 gives.
void matmul_rows_avx512(const WeightView& w, const float* x, int n, float* y, int64_t row_begin, int64_t row_end);
} // namespace detail

} // namespace pyramid::cpu
