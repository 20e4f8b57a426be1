#pragma once
// Entry point for loading a LLaMA model from disk, in either format the app accepts:
// a GGUF file (any mix of the weight types in tensor_type.h) or a Hugging Face folder
// (config.json plus model.safetensors or shards listed in model.safetensors.index.json,
// stored as F32, F16 or BF16).
//
// Big weights stay where they are in the memory-mapped files; only norm vectors are
// converted (to float32). Every tensor's shape is checked against the config, and any
// defect throws pyramid::Error naming the file, tensor or field, expected and found.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "model/model_weights.h"
#include "tokenizer/vocab.h"

namespace pyramid {

struct LoadedModel {
    ModelWeights weights;
    std::string format;                        // "gguf" or "safetensors"
    std::optional<EmbeddedVocab> vocab;        // GGUF with tokenizer.ggml.model (Model lets it go)
    std::filesystem::path tokenizer_model;     // HF folder: <folder>/tokenizer.model if present
    std::string chat_template;                 // GGUF tokenizer.chat_template (Jinja), "" if absent
};

// path: a .gguf file or a Hugging Face folder. progress in 0..1 (may be empty).
LoadedModel load_model_files(const std::filesystem::path& path, const std::function<void(double)>& progress = {});

// False only for a GGUF file whose header says it holds no tensors: a tokenizer's vocabulary
// (llama.cpp's ggml-vocab-*.gguf), which cannot answer, and for something that is not a
// regular file (a FIFO named *.gguf would block the search). Anything else may be a model; one
// that is not says so when loaded. Reads 16 bytes.
bool may_hold_model(const std::filesystem::path& gguf_file);

} // namespace pyramid
