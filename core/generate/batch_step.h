#pragma once
// One step of inference over one or more sequences of one backend (sequence_state.h), in a
// single pass through the layers, so each weight matrix is read once for all of them. A
// prompt step feeds each sequence several tokens after what its cache holds; a decode step one.
// Every sequence keeps its own cache, positions and compression state: the results equal
// running the sequences one by one.
//
// A step's phases, in the order a GPU backend depends on (run() is the one place that orders them):
//   prompt:  for each layer: queue it -> wait for its probe scores -> select (the policy
//            keeps entries, compacts the cache and passes rows on) -> next layer -> logits
//   decode:  queue every layer -> for each layer: wait for its scores -> select and compact
//            (trimming caches for later steps only) -> logits
//
// An error or cancellation in the middle of a step resets every sequence of it (their caches
// would disagree between layers). The step's buffers (tokens, positions, probes, rows) live
// here and are reused step after step.
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "backend/backend.h"
#include "generate/sequence_state.h"

namespace pyramid {

enum class StepPhase { Prompt, Decode };

// A step's result per sequence: whole logit rows (top_k 0) or their top_k highest.
struct StepOutputs {
    std::vector<std::vector<float>> logits;
    std::vector<TopLogits> top;
};

class BatchStep {
public:
    // inputs: one per sequence (a decode step's are single tokens). Throws pyramid::Error
    // before anything runs for mismatched inputs, sequences of different backends, a sequence
    // twice, an empty prompt or one past the context, and a decode step in a full context;
    // pyramid::Cancelled once `cancel` reads true (checked between layers, and inside them on a
    // backend that checks: Backend::set_cancel_flag).
    StepOutputs run(std::span<SequenceState* const> sequences, std::span<const std::span<const int32_t>> inputs,
                    StepPhase phase, int top_k, const std::atomic<bool>* cancel = nullptr);

private:
    void begin(std::span<SequenceState* const> sequences, std::span<const std::span<const int32_t>> inputs,
               StepPhase phase);
    void queue_layer(std::span<SequenceState* const> sequences, int layer, StepPhase phase, HiddenStates& hidden);
    void select_prompt_layer(std::span<SequenceState* const> sequences, int layer, HiddenStates& hidden);
    void select_decode_layer(std::span<SequenceState* const> sequences, int layer);
    StepOutputs logits(std::span<SequenceState* const> sequences, std::span<const std::span<const int32_t>> inputs,
                       int top_k, const HiddenStates& hidden);

    Backend* backend_ = nullptr;  // the sequences' (the step in progress)
    std::vector<int32_t> tokens_;
    std::vector<std::vector<int32_t>> positions_;  // per sequence, the rows it still has
    std::vector<std::optional<AttentionProbe>> probes_;
    std::vector<SequenceRows> rows_;
    std::vector<int> kept_rows_;
};

} // namespace pyramid
