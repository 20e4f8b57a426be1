#include "bench_model.h"

#include <chrono>

#include "memory_estimate.h"
#include "model/model_shapes.h"
#include "model/synthetic_weights.h"
#include "util/error.h"
#include <spdlog/spdlog.h>

namespace pyramid::bench {

BenchModel::BenchModel(const ModelSource& source, const BackendOptions& backend)
{
    const auto start = std::chrono::steady_clock::now();
    BackendChoice choice;
    if (source.file) {
        file_ = std::make_unique<LoadedModel>(load_model_files(*source.file));
        name_ = source.file->filename().string();
        source_ = "file";
        weight_type_ = std::string(tensor_type_traits(file_->weights.layers.at(0).wq.type).name);
        choice = choose_backend(weights(), backend);
    } else {
        const ModelShape& shape = find_model_shape(source.shape);
        name_ = shape.name;
        source_ = "shape";
        weight_type_ = source.storage.name();
        const auto generate = [&](bool on_host) {
            generated_ = std::make_unique<ModelWeights>(
                generate_model_weights(shape.config, source.storage, source.seed, on_host));
        };
        // Float weights are made where they are used: CUDA makes them on the GPU, only the CPU
        // needs them in host memory. Auto tries CUDA first and makes host ones if it cannot start.
        if (backend.device != BackendPreference::Cpu) {
            generate(false);
            if (backend.device == BackendPreference::Cuda) {
                choice = choose_backend(weights(), backend);
            } else {
                std::string note;
                if (auto cuda = load_cuda_backend(weights(), backend, note))
                    choice = {std::move(cuda), std::move(note)};
                else
                    choice.note = "running on the CPU: " + note;
            }
        }
        if (!choice.backend) {
            std::string fallback = std::move(choice.note);
            generate(true);
            BackendOptions on_cpu = backend;
            on_cpu.device = BackendPreference::Cpu;
            choice = choose_backend(weights(), on_cpu);
            if (!fallback.empty())
                choice.note = std::move(fallback);
        }
    }
    backend_ = std::move(choice.backend);
    note_ = choice.note;
    load_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // What one decode step reads, as the backend stores the weights.
    const inspect::WeightMemory read = inspect::weight_memory(weights(), false);
    weight_bytes_ = backend_->info().name == "cuda" ? read.cuda_fp16_bytes : read.cpu_bytes;
    const inspect::WeightMemory stored = inspect::weight_memory(weights(), true);
    stored_bytes_ = stored.cpu_bytes;
    parameters_ = stored.parameters;
    spdlog::info("bench model {} ({} weights) on {}: {}", name_, weight_type_, backend_->info().name, note_);
}

} // namespace pyramid::bench
