#pragma once
// One sequence running through a model, the way a chat or a tool runs one: its state
// (sequence_state.h) and the steps that feed it (batch_step.h) behind one object. prefill()
// runs a whole prompt layer by layer, letting the policy prune tokens and entries after each
// layer; decode() feeds one token at the next position. The static *_batch functions run one
// step for several sessions at once (continuous batching).
#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "generate/batch_step.h"
#include "generate/sequence_state.h"

namespace pyramid {

class InferenceSession {
public:
    // kv_byte_limit: the most bytes the cache may hold (0: as much as memory allows); past it
    // a step fails with pyramid::Error and the session must be reset.
    InferenceSession(Backend& backend, const CompressionConfig& config, size_t kv_byte_limit = 0)
        : state_(backend, config, kv_byte_limit)
    {
    }

    // Runs the prompt into an empty cache and returns the logits after its last token.
    // Throws pyramid::Error for an empty prompt or one longer than the model's context, and
    // pyramid::Cancelled when `cancel` is set (checked between layers, and inside them on a
    // backend that checks: see Backend::set_cancel_flag; the cache is then empty).
    std::vector<float> prefill(std::span<const int32_t> tokens, const std::atomic<bool>* cancel = nullptr);
    // Runs more prompt tokens after what the cache holds (the next turn of a conversation),
    // with the policy's selection applied to the new tokens only. Same errors as prefill.
    std::vector<float> extend(std::span<const int32_t> tokens, const std::atomic<bool>* cancel = nullptr);
    // Feeds one token at the next position and returns the logits after it.
    std::vector<float> decode(int32_t token);
    // extend() and decode() returning only the k highest logits (see extend_batch_top).
    TopLogits extend_top(std::span<const int32_t> tokens, int k, const std::atomic<bool>* cancel = nullptr);
    TopLogits decode_top(int32_t token, int k);

    // Continuous batching: extend() and decode() for several sessions of one backend in a
    // single pass through the layers (BatchStep). Returns each session's logits, in order. An
    // error or cancellation in the middle of a step resets every session of the batch.
    static std::vector<std::vector<float>> extend_batch(std::span<InferenceSession* const> sessions,
                                                        std::span<const std::span<const int32_t>> prompts,
                                                        const std::atomic<bool>* cancel = nullptr);
    static std::vector<std::vector<float>> decode_batch(std::span<InferenceSession* const> sessions,
                                                        std::span<const int32_t> tokens);
    // The same two steps returning only each session's k highest logits (top_logits.h): what
    // a top-k or greedy sampler needs (Sampler::top_logits_needed), without moving or sorting
    // whole vocabularies; a GPU backend selects them on the device.
    static std::vector<TopLogits> extend_batch_top(std::span<InferenceSession* const> sessions,
                                                   std::span<const std::span<const int32_t>> prompts, int k,
                                                   const std::atomic<bool>* cancel = nullptr);
    static std::vector<TopLogits> decode_batch_top(std::span<InferenceSession* const> sessions,
                                                   std::span<const int32_t> tokens, int k);

    // The sequence's state (sequence_state.h says what each is).
    SequenceState& state() { return state_; }
    const SequenceState& state() const { return state_; }
    void reset() { state_.reset(); }
    int make_room(int room) { return state_.make_room(room); }
    int largest_room() const { return state_.largest_room(); }
    const KvCache& cache() const { return state_.cache(); }
    BackendInfo backend_info() const { return state_.backend().info(); }
    int next_position() const { return state_.next_position(); }
    int context_length() const { return state_.context_length(); }
    int n_vocab() const { return state_.backend().config().n_vocab; }
    const std::vector<bool>& layers_compressed() const { return state_.layers_compressed(); }
    size_t full_cache_bytes() const { return state_.full_cache_bytes(); }

private:
    SequenceState state_;
    BatchStep step_;  // its buffers, reused by this session's own steps
};

} // namespace pyramid
