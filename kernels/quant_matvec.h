#pragma once
// The decode path of quantized projections: y = x W^T (+ beta y) for a few rows of x, reading
// W's blocks directly (no dequantized copy), so a decode step moves only the quantized bytes.
// One warp per output row walks the row, each lane taking eight elements at a time (32 for
// Q4_K and Q5_K in the int8 path: k4_segments.cuh), and the lanes' float32 partial sums are
// added by shuffles. Two ways to multiply:
//   - quant_matvec: float activations and the exact weights (quant_blocks.cuh decode8), the
//     products and sums in float32: the fp32 backend's path, which matches the CPU's exact one.
//   - quant_matvec_int8: activations rounded to int8 per 32 (int8_rows.h) against the weights'
//     integer quants, four products per dp4a instruction, each group's scale applied to the
//     exact integer sums: the fp16 backend's path (the CPU's int8 one; llama.cpp's MMVQ does
//     the same). Decoding every weight to float costs some six operations a weight, more than
//     an H100 can spend per byte at its memory bandwidth; this costs about one.
#include <cuda_runtime.h>

#include "kernel_stream.h"
#include "int8_rows.h"
#include "matvec_parts.h"
#include "model/tensor_type.h"
#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

// y[t, r] = sum_c W[r, c] x[t, c] (+ beta y[t, r] when beta != 0; y is not read when beta is 0)
// for t < n <= kMaxMatvecRows and r < rows. W: [rows, cols] raw blocks of `type` (one that
// stays quantized, cols whole blocks); x: [n, cols] in x_type (the backend's precision: the
// normed or activated buffer, as the GEMM path gets it); y: float32 [n, rows]. The products
// and sums are float32; only their order differs from the CPU's.
void quant_matvec(TensorType type, const void* blocks, int64_t rows, int64_t cols, const void* x, Precision x_type,
                  int n, float* y, float beta, KernelStream stream);

// The same with x rounded by round_rows_int8 (x.cols == cols): the integer products are exact,
// so the result is that of the exact weights times the rounded activations, to float32 rounding.
void quant_matvec_int8(TensorType type, const void* blocks, int64_t rows, int64_t cols, const Int8Rows& x, int n,
                       float* y, float beta, KernelStream stream);

// The same for the parts (matvec_parts.h) of one type and width that multiply x, in one launch.
void quant_matvec_int8(TensorType type, const MatvecParts& parts, int64_t cols, const Int8Rows& x, int n, float beta,
                       KernelStream stream);

} // namespace pyramid::cuda
