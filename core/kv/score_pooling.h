#pragma once
// 1-D average pooling of attention scores, as SnapKV smooths its votes: a kept entry brings
// the words around it. SnapKV, PyramidKV and PyramidInfer's observation-window option share it.
#include <span>
#include <vector>

namespace pyramid {

// out[j] = (sum of scores[j - kernel/2 .. j + kernel/2] inside the span) / kernel: zero
// padding at both ends, as PyTorch's avg_pool1d with padding kernel/2 computes it. `kernel`
// is odd and at least 1; 1 returns the scores unchanged.
std::vector<float> average_pool(std::span<const float> scores, int kernel);

} // namespace pyramid
