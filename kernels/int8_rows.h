#pragma once
// Activations rounded to int8 for the integer dot products (dp4a) of the quantized matvec in
// fp16: each row in blocks of 32 values, q = round(x / scale) with scale = max |x| / 127, the
// rounding of the CPU's int8 path (core/backend/int8_activations.h) bit for bit. Each block
// also keeps scale * (sum of its q), which meets the group minimum of Q4_K and Q5_K once per
// group instead of once per weight.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernel_stream.h"
#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

constexpr int kInt8Block = 32;

// Rounded rows in device memory; default-constructed, none.
struct Int8Rows {
    int8_t* q = nullptr;        // [n, cols]
    float2* factors = nullptr;  // [n, cols / 32]: {scale, scale * sum of the block's q}
    int64_t cols = 0;

    explicit operator bool() const { return q != nullptr; }
};

// Device bytes of n rounded rows of cols values.
size_t int8_rows_bytes(int n, int64_t cols);

// n rows of cols values (a multiple of 32) laid out in `buffer` (int8_rows_bytes(n, cols)
// bytes, 16-byte aligned), to be written by round_rows_int8 or by a kernel that produces x
// (rms_norm, swiglu: their `also_int8`).
Int8Rows int8_rows_in(void* buffer, int n, int64_t cols);

// Rounds x [n, cols] of x_type (cols a multiple of 32) into `buffer` (as int8_rows_in) on
// `stream`; returns the rows.
Int8Rows round_rows_int8(const void* x, Precision x_type, int n, int64_t cols, void* buffer, KernelStream stream);

} // namespace pyramid::cuda
