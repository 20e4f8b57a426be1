#include "generate/inference_session.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "util/error.h"

namespace pyramid {

InferenceSession::InferenceSession(Backend& backend, const CompressionConfig& config, size_t kv_byte_limit)
    : backend_(backend),
      config_(config),
      policy_(make_compression_policy(config, backend.config().n_layers)),
      cache_(backend, backend.config().n_layers),
      layers_compressed_(static_cast<size_t>(backend.config().n_layers), false),
      layer_scores_(static_cast<size_t>(backend.config().n_layers))
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
    InferenceSession* self = this;
    return extend_batch(std::span<InferenceSession* const>(&self, 1), std::span<const std::span<const int32_t>>(&tokens, 1),
                        cancel)
        .front();
}

std::vector<float> InferenceSession::decode(int32_t token)
{
    InferenceSession* self = this;
    return decode_batch(std::span<InferenceSession* const>(&self, 1), std::span<const int32_t>(&token, 1)).front();
}

TopLogits InferenceSession::extend_top(std::span<const int32_t> tokens, int k, const std::atomic<bool>* cancel)
{
    InferenceSession* self = this;
    return extend_batch_top(std::span<InferenceSession* const>(&self, 1),
                            std::span<const std::span<const int32_t>>(&tokens, 1), k, cancel)
        .front();
}

TopLogits InferenceSession::decode_top(int32_t token, int k)
{
    InferenceSession* self = this;
    return decode_batch_top(std::span<InferenceSession* const>(&self, 1), std::span<const int32_t>(&token, 1), k)
        .front();
}

namespace {

// One single-token input per decode token.
std::vector<std::span<const int32_t>> single_tokens(std::span<const int32_t> tokens)
{
    std::vector<std::span<const int32_t>> inputs;
    for (const int32_t& token : tokens)
        inputs.emplace_back(&token, 1);
    return inputs;
}

void check_top_k(int k)
{
    if (k <= 0)
        throw Error("asked for the " + std::to_string(k) + " highest logits (at least 1)");
}

} // namespace

std::vector<std::vector<float>> InferenceSession::extend_batch(std::span<InferenceSession* const> sessions,
                                                               std::span<const std::span<const int32_t>> prompts,
                                                               const std::atomic<bool>* cancel)
{
    return run_step(sessions, prompts, Phase::Prompt, 0, cancel).logits;
}

std::vector<std::vector<float>> InferenceSession::decode_batch(std::span<InferenceSession* const> sessions,
                                                               std::span<const int32_t> tokens)
{
    return run_step(sessions, single_tokens(tokens), Phase::Decode, 0, nullptr).logits;
}

std::vector<TopLogits> InferenceSession::extend_batch_top(std::span<InferenceSession* const> sessions,
                                                          std::span<const std::span<const int32_t>> prompts, int k,
                                                          const std::atomic<bool>* cancel)
{
    check_top_k(k);
    return run_step(sessions, prompts, Phase::Prompt, k, cancel).top;
}

std::vector<TopLogits> InferenceSession::decode_batch_top(std::span<InferenceSession* const> sessions,
                                                          std::span<const int32_t> tokens, int k)
{
    check_top_k(k);
    return run_step(sessions, single_tokens(tokens), Phase::Decode, k, nullptr).top;
}

void InferenceSession::check_input(int n, Phase phase) const
{
    if (phase == Phase::Decode) {
        if (next_position_ >= context_length())
            throw Error("the context is full (" + std::to_string(context_length()) + " positions)");
        return;
    }
    if (n == 0)
        throw Error("the prompt is empty");
    if (next_position_ + n > context_length())
        throw Error("the prompt has " + std::to_string(next_position_ + n) + " tokens but the model's context holds " +
                    std::to_string(context_length()));
}

void InferenceSession::apply_decode_selection(int layer)
{
    const std::optional<std::vector<int>> keep =
        policy_->after_decode_layer(layer, cache_.length(layer), layer_scores_[static_cast<size_t>(layer)]);
    layers_compressed_[static_cast<size_t>(layer)] = keep.has_value();
    if (keep)
        cache_.keep(layer, *keep);
}

void InferenceSession::apply_prefill_selection(std::span<InferenceSession* const> sessions, int layer,
                                               std::vector<std::vector<int32_t>>& positions,
                                               std::span<const SequenceRows> rows, Backend& backend,
                                               HiddenStates& hidden)
{
    // Rows of the hidden states that go on to the next layer, over the whole batch.
    std::vector<int> kept_rows;
    bool rows_dropped = false;
    for (size_t i = 0; i < sessions.size(); ++i) {
        InferenceSession& s = *sessions[i];
        const int n = static_cast<int>(positions[i].size());
        PrefillDecision d =
            s.policy_->after_prefill_layer(layer, n, s.cache_.length(layer), s.layer_scores_[static_cast<size_t>(layer)]);
        s.layers_compressed_[static_cast<size_t>(layer)] = d.keep_rows || d.keep_entries;
        if (d.keep_entries)
            s.cache_.keep(layer, *d.keep_entries);
        if (d.keep_rows) {
            rows_dropped = true;
            std::vector<int32_t> kept_positions;
            for (int r : *d.keep_rows) {
                kept_positions.push_back(positions[i][static_cast<size_t>(r)]);
                kept_rows.push_back(rows[i].first_row + r);
            }
            positions[i] = std::move(kept_positions);
        } else {
            for (int r = 0; r < n; ++r)
                kept_rows.push_back(rows[i].first_row + r);
        }
    }
    if (rows_dropped)
        backend.gather(hidden, kept_rows);
}

