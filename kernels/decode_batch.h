#pragma once
// The sequences of one decode step as the batched decode kernels see them: one new row each,
// each with its own block table and length (ragged: caches compressed to different sizes sit
// side by side). The host fills an array of DecodeSequence, lays it out, uploads it, and the
// kernels of decode_attention.h and store_kv_decode (kv_ops.h) read it. (C++17: CUDA
// sources include it.)
#include <algorithm>
#include <string>
#include <vector>

#include "backend/decode_splits.h"
#include "util/error.h"
#include "util/host_device.h"

namespace pyramid::cuda {

// The cache length a decode step's attention grids are launched for: the longest cache rounded
// up to a power of two, at least kMinDecodeGridLength. Warps past a sequence's own splits return
// at once, so the results are the same for any length at least the longest; the grids stay as
// they are while caches grow (a doubling changes them), and a decode layer recorded as a CUDA
// graph is replayed step after step (decode_layer_launch.h).
inline constexpr int kMinDecodeGridLength = 512;
inline int decode_grid_length(int max_len)
{
    long long length = kMinDecodeGridLength;
    while (length < max_len)
        length *= 2;
    return static_cast<int>(std::min<long long>(length, 0x7fffffff));
}

struct DecodeSequence {
    void* const* blocks = nullptr;  // its block table for this layer (device array)
    int len = 0;                    // cache entries (at least 1): the new row's own entry is last
    int row = 0;                    // its row in q, k, v, the attention output and stats
    int split_base = 0;             // first of its decode_splits(len) partial slots
    int score_base = -1;            // where its n_heads * len raw scores go; -1: not probed
    int probe_base = 0;             // where its len probe values go (probed sequences)
    float probe_weight = 0.0f;      // the row's weight in the probe
    // The block the new entry starts, taken for this step: store_kv_decode writes it into the
    // table (device tables then change only by the step's own kernels); null: none.
    void* new_block = nullptr;
};

// The largest split or score offset a batch may reach (the kernels index them as int).
inline constexpr long long kMaxDecodeOffset = 0x7fffffff;

// What a laid-out batch needs.
struct DecodeLayout {
    int count = 0;    // sequences
    int max_len = 0;  // the longest cache
    int grid_len = 0;  // decode_grid_length(max_len), what the attention grids cover; 0: none
    int splits = 0;   // partial slots in all (each holds n_heads partial softmaxes)
    int scores = 0;   // raw scores of the probed sequences, floats
};

// Sets split_base of every sequence, in order, and score_base of those marked as probed
// (score_base >= 0 on entry); probe_base, len, row, blocks and probe_weight are the caller's.
inline DecodeLayout lay_out_decode_batch(std::vector<DecodeSequence>& sequences, int n_heads)
{
    DecodeLayout layout;
    layout.count = static_cast<int>(sequences.size());
    // Offsets are ints on the device: sum in 64 bits and refuse what does not fit.
    long long splits = 0, scores = 0;
    for (DecodeSequence& s : sequences) {
        if (s.len < 1)
            throw Error("decode batch: a sequence with " + std::to_string(s.len) +
                        " cache entries (its new row must be stored first)");
        s.split_base = static_cast<int>(splits);
        splits += decode_splits(s.len);
        if (s.len > layout.max_len)
            layout.max_len = s.len;
        if (s.score_base >= 0) {
            s.score_base = static_cast<int>(scores);
            scores += static_cast<long long>(n_heads) * s.len;
        }
        if (scores > kMaxDecodeOffset || splits > kMaxDecodeOffset)
            throw Error("decode batch: " + std::to_string(sequences.size()) + " sequences need " +
                        std::to_string(scores) + " probe scores, more than one step can index");
    }
    layout.grid_len = layout.count > 0 ? decode_grid_length(layout.max_len) : 0;
    layout.splits = static_cast<int>(splits);
    layout.scores = static_cast<int>(scores);
    return layout;
}

} // namespace pyramid::cuda
