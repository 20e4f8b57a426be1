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
        const int heads = cache_.per_head(l) ? cache_.n_kv_heads() : 1;
        std::vector<std::vector<int>> kept(static_cast<size_t>(heads));
        for (int g = 0; g < heads; ++g) {
            const auto pos = cache_.head_positions(l, g);
            for (int i = 0; i < static_cast<int>(pos.size()); ++i)
                if (pos[static_cast<size_t>(i)] < sinks || pos[static_cast<size_t>(i)] >= cut)
                    kept[static_cast<size_t>(g)].push_back(i);
        }
        if (heads == 1) {
            cache_.keep(l, kept.front());
            policy_->entries_removed(l, kept.front());
        } else {
            // Every head keeps as many entries as the one that kept fewest: the others drop
            // their oldest entries after the sinks as well.
            size_t fewest = kept.front().size();
            for (const auto& k : kept)
                fewest = std::min(fewest, k.size());
            for (int g = 0; g < heads; ++g) {
                auto& k = kept[static_cast<size_t>(g)];
                const auto pos = cache_.head_positions(l, g);
                const auto first_after_sinks = std::find_if(
                    k.begin(), k.end(), [&](int i) { return pos[static_cast<size_t>(i)] >= sinks; });
                k.erase(first_after_sinks, first_after_sinks + static_cast<ptrdiff_t>(k.size() - fewest));
            }
            cache_.keep_per_head(l, kept);
        }
        for (int g = 0; g < heads; ++g)
            survivors.insert(survivors.end(), cache_.head_positions(l, g).begin(), cache_.head_positions(l, g).end());
    }
    std::sort(survivors.begin(), survivors.end());
    survivors.erase(std::unique(survivors.begin(), survivors.end()), survivors.end());
    for (int l = 0; l < cache_.n_layers(); ++l) {
        const int heads = cache_.per_head(l) ? cache_.n_kv_heads() : 1;
        std::vector<std::vector<int32_t>> renumbered(static_cast<size_t>(heads));
        std::vector<int32_t> shifts;  // head after head where the heads differ
        for (int g = 0; g < heads; ++g)
            for (int32_t p : cache_.head_positions(l, g)) {
                const auto rank = static_cast<int32_t>(std::lower_bound(survivors.begin(), survivors.end(), p) -
                                                       survivors.begin());
                renumbered[static_cast<size_t>(g)].push_back(rank);
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
