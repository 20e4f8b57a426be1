#pragma once
// The model a benchmark runs: a model file, or generated weights of a named shape
// (model/model_shapes.h), on the backend asked for. Generated float weights are made where the
// backend computes: on the host for the CPU, on the GPU itself for CUDA (13 GB in seconds);
// quantized ones (random blocks) on the host, uploaded as they are.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "backend/backend_loader.h"
#include "model/model_loader.h"
#include "model/synthetic_storage.h"

namespace pyramid::bench {

struct ModelSource {
    std::optional<std::filesystem::path> file;
    std::string shape;                            // when no file
    SyntheticStorage storage;                     // of generated matrices
    uint64_t seed = 1;
};

class BenchModel {
public:
    // Throws pyramid::Error naming the file, shape or device problem.
    BenchModel(const ModelSource& source, const BackendOptions& backend);

    Backend& backend() { return *backend_; }
    const Backend& backend() const { return *backend_; }
    const ModelConfig& config() const { return weights().config; }
    const std::string& name() const { return name_; }
    const std::string& source() const { return source_; }       // "file" or "shape"
    const std::string& weight_type() const { return weight_type_; }
    size_t weight_bytes() const { return weight_bytes_; }        // as the backend stores them, read once per step
    // Every tensor as stored in the file (or generated), a tied matrix once, and their elements:
    // what llama.cpp reports as model_size and model_n_params for the same file.
    size_t stored_bytes() const { return stored_bytes_; }
    size_t parameters() const { return parameters_; }
    double load_seconds() const { return load_seconds_; }
    const std::string& backend_note() const { return note_; }

private:
    const ModelWeights& weights() const { return file_ ? file_->weights : *generated_; }

    std::unique_ptr<LoadedModel> file_;
    std::unique_ptr<ModelWeights> generated_;
    std::unique_ptr<Backend> backend_;
    std::string name_, source_, weight_type_, note_;
    size_t weight_bytes_ = 0, stored_bytes_ = 0, parameters_ = 0;
    double load_seconds_ = 0;
};

} // namespace pyramid::bench
