#pragma once
// The decode path of quantized projections: y = x W^T (+ beta y) for a few rows of x, reading
// W's blocks directly (no dequantized copy), so a decode step moves only the quantized bytes.
// Memory-bound: one warp per output row walks the row a 256-element stretch at a time (each
// lane decodes eight elements with quant_blocks.cuh and multiplies them with every input row),
// then the lanes' float32 partial sums are added by shuffles.
#include <cuda_runtime.h>

#include "model/tensor_type.h"
#include "precision.h"

namespace pyramid::cuda {

// Most input rows one call takes (the accumulators live in registers); more go through the
// tile path of projection.h.
constexpr int kMaxMatvecRows = 8;

// y[t, r] = sum_c W[r, c] x[t, c] (+ beta y[t, r] when beta != 0; y is not read when beta is 0)
// for t < n <= kMaxMatvecRows and r < rows. W: [rows, cols] raw blocks of `type` (one that
// stays quantized, cols whole blocks); x: [n, cols] in x_type (the backend's precision: the
// normed or activated buffer, as the GEMM path gets it); y: float32 [n, rows]. The products
// and sums are float32; only their order differs from the CPU's.
void quant_matvec(TensorType type, const void* blocks, int64_t rows, int64_t cols, const void* x, Precision x_type,
                  int n, float* y, float beta, cudaStream_t stream);

} // namespace pyramid::cuda
