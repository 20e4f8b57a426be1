#include "backend/int8_activations.h"

#include <algorithm>
#include <cmath>

namespace pyramid::cpu {

void quantize_activations(const float* x, int n, int64_t cols, Int8Activations& out)
{
    const int64_t blocks = cols / kInt8Block;
    out.n = n;
    out.cols = cols;
    out.q.resize(static_cast<size_t>(n * cols));
    out.scale.resize(static_cast<size_t>(n * blocks));
    out.group_sum.resize(static_cast<size_t>(n * cols / kInt8SumGroup));
    for (int64_t b = 0; b < n * blocks; ++b) {
        const float* xb = x + b * kInt8Block;
        int8_t* qb = out.q.data() + b * kInt8Block;
        float amax = 0.0f;
        for (int i = 0; i < kInt8Block; ++i)
            amax = std::max(amax, std::abs(xb[i]));
        const float scale = amax / 127.0f;
        const float inverse = scale > 0.0f ? 1.0f / scale : 0.0f;
        int16_t* sums = out.group_sum.data() + b * (kInt8Block / kInt8SumGroup);
        for (int64_t g = 0; g < kInt8Block / kInt8SumGroup; ++g) {
            int total = 0;  // at most 16 * 127: fits int16
            for (int64_t i = g * kInt8SumGroup; i < (g + 1) * kInt8SumGroup; ++i) {
                qb[i] = static_cast<int8_t>(std::nearbyint(xb[i] * inverse));
                total += qb[i];
            }
            sums[g] = static_cast<int16_t>(total);
        }
        out.scale[static_cast<size_t>(b)] = scale;
    }
}

} // namespace pyramid::cpu
