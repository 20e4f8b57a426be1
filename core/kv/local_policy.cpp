#include "kv/local_policy.h"

#include <algorithm>

namespace pyramid {

LocalPolicy::LocalPolicy(const CompressionConfig& config, int n_layers)
    : sink_tokens_(config.pyramid.sink_tokens),
      budget_(config, n_layers),
      steps_(static_cast<size_t>(n_layers), 0)
{
}

void LocalPolicy::begin_prefill(int n_new, int n_cached)
{
    budget_.begin(n_cached + n_new);
    std::fill(steps_.begin(), steps_.end(), 0);
}

std::optional<std::vector<int>> LocalPolicy::trim(int len, int budget) const
{
    if (len <= budget)
        return std::nullopt;
    // At least one recent entry: a decode step must keep the token it just added.
    const int sinks = std::min(sink_tokens_, budget - 1);
    std::vector<int> keep;
    for (int j = 0; j < sinks; ++j)
        keep.push_back(j);
    for (int j = len - (budget - sinks); j < len; ++j)
        keep.push_back(j);
    return keep;
}

PrefillDecision LocalPolicy::after_prefill_layer(int layer, int, int cache_len, const std::vector<float>&)
{
    return {std::nullopt, trim(cache_len, budget_.after_prefill(layer)), std::nullopt};
}

std::optional<std::vector<int>> LocalPolicy::after_decode_layer(int layer, int len, const std::vector<float>&)
{
    return trim(len, budget_.after_step(layer, steps_[static_cast<size_t>(layer)]++));
}

} // namespace pyramid
