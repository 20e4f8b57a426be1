#pragma once
// What a model file or folder holds, read straight from its headers: format, hyperparameters,
// tokenizer facts and every stored tensor (memory-mapped, so nothing is loaded or decoded
// until asked).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/model_config.h"
#include "model/tensor_type.h"

namespace pyramid::inspect {

struct TensorEntry {
    std::string name;
    std::string type_name;           // ggml's name ("q4_K", "f32"), or a safetensors dtype in lower case
    std::optional<TensorType> type;  // empty for dtypes that are not weights (safetensors I64, ...)
    std::vector<int64_t> shape;      // in the file's own order (see ModelContents::shape_order)
    int64_t elements = 0;
    size_t bytes = 0;                // bytes in the file
    const std::byte* data = nullptr; // into the mapped file
};

struct TokenizerFacts {
    std::string kind;     // e.g. "SentencePiece (GGUF tokenizer.ggml.model = llama)"
    std::string chat_template;  // the family of the file's chat template, or why there is none
    int vocab_size = 0;
    int32_t bos_id = -1;  // -1: none
    int32_t eos_id = -1;
    std::string bos_piece, eos_piece;
    bool add_bos = true;
};

struct ModelContents {
    std::filesystem::path path;
    std::string format;       // "GGUF v3", "safetensors (Hugging Face folder)"
    std::string shape_order;  // how TensorEntry::shape reads
    uint64_t file_bytes = 0;  // all model files together
    ModelConfig config;
    std::vector<std::pair<std::string, std::string>> facts;  // further key/value lines worth showing
    std::optional<TokenizerFacts> tokenizer;                  // empty: the model names no tokenizer
    std::vector<TensorEntry> tensors;                         // file order (HF: shard by shard)
    std::vector<std::shared_ptr<const void>> mappings;        // keep `data` pointers valid
};

// A .gguf file or a Hugging Face folder. Throws pyramid::Error naming the file and problem.
ModelContents read_model_contents(const std::filesystem::path& path);

} // namespace pyramid::inspect
