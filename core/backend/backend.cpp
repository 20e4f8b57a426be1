#include "backend/backend.h"

#include <algorithm>

#include "util/error.h"

namespace pyramid {

void check_sequence_rows(int rows, std::span<const SequenceRows> sequences)
{
    int next = 0;
    for (const SequenceRows& s : sequences) {
        const int n = static_cast<int>(s.positions.size());
        if (s.first_row != next || !s.cache)
            throw Error("run_layer_batch: a sequence starts at row " + std::to_string(s.first_row) + ", expected " +
                        std::to_string(next) + (s.cache ? "" : ", and it has no cache"));
        if (s.probe && !s.probe_out)
            throw Error("run_layer_batch: a probe needs somewhere to write its scores");
        if (s.probe && s.probe->first_row < 0)
            throw Error("run_layer_batch: a probe starts at row " + std::to_string(s.probe->first_row));
        if (s.probe && s.probe->first_row < n &&
            static_cast<int>(s.probe->row_weights.size()) != n - s.probe->first_row)
            throw Error("run_layer_batch: the probe has " + std::to_string(s.probe->row_weights.size()) +
                        " row weights for " + std::to_string(n - s.probe->first_row) + " rows");
        next += n;
    }
    if (next != rows)
        throw Error("run_layer_batch: the sequences cover " + std::to_string(next) + " of " + std::to_string(rows) +
                    " rows");
}

void KvLayerStore::keep_per_head(std::span<const std::vector<int>>)
{
    throw Error("this backend keeps one set of KV entries per layer for all heads: per-head selection "
                "(--kv-selection per-head, kv_selection \"per-head\") needs the CPU backend; use per-layer");
}

std::vector<TopLogits> Backend::top_logits_rows(const HiddenStates& hidden, std::span<const int> rows, int k)
{
    const std::vector<float> all = logits_rows(hidden, rows);
    const size_t n_vocab = static_cast<size_t>(config().n_vocab);
    std::vector<TopLogits> top;
    top.reserve(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
        top.push_back(select_top_logits(std::span<const float>(all).subspan(i * n_vocab, n_vocab), k));
    return top;
}

} // namespace pyramid
