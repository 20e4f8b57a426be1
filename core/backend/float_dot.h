#pragma once
// The float32 dot product the CPU kernels share, vectorized by the compiler.
#include <cstdint>

namespace pyramid::cpu {

inline float dot(const float* a, const float* b, int64_t n)
{
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i)
        sum += a[i] * b[i];
    return sum;
}

} // namespace pyramid::cpu
