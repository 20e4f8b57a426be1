// Decode steps as CUDA graphs (CudaBackendOptions::graphs, decode_step_graphs.h), part of
// test_gpu_model. A layer's graph runs the same kernels with the same arguments in the same order
// as queued work, and a replayed one reads the step's lengths, tables and positions from device
// memory, so stories260K under PyramidInfer (probes every decode step, caches trimmed between
// steps) gives bit for bit the logits, lengths and kept positions of a backend without graphs:
// one sequence, then a batch of four through the device's top-k. Every layer of a decode step is
// one launched graph, nearly all of them replayed without recording. A step that fails
// (a token outside the vocabulary) leaves a backend that goes on as before.
#include "graph_model_tests.h"

#include <string>

#include "cuda_backend.h"
#include "eval/replay.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "model_checks.h"
#include "stories_model.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

// `steps` decode steps of `layers` layers each, all recorded steps: a graph a layer, nearly all
// of them replays (a layer is recorded again only when its launch changed).
void check_counts(const std::string& what, const cuda::WorkStream::GraphCounts& c, long long steps, int layers)
{
    const long long recorded = c.updated + c.instantiated;
    std::printf("  %s: %lld decode steps, %lld graphs launched (%lld replayed, %lld updated, %lld instantiated)\n",
                what.c_str(), steps, c.launched, c.replayed, c.updated, c.instantiated);
    GPU_CHECK(c.launched == steps * layers, what + ": one graph per layer of each decode step");
    GPU_CHECK(recorded + c.replayed == c.launched && recorded * 4 <= c.launched,
              what + ": nearly every layer's graph is replayed");
}

cuda::WorkStream::GraphCounts operator-(const cuda::WorkStream::GraphCounts& a, const cuda::WorkStream::GraphCounts& b)
{
    return {a.launched - b.launched, a.updated - b.updated, a.instantiated - b.instantiated, a.replayed - b.replayed};
}

void decode_graphs_change_nothing()
{
    const ReplayRecord c = golden("reference_defaults");
    for (Precision p : kPrecisions) {
        cuda::CudaBackendOptions with_graphs{p}, without{p};
        with_graphs.graphs = cuda::StepGraphs::On;
        without.graphs = cuda::StepGraphs::Off;
        cuda::CudaBackend recorded(weights(), with_graphs), queued(weights(), without);
        const std::string name = cuda::precision_name(p);

        InferenceSession a(recorded, c.config), b(queued, c.config);
        std::vector<float> logits = a.prefill(c.prompt_tokens);
        GPU_CHECK(logits == b.prefill(c.prompt_tokens), name + " prefill");
        constexpr int kSteps = 40;
        for (int step = 0; step < kSteps; ++step) {
            const int32_t token = Sampler::argmax(logits);
            logits = a.decode(token);
            GPU_CHECK(logits == b.decode(token), name + " decode step " + std::to_string(step));
            GPU_CHECK(same_caches(a, b), name + " caches after step " + std::to_string(step));
        }
        const int layers = weights().config.n_layers;
        check_counts(name + ", one sequence", recorded.graph_counts(), kSteps, layers);
        GPU_CHECK(queued.graph_counts().launched == 0, name + ": no graphs when they are off");

        // A batch of four, each its own prompt, through the device's top-k.
        std::vector<std::unique_ptr<InferenceSession>> sessions;
        std::vector<InferenceSession*> batch_a, batch_b;
        std::vector<std::vector<int32_t>> prompts;
        for (int i = 0; i < 4; ++i) {
            prompts.emplace_back(c.prompt_tokens.begin(), c.prompt_tokens.begin() + 30 + 41 * i);
            for (cuda::CudaBackend* backend : {&recorded, &queued})
                sessions.push_back(std::make_unique<InferenceSession>(*backend, c.config));
            batch_a.push_back(sessions[sessions.size() - 2].get());
            batch_b.push_back(sessions.back().get());
        }
        std::vector<int32_t> next;
        for (int i = 0; i < 4; ++i) {
            const std::vector<float> first = batch_a[size_t(i)]->prefill(prompts[size_t(i)]);
            batch_b[size_t(i)]->prefill(prompts[size_t(i)]);
            next.push_back(Sampler::argmax(first));
        }
        const cuda::WorkStream::GraphCounts before = recorded.graph_counts();
        constexpr int kBatchSteps = 12;
        for (int step = 0; step < kBatchSteps; ++step) {
            const std::vector<TopLogits> ta = InferenceSession::decode_batch_top(batch_a, next, 40);
            const std::vector<TopLogits> tb = InferenceSession::decode_batch_top(batch_b, next, 40);
            for (size_t i = 0; i < ta.size(); ++i) {
                const std::string what = name + " batch step " + std::to_string(step) + ", sequence " +
                                         std::to_string(i);
                GPU_CHECK(ta[i].ids == tb[i].ids && ta[i].values == tb[i].values, what);
                GPU_CHECK(same_caches(*batch_a[i], *batch_b[i]), what + " caches");
                next[i] = ta[i].ids.front();
            }
        }
        check_counts(name + ", a batch of four", recorded.graph_counts() - before, kBatchSteps, layers);

        // A decode step that fails once its recording began: the session starts over, the
        // backend goes on, its graphs too.
        bool threw = false;
        try {
            a.decode(weights().config.n_vocab + 5);
        } catch (const Error& e) {
            threw = true;
            std::printf("  (expected) %s\n", e.what());
        }
        GPU_CHECK(threw, name + ": a token outside the vocabulary is refused");
        b.reset();
        const long long launched = recorded.graph_counts().launched;
        logits = a.prefill(c.prompt_tokens);
        GPU_CHECK(logits == b.prefill(c.prompt_tokens), name + " prefill after the failed step");
        for (int step = 0; step < 4; ++step) {
            const int32_t token = Sampler::argmax(logits);
            logits = a.decode(token);
            GPU_CHECK(logits == b.decode(token), name + " decode step " + std::to_string(step) + " after it");
        }
        GPU_CHECK(recorded.graph_counts().launched - launched == 4 * layers, name + ": graphs go on");
    }
}

