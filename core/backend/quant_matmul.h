#pragma once
// The float32 side of the CPU matmul, single-threaded, directly on a weight matrix as it is
// stored: the path of F32, F16 and BF16 weights, and of quantized ones under
// QuantizedDot::Exact (kernel_config.h). Each row is decoded a tile at a time into a small
// float32 buffer (tile_decoder.h) and dotted there with every token's activations, so the
// decode is paid once per tile of tokens and a quantized model never exists as float32.
//
// The products are exactly those of the dequantized float32 matrix; only the float32
// summation order differs (eight lanes and several independent sums on AVX2, the same for a
// stored F32 row as for a decoded tile), so results match a float32 model built from
// to_float to rounding. cpu::matmul (cpu_kernels.h) splits rows over threads and calls this.
#include <cstdint>

#include "backend/kernel_config.h"
#include "model/weight_view.h"

namespace pyramid::cpu {

// Weights decoded per tile: one K-quant super-block, eight blocks of the 32-element types.
constexpr int64_t kDecodeTileElems = 256;
// Tokens whose activations are reused while a decoded tile sits in L1.
constexpr int kMatmulTokenTile = 16;

// y[t * w.rows + r] = sum_c w[r, c] * x[t * w.cols + c] for t < n and r in [row_begin, row_end),
// on the calling thread with the kernels of `isa` (which must be supported: kernel_config.h).
void matmul_rows(const WeightView& w, const float* x, int n, float* y, int64_t row_begin, int64_t row_end,
                 KernelIsa isa);

namespace detail {
void matmul_rows_generic(const WeightView& w, const float* x, int n, float* y, int64_t row_begin, int64_t row_end);
void matmul_rows_avx2(const WeightView& w, const float* x, int n, float* y, int64_t row_begin, int64_t row_end);
} // namespace detail

} // namespace pyramid::cpu
