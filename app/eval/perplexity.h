#pragma once
// The perplexity protocol for a KV-cache policy. For each window of P + C tokens: prefill the
// first P with the policy, then feed the next C tokens one at a time through the decode path
// (teacher forcing), so the policy compresses exactly as it would while generating. Token
// P + t is scored by the logits after token P + t - 1: the first by the prefill's last logits,
// the others by the decode of the token before them (the last token is never fed).
//
// Memory is read from the cache at every scored step, i.e. right after the logits that score
// the step were computed, and averaged over all scored steps of all windows.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "backend/backend.h"
#include "kv/compression_config.h"

namespace pyramid {

// -log softmax(logits)[target], in double precision.
double next_token_nll(std::span<const float> logits, int32_t target);

struct WindowScore {
    double nll_sum = 0.0;
    int scored = 0;
    std::vector<int> prefill_lengths;       // per layer, right after the prefill
    std::vector<double> layer_entries_sum;  // per layer, summed over the scored steps
    double kv_bytes_sum = 0.0;              // summed over the scored steps
    double full_kv_bytes_sum = 0.0;         // what a full cache would hold, same steps
};

// Scores tokens [prefill, window.size()) of one window. Throws pyramid::Error when the window
// has no token to score or is longer than the model's context.
WindowScore score_window(Backend& backend, const CompressionConfig& config, std::span<const int32_t> window,
                         int prefill);

struct PerplexityResult {
    int windows = 0;
    long scored_tokens = 0;
    double mean_nll = 0.0;                     // per scored token, over all windows
    double perplexity = 0.0;                   // exp(mean_nll)
    std::vector<double> window_mean_nll;       // one per window, for paired comparisons
    std::vector<double> prefill_lengths;       // per layer, mean over windows
    std::vector<double> mean_layer_entries;    // per layer, mean over all scored steps
    double mean_entries_per_layer = 0.0;       // the mean of mean_layer_entries
    double mean_kv_bytes = 0.0;                // per scored step
    double mean_full_kv_bytes = 0.0;
    double kv_fraction = 0.0;                  // mean_kv_bytes / mean_full_kv_bytes
};

// Runs every window; `progress(done, total)` is called after each one.
PerplexityResult evaluate_perplexity(Backend& backend, const CompressionConfig& config,
                                     const std::vector<std::vector<int32_t>>& windows, int prefill,
                                     const std::function<void(int, int)>& progress = {});

} // namespace pyramid
