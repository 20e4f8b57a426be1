#include "backend/row_buffer.h"

#include <algorithm>

#include "backend/kv_entry_types.h"

namespace pyramid {

template <typename T>
void keep_rows(std::vector<T>& buffer, int width, std::span<const int> indices)
{
    size_t out = 0;
    for (int index : indices) {
        std::copy_n(buffer.begin() + static_cast<ptrdiff_t>(index) * width, width, buffer.begin() + out);
        out += width;
    }
    buffer.resize(out);
}

template <typename T>
size_t RowBuffer<T>::room_for(size_t values) const
{
    return values + std::max(values / 8, kMinGrowRows * static_cast<size_t>(width_));
}

template <typename T>
void RowBuffer<T>::append(const float* rows, int count)
{
    const size_t added = static_cast<size_t>(count) * width_;
    const size_t needed = values_.size() + added;
    if (needed > values_.capacity())
        values_.reserve(room_for(needed));
    const size_t start = values_.size();
    values_.resize(needed);
    store_values(rows, static_cast<int64_t>(added) * kValuesPerElement<T>, values_.data() + start);
}

template <typename T>
void RowBuffer<T>::keep(std::span<const int> indices)
{
    keep_rows(values_, width_, indices);
    if (values_.capacity() > 2 * room_for(values_.size())) {
        std::vector<T> fitted;
        fitted.reserve(room_for(values_.size()));
        fitted.assign(values_.begin(), values_.end());
        values_.swap(fitted);
    }
}

template void keep_rows(std::vector<float>&, int, std::span<const int>);
template class RowBuffer<float>;
template class RowBuffer<Half>;
template class RowBuffer<KvQ8Block>;
template class RowBuffer<KvQ4Block>;

} // namespace pyramid
