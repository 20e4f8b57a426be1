#pragma once
// StreamingLLM (Xiao et al. 2023): the first sink entries plus the most recent ones, the same
// budget at every layer, as the paper runs it. Every layer sees every prompt token; only the
// cache is trimmed. Entries keep the positions they were encoded at: StreamingLLM numbers
// them by place in the cache, which matters only past the trained context, where the
// overflow policies decide (docs/multi-turn.md).
#include "kv/baseline_budget.h"
#include "kv/compression_policy.h"

namespace pyramid {

class LocalPolicy final : public CompressionPolicy {
public:
    LocalPolicy(const CompressionConfig& config, int n_layers);

    void begin_prefill(int n_new, int n_cached) override;
    std::optional<AttentionProbe> prefill_probe(int, int) override { return std::nullopt; }
    PrefillDecision after_prefill_layer(int layer, int n_rows, int cache_len, const std::vector<float>& scores) override;
    std::optional<AttentionProbe> decode_probe(int) override { return std::nullopt; }
    std::optional<std::vector<int>> after_decode_layer(int layer, int len, const std::vector<float>& scores) override;

    void entries_removed(int, const std::vector<int>&) override {}

private:
    std::optional<std::vector<int>> trim(int len, int budget) const;

    int sink_tokens_;
    BaselineBudget budget_;
    std::vector<int> steps_;  // decode steps seen per layer
};

} // namespace pyramid
