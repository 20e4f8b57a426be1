#pragma once
// Named model shapes for benchmarks: the exact dimensions of the LLaMA-2 models, and smaller
// shapes that run on the CPU in reasonable time. Paired with generated weights
// (model/synthetic_weights.h) they stand in for a model file: speed does not depend on the
// weights' values, only on the shape and the storage type.
#include <string>
#include <string_view>
#include <vector>

#include "model/model_config.h"

namespace pyramid {

struct ModelShape {
    std::string name;         // "tiny", "small", "llama2-7b", "llama2-13b"
    std::string description;  // one line for help texts
    ModelConfig config;       // config.name == name
};

// In this order: tiny and small (CPU sizes), llama2-7b and llama2-13b (the real dimensions).
// All use head_dim = dim / n_heads, no grouped-query attention, rope_theta 10000, rms_eps 1e-5,
// Hugging Face's rotate-half RoPE layout and an untied output matrix.
const std::vector<ModelShape>& model_shapes();

// Throws pyramid::Error naming the unknown shape and listing the known ones.
const ModelShape& find_model_shape(std::string_view name);

} // namespace pyramid
