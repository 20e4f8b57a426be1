#pragma once
// Quantized weight rows decoded on the device: tiles of a matrix for the tensor-core GEMM path
// of projection.h, and the token rows of a quantized embedding table. The values are bit for
// bit core's to_float decoders (quant_blocks.cuh), then rounded to the output precision (fp16
// round to nearest even, as the host's fp32_to_fp16).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernel_stream.h"
#include "model/tensor_type.h"
#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

// Whether the CUDA backend keeps `type` as its blocks (Q4_0 ... Q6_K) instead of
// converting it to its precision at load.
bool stays_quantized(TensorType type);

// out[i, :] = row (first_row + i) of the [*, cols] matrix of `type` blocks at `blocks`, for
// i < rows, as a dense [rows, cols] matrix of out_type. `type` must stay quantized.
void dequantize_rows(TensorType type, const void* blocks, int64_t cols, int64_t first_row, int64_t rows, void* out,
                     Precision out_type, KernelStream stream);

// out[t, :] = row ids[t] of the matrix, as float32, for t < n (an embedding lookup; the ids
// must be valid, checked by the caller).
void dequantize_gathered_rows(TensorType type, const void* blocks, int64_t cols, const int32_t* ids, int n,
                              float* out, KernelStream stream);

} // namespace pyramid::cuda
