#pragma once
// The arithmetic of PyramidInfer that does not depend on the model's activations: the
// per-layer retention schedules, how many entries a selection keeps, and from those the
// exact per-layer cache lengths a run will have (docs/pyramidinfer.md). Policies use the
// same functions, so a baseline can be given exactly PyramidInfer's memory.
#include <vector>

#include "kv/compression_config.h"

namespace pyramid {

// Retention ratio of `layer` out of `n_layers` for a schedule ending at `end_value`.
double decay_schedule(DecaySchedule schedule, int layer, int n_layers, double end_value);

// Recent-window size r for a prompt of n tokens.
int recent_window_extra(int n_tokens, const PyramidSettings& settings);

// Context tokens a prefill selection keeps out of `ctx`, or ctx when no selection happens.
int prefill_keep_count(int ctx, int min_ctx, double retention);

// Entries a generation-phase chunk of E entries starting at entry `chunk_begin` keeps at
// `layer`: the schedule's count, or more when the chunk holds sink entries, which are always
// kept (a prompt shorter than the sinks puts them in the first chunk).
int generation_keep_count(const PyramidSettings& settings, int layer, int n_layers, int chunk_begin);

// How many of a chunk's entries, from `chunk_begin` on, are sinks (the first sink_tokens).
int sinks_in_chunk(const PyramidSettings& settings, int chunk_begin);

// Per-layer cache lengths after the prefill of n_tokens and after each of `steps` decode
// steps (one row per step), as PyramidInfer produces them.
struct PyramidLengthPlan {
    std::vector<int> after_prefill;
    std::vector<std::vector<int>> after_step;
};
PyramidLengthPlan plan_pyramid_lengths(const PyramidSettings& settings, int n_layers, int n_tokens, int steps);

} // namespace pyramid
