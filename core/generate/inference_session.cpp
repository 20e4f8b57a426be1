#include "generate/inference_session.h"

#include <algorithm>
#include <numeric>

#include "util/error.h"

namespace pyramid {

InferenceSession::InferenceSession(Backend& backend, const CompressionConfig& config, size_t kv_byte_limit)
    : backend_(backend),
      config_(config),
      policy_(make_compression_policy(config, backend.config().n_layers)),
      cache_(backend, backend.config().n_layers),
      layers_compressed_(static_cast<size_t>(backend.config().n_layers), false)
{
    cache_.set_byte_limit(kv_byte_limit);
}

void InferenceSession::reset()
{
    cache_.clear();
    next_position_ = 0;
}

int InferenceSession::make_room(int room)
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

std::vector<float> InferenceSession::prefill(std::span<const int32_t> tokens, const std::atomic<bool>* cancel)
{
    reset();
    return extend(tokens, cancel);
}

std::vector<float> InferenceSession::extend(std::span<const int32_t> tokens, const std::atomic<bool>* cancel)
{
    const int n = static_cast<int>(tokens.size());
    if (n == 0)
        throw Error("the prompt is empty");
    if (next_position_ + n > context_length())
        throw Error("the prompt has " + std::to_string(next_position_ + n) +
                    " tokens but the model's context holds " + std::to_string(context_length()));
    policy_->begin_prefill(n, next_position_);

    std::vector<int32_t> positions(static_cast<size_t>(n));
    std::iota(positions.begin(), positions.end(), next_position_);
    std::unique_ptr<HiddenStates> hidden = backend_.embed(tokens);
    std::vector<float> scores;
    for (int l = 0; l < cache_.n_layers(); ++l) {
        if (cancel && cancel->load()) {
            reset();  // a half-run prompt leaves layers inconsistent
            throw Cancelled();
        }
        const int rows = hidden->rows();
        cache_.check_room(l, rows);
        const std::optional<AttentionProbe> probe = policy_->prefill_probe(l, rows);
        backend_.run_layer(l, *hidden, positions, cache_.store(l), probe ? &*probe : nullptr, &scores);
        cache_.append_positions(l, positions);

        const PrefillDecision decision = policy_->after_prefill_layer(l, rows, cache_.length(l), scores);
        layers_compressed_[static_cast<size_t>(l)] = decision.keep_rows || decision.keep_entries;
        if (decision.keep_rows) {
            std::vector<int32_t> kept;
            for (int i : *decision.keep_rows)
                kept.push_back(positions[static_cast<size_t>(i)]);
            positions = std::move(kept);
            backend_.gather(*hidden, *decision.keep_rows);
        }
        if (decision.keep_entries)
            cache_.keep(l, *decision.keep_entries);
    }
    next_position_ += n;
    return backend_.logits(*hidden, hidden->rows() - 1);
}

std::vector<float> InferenceSession::decode(int32_t token)
{
    if (next_position_ >= context_length())
        throw Error("the context is full (" + std::to_string(context_length()) + " positions)");
    const int32_t position = next_position_;
    std::unique_ptr<HiddenStates> hidden = backend_.embed(std::span<const int32_t>(&token, 1));
    std::vector<float> scores;
    for (int l = 0; l < cache_.n_layers(); ++l) {
        cache_.check_room(l, 1);
        const std::optional<AttentionProbe> probe = policy_->decode_probe(l);
        backend_.run_layer(l, *hidden, std::span<const int32_t>(&position, 1), cache_.store(l),
                           probe ? &*probe : nullptr, &scores);
        cache_.append_positions(l, std::span<const int32_t>(&position, 1));
        const std::optional<std::vector<int>> keep = policy_->after_decode_layer(l, cache_.length(l), scores);
        layers_compressed_[static_cast<size_t>(l)] = keep.has_value();
        if (keep)
            cache_.keep(l, *keep);
    }
    ++next_position_;
    return backend_.logits(*hidden, 0);
}

size_t InferenceSession::full_cache_bytes() const
{
    return cache_.bytes_per_entry() * static_cast<size_t>(next_position_) * static_cast<size_t>(cache_.n_layers());
}

} // namespace pyramid
