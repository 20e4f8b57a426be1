#pragma once
// What one layer's work in a decode step is launched with, apart from what stays fixed for the
// backend's life (the layer's weights, the cuBLAS handle and its stream, the projection scratch,
// the KV format): every row of the step decodes, so the layer runs as one chunk, and its
// kernels' arguments and grids follow from these values alone. Lengths, block tables and
// positions change every step, but they reach the kernels through device memory (the decode
// sequences and positions uploaded before the layer runs), not as arguments.
//
// So a layer recorded as a CUDA graph for one launch is right, as recorded, for any equal launch:
// DecodeStepGraphs replays it instead of recording the step again (the host then queues one graph
// a layer instead of about 19 kernels and copies).
#include <cstdint>

#include "decode_batch.h"

namespace pyramid::cuda {

struct DecodeLayerLaunch {
    int layer = 0;
    float* hidden = nullptr;  // the step's hidden rows, one per sequence
    DecodeLayout layout;      // of the step's sequences, uploaded to the workspace's decode sequences
    // Workspace::generation(): the buffers the layer reads and writes (a grown one moves).
    std::uint64_t workspace_generation = 0;

    // Equal where the launches are: decode_attention reads count, grid_len and whether scores
    // > 0 of the layout (decode_attention.h); its max_len, splits and score counts change every
    // step and reach no argument.
    bool operator==(const DecodeLayerLaunch& o) const
    {
        return layer == o.layer && hidden == o.hidden && layout.count == o.layout.count &&
               layout.grid_len == o.layout.grid_len && (layout.scores > 0) == (o.layout.scores > 0) &&
               workspace_generation == o.workspace_generation;
    }
};

} // namespace pyramid::cuda
