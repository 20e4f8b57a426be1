// The one symbol libpyramid_cuda.so exports: core's backend loader finds it with dlsym
// (see core/backend/backend_loader.h) and gets either a backend or the reason there is none.
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <string>

#include "backend/backend_loader.h"
#include "cuda_backend.h"
#include "util/error.h"

namespace {

void write_error(char* error, size_t size, const std::string& message)
{
    if (error && size > 0)
        std::snprintf(error, size, "%s", message.c_str());
}

} // namespace

extern "C" __attribute__((visibility("default"))) pyramid::Backend*
pyramid_create_cuda_backend(int abi, const pyramid::ModelWeights* weights, const pyramid::PluginProgress* progress,
                            char* error, size_t error_size)
{
    if (abi != pyramid::kBackendPluginAbi) {
        write_error(error, error_size,
                    "the CUDA backend library speaks plugin ABI " + std::to_string(pyramid::kBackendPluginAbi) +
                        " but the engine asked for " + std::to_string(abi) + " (rebuild them together)");
        return nullptr;
    }
    if (!weights) {
        write_error(error, error_size, "the CUDA backend was given no weights");
        return nullptr;
    }
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        write_error(error, error_size,
                    status != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorString(status)
                                          : std::string("no CUDA device found"));
        return nullptr;
    }
    try {
        std::function<void(double)> upload_progress;
        if (progress && progress->report)
            upload_progress = [progress](double fraction) {
                if (!progress->report(progress->context, fraction))
                    throw pyramid::Cancelled();
            };
        return new pyramid::cuda::CudaBackend(*weights, pyramid::cuda::CudaBackendOptions::from_environment(),
                                              upload_progress);
    } catch (const std::exception& e) {
        write_error(error, error_size, std::string("CUDA backend: ") + e.what());
        return nullptr;
    }
}
