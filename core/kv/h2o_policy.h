#pragma once
// H2O baseline (Zhang et al., 2023): every entry accumulates the attention it receives; the
// cache keeps the heavy hitters plus the most recent entries, with the same budget at every
// layer. Every layer sees every prompt token; only the cache is trimmed.
//
// The paper keeps heavy hitters per attention head. Here a layer keeps one set of entries for
// all its heads, scored by the attention averaged over the query heads (the shortcut that
// docs/policies.md, "Per head or per layer", describes): it runs on every backend, including
// the GPU's paged store, and its per-entry accumulated scores stay one list per layer.
#include "kv/baseline_budget.h"
#include "kv/compression_policy.h"

namespace pyramid {

class H2OPolicy final : public CompressionPolicy {
public:
    H2OPolicy(const CompressionConfig& config, int n_layers);

    void begin_prefill(int n_new, int n_cached) override;
    std::optional<AttentionProbe> prefill_probe(int layer, int n_rows) override;
    PrefillDecision after_prefill_layer(int layer, int n_rows, int cache_len, const std::vector<float>& scores) override;
    std::optional<AttentionProbe> decode_probe(int layer) override;
    std::optional<std::vector<int>> after_decode_layer(int layer, int len, const std::vector<float>& scores) override;

    void entries_removed(int layer, const std::vector<int>& kept) override;

private:
    std::optional<std::vector<int>> evict(int layer, int budget);
    void accumulate(int layer, int len, const std::vector<float>& scores);

    double recent_fraction_;
    BaselineBudget budget_;
    std::vector<std::vector<float>> accumulated_;  // per layer, per entry
    std::vector<int> steps_;
};

} // namespace pyramid
