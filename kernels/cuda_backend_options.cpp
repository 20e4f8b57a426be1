#include "cuda_backend_options.h"

#include <cstdlib>
#include <string>

#include "util/error.h"

namespace pyramid::cuda {

CudaBackendOptions CudaBackendOptions::from_environment()
{
    CudaBackendOptions o;
    if (const char* p = std::getenv("PYRAMID_CUDA_PRECISION"); p && *p)
        o.precision = parse_precision(p);
    if (const char* d = std::getenv("PYRAMID_CUDA_DEVICE"); d && *d) {
        char* end = nullptr;
        const long index = std::strtol(d, &end, 10);
        if (*end != '\0' || index < 0)
            throw Error(std::string("PYRAMID_CUDA_DEVICE must be a device index, not '") + d + "'");
        o.device = static_cast<int>(index);
    }
    if (const char* g = std::getenv("PYRAMID_CUDA_GRAPHS"); g && *g) {
        const std::string value = g;
        if (value != "on" && value != "off" && value != "auto")
            throw Error("PYRAMID_CUDA_GRAPHS must be on, off or auto, not '" + value + "'");
        o.graphs = value == "on" ? StepGraphs::On : value == "off" ? StepGraphs::Off : StepGraphs::Auto;
    }
    return o;
}

} // namespace pyramid::cuda
