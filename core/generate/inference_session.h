#pragma once
// One sequence running through a model: its KV cache, its compression policy, and the two
// steps of inference. prefill() runs a whole prompt layer by layer, letting the policy prune
// tokens and entries after each layer; decode() feeds one token at the next position.
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "backend/backend.h"
#include "kv/compression_config.h"
#include "kv/compression_policy.h"
#include "kv/kv_cache.h"

namespace pyramid {

class InferenceSession {
public:
    // kv_byte_limit: the most bytes the cache may hold (0: as much as memory allows); past it
    // a step fails with pyramid::Error and the session must be reset.
    InferenceSession(Backend& backend, const CompressionConfig& config, size_t kv_byte_limit = 0);

    // Runs the prompt into an empty cache and returns the logits after its last token.
    // Throws pyramid::Error for an empty prompt or one longer than the model's context, and
    // pyramid::Cancelled when `cancel` is set (checked between layers, and inside them on a
    // backend that checks: see Backend::set_cancel_flag; the cache is then empty).
    std::vector<float> prefill(std::span<const int32_t> tokens, const std::atomic<bool>* cancel = nullptr);
    // Runs more prompt tokens after what the cache holds (the next turn of a conversation),
    // with the policy's selection applied to the new tokens only. Same errors as prefill.
    std::vector<float> extend(std::span<const int32_t> tokens, const std::atomic<bool>* cancel = nullptr);
    // Forgets everything: the next call must be prefill().
    void reset();
    // Makes room for `room` more positions in a full context, StreamingLLM-style: keeps the
    // sink tokens and the most recent positions, drops older entries from every layer, and
    // renumbers the survivors' positions consecutively (re-rotating their keys). Returns the
    // number of positions freed. Throws pyramid::Error when room > largest_room().
    int make_room(int room);
    // The most room make_room can make: the context less the sinks and one recent position.
    int largest_room() const { return context_length() - config_.pyramid.sink_tokens - 1; }
    // Feeds one token at the next position and returns the logits after it.
    std::vector<float> decode(int32_t token);
    // extend() and decode() returning only the k highest logits (see extend_batch_top).
    TopLogits extend_top(std::span<const int32_t> tokens, int k, const std::atomic<bool>* cancel = nullptr);
    TopLogits decode_top(int32_t token, int k);

    // Continuous batching: extend() and decode() for several sessions of one backend in a
    // single pass through the layers, so each weight matrix is read once for all of them. Every
    // session keeps its own cache, positions and compression state; results equal running the
    // sessions one by one. Returns each session's logits, in order. An error or cancellation
    // in the middle of a step resets every session of the batch (their caches would disagree
    // between layers).
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

    const KvCache& cache() const { return cache_; }
    // Makes room in every layer for a step of `rows` new tokens (KvCache::reserve): once it
    // returns, that step cannot run out of KV memory. Throws KvMemoryExhausted otherwise.
    void reserve_step(int rows) { cache_.reserve(rows); }
    BackendInfo backend_info() const { return backend_.info(); }
    // The position the next token gets: the tokens fed so far, less the positions a context
    // shift (make_room) gave back.
    int next_position() const { return next_position_; }
    int context_length() const { return backend_.config().context_length; }
    int n_vocab() const { return backend_.config().n_vocab; }
    // Layers whose cache (or, in the prefill, token set) shrank during the last step.
    const std::vector<bool>& layers_compressed() const { return layers_compressed_; }
    size_t full_cache_bytes() const;  // what an uncompressed cache would hold now

private:
    enum class Phase { Prompt, Decode };
    // A step's result per session: whole logit rows (top_k 0) or their top_k highest.
    struct StepOutputs {
        std::vector<std::vector<float>> logits;
        std::vector<TopLogits> top;
    };
    static StepOutputs run_step(std::span<InferenceSession* const> sessions,
                                std::span<const std::span<const int32_t>> inputs, Phase phase, int top_k,
                                const std::atomic<bool>* cancel);
    void check_input(int n, Phase phase) const;
    // The policies' decisions after a layer ran: for a prompt, entries kept and rows passed
    // on (dropped rows leave `positions` and the batch's hidden states); for a decode step,
    // entries kept.
    static void apply_prefill_selection(std::span<InferenceSession* const> sessions, int layer,
                                        std::vector<std::vector<int32_t>>& positions,
                                        std::span<const SequenceRows> rows, Backend& backend,
                                        HiddenStates& hidden);
    void apply_decode_selection(int layer);

    Backend& backend_;
    CompressionConfig config_;
    std::unique_ptr<CompressionPolicy> policy_;
    KvCache cache_;
    int next_position_ = 0;
    std::vector<bool> layers_compressed_;
    std::vector<std::vector<float>> layer_scores_;  // the last step's probe scores, per layer
};

} // namespace pyramid
