#pragma once
// Hyperparameters from a Hugging Face LLaMA folder's config.json.
#include <filesystem>

#include "model/model_config.h"

namespace pyramid {

// Reads and checks config.json: model_type "llama" (or a LlamaForCausalLM architecture),
// hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
// num_key_value_heads (defaults to the head count), vocab_size, max_position_embeddings,
// rms_norm_eps, rope_theta and tie_word_embeddings. Settings this engine cannot honour
// (rope_scaling, an activation other than SiLU, a head_dim other than hidden/heads) are
// errors rather than silently wrong output. Sets rope_layout = RotateHalf and name = the
// folder's name. Throws pyramid::Error naming the file and the field.
ModelConfig read_hf_config(const std::filesystem::path& config_json);

} // namespace pyramid
