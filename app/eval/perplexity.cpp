#include "perplexity.h"

#include <algorithm>
#include <cmath>

#include "generate/inference_session.h"
#include "util/error.h"

namespace pyramid {

double next_token_nll(std::span<const float> logits, int32_t target)
{
    if (target < 0 || static_cast<size_t>(target) >= logits.size())
        throw Error("token " + std::to_string(target) + " is outside the vocabulary of " +
                    std::to_string(logits.size()));
    const double top = *std::max_element(logits.begin(), logits.end());
    double sum = 0.0;
    for (float v : logits)
        sum += std::exp(static_cast<double>(v) - top);
    return std::log(sum) + top - static_cast<double>(logits[static_cast<size_t>(target)]);
}

WindowScore score_window(Backend& backend, const CompressionConfig& config, std::span<const int32_t> window,
                         int prefill)
{
    const int total = static_cast<int>(window.size());
    if (prefill < 1 || prefill >= total)
        throw Error("a window of " + std::to_string(total) + " tokens leaves nothing to score after a prefill of " +
                    std::to_string(prefill));
    InferenceSession session(backend, config);
    WindowScore score;
    std::vector<float> logits = session.prefill(window.first(static_cast<size_t>(prefill)));
    score.prefill_lengths = session.cache().lengths();
    score.layer_entries_sum.assign(score.prefill_lengths.size(), 0.0);
    for (int t = prefill; t < total; ++t) {
        if (t > prefill)
            logits = session.decode(window[static_cast<size_t>(t - 1)]);
        score.nll_sum += next_token_nll(logits, window[static_cast<size_t>(t)]);
        ++score.scored;
        const std::vector<int> lengths = session.cache().lengths();
        for (size_t l = 0; l < lengths.size(); ++l)
            score.layer_entries_sum[l] += lengths[l];
        score.kv_bytes_sum += static_cast<double>(session.cache().bytes());
        score.full_kv_bytes_sum += static_cast<double>(session.full_cache_bytes());
    }
    return score;
}

PerplexityResult evaluate_perplexity(Backend& backend, const CompressionConfig& config,
                                     const std::vector<std::vector<int32_t>>& windows, int prefill,
                                     const std::function<void(int, int)>& progress)
{
    if (windows.empty())
        throw Error("no windows to evaluate");
    PerplexityResult r;
    double nll = 0.0, bytes = 0.0, full_bytes = 0.0;
    for (const std::vector<int32_t>& window : windows) {
        const WindowScore s = score_window(backend, config, window, prefill);
        if (r.mean_layer_entries.empty()) {
            r.mean_layer_entries.assign(s.layer_entries_sum.size(), 0.0);
            r.prefill_lengths.assign(s.prefill_lengths.size(), 0.0);
        }
        for (size_t l = 0; l < s.layer_entries_sum.size(); ++l) {
            r.mean_layer_entries[l] += s.layer_entries_sum[l];
            r.prefill_lengths[l] += s.prefill_lengths[l];
        }
        nll += s.nll_sum;
        bytes += s.kv_bytes_sum;
        full_bytes += s.full_kv_bytes_sum;
        r.scored_tokens += s.scored;
        r.window_mean_nll.push_back(s.nll_sum / s.scored);
        ++r.windows;
        if (progress)
            progress(r.windows, static_cast<int>(windows.size()));
    }
    const double steps = static_cast<double>(r.scored_tokens);
    r.mean_nll = nll / steps;
    r.perplexity = std::exp(r.mean_nll);
    for (double& v : r.mean_layer_entries)
        v /= steps;
    for (double& v : r.prefill_lengths)
        v /= r.windows;
    double sum = 0.0;
    for (double v : r.mean_layer_entries)
        sum += v;
    r.mean_entries_per_layer = sum / static_cast<double>(r.mean_layer_entries.size());
    r.mean_kv_bytes = bytes / steps;
    r.mean_full_kv_bytes = full_bytes / steps;
    r.kv_fraction = full_bytes > 0.0 ? bytes / full_bytes : 0.0;
    return r;
}

} // namespace pyramid
