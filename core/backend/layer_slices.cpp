#include "backend/layer_slices.h"

#include <algorithm>

namespace pyramid {

std::vector<LayerSlice> layer_slices(std::span<const SequenceRows> sequences, int slice_rows)
{
    std::vector<LayerSlice> slices;
    for (int index = 0; index < static_cast<int>(sequences.size()); ++index) {
        const SequenceRows& s = sequences[static_cast<size_t>(index)];
        const int n = static_cast<int>(s.positions.size());
        const int first_probed = s.probe ? s.probe->first_row : n;
        for (int offset = 0; offset < n;) {
            int rows = std::min(slice_rows, n - offset);
            if (offset + rows > first_probed)
                rows = n - offset;  // the probe rows, and any before them in this piece, in one
            const int first_row = s.first_row + offset;
            if (!slices.empty() && slices.back().rows + rows <= slice_rows) {
                slices.back().rows += rows;
            } else {
                slices.push_back({first_row, rows, {}});
            }
            slices.back().pieces.push_back({index, offset, rows});
            offset += rows;
        }
    }
    return slices;
}

} // namespace pyramid
