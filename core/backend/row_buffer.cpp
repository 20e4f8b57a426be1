#include "backend/row_buffer.h"

#include <algorithm>

namespace pyramid {

void keep_rows(std::vector<float>& buffer, int width, std::span<const int> indices)
{
    size_t out = 0;
    for (int index : indices) {
        std::copy_n(buffer.begin() + static_cast<ptrdiff_t>(index) * width, width, buffer.begin() + out);
        out += width;
    }
    buffer.resize(out);
}

size_t RowBuffer::room_for(size_t floats) const
{
    return floats + std::max(floats / 8, kMinGrowRows * static_cast<size_t>(width_));
}

void RowBuffer::append(const float* rows, int count)
{
    const size_t needed = values_.size() + static_cast<size_t>(count) * width_;
    if (needed > values_.capacity())
        values_.reserve(room_for(needed));
    values_.insert(values_.end(), rows, rows + static_cast<size_t>(count) * width_);
}

void RowBuffer::keep(std::span<const int> indices)
{
    keep_rows(values_, width_, indices);
    if (values_.capacity() > 2 * room_for(values_.size())) {
        std::vector<float> fitted;
        fitted.reserve(room_for(values_.size()));
        fitted.assign(values_.begin(), values_.end());
        values_.swap(fitted);
    }
}

} // namespace pyramid
