#include "kv/score_pooling.h"

#include <algorithm>

namespace pyramid {

std::vector<float> average_pool(std::span<const float> scores, int kernel)
{
    const int n = static_cast<int>(scores.size());
    const int half = kernel / 2;
    std::vector<float> pooled(static_cast<size_t>(n));
    for (int j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int k = std::max(0, j - half); k <= std::min(n - 1, j + half); ++k)
            sum += scores[static_cast<size_t>(k)];
        pooled[static_cast<size_t>(j)] = static_cast<float>(sum / kernel);
    }
    return pooled;
}

} // namespace pyramid
