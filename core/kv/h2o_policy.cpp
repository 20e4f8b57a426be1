#include "kv/h2o_policy.h"

#include <algorithm>
#include <cmath>

#include "kv/top_k.h"

namespace pyramid {

H2OPolicy::H2OPolicy(const CompressionConfig& config, int n_layers)
    : recent_fraction_(config.baseline_recent_fraction),
      budget_(config, n_layers),
      accumulated_(static_cast<size_t>(n_layers)),
      steps_(static_cast<size_t>(n_layers), 0)
{
}

void H2OPolicy::begin_prefill(int n_new, int n_cached)
{
    budget_.begin(n_cached + n_new);
    if (n_cached == 0)
        for (auto& a : accumulated_)
            a.clear();
    std::fill(steps_.begin(), steps_.end(), 0);
}

void H2OPolicy::accumulate(int layer, int len, const std::vector<float>& scores)
{
    std::vector<float>& acc = accumulated_[static_cast<size_t>(layer)];
    acc.resize(static_cast<size_t>(len), 0.0f);
    for (int j = 0; j < len; ++j)
        acc[static_cast<size_t>(j)] += scores[static_cast<size_t>(j)];
}

std::optional<AttentionProbe> H2OPolicy::prefill_probe(int, int n_rows)
{
    return AttentionProbe{0, std::vector<float>(static_cast<size_t>(n_rows), 1.0f)};
}

std::optional<AttentionProbe> H2OPolicy::decode_probe(int)
{
    return AttentionProbe{0, {1.0f}};
}

void H2OPolicy::entries_removed(int layer, const std::vector<int>& kept)
{
    std::vector<float>& acc = accumulated_[static_cast<size_t>(layer)];
    std::vector<float> remaining;
    for (int j : kept)
        if (j < static_cast<int>(acc.size()))
            remaining.push_back(acc[static_cast<size_t>(j)]);
    acc = std::move(remaining);
}

std::optional<std::vector<int>> H2OPolicy::evict(int layer, int budget)
{
    std::vector<float>& acc = accumulated_[static_cast<size_t>(layer)];
    const int len = static_cast<int>(acc.size());
    if (len <= budget)
        return std::nullopt;
    // At least the newest entry: with a score from one row only, it would lose to any old one.
    const int recent = std::max(1, static_cast<int>(std::floor(budget * recent_fraction_)));
    std::vector<int> keep =
        select_top_k(std::span<const float>(acc.data(), static_cast<size_t>(len - recent)), budget - recent);
    for (int j = len - recent; j < len; ++j)
        keep.push_back(j);
    std::vector<float> kept;
    for (int j : keep)
        kept.push_back(acc[static_cast<size_t>(j)]);
    acc = std::move(kept);
    return keep;
}

PrefillDecision H2OPolicy::after_prefill_layer(int layer, int, int cache_len, const std::vector<float>& scores)
{
    accumulate(layer, cache_len, scores);
    return {std::nullopt, evict(layer, budget_.after_prefill(layer)), std::nullopt};
}

std::optional<std::vector<int>> H2OPolicy::after_decode_layer(int layer, int len, const std::vector<float>& scores)
{
    accumulate(layer, len, scores);
    return evict(layer, budget_.after_step(layer, steps_[static_cast<size_t>(layer)]++));
}

} // namespace pyramid
