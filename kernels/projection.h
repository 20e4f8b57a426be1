#pragma once
// The linear projections of the model: y = x W^T (+ beta y), float32 accumulation and a
// float32 result, x in the backend's precision. The path depends on how W is stored and on
// the number n of input rows:
//   - float W (fp16 or fp32): one cublasGemmEx. In fp16 this runs on the tensor cores; in fp32
//     it is plain float32 (TF32 stays off, to match the CPU reference).
//   - quantized W, n <= kMaxMatvecRows (decode steps, small batches): quant_matvec reads the
//     blocks directly.
//   - quantized W, larger n (prefill, big batches): W is dequantized a tile of rows at a time
//     into a scratch buffer of the precision (at most kMaxDequantTileBytes of backend/step_memory.h, reused) and each
//     tile goes through cublasGemmEx, so the tensor cores do the arithmetic and a dequantized
//     copy of the whole matrix never exists.
// Everything runs on the cuBLAS handle's stream.
#include <cublas_v2.h>

#include <cstddef>
#include <vector>

#include "backend/step_memory.h"
#include "device_weights.h"

namespace pyramid::cuda {

// Device memory the tile path dequantizes into.
struct DequantScratch {
    void* data = nullptr;
    size_t bytes = 0;
};

// Scratch bytes the tile path wants for these matrices in this precision
// (pyramid::dequant_scratch_bytes of their quantized ones).
size_t dequant_scratch_bytes(const std::vector<const DeviceMatrix*>& matrices, Precision precision);

// y[t, r] = sum_c w[r, c] * x[t, c] + beta * y[t, r] for t < n. x: [n, w.cols] of w.type;
// y: float32 [n, w.rows]. beta = 1 adds the projection to y (the residual connection); with
// beta = 0, y is only written. A quantized w with n > kMaxMatvecRows needs `scratch` (room
// for at least one dequantized row; throws pyramid::Error otherwise).
void project(cublasHandle_t handle, const DeviceMatrix& w, const void* x, int n, float* y, float beta = 0.0f,
             DequantScratch scratch = {});

} // namespace pyramid::cuda
