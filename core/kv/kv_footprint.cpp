#include "kv/kv_footprint.h"

#include <algorithm>
#include <numeric>

#include "backend/kv_block_allocator.h"
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
        BaselineBudget budget(config, n_layers);
        budget.begin(n_tokens);
        for (int s = 0; s <= steps; ++s) {
            std::vector<int> lengths;
            for (int l = 0; l < n_layers; ++l)
                lengths.push_back(std::min(n_tokens + s, s == 0 ? budget.after_prefill(l) : budget.after_step(l, s - 1)));
            plan.push_back(std::move(lengths));
        }
        break;
    }
    case CompressionPolicyKind::SnapKV:
    case CompressionPolicyKind::PyramidKV: {  // select once after the prompt, then grow
        BaselineBudget budget(config, n_layers);
        budget.begin(n_tokens);
        std::vector<int> after_prefill;
        for (int l = 0; l < n_layers; ++l)
            after_prefill.push_back(  // the observation window always stays (snapkv_policy.h)
                std::min(n_tokens, std::max(budget.after_prefill(l), config.observation_window)));
        for (int s = 0; s <= steps; ++s) {
            std::vector<int> lengths = after_prefill;
            for (int& length : lengths)
                length += s;
            plan.push_back(std::move(lengths));
        }
        break;
    }
    }
    return plan;
}

// The prompt rows that enter `layer`: PyramidInfer drops tokens (rows) and keeps whatever
// enters a layer; the baselines pass every row on and trim each layer's entries after it ran.
int rows_entering(const CompressionConfig& config, const std::vector<int>& after_prefill, int layer, int n_tokens)
{
    return config.policy == CompressionPolicyKind::Pyramid ? after_prefill[static_cast<size_t>(layer)] : n_tokens;
}

} // namespace

int plan_kv_peak_blocks(const CompressionConfig& config, int n_layers, int n_tokens, int steps, int block_entries)
{
    const auto blocks = [block_entries](int entries) {
        return static_cast<int>(kv_blocks_for(static_cast<size_t>(entries), static_cast<size_t>(block_entries)));
    };
    const std::vector<std::vector<int>> plan = plan_lengths(config, n_layers, n_tokens, steps);
    int peak = 0;  // the prompt's room, reserved for every layer before it runs
    for (int l = 0; l < n_layers; ++l)
        peak += blocks(rows_entering(config, plan.front(), l, n_tokens));
    for (size_t s = 0; s < plan.size(); ++s) {
        int held = 0;
        for (int length : plan[s])
            held += blocks(s + 1 < plan.size() ? length + 1 : length);
        peak = std::max(peak, held);
    }
    return peak;
}

KvFootprint plan_kv_footprint(const CompressionConfig& config, int n_layers, int n_tokens, int steps)
{
    const std::vector<std::vector<int>> plan = plan_lengths(config, n_layers, n_tokens, steps);
    KvFootprint f;
    f.after_prefill = plan.front();
    // While layer l runs, it holds every row that entered it before its own selection, the
    // layers before it are already compressed and the ones after it still empty.
    int before = 0;
    for (int l = 0; l < n_layers; ++l) {
        f.prefill_peak = std::max(f.prefill_peak, before + rows_entering(config, f.after_prefill, l, n_tokens));
        before += f.after_prefill[static_cast<size_t>(l)];
    }
    // A decode step appends one entry to every layer before any layer compresses.
    f.peak = f.prefill_peak;
    f.least = sum(plan.front());
    for (size_t s = 0; s < plan.size(); ++s) {
        f.peak = std::max(f.peak, s + 1 < plan.size() ? sum(plan[s]) + n_layers : sum(plan[s]));
        f.least = std::min(f.least, sum(plan[s]));
    }
    return f;
}

} // namespace pyramid
