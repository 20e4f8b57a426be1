#pragma once
// The float32 dot product the CPU kernels share, vectorized by the compiler.
#include <cstdint>

#include "backend/kv_entry_types.h"
#include "util/float16.h"

namespace pyramid::cpu {

// A stored value as float32: float itself, or an fp16 cache entry (exact).
inline float as_float(float x) { return x; }
inline float as_float(Half h) { return to_float(h); }

// Eight running sums over the lanes i % 8, combined in a fixed order: the result depends only
// on the values, never on where they lie in memory (a vectorizer's alignment peeling would
// change the order of the additions, so a row would sum differently at another offset, e.g.
// inside a batch). `b` may be stored as fp16 or in quantized blocks (kv_entry_types.h): the
// products are the same as over its float32 values.
template <typename Stored>
inline float dot(const float* a, const Stored* b, int64_t n)
{
    constexpr int kLanes = 8;
    float lanes[kLanes] = {};
    const int64_t whole = n - n % kLanes;
    for (int64_t i = 0; i < whole; i += kLanes)
#pragma omp simd
        for (int j = 0; j < kLanes; ++j)
            lanes[j] += a[i + j] * value_at(b, i + j);
    for (int64_t i = whole; i < n; ++i)
        lanes[i - whole] += a[i] * value_at(b, i);
    return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
}

} // namespace pyramid::cpu
