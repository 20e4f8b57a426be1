// Decode steps as CUDA graphs (CudaBackendOptions::graphs, kernels/work_stream.h), part of
// test_gpu_model. A recording runs the same kernels with the same arguments in the same order
// as queued work, so stories260K under PyramidInfer (probes every decode step, caches trimmed
// between steps) gives bit for bit the logits, lengths and kept positions of a backend without
// graphs: one sequence, then a batch of four through the device's top-k. Every decode step is
// one launched graph, nearly all of them updates of the last one. A step that fails after its
// recording began (a token outside the vocabulary) leaves a backend that goes on as before.
#include "graph_model_tests.h"

#include <string>

#include "cuda_backend.h"
#include "eval/replay.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "stories_model.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

bool same_caches(const InferenceSession& a, const InferenceSession& b)
{
    if (a.cache().lengths() != b.cache().lengths())
        return false;
    for (int l = 0; l < a.cache().n_layers(); ++l) {
        const auto pa = a.cache().positions(l), pb = b.cache().positions(l);
        if (!std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()))
            return false;
    }
    return true;
}

void check_counts(const std::string& what, const cuda::CudaBackend& b, long long steps)
{
    const cuda::WorkStream::GraphCounts c = b.graph_counts();
    std::printf("  %s: %lld decode steps, %lld graphs launched (%lld updated, %lld instantiated)\n", what.c_str(),
                steps, c.launched, c.updated, c.instantiated);
    GPU_CHECK(c.launched == steps, what + ": one graph per decode step");
    GPU_CHECK(c.updated + c.instantiated == c.launched && c.instantiated * 4 <= c.launched,
              what + ": nearly every graph updates the last one");
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
        check_counts(name + ", one sequence", recorded, kSteps);
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
        const long long before = recorded.graph_counts().launched;
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
        GPU_CHECK(recorded.graph_counts().launched - before == kBatchSteps, name + ": one graph per batch step");

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
        GPU_CHECK(recorded.graph_counts().launched - launched == 4, name + ": graphs go on");
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
    std::printf("  kept: %s; %lld graphs launched in %d steps\n", recording ? "graphs" : "queued", launched,
                kTrying + 6);
    GPU_CHECK(launched == cuda::GraphChoice::kWarmupSteps / 2 + cuda::GraphChoice::kTrialSteps + (recording ? 6 : 0),
              "graphs launched for the steps recorded");
}

} // namespace

std::vector<TestCase> graph_model_tests()
{
    return {
        {"decode_graphs_change_nothing", decode_graphs_change_nothing},
        {"auto_graphs_choose_by_measuring", auto_graphs_choose_by_measuring},
    };
}
