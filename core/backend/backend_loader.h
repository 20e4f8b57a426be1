#pragma once
// Picks the backend a model runs on. CUDA lives in a separate library (kernels/) loaded at
// run time, so the app runs on the CPU where no GPU, driver or CUDA runtime exists; the
// reason is always reported, never a silent fallback.
#include <memory>
#include <string>

#include "backend/backend.h"

namespace pyramid {

enum class BackendPreference { Auto, Cpu, Cuda };

struct BackendChoice {
    std::unique_ptr<Backend> backend;
    std::string note;  // why this backend: "the CUDA backend from <path>", "running on the CPU: <why>"
};

BackendPreference parse_backend_preference(const std::string& text);  // "auto", "cpu", "cuda"; throws

// The weights must outlive the backend. With Cuda, failure to start CUDA is an error;
// with Auto it falls back to the CPU and says why in the note.
BackendChoice choose_backend(const ModelWeights& weights, BackendPreference preference);

// The plugin's entry point, exported with C linkage by libpyramid_cuda.so. Returns nullptr
// and writes a message into `error` when no usable device exists or the model does not fit.
// Raised whenever the Backend interface changes (2: batched layers and logits, copy bandwidth;
// 3: top logits; 4: step memory; 5: StepExtent without probe rows).
inline constexpr int kBackendPluginAbi = 5;
using CreateBackendFn = Backend* (*)(int abi, const ModelWeights* weights, char* error, size_t error_size);
inline constexpr const char* kCudaPluginLibrary = "libpyramid_cuda.so";
inline constexpr const char* kCudaPluginSymbol = "pyramid_create_cuda_backend";

} // namespace pyramid
