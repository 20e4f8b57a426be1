#include "kv/pyramid_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pyramid {

double decay_schedule(DecaySchedule schedule, int layer, int n_layers, double end_value)
{
    // Evaluated in the spec's order so floor() of the products matches the reference.
    switch (schedule) {
    case DecaySchedule::Cosine:
        return (1.0 - end_value) * (std::cos(std::numbers::pi * layer / n_layers) + 1.0) / 2.0 + end_value;
    case DecaySchedule::Linear:
        return (1.0 - end_value) * layer / n_layers + end_value;
    case DecaySchedule::Constant:
        return end_value;
    }
    return 1.0;
}

int recent_window_extra(int n_tokens, const PyramidSettings& settings)
{
    return static_cast<int>(std::floor(n_tokens * settings.recent_ratio));
}

int prefill_keep_count(int ctx, int min_ctx, double retention)
{
    if (ctx <= min_ctx || retention >= 1.0)
        return ctx;
    const int k = static_cast<int>(std::floor(ctx * retention));
    return k <= min_ctx ? ctx : k;
}

int sinks_in_chunk(const PyramidSettings& s, int chunk_begin)
{
    return std::clamp(s.sink_tokens - chunk_begin, 0, s.exceed_length_to_compress);
}

int generation_keep_count(const PyramidSettings& s, int layer, int n_layers, int chunk_begin)
{
    const double fraction = s.exceed_length_to_compress * s.gen_compress_ratio *
                            decay_schedule(s.gen_decay_strategy, layer, n_layers, s.gen_decay_ratio);
    return std::max({static_cast<int>(std::floor(fraction)), 1, sinks_in_chunk(s, chunk_begin)});
}

PyramidLengthPlan plan_pyramid_lengths(const PyramidSettings& s, int n_layers, int n_tokens, int steps)
{
    PyramidLengthPlan plan;
    const int r = recent_window_extra(n_tokens, s);
    const int min_ctx = std::min(s.min_context_length, n_tokens - 1 - r);
    int n = n_tokens;
    for (int l = 0; l < n_layers; ++l) {
        plan.after_prefill.push_back(n);
        if (l % s.layerwise_downsample_interval != 0)
            continue;
        const int ctx = n - (1 + r);
        n = prefill_keep_count(ctx, min_ctx,
                               decay_schedule(s.prefill_decay_strategy, l, n_layers, s.prefill_decay_ratio)) +
            (1 + r);
    }

    std::vector<int> length = plan.after_prefill;
    std::vector<int> past = plan.after_prefill;
    const int E = s.exceed_length_to_compress;
    for (int step = 0; step < steps; ++step) {
        for (int l = 0; l < n_layers; ++l) {
            ++length[l];
            if (length[l] - r - past[l] >= E) {
                length[l] -= E - generation_keep_count(s, l, n_layers, length[l] - (1 + r + E));
                past[l] = length[l] - r;
            }
        }
        plan.after_step.push_back(length);
    }
    return plan;
}

} // namespace pyramid
