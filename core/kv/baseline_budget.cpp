#include "kv/baseline_budget.h"

#include <cmath>
#include <numeric>

#include "util/error.h"

namespace pyramid {

BaselineBudget::BaselineBudget(const CompressionConfig& config, int n_layers)
    : config_(config), n_layers_(n_layers)
{
    config_.validate_for(n_layers);
}

void BaselineBudget::begin(int n_tokens)
{
    n_tokens_ = n_tokens;
    if (config_.layer_budgets.empty())
        plan_ = plan_pyramid_lengths(config_.pyramid, n_layers_, n_tokens, 0);
}

int BaselineBudget::share(const std::vector<int>& lengths) const
{
    const double total = std::accumulate(lengths.begin(), lengths.end(), 0.0);
    return static_cast<int>(std::lround(total / n_layers_));
}

int BaselineBudget::after_prefill(int layer) const
{
    if (!config_.layer_budgets.empty())
        return config_.layer_budgets[static_cast<size_t>(layer)];
    return share(plan_.after_prefill);
}

int BaselineBudget::after_step(int layer, int step)
{
    if (!config_.layer_budgets.empty())
        return config_.layer_budgets[static_cast<size_t>(layer)];
    if (step >= static_cast<int>(plan_.after_step.size()))
        plan_ = plan_pyramid_lengths(config_.pyramid, n_layers_, n_tokens_, std::max(64, 2 * (step + 1)));
    return share(plan_.after_step[static_cast<size_t>(step)]);
}

} // namespace pyramid
