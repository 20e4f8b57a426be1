#pragma once
// LLaMA models stored as a Hugging Face folder: config.json, the weights in model.safetensors
// or in shards named by model.safetensors.index.json, and usually tokenizer.model.
#include <filesystem>
#include <functional>

#include "model/model_loader.h"

namespace pyramid {

// Q and K stay in Hugging Face's rotate-half row order (config.rope_layout = RotateHalf).
// The output projection is tied to the embedding when tie_word_embeddings is set; a folder
// without lm_head.weight that does not set it is refused as incomplete.
LoadedModel load_hf_model(const std::filesystem::path& folder, const std::function<void(double)>& progress);

} // namespace pyramid
