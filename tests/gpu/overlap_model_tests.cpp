// Kernels launched to overlap the kernel before them (CudaBackendOptions::overlap_launches,
// kernels/kernel_stream.h), part of test_gpu_model. Every kernel of the backend waits for the
// one before it ends before it touches memory, so the same work gives bit for bit the logits
// and caches of a backend that launches in plain stream order: stories260K under PyramidInfer
// (probes, compaction) with decode steps as CUDA graphs and without, in fp32 and fp16, and the
// kquants Q4_K_M file in fp16 (the int8 matvecs, the tiles of a prompt). The device name says
// so on devices that can (compute capability 9.0). On the emulated device, which stops a grid
// launched to overlap that does not wait (emulation/block_scheduler.h), every grid the backend
// queued is overlapped: none was left in plain order by a call that missed the backend's stream.
#include "overlap_model_tests.h"

#include <string>

#include "cuda_backend.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "model/model_loader.h"
#include "model_checks.h"
#include "stories_model.h"

#if PYRAMID_EMULATED_DEVICE
#include "emulation/emulated_device.h"
#endif

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

// A prompt and `steps` greedy decode steps on two backends that differ only in overlap_launches;
// the overlapping one's grids, on the emulated device, all overlapped, and its matvecs (fp16
// weights', quantized weights': `matvecs`) asked L2 for their weights first; the plain one's none.
void same_with_and_without_overlap(const std::string& what, const ModelWeights& weights,
                                   cuda::CudaBackendOptions options, const CompressionConfig& config,
                                   const std::vector<int32_t>& prompt, int steps, bool matvecs)
{
    cuda::CudaBackendOptions overlapping = options, plain = options;
    overlapping.overlap_launches = true;
    plain.overlap_launches = false;
    cuda::CudaBackend a_backend(weights, overlapping), b_backend(weights, plain);
    const bool named = a_backend.info().device.find("launches overlapped") != std::string::npos;
    GPU_CHECK(named == device_overlaps(), what + ": the device name says whether launches overlap (" +
                                              a_backend.info().device + ")");
    GPU_CHECK(b_backend.info().device.find("launches overlapped") == std::string::npos, what + ": plain launches");
#if PYRAMID_EMULATED_DEVICE
    auto& device = cuda::emulation::EmulatedDevice::instance();
    const auto before = device.grid_launches();
    device.forget_prefetches();
#endif
    InferenceSession a(a_backend, config);
    std::vector<float> logits = a.prefill(prompt);
    std::vector<std::vector<float>> overlapped_logits{logits};
    std::vector<int32_t> tokens;
    for (int step = 0; step < steps; ++step) {
        tokens.push_back(Sampler::argmax(logits));
        logits = a.decode(tokens.back());
        overlapped_logits.push_back(logits);
    }
#if PYRAMID_EMULATED_DEVICE
    const auto after = device.grid_launches();
    const size_t prefetched = device.prefetches().bytes;
    std::printf("  %s: %lld grids overlapped, %lld in plain order, %zu bytes of weights prefetched\n", what.c_str(),
                after.overlapped - before.overlapped, after.plain - before.plain, prefetched);
    GPU_CHECK(after.overlapped > before.overlapped && after.plain == before.plain,
              what + ": every grid of the overlapping backend was launched to overlap");
    GPU_CHECK((prefetched > 0) == matvecs, what + ": matvecs launched to overlap prefetch their weights");
    device.forget_prefetches();
#endif
    InferenceSession b(b_backend, config);
    GPU_CHECK(b.prefill(prompt) == overlapped_logits[0], what + " prefill");
    for (int step = 0; step < steps; ++step)
        GPU_CHECK(b.decode(tokens[size_t(step)]) == overlapped_logits[size_t(step) + 1],
                  what + " decode step " + std::to_string(step));
    GPU_CHECK(same_caches(a, b), what + " caches");
#if PYRAMID_EMULATED_DEVICE
    GPU_CHECK(device.grid_launches().overlapped == after.overlapped, what + ": plain launches stay plain");
    GPU_CHECK(device.prefetches().bytes == 0, what + ": plain launches prefetch nothing");
#endif
}

void overlapped_launches_change_nothing()
{
    const ReplayRecord c = golden("reference_defaults");
    for (Precision p : kPrecisions)
        for (cuda::StepGraphs graphs : {cuda::StepGraphs::On, cuda::StepGraphs::Off}) {
            cuda::CudaBackendOptions options{p};
            options.graphs = graphs;
            same_with_and_without_overlap(std::string("stories260K ") + cuda::precision_name(p) +
                                              (graphs == cuda::StepGraphs::On ? ", graphs" : ", queued"),
                                          weights(), options, c.config, c.prompt_tokens, 12, p == Precision::Fp16);
        }
    const LoadedModel model = load_model_files(require_shared("models/kquants/synthetic-llama-q4_k_m.gguf"));
    std::vector<int32_t> prompt;  // spread over the vocabulary, away from the special tokens
    for (int i = 0; i < 40; ++i)
        prompt.push_back(3 + (i * 7919) % (model.weights.config.n_vocab - 3));
    same_with_and_without_overlap("kquants Q4_K_M fp16", model.weights, {Precision::Fp16},
                                  CompressionConfig::full_cache(), prompt, 4, true);
}

} // namespace

std::vector<TestCase> overlap_model_tests()
{
    return {{"overlapped_launches_change_nothing", overlapped_launches_change_nothing}};
}
