#include "generate/inference_session.h"

#include "util/error.h"

namespace pyramid {
namespace {

// The sessions' states, for a BatchStep.
std::vector<SequenceState*> states(std::span<InferenceSession* const> sessions)
{
    std::vector<SequenceState*> out;
    for (InferenceSession* s : sessions)
        out.push_back(&s->state());
    return out;
}

// One single-token input per decode token.
std::vector<std::span<const int32_t>> single_tokens(std::span<const int32_t> tokens)
{
    std::vector<std::span<const int32_t>> inputs;
    for (const int32_t& token : tokens)
        inputs.emplace_back(&token, 1);
    return inputs;
}

void check_top_k(int k)
{
    if (k <= 0)
        throw Error("asked for the " + std::to_string(k) + " highest logits (at least 1)");
}

} // namespace

std::vector<float> InferenceSession::prefill(std::span<const int32_t> tokens, const std::atomic<bool>* cancel)
{
    reset();
    return extend(tokens, cancel);
}

std::vector<float> InferenceSession::extend(std::span<const int32_t> tokens, const std::atomic<bool>* cancel)
{
    SequenceState* self = &state_;
    return step_.run({&self, 1}, {&tokens, 1}, StepPhase::Prompt, 0, cancel).logits.front();
}

std::vector<float> InferenceSession::decode(int32_t token)
{
    SequenceState* self = &state_;
    const std::span<const int32_t> input(&token, 1);
    return step_.run({&self, 1}, {&input, 1}, StepPhase::Decode, 0).logits.front();
}

TopLogits InferenceSession::extend_top(std::span<const int32_t> tokens, int k, const std::atomic<bool>* cancel)
{
    check_top_k(k);
    SequenceState* self = &state_;
    return step_.run({&self, 1}, {&tokens, 1}, StepPhase::Prompt, k, cancel).top.front();
}

TopLogits InferenceSession::decode_top(int32_t token, int k)
{
    check_top_k(k);
    SequenceState* self = &state_;
    const std::span<const int32_t> input(&token, 1);
    return step_.run({&self, 1}, {&input, 1}, StepPhase::Decode, k).top.front();
}

std::vector<std::vector<float>> InferenceSession::extend_batch(std::span<InferenceSession* const> sessions,
                                                               std::span<const std::span<const int32_t>> prompts,
                                                               const std::atomic<bool>* cancel)
{
    return BatchStep().run(states(sessions), prompts, StepPhase::Prompt, 0, cancel).logits;
}

std::vector<std::vector<float>> InferenceSession::decode_batch(std::span<InferenceSession* const> sessions,
                                                               std::span<const int32_t> tokens)
{
    return BatchStep().run(states(sessions), single_tokens(tokens), StepPhase::Decode, 0).logits;
}

std::vector<TopLogits> InferenceSession::extend_batch_top(std::span<InferenceSession* const> sessions,
                                                          std::span<const std::span<const int32_t>> prompts, int k,
                                                          const std::atomic<bool>* cancel)
{
    check_top_k(k);
    return BatchStep().run(states(sessions), prompts, StepPhase::Prompt, k, cancel).top;
}

std::vector<TopLogits> InferenceSession::decode_batch_top(std::span<InferenceSession* const> sessions,
                                                          std::span<const int32_t> tokens, int k)
{
    check_top_k(k);
    return BatchStep().run(states(sessions), single_tokens(tokens), StepPhase::Decode, k).top;
}

} // namespace pyramid
