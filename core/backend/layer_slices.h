#pragma once
// How the CPU backend cuts a layer step's rows into slices that each go through the whole layer,
// one after another: a long prompt's activations then take one slice's memory (about 96 KiB a
// row for LLaMA-2-7B, besides the feed-forward block's) instead of the whole prompt's.
//
// Slicing changes no result. Rows keep their order, so each sequence's cache grows in order and
// every row attends to exactly the entries it would in one pass. A sequence's probe rows stay
// together in its last piece, so their column scores add up in one pass over the whole layer.
#include <span>
#include <vector>

#include "backend/backend.h"

namespace pyramid {

// Rows [offset, offset + rows) of sequences[sequence].
struct SequencePiece {
    int sequence = 0;
    int offset = 0;
    int rows = 0;
};

// Rows [first_row, first_row + rows) of the step, made of whole pieces in row order.
struct LayerSlice {
    int first_row = 0;
    int rows = 0;
    std::vector<SequencePiece> pieces;
};

// Slices of at most slice_rows rows, except a sequence's last piece, which holds all its probe
// rows and may be longer. Short sequences (a decode step's single rows) share slices.
std::vector<LayerSlice> layer_slices(std::span<const SequenceRows> sequences, int slice_rows);

} // namespace pyramid
