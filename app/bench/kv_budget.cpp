#include "kv_budget.h"

#include <algorithm>

#include "kv/kv_footprint.h"

namespace pyramid::bench {

KvBudget plan_kv_budget(size_t free, const std::function<size_t(const StepExtent&)>& step_memory,
                        size_t kv_entry_bytes, int n_layers, const std::vector<CompressionConfig>& configs,
                        const Workload& workload, int most_sequences)
{
    const int most = std::max(most_sequences, 1);
    const int length = workload.prompt_len + workload.gen_len;
    // The rows of the largest step with n sequences: their prompts admitted together, up to
    // max_prompt_tokens (one at least), or one preempted sequence back with its prompt and
    // generated tokens as one prompt.
    const auto rows_for = [&](int n) {
        const long long prompts = std::min<long long>(workload.max_prompt_tokens,
                                                      static_cast<long long>(n) * workload.prompt_len);
        return static_cast<int>(std::max<long long>({prompts, workload.prompt_len, length}));
    };
    const auto extent_for = [&](int n, int sequences) { return StepExtent{rows_for(n), sequences, length}; };

    // The fewest KV bytes a running sequence holds, under the most frugal policy: with this
    // little each, the most sequences share the budget.
    size_t smallest = 0;
    for (const CompressionConfig& config : configs) {
        const KvFootprint f = plan_kv_footprint(config, n_layers, workload.prompt_len, workload.gen_len);
        const size_t bytes = static_cast<size_t>(std::max(f.least, 1)) * kv_entry_bytes;
        smallest = smallest == 0 ? bytes : std::min(smallest, bytes);
    }
    // With the prompt steps of n sequences, the fewest sequences to plan for. Step memory is
    // fixed + k * each for k sequences; the budget left then holds
    // floor((free - fixed - k * each) / smallest) of them, which is at most k from the first k
    // with (k + 1) * smallest + k * each > free - fixed.
    const auto safe_for = [&](int n) {
        const size_t one = step_memory(extent_for(n, 1));
        const size_t each = step_memory(extent_for(n, 2)) - one;
        const size_t fixed = one - each;
        if (free <= fixed + smallest)
            return 1;
        return static_cast<int>(std::min<size_t>((free - fixed - smallest) / (smallest + each) + 1, most));
    };
    // More sequences mean longer prompt steps and so fewer that fit: the least n that is
    // enough for its own rows, by bisection (the condition holds at `most` and stays true above
    // its first n).
    int low = 1, high = most;
    while (low < high) {
        const int mid = low + (high - low) / 2;
        if (mid >= safe_for(mid))
            high = mid;
        else
            low = mid + 1;
    }

    KvBudget budget;
    budget.free = free;
    budget.extent = extent_for(low, low);
    budget.step_memory = step_memory(budget.extent);
    budget.kv_bytes = free > budget.step_memory ? free - budget.step_memory : 0;
    return budget;
}

} // namespace pyramid::bench
