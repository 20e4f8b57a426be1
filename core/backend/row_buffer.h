#pragma once
// Rows of stored values in one buffer, for the CPU backend's KV cache: one KV head's keys or
// values in a layer, as float32, fp16 (Half) or q8/q4 block (kv_entry_types.h) elements. A
// quantized row's blocks carry their scales, so keeping or moving rows moves the scales too.
//
// A cache grows a row per generated token and shrinks when a policy drops entries, and its
// slack is memory the user pays for (a LLaMA-2-7B layer holds 64 MiB of float32 keys at 4096
// tokens, in 32 such buffers). So it grows by an eighth (at least kMinGrowRows rows) instead of doubling as a vector
// would, and once dropped rows leave more than half of it unused (PyramidInfer keeps a fraction
// of a deep layer's prompt) it moves into a buffer that fits, so that memory goes back.
#include <cstddef>
#include <span>
#include <vector>

namespace pyramid {

// Keeps only `indices` (ascending) of a row-major buffer of rows of `width` values.
template <typename T>
void keep_rows(std::vector<T>& buffer, int width, std::span<const int> indices);

// T: float, Half, KvQ8Block or KvQ4Block.
template <typename T>
class RowBuffer {
public:
    static constexpr size_t kMinGrowRows = 64;

    // `width`: elements a row (values / kValuesPerElement<T>).
    explicit RowBuffer(int width) : width_(width) {}

    int rows() const { return static_cast<int>(values_.size() / static_cast<size_t>(width_)); }
    T* data() { return values_.data(); }
    const T* data() const { return values_.data(); }
    size_t bytes() const { return values_.size() * sizeof(T); }               // the rows'
    size_t allocated_bytes() const { return values_.capacity() * sizeof(T); }  // slack included

    // Appends `count` rows of float32 values (width * kValuesPerElement<T> each), stored as T
    // (store_values: rounded to nearest even for Half, quantized per block).
    void append(const float* rows, int count);
    void keep(std::span<const int> indices);  // ascending

private:
    size_t room_for(size_t values) const;  // capacity for `values` plus the slack kept

    int width_;
    std::vector<T> values_;
};

} // namespace pyramid
