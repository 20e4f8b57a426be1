#pragma once
// A read-only view of one weight matrix as it lies in the model file (usually memory-mapped).
// Backends decode it on the fly; the loader never expands quantized weights to float32.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/tensor_type.h"

namespace pyramid {

struct WeightView {
    std::string name;
    TensorType type = TensorType::F32;
    int64_t rows = 0;  // output features (ggml ne1); 1 for vectors
    int64_t cols = 0;  // input features, contiguous in memory (ggml ne0)
    const std::byte* data = nullptr;

    size_t row_bytes() const { return tensor_row_bytes(type, cols); }
    const std::byte* row(int64_t r) const { return data + static_cast<size_t>(r) * row_bytes(); }
    size_t bytes() const { return static_cast<size_t>(rows) * row_bytes(); }
    int64_t elements() const { return rows * cols; }
};

} // namespace pyramid
