// The one symbol libpyramid_cuda.so exports: core's backend loader finds it with dlsym
// (see core/backend/backend_loader.h) and gets either a backend, whose failures come back as
// values (core/backend/plugin_fault.h), or the reason there is none.
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "backend/backend_loader.h"
#include "backend/plugin_fault.h"
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
pyramid_create_cuda_backend(int abi, const pyramid::ModelWeights* weights,
                            const pyramid::cuda::CudaBackendOptions* options, const pyramid::PluginProgress* progress,
                            pyramid::PluginFault* fault, char* error, size_t error_size)
{
    if (abi != pyramid::kBackendPluginAbi) {
        write_error(error, error_size,
                    "the CUDA backend library speaks plugin ABI " + std::to_string(pyramid::kBackendPluginAbi) +
                        " but the engine asked for " + std::to_string(abi) + " (rebuild them together)");
        return nullptr;
    }
    if (!weights || !options || !fault) {
        write_error(error, error_size, "the CUDA backend was given no weights, options or fault slot");
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
        return pyramid::fault_catching_backend(
                   std::make_unique<pyramid::cuda::CudaBackend>(*weights, *options, upload_progress), fault)
            .release();
    } catch (const std::exception& e) {
        write_error(error, error_size, std::string("CUDA backend: ") + e.what());
        return nullptr;
    }
}
