#include "kv/snapkv_policy.h"

#include <algorithm>

#include "kv/score_pooling.h"
#include "kv/top_k.h"

namespace pyramid {

std::optional<std::vector<int>> snapkv_keep(std::span<const float> scores, int window, int pooling_kernel, int budget)
{
    // As in SnapKV's reference, the window always stays: a budget below it (a short message
    // under a fractional budget) would cut the newest words of the question itself.
    const int len = static_cast<int>(scores.size());
    window = std::clamp(window, 0, len);
    budget = std::max(budget, window);
    if (len <= budget)
        return std::nullopt;
    const int candidates = len - window;
    std::vector<int> keep = select_top_k(average_pool(scores.first(static_cast<size_t>(candidates)), pooling_kernel),
                                         budget - window);
    for (int j = candidates; j < len; ++j)
        keep.push_back(j);
    return keep;
}

SnapKVPolicy::SnapKVPolicy(const CompressionConfig& config, int n_layers)
    : per_head_(config.kv_selection == KvSelection::PerHead),
      observation_window_(config.observation_window),
      pooling_kernel_(config.pooling_kernel),
      budget_(config, n_layers)
{
}

void SnapKVPolicy::begin_prefill(int n_new, int n_cached)
{
    budget_.begin(n_cached + n_new);
}

std::optional<AttentionProbe> SnapKVPolicy::prefill_probe(int, int n_rows)
{
    const int window = std::min(observation_window_, n_rows);
    return AttentionProbe{n_rows - window, std::vector<float>(static_cast<size_t>(window), 1.0f), per_head_};
}

PrefillDecision SnapKVPolicy::after_prefill_layer(int layer, int n_rows, int cache_len, const std::vector<float>& scores)
{
    const int window = std::min(observation_window_, n_rows);
    const int budget = budget_.after_prefill(layer);
    const auto len = static_cast<size_t>(cache_len);
    if (!per_head_)
        return {std::nullopt, snapkv_keep(std::span<const float>(scores.data(), len), window, pooling_kernel_, budget),
                std::nullopt};
    // Whether anything goes depends on the length and budget alone, so every head agrees, and
    // each keeps budget entries (or the window).
    std::vector<std::vector<int>> per_head;
    for (size_t first = 0; first + len <= scores.size() && len > 0; first += len) {
        std::optional<std::vector<int>> keep =
            snapkv_keep(std::span<const float>(scores.data() + first, len), window, pooling_kernel_, budget);
        if (!keep)
            return {};
        per_head.push_back(std::move(*keep));
    }
    return {std::nullopt, std::nullopt, std::move(per_head)};
}

} // namespace pyramid
