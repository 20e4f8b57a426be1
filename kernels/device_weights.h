#pragma once
// The model's weights on the GPU. Matrices stored in a quantized GGUF type (Q4_0 ... Q6_K,
// dequantize_ops.h: stays_quantized) are uploaded as their blocks, in the device's block layout
// (backend/device_weight_layout.h: the file's, Q6_K's regrouped eight blocks at a time), and
// decoded by the projection kernels as they run (projection.h). Float matrices (F32, F16, BF16) are
// converted once to the backend's precision, on the host a chunk of rows at a time through
// each type's to_float decoder, so no full float32 copy of the model ever exists in host
// memory. Norm vectors become float32.
// Generated weights whose views have no data (ModelWeights::synthetic) are made on the GPU
// instead (synthetic_ops.h), with the values the host generator would have uploaded.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "device_buffer.h"
#include "model/model_weights.h"
#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

// A row-major [rows, cols] matrix on the device (rows = output features).
struct DeviceMatrix {
    const void* data = nullptr;
    int64_t rows = 0;
    int64_t cols = 0;
    // The backend's precision: that of the elements of a float matrix, and of the inputs every
    // projection by this matrix takes.
    Precision type = Precision::Fp16;
    // Set when `data` holds blocks of this quantized type (rows of whole blocks, in the
    // device's block layout: backend/device_weight_layout.h).
    std::optional<TensorType> quantized;

    // How the elements lie in memory: the quantized type, or F16/F32 for the precision.
    TensorType storage() const
    {
        return quantized ? *quantized : (type == Precision::Fp16 ? TensorType::F16 : TensorType::F32);
    }
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
    // tensor cannot be decoded. `progress` (may be empty) hears the fraction of the bytes placed
    // after each tensor; what it throws ends the upload (the memory is freed).
    DeviceWeights(const ModelWeights& weights, Precision precision,
                  const std::function<void(double)>& progress = {});

    // Device bytes the weights take in this precision, quantized matrices at their device block
    // size (a tied output matrix counted once).
    static size_t bytes_needed(const ModelWeights& weights, Precision precision);

    const DeviceMatrix& token_embedding() const { return embedding_; }
    const DeviceMatrix& output() const { return output_; }
    const float* output_norm() const { return output_norm_; }
    const DeviceLayer& layer(int l) const { return layers_[static_cast<size_t>(l)]; }
    size_t bytes() const { return arena_.bytes(); }
    // The output matrix and every layer's matrices: what the projections read.
    std::vector<const DeviceMatrix*> projected_matrices() const;

private:
    DeviceBuffer arena_;  // one allocation: a clear yes or no on whether the model fits
    DeviceMatrix embedding_, output_;
    const float* output_norm_ = nullptr;
    std::vector<DeviceLayer> layers_;
};

} // namespace pyramid::cuda
