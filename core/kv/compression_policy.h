#pragma once
// A compression policy decides which KV entries (and, for PyramidInfer, which tokens' hidden
// states) survive; the cache stores and the backend computes. The generator asks the policy
// before each layer which attention statistics it needs (a probe) and hands it the result
// after the layer ran. One policy object serves one sequence.
#include <memory>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "kv/compression_config.h"

namespace pyramid {

struct PrefillDecision {
    std::optional<std::vector<int>> keep_rows;     // tokens whose hidden states go on to the next layer
    std::optional<std::vector<int>> keep_entries;  // entries this layer's cache keeps
    // Or, for a policy that selects per KV head: the entries each KV head keeps, one list per
    // head, all of one length (KvCache::keep_per_head). At most one of the two is set.
    std::optional<std::vector<std::vector<int>>> keep_entries_per_head;
};

class CompressionPolicy {
public:
    virtual ~CompressionPolicy() = default;

    // Prefill of n_new prompt tokens after n_cached tokens already in the cache (0 for a fresh
    // prompt; more when a conversation extends its compressed cache). n_rows counts the new
    // tokens entering `layer`; cache_len the layer's entries after they were appended (the
    // new rows are the last ones); scores are over all cache_len entries (per KV head, head
    // after head, when the probe asked for that).
    virtual void begin_prefill(int n_new, int n_cached) = 0;
    virtual std::optional<AttentionProbe> prefill_probe(int layer, int n_rows) = 0;
    virtual PrefillDecision after_prefill_layer(int layer, int n_rows, int cache_len,
                                                const std::vector<float>& scores) = 0;

    // One decode step appended one entry to every layer; len counts it.
    virtual std::optional<AttentionProbe> decode_probe(int layer) = 0;
    virtual std::optional<std::vector<int>> after_decode_layer(int layer, int len, const std::vector<float>& scores) = 0;

    // The cache kept only these ascending indices of `layer` for a reason of its own (room
    // made in a full context): per-entry state must follow. Not called for a layer whose KV
    // heads keep different entries: only policies without per-entry state select per head.
    virtual void entries_removed(int layer, const std::vector<int>& kept) = 0;

    // The new tokens that will enter each layer in a prompt step of n_new tokens: what each
    // layer's cache grows by before its own selection, so a scheduler can reserve the step's
    // memory (KvLayerStore::reserve). Every layer sees every row unless the policy passes fewer
    // rows on (PyramidInfer). Decided by the config and the counts alone, never the scores.
    virtual std::vector<int> prompt_rows(int n_new, int n_layers) const
    {
        return std::vector<int>(static_cast<size_t>(n_layers), n_new);
    }
};

std::unique_ptr<CompressionPolicy> make_compression_policy(const CompressionConfig& config, int n_layers);

} // namespace pyramid
