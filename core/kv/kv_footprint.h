#pragma once
// How many KV entries a sequence will hold, planned from the compression config alone (the
// lengths never depend on the activations, see pyramid_schedule.h). A batch scheduler admits
// sequences by it, and the benchmark reports it beside what it measured.
#include <vector>

#include "kv/compression_config.h"

namespace pyramid {

struct KvFootprint {
    std::vector<int> after_prefill;  // entries per layer once the prompt has run
    int prefill_peak = 0;  // entries of all layers together at the worst moment of the prefill
    int peak = 0;          // the same over the prefill and every decode step (whose new entries
                           // count before the step's compression)
    int least = 0;         // entries of all layers together at the emptiest moment after the
                           // prefill: a running sequence never holds fewer
};

// For a prompt of n_tokens followed by `steps` decode steps.
KvFootprint plan_kv_footprint(const CompressionConfig& config, int n_layers, int n_tokens, int steps);

// The most blocks of `block_entries` entries (backend/kv_block_allocator.h) the same sequence
// holds at once, as the batch scheduler reserves them: before a prompt runs, room in every layer
// for the rows that will enter it (CompressionPolicy::prompt_rows); before each decode step,
// one more entry in every layer, compressed after it.
int plan_kv_peak_blocks(const CompressionConfig& config, int n_layers, int n_tokens, int steps, int block_entries);

} // namespace pyramid
