#pragma once
// The decode path of fp16 weights: y = x W^T (+ beta y) for up to kMaxMatvecRows rows of x,
// W and x in fp16, the products and sums in float32 (as cublasGemmEx's CUBLAS_COMPUTE_32F).
//
// Why not cuBLAS: at one input row a GEMM is a matrix-vector product, bound by reading W once,
// and cublasGemmEx read a 4096 x 4096 fp16 matrix at 64 % of the H100's copy bandwidth (74 % at
// eight rows; docs/perf/gpu-h100/gpu-kernels.md), while a decode step of an fp16 model is
// nearly all such products. Here a warp takes an output row (matvec_rows.cuh) and each lane
// reads eight weights (16 bytes) a step, with the loads of several steps issued before the
// first product: eight steps at one input row, so a 4096-wide row is two rounds of 4 KiB a
// warp in flight.
//
// Each output row's sum runs in the same order whatever n is (a lane's steps in column order,
// then the warp's shuffle tree), so a sequence's logits do not depend on what else is in its
// batch, as long as the batch takes this path.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernel_stream.h"
#include "matvec_parts.h"

namespace pyramid::cuda {

// Most input rows project() gives half_matvec (it takes up to kMaxMatvecRows); cuBLAS takes
// more. Each fp16 weight costs a lane a conversion and, per input row, one more conversion and
// a multiply-add: some 76 instructions per 16 bytes of weights at four rows, about half of what
// an H100 issues in the time its memory moves them, but 144 at eight, about as many, where
// cublasGemmEx already read 74 % of the copy bandwidth. The kernel bench times both at each.
constexpr int kHalfMatvecRows = 4;

// Whether half_matvec takes fp16 weights at `weights` with rows of `cols` and activations at
// `x`: 16-byte loads need both 16-byte aligned and cols a multiple of eight. Otherwise the
// caller takes cuBLAS.
bool half_matvec_fits(const void* weights, int64_t cols, const void* x);

// y[t, r] = sum_c W[r, c] x[t, c] (+ beta y[t, r] when beta != 0; y is not read when beta is 0)
// for t < n <= kMaxMatvecRows, for each part's W [rows, cols] (fp16) and y (float32 [n, rows]),
// all multiplying x: fp16 [n, cols]. Throws pyramid::Error for more rows or parts than it
// takes, or weights and x that do not fit.
void half_matvec(const MatvecParts& parts, int64_t cols, const void* x, int n, float beta, KernelStream stream);

// The same for one matrix.
void half_matvec(const void* weights, int64_t rows, int64_t cols, const void* x, int n, float* y, float beta,
                 KernelStream stream);

} // namespace pyramid::cuda
