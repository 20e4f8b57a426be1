#pragma once
// A float32 copy of a model's weights, each tensor decoded with its type's to_float (so
// bit-identical to ggml's dequantization). It is the reference that tests compare the
// quantized kernels with and the float32 baseline of benchmarks; inference never uses it,
// because the CPU and CUDA backends read quantized weights in place.
#include "model/model_weights.h"

namespace pyramid {

// Same config and names, every view F32, backed by buffers in the copy's `storage` (the
// copy does not need the original afterwards). A tied output stays tied.
ModelWeights dequantized_copy(const ModelWeights& weights);

} // namespace pyramid
