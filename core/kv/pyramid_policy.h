#pragma once
// PyramidInfer (docs/pyramidinfer.md): layer-wise selection of the pivotal context in the
// prefill, dropping the unselected tokens' hidden states, and chunk-wise compression of
// generated entries by the recent window's attention. Two options (PyramidSettings, both off by
// default) change the prefill only: scoring by the attention of the prompt's last tokens alone
// (an observation window, optionally pooled), and keeping every hidden state while trimming the
// caches to the same per-layer lengths.
#include <deque>

#include "kv/compression_policy.h"

namespace pyramid {

class PyramidPolicy final : public CompressionPolicy {
public:
    PyramidPolicy(const PyramidSettings& settings, int n_layers);

    void begin_prefill(int n_new, int n_cached) override;
    std::optional<AttentionProbe> prefill_probe(int layer, int n_rows) override;
    PrefillDecision after_prefill_layer(int layer, int n_rows, int cache_len, const std::vector<float>& scores) override;
    std::optional<AttentionProbe> decode_probe(int layer) override;
    std::optional<std::vector<int>> after_decode_layer(int layer, int len, const std::vector<float>& scores) override;

    void entries_removed(int layer, const std::vector<int>& kept) override;
    std::vector<int> prompt_rows(int n_new, int n_layers) const override;

private:
    // Generation-phase state of one layer. Only entries from index tail_start on can ever be
    // part of a future chunk, so the attention rows are kept over those columns alone.
    struct LayerState {
        int past = 0;
        int tail_start = 0;
        std::deque<std::vector<float>> rows;  // rows[i][c] is column tail_start + c (missing: 0)
    };

    int keep_count(int layer, int ctx) const;
    std::vector<float> window_weights(int rows) const;
    // New tokens whose entries `layer`'s cache keeps, of the n_rows that entered it.
    int new_entries_kept(int n_rows) const;

    PyramidSettings settings_;
    int n_layers_;
    int recent_ = 0;   // r
    int min_ctx_ = 0;
    int sinks_ = 0;    // sink tokens among the new ones (none once the cache holds them)
    int voters_ = 0;   // the prompt's last rows whose attention scores the context
    // With keep_hidden_states: the new tokens (indices among them, ascending) that the paper's
    // rule passes into the next layer; the selections so far have kept these.
    std::vector<int> alive_;
    std::vector<LayerState> layers_;
};

} // namespace pyramid
