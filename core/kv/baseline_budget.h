#pragma once
// How many entries the baseline policies (local, H2O) may keep per layer at each point of a
// generation. Unless budgets are given, they keep in total what PyramidInfer keeps for the
// same prompt at every step, so comparisons are at equal KV bytes (to within rounding), spread
// evenly over the layers: both baselines' papers give every layer the same budget.
#include <vector>

#include "kv/compression_config.h"
#include "kv/pyramid_schedule.h"

namespace pyramid {

class BaselineBudget {
public:
    BaselineBudget(const CompressionConfig& config, int n_layers);

    void begin(int n_tokens);
    int after_prefill(int layer) const;
    // Budget after decode step `step` (0 = the first generated token).
    int after_step(int layer, int step);

private:
    int share(const std::vector<int>& lengths) const;  // the layers' even share of their total

    CompressionConfig config_;
    int n_layers_;
    int n_tokens_ = 0;
    PyramidLengthPlan plan_;
};

} // namespace pyramid
