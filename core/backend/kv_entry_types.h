#pragma once
// The types a CPU KV cache row is stored in (float, Half, and the q8/q4 blocks whose layout
// backend/kv_entry_layout.h defines), how a row's values are read and how they are stored.
#include <cstdint>

#include "backend/kv_entry_layout.h"
#include "util/float16.h"

namespace pyramid {

// Value i of a row as float32 (exact, see above).
inline float value_at(const float* row, int64_t i) { return row[i]; }
inline float value_at(const Half* row, int64_t i) { return to_float(row[i]); }
inline float value_at(const KvQ8Block* row, int64_t i)
{
    const KvQ8Block& b = row[i / kKvBlockValues];
    return to_float(b.scale) * static_cast<float>(b.q[i % kKvBlockValues]);
}
inline float value_at(const KvQ4Block* row, int64_t i)
{
    const KvQ4Block& b = row[i / kKvBlockValues];
    return to_float(b.scale) * static_cast<float>(kv_q4_code(b, static_cast<int>(i % kKvBlockValues)));
}

// Stores n float32 values as n / kValuesPerElement<Stored> elements: as they are, rounded to
// the nearest half, or quantized per block as kv_entry_layout.h says. For blocks n must be a
// multiple of 32.
template <typename Stored>
void store_values(const float* values, int64_t n, Stored* out);

// The n values of `stored` as float32 (value_at for each).
template <typename Stored>
void load_values(const Stored* stored, int64_t n, float* out);

} // namespace pyramid
