#include "kv/pyramid_policy.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "kv/pyramid_schedule.h"
#include "kv/score_pooling.h"
#include "kv/top_k.h"

namespace pyramid {

PyramidPolicy::PyramidPolicy(const PyramidSettings& settings, int n_layers)
    : settings_(settings), n_layers_(n_layers), layers_(static_cast<size_t>(n_layers))
{
}

void PyramidPolicy::begin_prefill(int n_new, int n_cached)
{
    recent_ = recent_window_extra(n_new, settings_);
    min_ctx_ = std::min(settings_.min_context_length, n_new - 1 - recent_);
    sinks_ = std::max(0, settings_.sink_tokens - n_cached);
    const int window = 1 + recent_;
    voters_ = settings_.observation_window > 0 ? std::min(settings_.observation_window, window) : window;
    alive_.clear();
    if (settings_.keep_hidden_states) {
        alive_.resize(static_cast<size_t>(n_new));
        std::iota(alive_.begin(), alive_.end(), 0);
    }
    layers_.assign(static_cast<size_t>(n_layers_), LayerState{});
}

int PyramidPolicy::keep_count(int layer, int ctx) const
{
    if (layer % settings_.layerwise_downsample_interval != 0)
        return ctx;
    return prefill_keep_count(
        ctx, min_ctx_,
        decay_schedule(settings_.prefill_decay_strategy, layer, n_layers_, settings_.prefill_decay_ratio));
}

std::vector<float> PyramidPolicy::window_weights(int rows) const
{
    // linspace(1, distance_weight, rows), oldest row first, divided by the row count so the
    // column sums are the weighted mean of the spec.
    std::vector<float> w(static_cast<size_t>(rows));
    for (int i = 0; i < rows; ++i) {
        const double t = rows == 1 ? 0.0 : static_cast<double>(i) / (rows - 1);  // numpy: [1.0] for one row
        const double weight = 1.0 + t * (settings_.distance_weight - 1.0);
        w[static_cast<size_t>(i)] = static_cast<float>(weight / rows);
    }
    return w;
}

int PyramidPolicy::new_entries_kept(int n_rows) const
{
    return settings_.keep_hidden_states ? static_cast<int>(alive_.size()) : n_rows;
}

std::optional<AttentionProbe> PyramidPolicy::prefill_probe(int layer, int n_rows)
{
    const int ctx = new_entries_kept(n_rows) - (1 + recent_);
    if (keep_count(layer, ctx) == ctx)
        return std::nullopt;  // no selection at this layer: skip the scoring work
    return AttentionProbe{n_rows - voters_, window_weights(voters_)};
}

PrefillDecision PyramidPolicy::after_prefill_layer(int layer, int n_rows, int cache_len,
                                                   const std::vector<float>& scores)
{
    const bool keep_hidden = settings_.keep_hidden_states;
    const int first_new = cache_len - n_rows;
    const int count = new_entries_kept(n_rows);
    LayerState& state = layers_[static_cast<size_t>(layer)];
    state.past = first_new + count;
    state.tail_start = state.past - 1;

    PrefillDecision decision;
    if (keep_hidden && count < n_rows) {
        // The cache keeps what the paper's rule would have passed into this layer.
        std::vector<int> entries(static_cast<size_t>(first_new));
        std::iota(entries.begin(), entries.end(), 0);
        for (int a : alive_)
            entries.push_back(first_new + a);
        decision.keep_entries = std::move(entries);
    }
    const int ctx = count - (1 + recent_);
    const int k = keep_count(layer, ctx);
    if (k == ctx)
        return decision;

    // Only the new tokens compete; entries cached by earlier turns are never pruned again.
    std::vector<float> s(static_cast<size_t>(ctx));
    for (int i = 0; i < ctx; ++i)
        s[static_cast<size_t>(i)] = scores[static_cast<size_t>(first_new + (keep_hidden ? alive_[static_cast<size_t>(i)] : i))];
    s = average_pool(s, settings_.pooling_kernel);  // before the sinks' infinities, which would spread
    std::fill_n(s.begin(), std::min(sinks_, ctx), std::numeric_limits<float>::infinity());
    std::vector<int> keep = select_top_k(s, k);
    for (int j = ctx; j < count; ++j)
        keep.push_back(j);
    if (!keep_hidden) {
        decision.keep_rows = std::move(keep);
        return decision;
    }
    for (int& i : keep)
        i = alive_[static_cast<size_t>(i)];
    alive_ = std::move(keep);
    return decision;
}

std::vector<int> PyramidPolicy::prompt_rows(int n_new, int n_layers) const
{
    if (settings_.keep_hidden_states)
        return CompressionPolicy::prompt_rows(n_new, n_layers);
    // Each layer keeps every row that enters it and passes fewer on (after_prefill_layer).
    return plan_pyramid_lengths(settings_, n_layers, n_new, 0).after_prefill;
}

void PyramidPolicy::entries_removed(int layer, const std::vector<int>& kept)
{
    LayerState& state = layers_[static_cast<size_t>(layer)];
    const auto count_below = [&](int index) {
        return static_cast<int>(std::lower_bound(kept.begin(), kept.end(), index) - kept.begin());
    };
    // Row columns follow the surviving entries from the tail on.
    const int new_tail = count_below(state.tail_start);
    for (std::vector<float>& row : state.rows) {
        std::vector<float> remapped;
        for (size_t i = static_cast<size_t>(new_tail); i < kept.size(); ++i) {
            const size_t col = static_cast<size_t>(kept[i] - state.tail_start);
            remapped.push_back(col < row.size() ? row[col] : 0.0f);
        }
        row = std::move(remapped);
    }
    state.past = count_below(state.past);
    state.tail_start = new_tail;
}

std::optional<AttentionProbe> PyramidPolicy::decode_probe(int)
{
    return AttentionProbe{0, {1.0f}};
}

std::optional<std::vector<int>> PyramidPolicy::after_decode_layer(int layer, int len, const std::vector<float>& scores)
{
    LayerState& state = layers_[static_cast<size_t>(layer)];
    const int E = settings_.exceed_length_to_compress;
    const int window = 1 + recent_;
    // The oldest row's storage takes the new one once the window is full: no allocation a step.
    std::vector<float> row;
    if (static_cast<int>(state.rows.size()) >= window) {
        row = std::move(state.rows.front());
        state.rows.pop_front();
    }
    row.assign(scores.begin() + state.tail_start, scores.begin() + len);
    state.rows.push_back(std::move(row));

    std::optional<std::vector<int>> keep;
    if (len - recent_ - state.past >= E) {
        const int chunk_begin = len - (window + E);
        // Weighted mean over the last 1 + r rows (fewer only if E < 1, which validate() forbids).
        const std::vector<float> weights = window_weights(window);
        const int n_rows = static_cast<int>(state.rows.size());
        const int used = std::min(window, n_rows);
        std::vector<float> chunk_scores(static_cast<size_t>(E), 0.0f);
        for (int i = 0; i < used; ++i) {
            const std::vector<float>& row = state.rows[static_cast<size_t>(n_rows - used + i)];
            const float w = weights[static_cast<size_t>(window - used + i)];
            for (int c = 0; c < E; ++c) {
                const size_t col = static_cast<size_t>(chunk_begin + c - state.tail_start);
                chunk_scores[static_cast<size_t>(c)] += col < row.size() ? w * row[col] : 0.0f;
            }
        }
        std::fill_n(chunk_scores.begin(), sinks_in_chunk(settings_, chunk_begin),
                    std::numeric_limits<float>::infinity());
        const std::vector<int> chosen =
            select_top_k(chunk_scores, generation_keep_count(settings_, layer, n_layers_, chunk_begin));

        std::vector<int> indices(static_cast<size_t>(chunk_begin));
        std::iota(indices.begin(), indices.end(), 0);
        for (int c : chosen)
            indices.push_back(chunk_begin + c);
        for (int j = chunk_begin + E; j < len; ++j)
            indices.push_back(j);

        // The new tail is the window, the entries after the chunk, unmoved in order: every row
        // drops its columns before it (missing ones stay missing, read as 0).
        const int new_len = static_cast<int>(indices.size());
        const int new_tail = new_len - window;
        const size_t dropped = static_cast<size_t>(chunk_begin + E - state.tail_start);
        for (std::vector<float>& kept_row : state.rows) {
            const auto gone = static_cast<ptrdiff_t>(std::min(dropped, kept_row.size()));
            kept_row.erase(kept_row.begin(), kept_row.begin() + gone);
        }
        state.tail_start = new_tail;
        state.past = new_len - recent_;
        keep = std::move(indices);
    }
    return keep;
}

} // namespace pyramid
