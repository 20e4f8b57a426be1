#pragma once
// All weights of a loaded model as typed views, plus the storage that keeps them alive.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/model_config.h"
#include "model/weight_view.h"

namespace pyramid {

struct LayerWeights {
    WeightView attn_norm;  // [1, dim], always F32 (the loader converts norms)
    WeightView wq;         // [n_heads*head_dim, dim]
    WeightView wk;         // [n_kv_heads*head_dim, dim]
    WeightView wv;         // [n_kv_heads*head_dim, dim]
    WeightView wo;         // [dim, n_heads*head_dim]
    WeightView ffn_norm;   // [1, dim], always F32
    WeightView w_gate;     // [ffn_dim, dim]
    WeightView w_up;       // [ffn_dim, dim]
    WeightView w_down;     // [dim, ffn_dim]
};

// Where generated weights come from (model/synthetic_weights.h): the values follow from the
// seed (model/synthetic_value.h); float matrices are stored as matrix_type, norms as F32 ones.
struct SyntheticSource {
    uint64_t seed = 0;
    TensorType matrix_type = TensorType::F16;
};

struct ModelWeights {
    ModelConfig config;
    WeightView token_embedding;  // [n_vocab, dim]
    WeightView output_norm;      // [1, dim], always F32
    WeightView output;           // [n_vocab, dim]; same view as token_embedding when tied
    std::vector<LayerWeights> layers;
    // Memory maps and converted buffers the views point into.
    std::vector<std::shared_ptr<const void>> storage;
    // Set for generated weights. When their views have no data (generated "off the host"), a
    // backend that supports it makes the values itself from this; others must refuse them.
    std::optional<SyntheticSource> synthetic;
};

// Every tensor of the model in GGUF file order (token_embd, output_norm, output, then each
// layer's in LayerWeights order), the output left out when it is the tied embedding.
std::vector<const WeightView*> stored_views(const ModelWeights& weights);

} // namespace pyramid
