#pragma once
// A model ready to run: its weights (memory-mapped), its tokenizer, and the backend that
// computes with them.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/backend_loader.h"
#include "model/model_loader.h"
#include "tokenizer/tokenizer.h"

namespace pyramid {

// The tokenizer of model files loaded from `path`: the GGUF's embedded vocabulary, else the
// folder's tokenizer.model. Throws pyramid::Error naming `path` when there is none, when it
// is not valid, or when it has more tokens than the embedding has rows.
Tokenizer load_tokenizer(const std::filesystem::path& path, const LoadedModel& files);

class Model {
public:
    // Throws pyramid::Error naming the file and the problem. `progress` hears 0..1 over reading
    // the files and, unless the CPU is chosen, uploading the weights to a GPU (the second half);
    // what it throws (pyramid::Cancelled) stops the load.
    static std::shared_ptr<Model> open(const std::filesystem::path& path,
                                       const BackendOptions& backend = {},
                                       const std::function<void(double)>& progress = {});

    const ModelConfig& config() const { return files_.weights.config; }
    const LoadedModel& files() const { return files_; }
    const Tokenizer& tokenizer() const { return tokenizer_; }
    Backend& backend() { return *backend_; }
    const std::string& backend_note() const { return backend_note_; }
    const std::filesystem::path& path() const { return path_; }
    size_t weight_bytes() const;

private:
    Model(std::filesystem::path path, LoadedModel files, Tokenizer tokenizer);

    std::filesystem::path path_;
    LoadedModel files_;
    Tokenizer tokenizer_;
    std::unique_ptr<Backend> backend_;
    std::string backend_note_;
};

} // namespace pyramid
