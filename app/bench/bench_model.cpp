#include "bench_model.h"

#include <chrono>

#include "memory_estimate.h"
#include "model/model_shapes.h"
#include "model/synthetic_weights.h"
#include "util/error.h"
#include <spdlog/spdlog.h>

namespace pyramid::bench {

BenchModel::BenchModel(const ModelSource& source, BackendPreference device)
{
    const auto start = std::chrono::steady_clock::now();
    if (source.file) {
        file_ = std::make_unique<LoadedModel>(load_model_files(*source.file));
        name_ = source.file->filename().string();
        source_ = "file";
        weight_type_ = std::string(tensor_type_traits(file_->weights.layers.at(0).wq.type).name);
    } else {
        const ModelShape& shape = find_model_shape(source.shape);
        // Only the CPU needs float values in host memory; CUDA generates them on the device.
        const bool on_host = device == BackendPreference::Cpu;
        if (device == BackendPreference::Auto)
            throw Error("generated weights need --device cpu or --device cuda (they are made where they are used)");
        generated_ = std::make_unique<ModelWeights>(
            generate_model_weights(shape.config, source.storage, source.seed, on_host));
        name_ = shape.name;
        source_ = "shape";
        weight_type_ = source.storage.name();
    }
    BackendChoice choice = choose_backend(weights(), device);
    backend_ = std::move(choice.backend);
    note_ = choice.note;
    load_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // What one decode step reads, as the backend stores the weights.
    const inspect::WeightMemory read = inspect::weight_memory(weights(), false);
    weight_bytes_ = backend_->info().name == "cuda" ? read.cuda_fp16_bytes : read.cpu_bytes;
    spdlog::info("bench model {} ({} weights) on {}: {}", name_, weight_type_, backend_->info().name, note_);
}

} // namespace pyramid::bench
