#include "graph_choice.h"

#include <algorithm>

namespace pyramid::cuda {
namespace {

double median(std::vector<double> v)
{
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

} // namespace

bool GraphChoice::record(int batch)
{
    const Trial& t = trials_[batch];
    return t.choice ? *t.choice : t.steps % 2 == 1;
}

void GraphChoice::measured(int batch, bool recorded, double seconds)
{
    Trial& t = trials_[batch];
    if (t.choice) {
        if (++t.kept >= kKeepSteps)
            t = Trial{};
        return;
    }
    if (t.steps++ < kWarmupSteps)
        return;
    (recorded ? t.recorded : t.queued).push_back(seconds);
    const auto trial_steps = static_cast<size_t>(kTrialSteps);
    if (t.recorded.size() < trial_steps || t.queued.size() < trial_steps)
        return;
    t.choice = median(t.recorded) < median(t.queued);
    t.recorded.clear();
    t.queued.clear();
}

std::optional<bool> GraphChoice::decided(int batch) const
{
    const auto it = trials_.find(batch);
    return it == trials_.end() ? std::nullopt : it->second.choice;
}

} // namespace pyramid::cuda
