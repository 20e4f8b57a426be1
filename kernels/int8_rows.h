#pragma once
// Activations rounded to int8 for the integer dot products (dp4a) of the quantized matvec in
// fp16: each row in blocks of 32 values, q = round(x / scale) with scale = max |x| / 127, the
// rounding of the CPU's int8 path (core/backend/int8_activations.h) bit for bit. Each block
// also keeps scale * (sum of its q), which meets the group minimum of Q4_K and Q5_K once per
// group instead of once per weight.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "precision.h"

namespace pyramid::cuda {

constexpr int kInt8Block = 32;

// A view of rounded rows in device memory.
struct Int8Rows {
    const int8_t* q = nullptr;        // [n, cols]
    const float2* factors = nullptr;  // [n, cols / 32]: {scale, scale * sum of the block's q}
    int64_t cols = 0;
};

// Device bytes round_rows_int8 writes for n rows of cols values.
size_t int8_rows_bytes(int n, int64_t cols);

// Rounds x [n, cols] of x_type (cols a multiple of 32) into `buffer` (int8_rows_bytes(n, cols)
// bytes, 16-byte aligned) on `stream`; returns the view of it.
Int8Rows round_rows_int8(const void* x, Precision x_type, int n, int64_t cols, void* buffer, cudaStream_t stream);

} // namespace pyramid::cuda
