#pragma once
// How many entries the baseline policies (local, H2O, SnapKV, PyramidKV) may keep per layer at
// each point of a generation. In order of precedence:
//   - layer_budgets, when given: those entries, at every step;
//   - budget_fraction f > 0: f of what a full cache holds (the tokens seen so far);
//   - otherwise what PyramidInfer keeps for the same prompt at every step, so comparisons are
//     at equal KV bytes (to within rounding).
// The last two give a total, spread evenly over the layers (local's, H2O's and SnapKV's papers
// give every layer the same budget) or, for PyramidKV, as its arithmetic series from the
// bottom layer to the top (pyramidkv_layer_budgets).
#include <vector>

#include "kv/compression_config.h"
#include "kv/pyramid_schedule.h"

namespace pyramid {

class BaselineBudget {
public:
    BaselineBudget(const CompressionConfig& config, int n_layers);

    // Call before the budgets of a prompt of n_tokens (the cache after it included) are read.
    void begin(int n_tokens);
    int after_prefill(int layer) const;
    // Budget after decode step `step` (0 = the first generated token).
    int after_step(int layer, int step);

private:
    int even_share_after_prefill() const;

    CompressionConfig config_;
    int n_layers_;
    int n_tokens_ = 0;
    PyramidLengthPlan plan_;
    std::vector<int> pyramidkv_after_prefill_;  // PyramidKV's series for this prompt
};

// PyramidKV's per-layer budgets (Cai et al., 2024, arXiv 2406.02069): every layer keeps the
// `window` observation entries; the entries it selects beyond them run in an arithmetic series
// from the bottom layer (most) to the top (1/beta of the average), averaging `average - window`.
// Where the bottom layer would select more than the n_tokens - window there are, it selects all
// of them and the top layer the rest of the total. Sums to n_layers * average up to rounding.
std::vector<int> pyramidkv_layer_budgets(int average, int window, int n_tokens, int n_layers, double beta);

} // namespace pyramid
