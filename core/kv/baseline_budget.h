#pragma once
// How many entries the baseline policies (local, H2O) may keep per layer at each point of a
// generation. Unless budgets are given, they follow what PyramidInfer keeps for the same
// prompt at every step, so comparisons are at equal KV bytes: per layer (local) or as the
// same total spread evenly over the layers (H2O).
#include <vector>

#include "kv/compression_config.h"
#include "kv/pyramid_schedule.h"

namespace pyramid {

class BaselineBudget {
public:
    enum class Shape { PerLayer, Uniform };

    BaselineBudget(const CompressionConfig& config, int n_layers, Shape shape);

    void begin(int n_tokens);
    int after_prefill(int layer) const;
    // Budget after decode step `step` (0 = the first generated token).
    int after_step(int layer, int step);

private:
    int pick(const std::vector<int>& lengths, int layer) const;

    CompressionConfig config_;
    int n_layers_;
    Shape shape_;
    int n_tokens_ = 0;
    PyramidLengthPlan plan_;
};

} // namespace pyramid
