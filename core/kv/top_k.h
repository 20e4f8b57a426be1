#pragma once
// Top-k selection as the compression rules define it: the k largest scores, ties broken in
// favour of the lower index, returned as ascending indices (original order is kept).
#include <span>
#include <vector>

namespace pyramid {

std::vector<int> select_top_k(std::span<const float> scores, int k);

} // namespace pyramid
