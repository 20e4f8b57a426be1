#pragma once
// The model's weights on the GPU, converted once at load: matrices to the backend's precision,
// norm vectors to float32. Conversion runs on the host a chunk of rows at a time through each
// type's to_float decoder, so no full float32 copy of the model ever exists in host memory.
// Generated weights whose views have no data (ModelWeights::synthetic) are made on the GPU
// instead (synthetic_ops.h), with the values the host generator would have uploaded.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "device_buffer.h"
#include "model/model_weights.h"
#include "precision.h"

namespace pyramid::cuda {

// A row-major [rows, cols] matrix on the device (rows = output features).
struct DeviceMatrix {
    const void* data = nullptr;
    int64_t rows = 0;
    int64_t cols = 0;
    Precision type = Precision::Fp16;
};

struct DeviceLayer {
    const float* attn_norm = nullptr;
    DeviceMatrix wq, wk, wv, wo;
    const float* ffn_norm = nullptr;
    DeviceMatrix w_gate, w_up, w_down;
};

class DeviceWeights {
public:
    // Throws pyramid::Error when the device lacks the memory (bytes needed vs free) or a
    // tensor cannot be decoded.
    DeviceWeights(const ModelWeights& weights, Precision precision);

    // Device bytes the weights take in this precision (a tied output matrix counted once).
    static size_t bytes_needed(const ModelWeights& weights, Precision precision);

    const DeviceMatrix& token_embedding() const { return embedding_; }
    const DeviceMatrix& output() const { return output_; }
    const float* output_norm() const { return output_norm_; }
    const DeviceLayer& layer(int l) const { return layers_[static_cast<size_t>(l)]; }
    size_t bytes() const { return arena_.bytes(); }

private:
    DeviceBuffer arena_;  // one allocation: a clear yes or no on whether the model fits
    DeviceMatrix embedding_, output_;
    const float* output_norm_ = nullptr;
    std::vector<DeviceLayer> layers_;
};

} // namespace pyramid::cuda
