#pragma once
// Picks the backend a model runs on. CUDA lives in a separate library (kernels/) loaded at
// run time, so the app runs on the CPU where no GPU, driver or CUDA runtime exists; the
// reason is always reported, never a silent fallback.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/backend_abi.h"
#include "backend/cpu_backend.h"
#include "backend/cuda_backend_options.h"
#include "backend/kernel_config.h"
#include "backend/kv_precision.h"
#include "backend/plugin_fault.h"

namespace pyramid {

enum class BackendPreference { Auto, Cpu, Cuda };

// Where a model runs and how, every choice passed in (a program that lets its environment
// choose: backend_environment.h). A BackendPreference alone means float32 CPU entries and the
// best kernels this CPU has; one KvPrecision sets keys and values alike.
struct BackendOptions {
    BackendOptions(BackendPreference device = BackendPreference::Auto, KvTypes cpu_kv = KvPrecision::F32)
        : device(device), cpu_kv(cpu_kv)
    {
    }
    BackendPreference device;
    KvTypes cpu_kv;  // the CPU backend's KV cache; the CUDA backend's is always fp16
    CpuKvMemory cpu_kv_memory;  // the CPU backend's KV blocks and their capacity
    cpu::KernelConfig cpu_kernels = cpu::best_kernel_config();
    int cpu_threads = 0;  // the CPU backend's threads; 0: one per performance core (cpu_cores.h)
    cuda::CudaBackendOptions cuda;  // handed to the CUDA backend library as it starts
    // Looked in first for the CUDA backend library. Named, it is tried even without the NVIDIA
    // driver: it may hold a backend that needs none (the tests' CPU emulation of the device).
    std::filesystem::path plugin_dir;
};

struct BackendChoice {
    std::unique_ptr<Backend> backend;
    std::string note;  // why this backend: "the CUDA backend from <path>", "running on the CPU: <why>"
};

BackendPreference parse_backend_preference(const std::string& text);  // "auto", "cpu", "cuda"; throws

// Tries to start the CUDA backend with `options.cuda`. Returns nullptr where it cannot start;
// `note` says which library it came from, or why there is none. Without the NVIDIA driver the
// backend library is not loaded at all, unless `options.plugin_dir` names its folder. What
// `upload_progress` throws comes out of it.
std::unique_ptr<Backend> load_cuda_backend(const ModelWeights& weights, const BackendOptions& options,
                                           std::string& note,
                                           const std::function<void(double)>& upload_progress = {});

// The weights must outlive the backend. With Cuda, failure to start CUDA is an error;
// with Auto it falls back to the CPU and says why in the note. `upload_progress` hears the
// fraction of the weights on the GPU as they go up; what it throws (pyramid::Cancelled, say)
// stops the upload, frees what was placed, and comes out of choose_backend.
BackendChoice choose_backend(const ModelWeights& weights, const BackendOptions& options,
                             const std::function<void(double)>& upload_progress = {});

// The plugin's entry point, exported with C linkage by libpyramid_cuda.so: a backend for
// `weights` as `options` ask, whose calls record their failures in `*fault` instead of throwing
// (plugin_fault.h; the engine wraps it with fault_raising_backend). Returns nullptr and writes
// a message into `error` when no usable device exists, the model does not fit, or `progress`
// (may be null) answered false. No exception crosses it, nor any call of what it returns.
// What the engine and the CUDA backend library must agree on to load it: a digest of the
// headers whose types cross between them, made at build time (cmake/BackendAbi.cmake), so any
// change to the interface refuses a library built before it.
inline constexpr int kBackendPluginAbi = PYRAMID_BACKEND_PLUGIN_ABI;
struct PluginProgress {
    // The fraction of the weights on the device; false stops the upload.
    bool (*report)(void* context, double fraction);
    void* context;
};
using CreateBackendFn = Backend* (*)(int abi, const ModelWeights* weights, const cuda::CudaBackendOptions* options,
                                     const PluginProgress* progress, PluginFault* fault, char* error,
                                     size_t error_size);
inline constexpr const char* kCudaPluginLibrary = "libpyramid_cuda.so";
inline constexpr const char* kCudaPluginSymbol = "pyramid_create_cuda_backend";

} // namespace pyramid