// StepGraphs::Auto: steps alternate between the two ways until each has been timed, then one
// is kept; the logits stay those of a backend without graphs all along.
void auto_graphs_choose_by_measuring()
{
    const ReplayRecord c = golden("reference_defaults");
    cuda::CudaBackendOptions automatic{Precision::Fp16}, without{Precision::Fp16};
    without.graphs = cuda::StepGraphs::Off;
    cuda::CudaBackend chooser(weights(), automatic), queued(weights(), without);
    InferenceSession a(chooser, c.config), b(queued, c.config);
    std::vector<float> logits = a.prefill(c.prompt_tokens);
    b.prefill(c.prompt_tokens);
    constexpr int kTrying = cuda::GraphChoice::kWarmupSteps + 2 * cuda::GraphChoice::kTrialSteps;
    for (int step = 0; step < kTrying + 6; ++step) {
        GPU_CHECK(chooser.graph_choice().decided(1).has_value() == (step >= kTrying),
                  "decided only once both ways were timed, step " + std::to_string(step));
        const int32_t token = Sampler::argmax(logits);
        logits = a.decode(token);
        GPU_CHECK(logits == b.decode(token), "auto, decode step " + std::to_string(step));
    }
    const bool recording = *chooser.graph_choice().decided(1);
    const long long launched = chooser.graph_counts().launched;
    std::printf("  kept: %s; %lld graphs launched in %d steps (%lld replayed)\n", recording ? "graphs" : "queued", launched,
                kTrying + 6, chooser.graph_counts().replayed);
    GPU_CHECK(launched == (cuda::GraphChoice::kWarmupSteps / 2 + cuda::GraphChoice::kTrialSteps + (recording ? 6 : 0)) *
                              weights().config.n_layers,
              "a graph a layer of the steps recorded");
}

} // namespace

std::vector<TestCase> graph_model_tests()
{
    return {
        {"decode_graphs_change_nothing", decode_graphs_change_nothing},
        {"auto_graphs_choose_by_measuring", auto_graphs_choose_by_measuring},
    };
}
