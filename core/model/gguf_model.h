#pragma once
// LLaMA models stored as GGUF (llama.cpp's conversion of the Hugging Face weights).
#include <filesystem>
#include <functional>

#include "model/gguf_file.h"
#include "model/model_loader.h"

namespace pyramid {

// Hyperparameters from general.architecture (must be "llama") and the llama.* keys. The
// vocabulary size comes from token_embd.weight, which llama.vocab_size and the embedded token
// list must agree with. rope_layout is Interleaved (the converter permuted Q and K).
ModelConfig read_gguf_config(const GgufFile& file);

// The whole model: config, weight views into the map, embedded vocabulary.
LoadedModel load_gguf_model(const std::filesystem::path& path, const std::function<void(double)>& progress);

} // namespace pyramid
