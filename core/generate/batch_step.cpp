#include "generate/batch_step.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "util/error.h"

namespace pyramid {
namespace {

void check_input(const SequenceState& s, int n, StepPhase phase)
{
    const int context = s.context_length();
    if (phase == StepPhase::Decode) {
        if (s.next_position() >= context)
            throw Error("the context is full (" + std::to_string(context) + " positions)");
        return;
    }
    if (n == 0)
        throw Error("the prompt is empty");
    if (s.next_position() + n > context)
        throw Error("the prompt has " + std::to_string(s.next_position() + n) +
                    " tokens but the model's context holds " + std::to_string(context));
}

} // namespace

StepOutputs BatchStep::run(std::span<SequenceState* const> sequences, std::span<const std::span<const int32_t>> inputs,
                           StepPhase phase, int top_k, const std::atomic<bool>* cancel)
{
    begin(sequences, inputs, phase);
    Backend& backend = *backend_;

    // Stops a long prompt inside a layer on a backend that checks, not only between layers.
    struct CancelFlagScope {
        Backend& backend;
        ~CancelFlagScope() { backend.set_cancel_flag(nullptr); }
    } scope{backend};
    backend.set_cancel_flag(cancel);
    try {
        if (phase == StepPhase::Decode)
            backend.begin_decode_step();
        std::unique_ptr<HiddenStates> hidden = backend.embed(tokens_);
        const int n_layers = backend.config().n_layers;
        // A prompt's selection decides the rows of the next layer, so it waits for each
        // layer's scores before queueing the next; a decode step's only trims each layer's
        // cache for later steps, so every layer is queued first and each selection runs while
        // the device computes the layers after it.
        for (int l = 0; l < n_layers; ++l) {
            if (cancel && cancel->load())
                throw Cancelled();
            queue_layer(sequences, l, phase, *hidden);
            if (phase == StepPhase::Prompt)
                select_prompt_layer(sequences, l, *hidden);
        }
        // Room reserved for prompt rows that a policy dropped before they reached a layer.
        if (phase == StepPhase::Prompt)
            for (SequenceState* s : sequences)
                s->cache_.release_unused();
        // The logits do not depend on these selections: the compactions they queue come after
        // the layers that read the caches.
        if (phase == StepPhase::Decode)
            for (int l = 0; l < n_layers; ++l)
                select_decode_layer(sequences, l);
        return logits(sequences, inputs, top_k, *hidden);
    } catch (...) {
        for (SequenceState* s : sequences)
            s->reset();
        throw;
    }
}

void BatchStep::begin(std::span<SequenceState* const> sequences, std::span<const std::span<const int32_t>> inputs,
                      StepPhase phase)
{
    if (sequences.empty() || sequences.size() != inputs.size())
        throw Error("a batch step needs one input per sequence (" + std::to_string(sequences.size()) +
                    " sequences, " + std::to_string(inputs.size()) + " inputs)");
    backend_ = &sequences.front()->backend();
    for (size_t i = 0; i < sequences.size(); ++i) {
        if (&sequences[i]->backend() != backend_)
            throw Error("the sequences of a batch must share one backend");
        if (std::count(sequences.begin(), sequences.end(), sequences[i]) > 1)
            throw Error("a sequence appears twice in one batch");
        check_input(*sequences[i], static_cast<int>(inputs[i].size()), phase);
    }

    const size_t count = sequences.size();
    tokens_.clear();
    positions_.resize(count);
    probes_.assign(count, std::nullopt);
    rows_.assign(count, {});
    for (size_t i = 0; i < count; ++i) {
        SequenceState& s = *sequences[i];
        const int n = static_cast<int>(inputs[i].size());
        if (phase == StepPhase::Prompt)
            s.policy_->begin_prefill(n, s.next_position_);
        tokens_.insert(tokens_.end(), inputs[i].begin(), inputs[i].end());
        positions_[i].resize(static_cast<size_t>(n));
        std::iota(positions_[i].begin(), positions_[i].end(), s.next_position_);
    }
}

void BatchStep::queue_layer(std::span<SequenceState* const> sequences, int layer, StepPhase phase, HiddenStates& hidden)
{
    // Probe scores land in each sequence's per-layer vectors (reused step after step).
    int first_row = 0;
    for (size_t i = 0; i < sequences.size(); ++i) {
        SequenceState& s = *sequences[i];
        const int n = static_cast<int>(positions_[i].size());
        s.cache_.check_room(layer, n);
        probes_[i] = phase == StepPhase::Prompt ? s.policy_->prefill_probe(layer, n) : s.policy_->decode_probe(layer);
        rows_[i] = {first_row, positions_[i], &s.cache_.store(layer), probes_[i] ? &*probes_[i] : nullptr,
                    &s.layer_scores_[static_cast<size_t>(layer)]};
        first_row += n;
    }
    backend_->run_layer_batch(layer, hidden, rows_);
    for (size_t i = 0; i < sequences.size(); ++i)
        sequences[i]->cache_.append_positions(layer, positions_[i]);
}

void BatchStep::select_prompt_layer(std::span<SequenceState* const> sequences, int layer, HiddenStates& hidden)
{
    backend_->wait_for_probes(layer);
    // Rows of the hidden states that go on to the next layer, over the whole batch.
    kept_rows_.clear();
    bool rows_dropped = false;
    for (size_t i = 0; i < sequences.size(); ++i) {
        SequenceState& s = *sequences[i];
        std::vector<int32_t>& positions = positions_[i];
        const int n = static_cast<int>(positions.size());
        PrefillDecision d =
            s.policy_->after_prefill_layer(layer, n, s.cache_.length(layer), s.layer_scores_[static_cast<size_t>(layer)]);
        s.layers_compressed_[static_cast<size_t>(layer)] = d.keep_rows || d.keep_entries || d.keep_entries_per_head;
        if (d.keep_entries)
            s.cache_.keep(layer, *d.keep_entries);
        if (d.keep_entries_per_head)
            s.cache_.keep_per_head(layer, *d.keep_entries_per_head);
        if (d.keep_rows) {
            rows_dropped = true;
            std::vector<int32_t> kept_positions;
            for (int r : *d.keep_rows) {
                kept_positions.push_back(positions[static_cast<size_t>(r)]);
                kept_rows_.push_back(rows_[i].first_row + r);
            }
            positions = std::move(kept_positions);
        } else {
            for (int r = 0; r < n; ++r)
                kept_rows_.push_back(rows_[i].first_row + r);
        }
    }
    if (rows_dropped)
        backend_->gather(hidden, kept_rows_);
}

void BatchStep::select_decode_layer(std::span<SequenceState* const> sequences, int layer)
{
    backend_->wait_for_probes(layer);
    for (SequenceState* s : sequences) {
        const std::optional<std::vector<int>> keep =
            s->policy_->after_decode_layer(layer, s->cache_.length(layer), s->layer_scores_[static_cast<size_t>(layer)]);
        s->layers_compressed_[static_cast<size_t>(layer)] = keep.has_value();
        if (keep)
            s->cache_.keep(layer, *keep);
    }
}

StepOutputs BatchStep::logits(std::span<SequenceState* const> sequences, std::span<const std::span<const int32_t>> inputs,
                              int top_k, const HiddenStates& hidden)
{
    std::vector<int> last_rows;
    int end = 0;
    for (size_t i = 0; i < sequences.size(); ++i) {
        end += static_cast<int>(positions_[i].size());
        last_rows.push_back(end - 1);
        sequences[i]->next_position_ += static_cast<int>(inputs[i].size());
    }
    StepOutputs out;
    if (top_k > 0) {
        out.top = backend_->top_logits_rows(hidden, last_rows, top_k);
    } else {
        const std::vector<float> all = backend_->logits_rows(hidden, last_rows);
        const auto n_vocab = static_cast<ptrdiff_t>(backend_->config().n_vocab);
        for (size_t i = 0; i < sequences.size(); ++i)
            out.logits.emplace_back(all.begin() + static_cast<ptrdiff_t>(i) * n_vocab,
                                    all.begin() + static_cast<ptrdiff_t>(i + 1) * n_vocab);
    }
    return out;
}

} // namespace pyramid
