#pragma once
// SnapKV (Li et al., 2024, arXiv 2404.14469) and PyramidKV (Cai et al., 2024, arXiv 2406.02069):
// after a prompt's layer ran, the attention of the prompt's last `observation_window` tokens,
// summed over those tokens and smoothed by an average pool over `pooling_kernel` neighbouring
// entries, ranks the earlier entries; the layer keeps the best of them plus the window itself.
// Nothing is compressed while generating. SnapKV gives every layer the same budget, PyramidKV
// an arithmetic series from the bottom layer to the top (kv/baseline_budget.h).
//
// Both papers select per KV head: with kv_selection PerHead, each KV head ranks the entries by
// the window's attention summed over its own group of query heads and keeps its own top
// entries plus the window, the same number in every head (KvCache::keep_per_head; the CPU
// backend only). With PerLayer, the default, every backend's choice, the scores are averaged
// over all query heads and the layer keeps one set for all heads, as PyramidInfer and H2O do.
// Every prefill selects again, over the whole cache: in a conversation, the newest message is
// the observation window that decides what of the earlier turns survives.
#include <optional>
#include <span>
#include <vector>

#include "kv/baseline_budget.h"
#include "kv/compression_policy.h"

namespace pyramid {

// Which of `scores.size()` entries to keep (ascending), or nullopt when all fit in `budget`:
// the last `window` entries (the observation window), and the top budget - window of the
// others by their scores average-pooled over the candidates (kv/score_pooling.h). The window
// is never cut: a budget below it counts as the window, so a prompt no longer than the window
// is kept whole.
std::optional<std::vector<int>> snapkv_keep(std::span<const float> scores, int window, int pooling_kernel, int budget);

class SnapKVPolicy final : public CompressionPolicy {
public:
    // config.policy is SnapKV or PyramidKV.
    SnapKVPolicy(const CompressionConfig& config, int n_layers);

    void begin_prefill(int n_new, int n_cached) override;
    std::optional<AttentionProbe> prefill_probe(int layer, int n_rows) override;
    PrefillDecision after_prefill_layer(int layer, int n_rows, int cache_len, const std::vector<float>& scores) override;
    std::optional<AttentionProbe> decode_probe(int) override { return std::nullopt; }
    std::optional<std::vector<int>> after_decode_layer(int, int, const std::vector<float>&) override
    {
        return std::nullopt;
    }
    void entries_removed(int, const std::vector<int>&) override {}

private:
    bool per_head_;
    int observation_window_;
    int pooling_kernel_;
    BaselineBudget budget_;
};

} // namespace pyramid
