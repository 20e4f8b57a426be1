#include "stories_model.h"

#include "gpu_test.h"
#include "model/model_loader.h"

namespace pyramid::gpu_test {

const ModelWeights& weights()
{
    static const LoadedModel model = load_model_files(require_shared("models/stories260K.gguf"));
    return model.weights;
}

ReplayRecord golden(const std::string& name)
{
    return load_replay_case(require_shared("golden/" + name + ".json").string());
}

cuda::CudaBackend& gpu(cuda::Precision p)
{
    static cuda::CudaBackend fp32(weights(), {cuda::Precision::Fp32});
    static cuda::CudaBackend fp16(weights(), {cuda::Precision::Fp16});
    return p == cuda::Precision::Fp32 ? fp32 : fp16;
}

CpuBackend& reference_cpu()
{
    static CpuBackend backend(weights());
    return backend;
}

} // namespace pyramid::gpu_test
