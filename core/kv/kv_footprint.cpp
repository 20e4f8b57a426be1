#include "kv/kv_footprint.h"

#include <algorithm>
#include <numeric>

#include "kv/baseline_budget.h"
#include "kv/pyramid_schedule.h"

namespace pyramid {
namespace {

int sum(const std::vector<int>& lengths) { return std::accumulate(lengths.begin(), lengths.end(), 0); }

// Per-layer lengths after the prefill and after each step, policy by policy.
std::vector<std::vector<int>> plan_lengths(const CompressionConfig& config, int n_layers, int n_tokens, int steps)
{
    std::vector<std::vector<int>> plan;
    switch (config.policy) {
    case CompressionPolicyKind::Full:
        for (int s = 0; s <= steps; ++s)
            plan.emplace_back(static_cast<size_t>(n_layers), n_tokens + s);
        break;
    case CompressionPolicyKind::Pyramid: {
        PyramidLengthPlan p = plan_pyramid_lengths(config.pyramid, n_layers, n_tokens, steps);
        plan.push_back(std::move(p.after_prefill));
        for (auto& step : p.after_step)
            plan.push_back(std::move(step));
        break;
    }
    case CompressionPolicyKind::Local:
    case CompressionPolicyKind::H2O: {
        BaselineBudget budget(config, n_layers,
                              config.policy == CompressionPolicyKind::Local ? BaselineBudget::Shape::PerLayer
                                                                            : BaselineBudget::Shape::Uniform);
        budget.begin(n_tokens);
        for (int s = 0; s <= steps; ++s) {
            std::vector<int> lengths;
            for (int l = 0; l < n_layers; ++l)
                lengths.push_back(std::min(n_tokens + s, s == 0 ? budget.after_prefill(l) : budget.after_step(l, s - 1)));
            plan.push_back(std::move(lengths));
        }
        break;
    }
    }
    return plan;
}

} // namespace

KvFootprint plan_kv_footprint(const CompressionConfig& config, int n_layers, int n_tokens, int steps)
{
    const std::vector<std::vector<int>> plan = plan_lengths(config, n_layers, n_tokens, steps);
    KvFootprint f;
    f.after_prefill = plan.front();
    // While a layer runs it holds every row that reached it (at most the whole prompt) before
    // its own selection; the layers before it are already compressed, the ones after it empty.
    int before = 0;
    for (int l = 0; l < n_layers; ++l) {
        f.prefill_peak = std::max(f.prefill_peak, before + n_tokens);
        before += f.after_prefill[static_cast<size_t>(l)];
    }
    f.peak = f.prefill_peak;
    for (const std::vector<int>& lengths : plan)
        f.peak = std::max(f.peak, sum(lengths));
    return f;
}

} // namespace pyramid
