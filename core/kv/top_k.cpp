#include "kv/top_k.h"

#include <algorithm>
#include <numeric>

#include "util/ranking.h"

namespace pyramid {

std::vector<int> select_top_k(std::span<const float> scores, int k)
{
    const int n = static_cast<int>(scores.size());
    k = std::clamp(k, 0, n);
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const auto better = [&](int a, int b) { return ranks_higher(scores, a, b); };
    std::nth_element(order.begin(), order.begin() + k, order.end(), better);
    order.resize(static_cast<size_t>(k));
    std::sort(order.begin(), order.end());
    return order;
}

} // namespace pyramid