InferenceSession::StepOutputs InferenceSession::run_step(std::span<InferenceSession* const> sessions,
                                                           std::span<const std::span<const int32_t>> inputs,
                                                           Phase phase, int top_k, const std::atomic<bool>* cancel)
{
    if (sessions.empty() || sessions.size() != inputs.size())
        throw Error("a batch step needs one input per session (" + std::to_string(sessions.size()) + " sessions, " +
                    std::to_string(inputs.size()) + " inputs)");
    Backend& backend = sessions.front()->backend_;
    for (size_t i = 0; i < sessions.size(); ++i) {
        if (&sessions[i]->backend_ != &backend)
            throw Error("the sessions of a batch must share one backend");
        if (std::count(sessions.begin(), sessions.end(), sessions[i]) > 1)
            throw Error("a session appears twice in one batch");
        sessions[i]->check_input(static_cast<int>(inputs[i].size()), phase);
    }

    const size_t count = sessions.size();
    std::vector<int32_t> tokens;
    std::vector<std::vector<int32_t>> positions(count);
    for (size_t i = 0; i < count; ++i) {
        InferenceSession& s = *sessions[i];
        const int n = static_cast<int>(inputs[i].size());
        if (phase == Phase::Prompt)
            s.policy_->begin_prefill(n, s.next_position_);
        tokens.insert(tokens.end(), inputs[i].begin(), inputs[i].end());
        positions[i].resize(static_cast<size_t>(n));
        std::iota(positions[i].begin(), positions[i].end(), s.next_position_);
    }

    // Stops a long prompt inside a layer on a backend that checks, not only between layers.
    struct CancelFlagScope {
        Backend& backend;
        ~CancelFlagScope() { backend.set_cancel_flag(nullptr); }
    } scope{backend};
    backend.set_cancel_flag(cancel);
    try {
        if (phase == Phase::Decode)
            backend.begin_decode_step();
        std::unique_ptr<HiddenStates> hidden = backend.embed(tokens);
        const int n_layers = sessions.front()->cache_.n_layers();
        // Probe scores land in each session's per-layer vectors (reused step after step). A
        // prompt's selection decides the rows of the next layer, so it waits for each layer's
        // scores before queueing the next; a decode step's only trims each layer's cache for
        // later steps, so every layer is queued first and each selection runs while the device
        // computes the layers after it.
        std::vector<std::optional<AttentionProbe>> probes(count);
        std::vector<SequenceRows> rows(count);
        for (int l = 0; l < n_layers; ++l) {
            if (cancel && cancel->load())
                throw Cancelled();
            int first_row = 0;
            for (size_t i = 0; i < count; ++i) {
                InferenceSession& s = *sessions[i];
                const int n = static_cast<int>(positions[i].size());
                s.cache_.check_room(l, n);
                probes[i] = phase == Phase::Prompt ? s.policy_->prefill_probe(l, n) : s.policy_->decode_probe(l);
                rows[i] = {first_row, positions[i], &s.cache_.store(l), probes[i] ? &*probes[i] : nullptr,
                           &s.layer_scores_[static_cast<size_t>(l)]};
                first_row += n;
            }
            backend.run_layer_batch(l, *hidden, rows);
            for (size_t i = 0; i < count; ++i)
                sessions[i]->cache_.append_positions(l, positions[i]);
            if (phase == Phase::Prompt) {
                backend.wait_for_probes(l);
                apply_prefill_selection(sessions, l, positions, rows, backend, *hidden);
            }
        }

        // The logits do not depend on these selections: the compactions they queue come after
        // the layers that read the caches.
        if (phase == Phase::Decode)
            for (int l = 0; l < n_layers; ++l) {
                backend.wait_for_probes(l);
                for (size_t i = 0; i < count; ++i)
                    sessions[i]->apply_decode_selection(l);
            }

        std::vector<int> last_rows;
        int end = 0;
        for (size_t i = 0; i < count; ++i) {
            end += static_cast<int>(positions[i].size());
            last_rows.push_back(end - 1);
            sessions[i]->next_position_ += static_cast<int>(inputs[i].size());
        }
        StepOutputs out;
        if (top_k > 0) {
            out.top = backend.top_logits_rows(*hidden, last_rows, top_k);
        } else {
            const std::vector<float> all = backend.logits_rows(*hidden, last_rows);
            const auto n_vocab = static_cast<ptrdiff_t>(backend.config().n_vocab);
            for (size_t i = 0; i < count; ++i)
                out.logits.emplace_back(all.begin() + static_cast<ptrdiff_t>(i) * n_vocab,
                                        all.begin() + static_cast<ptrdiff_t>(i + 1) * n_vocab);
        }
        return out;
    } catch (...) {
        for (InferenceSession* s : sessions)
            s->reset();
        throw;
    }
}

size_t InferenceSession::full_cache_bytes() const
{
    return cache_.bytes_per_entry() * static_cast<size_t>(next_position_) * static_cast<size_t>(cache_.n_layers());
}

} // namespace pyramid
