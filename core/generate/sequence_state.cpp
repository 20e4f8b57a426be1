#include "generate/sequence_state.h"

#include <algorithm>

#include "util/error.h"

namespace pyramid {

SequenceState::SequenceState(Backend& backend, const CompressionConfig& config, size_t kv_byte_limit)
    : backend_(backend),
      config_(config),
      policy_(make_compression_policy(config, backend.config().n_layers)),
      cache_(backend, backend.config().n_layers),
      layers_compressed_(static_cast<size_t>(backend.config().n_layers), false),
      layer_scores_(static_cast<size_t>(backend.config().n_layers))
{
    cache_.set_byte_limit(kv_byte_limit);
}

void SequenceState::reset()
{
    cache_.clear();
    next_position_ = 0;
}

int SequenceState::make_room(int room)
{
    const int sinks = config_.pyramid.sink_tokens;
    const int window = context_length() - room - sinks;  // recent positions that stay
    if (window <= 0)
        throw Error("the context (" + std::to_string(context_length()) + " positions) is too small to make room for " +
                    std::to_string(room) + " tokens");
    const int cut = next_position_ - window;  // positions in [sinks, cut) go
    if (cut <= sinks)
        return 0;

    std::vector<int32_t> survivors;
    for (int l = 0; l < cache_.n_layers(); ++l) {
        const auto pos = cache_.positions(l);
        std::vector<int> kept;
        for (int i = 0; i < static_cast<int>(pos.size()); ++i)
            if (pos[static_cast<size_t>(i)] < sinks || pos[static_cast<size_t>(i)] >= cut)
                kept.push_back(i);
        cache_.keep(l, kept);
        policy_->entries_removed(l, kept);
        survivors.insert(survivors.end(), cache_.positions(l).begin(), cache_.positions(l).end());
    }
    std::sort(survivors.begin(), survivors.end());
    survivors.erase(std::unique(survivors.begin(), survivors.end()), survivors.end());
    for (int l = 0; l < cache_.n_layers(); ++l) {
        const auto pos = cache_.positions(l);
        std::vector<int32_t> renumbered, shifts;
        for (int32_t p : pos) {
            const auto rank = static_cast<int32_t>(std::lower_bound(survivors.begin(), survivors.end(), p) -
                                                   survivors.begin());
            renumbered.push_back(rank);
            shifts.push_back(rank - p);
        }
        backend_.shift_key_positions(cache_.store(l), shifts);
        cache_.set_positions(l, std::move(renumbered));
    }
    const int freed = next_position_ - static_cast<int>(survivors.size());
    next_position_ = static_cast<int>(survivors.size());
    return freed;
}

void SequenceState::reserve_prompt(int n)
{
    cache_.reserve(policy_->prompt_rows(n, cache_.n_layers()));
}

size_t SequenceState::full_cache_bytes() const
{
    return cache_.bytes_per_entry() * static_cast<size_t>(next_position_) * static_cast<size_t>(cache_.n_layers());
}

} // namespace pyramid
