#pragma once
// One sequence between steps: its KV cache (kv/kv_cache.h), the positions it has been fed,
// its compression policy and the attention scores that policy reads. A step over one or many
// sequences is BatchStep's (batch_step.h), the only code that changes a sequence while a step
// runs; InferenceSession (inference_session.h) puts the two together for one sequence.
#include <cstddef>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "kv/compression_config.h"
#include "kv/compression_policy.h"
#include "kv/kv_cache.h"

namespace pyramid {

class BatchStep;

class SequenceState {
public:
    // kv_byte_limit: the most bytes the cache may hold (0: as much as memory allows); past it
    // a step fails with pyramid::Error and the sequence must be reset.
    SequenceState(Backend& backend, const CompressionConfig& config, size_t kv_byte_limit = 0);

    // Forgets everything: the next step must be a prompt.
    void reset();
    // Makes room for `room` more positions in a full context, StreamingLLM-style: keeps the
    // sink tokens and the most recent positions, drops older entries from every layer, and
    // renumbers the survivors' positions consecutively (re-rotating their keys). In a layer
    // whose KV heads keep different entries, every head keeps as many as the head that kept
    // fewest (the others drop their oldest after the sinks too). Returns the number of
    // positions freed. Throws pyramid::Error when room > largest_room().
    int make_room(int room);
    // The most room make_room can make: the context less the sinks and one recent position.
    int largest_room() const { return context_length() - config_.pyramid.sink_tokens - 1; }
    // Make room for the next step (KvCache::reserve): a prompt step of n tokens (in each layer
    // the rows the policy lets enter it), or a decode step (one entry a layer). Once they
    // return, that step cannot run out of KV memory; they throw KvMemoryExhausted otherwise.
    void reserve_prompt(int n);
    void reserve_decode() { cache_.reserve(1); }

    const KvCache& cache() const { return cache_; }
    Backend& backend() const { return backend_; }
    // The position the next token gets: the tokens fed so far, less the positions a context
    // shift (make_room) gave back.
    int next_position() const { return next_position_; }
    int context_length() const { return backend_.config().context_length; }
    // Layers whose cache (or, in a prompt, token set) shrank during the last step.
    const std::vector<bool>& layers_compressed() const { return layers_compressed_; }
    size_t full_cache_bytes() const;  // what an uncompressed cache would hold now

private:
    friend class BatchStep;  // runs the steps: appends, selects, advances

    Backend& backend_;
    CompressionConfig config_;
    std::unique_ptr<CompressionPolicy> policy_;
    KvCache cache_;
    int next_position_ = 0;
    std::vector<bool> layers_compressed_;
    // The last step's probe scores, per layer: written by the backend, read by the policy.
    std::vector<std::vector<float>> layer_scores_;
};

} // namespace pyramid
