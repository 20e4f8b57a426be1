#include "kv/baseline_budget.h"

#include <algorithm>
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
    if (config_.layer_budgets.empty() && config_.budget_fraction == 0.0)
        plan_ = plan_pyramid_lengths(config_.pyramid, n_layers_, n_tokens, 0);
    if (config_.layer_budgets.empty() && config_.policy == CompressionPolicyKind::PyramidKV)
        pyramidkv_after_prefill_ = pyramidkv_layer_budgets(even_share_after_prefill(), config_.observation_window,
                                                           n_tokens, n_layers_, config_.pyramidkv_beta);
}

namespace {

// The layers' even share of their total.
int share(const std::vector<int>& lengths, int n_layers)
{
    const double total = std::accumulate(lengths.begin(), lengths.end(), 0.0);
    return static_cast<int>(std::lround(total / n_layers));
}

int fraction_of(double fraction, int tokens) { return std::max(1, static_cast<int>(std::lround(fraction * tokens))); }

} // namespace

int BaselineBudget::even_share_after_prefill() const
{
    if (config_.budget_fraction > 0.0)
        return fraction_of(config_.budget_fraction, n_tokens_);
    return share(plan_.after_prefill, n_layers_);
}

int BaselineBudget::after_prefill(int layer) const
{
    if (!config_.layer_budgets.empty())
        return config_.layer_budgets[static_cast<size_t>(layer)];
    if (config_.policy == CompressionPolicyKind::PyramidKV)
        return pyramidkv_after_prefill_[static_cast<size_t>(layer)];
    return even_share_after_prefill();
}

int BaselineBudget::after_step(int layer, int step)
{
    if (!config_.layer_budgets.empty())
        return config_.layer_budgets[static_cast<size_t>(layer)];
    if (config_.budget_fraction > 0.0)
        return fraction_of(config_.budget_fraction, n_tokens_ + step + 1);
    if (step >= static_cast<int>(plan_.after_step.size()))
        plan_ = plan_pyramid_lengths(config_.pyramid, n_layers_, n_tokens_, std::max(64, 2 * (step + 1)));
    return share(plan_.after_step[static_cast<size_t>(step)], n_layers_);
}

std::vector<int> pyramidkv_layer_budgets(int average, int window, int n_tokens, int n_layers, double beta)
{
    if (n_layers < 1 || beta < 1.0)
        throw Error("pyramidkv_layer_budgets: needs a layer and beta >= 1");
    const int selected = average - window;  // what the layers select beyond the window, on average
    if (selected <= 0 || n_layers == 1)
        return std::vector<int>(static_cast<size_t>(n_layers), average);
    double top = selected / beta;
    double bottom = 2.0 * selected - top;
    if (const double available = std::max(0, n_tokens - window); bottom > available) {
        bottom = available;
        top = 2.0 * selected - bottom;
    }
    std::vector<int> budgets;
    for (int l = 0; l < n_layers; ++l) {
        const double step = (bottom - top) * l / (n_layers - 1);
        budgets.push_back(window + static_cast<int>(std::lround(bottom - step)));
    }
    return budgets;
}

} // namespace pyramid
