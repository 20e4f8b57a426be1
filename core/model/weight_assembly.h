#pragma once
// The format-independent half of model loading: checks a ModelConfig, then gathers every
// weight a LLaMA model needs through a per-format look-up, checking each shape against the
// config, turning norm vectors into float32 and handling tied output embeddings.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/model_weights.h"

namespace pyramid {

enum class WeightRole {
    TokenEmbedding,
    OutputNorm,
    Output,
    AttnNorm,
    Wq,
    Wk,
    Wv,
    Wo,
    FfnNorm,
    Gate,
    Up,
    Down,
};

// One tensor as the file stores it.
struct StoredTensor {
    std::string name;            // as named in the file, for views and messages
    TensorType type = TensorType::F32;
    std::vector<int64_t> dims;   // outermost first (PyTorch order): {rows, cols} or {n}
    const std::byte* data = nullptr;
};

// Finds the tensor for a role (layer is -1 for the non-layer roles). Returns nullopt when the
// file has none; throws for a tensor that exists but cannot be used. `expected_name` is what
// the error for a missing tensor should call it.
struct TensorSource {
    std::function<std::optional<StoredTensor>(WeightRole role, int layer)> find;
    std::function<std::string(WeightRole role, int layer)> expected_name;
    std::string file;  // named in errors
    // Every tensor the file(s) hold, and which of them may stay unused. Any other tensor the
    // model does not use is an error, as in llama.cpp ("wrong number of tensors"): it means a
    // file that declares fewer layers than it holds, or a feature this engine would skip.
    std::vector<std::string> stored_names;
    std::function<bool(const std::string& name)> may_leave_unused;
};

// Throws pyramid::Error (prefixed with `source`) unless the hyperparameters describe a
// buildable model: positive sizes, heads dividing the width, an even head size, KV heads
// dividing the heads, positive finite eps and theta.
void validate_model_config(const ModelConfig& config, const std::string& source);

// Builds ModelWeights (with `config`) from the source. The output projection becomes the
// token embedding, and config.tied_output true, when config.tied_output is already set or
// the source has no output tensor. Throws pyramid::Error naming the tensors the file holds
// and the model leaves unused (see TensorSource). progress receives values in [0, 1] (may be
// empty).
ModelWeights assemble_weights(ModelConfig config, const TensorSource& source,
                              const std::function<void(double)>& progress);

} // namespace pyramid
