// What the CUDA backend asks of the machine, part of test_gpu_model: a device-memory request
// beyond any GPU is reported as an error and the backend goes on; what a batched run allocates
// besides the KV pool stays within the bound planners use (step_memory_bytes); the plugin loads
// through core's loader and a bad PYRAMID_CUDA_PRECISION is reported, not guessed.
#include "resource_tests.h"

#include <cstdlib>
#include <string>

#include "backend/backend_loader.h"
#include "backend/step_memory.h"
#include "generate/batch_scheduler.h"
#include "generate/inference_session.h"
#include "model_checks.h"
#include "stories_model.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

void out_of_memory_reports_an_error()
{
    auto& b = gpu(Precision::Fp16);
    bool threw = false;
    try {
        b.reserve_kv_blocks(size_t(1) << 40);
    } catch (const Error& e) {
        threw = true;
        std::printf("  (expected) %s\n", e.what());
        GPU_CHECK(std::string(e.what()).find("out of memory") != std::string::npos, e.what());
    }
    GPU_CHECK(threw, "a KV pool request beyond any device must throw pyramid::Error");
    // The backend carries on.
    const std::vector<int32_t> prompt = golden("full_cache").prompt_tokens;
    InferenceSession session(b, CompressionConfig::full_cache()), reference(reference_cpu(), CompressionConfig::full_cache());
    check_logits("prefill after the failed request", session.prefill(prompt), reference.prefill(prompt),
                 kFp16Tolerance);
}

// What a batched run makes a fresh backend allocate besides its KV pool stays within
// step_memory_bytes for the run's largest step (backend/step_memory.h), the bound planners
// use. Device memory is measured with cudaMemGetInfo: a GPU rounds allocations to its 2 MiB
// pages (about 30 buffers grow), the emulation to 256 bytes. The emulation counts every
// byte, so there the growth must also be at least the step's row buffers (the bound is of
// the real buffers); a GPU may place this model's small buffers in pages it already holds.
void step_memory_bounds_a_batched_run()
{
    cuda::CudaBackend b(weights(), {Precision::Fp16});
    const ReplayRecord c = golden("reference_defaults");
    const auto used = [] {
        const cuda::DeviceMemory m = cuda::device_memory();
        return m.total - m.free;
    };
    const size_t used_before = used(), pool_before = b.kv_pool().bytes_reserved();

    BatchScheduler scheduler(b, {5, 0, 8192});
    int rows = 0, longest = 0;
    constexpr int kNewTokens = 24;
    for (int i = 0; i < 5; ++i) {
        BatchRequest r;
        const size_t length = 9 + static_cast<size_t>(i * 53) % 190;
        r.prompt.assign(c.prompt_tokens.begin(),
                        c.prompt_tokens.begin() + static_cast<ptrdiff_t>(std::min(length, c.prompt_tokens.size())));
        r.max_new_tokens = kNewTokens;
        r.compression = i % 3 == 0 ? CompressionConfig::full_cache() : c.config;
        if (i % 3 == 2)
            r.compression.policy = CompressionPolicyKind::H2O;  // probes every row
        rows += static_cast<int>(r.prompt.size());
        longest = std::max(longest, static_cast<int>(r.prompt.size()) + kNewTokens);
        scheduler.submit(std::move(r));
    }
    while (!scheduler.idle())
        for (const BatchEvent& e : scheduler.step())
            GPU_CHECK(e.reason != FinishReason::Error, e.error);

    const size_t grown = used() - used_before - (b.kv_pool().bytes_reserved() - pool_before);
    const size_t bound = b.step_memory_bytes(StepExtent{rows, 5, longest});
    const bool emulated = b.info().device.find("emulation") != std::string::npos;
    const size_t rounding = emulated ? 30 * 256 : 30 * (size_t(2) << 20);
    const StepBufferLayout fp16;
    const size_t row_growth = step_row_buffers(rows).total() - step_row_buffers(64).total() +
                              chunk_buffers(b.config(), fp16, std::min(rows, fp16.chunk_rows)).total() -
                              chunk_buffers(b.config(), fp16, 64).total();
    std::printf("  %d rows, 5 sequences: grew %zu bytes besides the KV pool; bound %zu, row buffers %zu\n", rows,
                grown, bound, row_growth);
    GPU_CHECK(grown <= bound + rounding, std::to_string(grown) + " > " + std::to_string(bound));
    if (emulated)
        GPU_CHECK(grown >= row_growth, std::to_string(grown) + " < " + std::to_string(row_growth));
}

void plugin_loads_through_the_engine_loader()
{
    const ModelWeights& w = weights();
    setenv("PYRAMID_BACKEND_DIR", PYRAMID_CUDA_PLUGIN_DIR, 0);  // a staged run names its own
    unsetenv("PYRAMID_CUDA_PRECISION");
    const std::vector<int32_t> prompt = golden("full_cache").prompt_tokens;
    {
        BackendChoice choice = choose_backend(w, BackendPreference::Cuda);
        std::printf("  loaded: %s\n", choice.note.c_str());
        GPU_CHECK(choice.backend->info().name == "cuda", choice.backend->info().name);
        InferenceSession plugin(*choice.backend, CompressionConfig::full_cache());
        InferenceSession direct(gpu(Precision::Fp16), CompressionConfig::full_cache());
        check_logits("plugin vs linked backend", plugin.prefill(prompt), direct.prefill(prompt), 1e-4);
    }
    setenv("PYRAMID_CUDA_PRECISION", "fp8", 1);
    bool threw = false;
    try {
        choose_backend(w, BackendPreference::Cuda);
    } catch (const Error& e) {
        threw = true;
        GPU_CHECK(std::string(e.what()).find("unknown CUDA precision") != std::string::npos, e.what());
    }
    GPU_CHECK(threw, "a bad PYRAMID_CUDA_PRECISION is reported");
    const BackendChoice fallback = choose_backend(w, BackendPreference::Auto);
    GPU_CHECK(fallback.backend->info().name == "cpu", "Auto falls back to the CPU: " + fallback.note);
    unsetenv("PYRAMID_CUDA_PRECISION");
}

} // namespace

std::vector<TestCase> resource_tests()
{
    return {
        {"out_of_memory_reports_an_error", out_of_memory_reports_an_error},
        {"step_memory_bounds_a_batched_run", step_memory_bounds_a_batched_run},
        {"plugin_loads_through_the_engine_loader", plugin_loads_through_the_engine_loader},
    };
}
