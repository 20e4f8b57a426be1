#include "backend/top_logits.h"

#include <algorithm>
#include <numeric>

#include "util/ranking.h"

namespace pyramid {

TopLogits select_top_logits(std::span<const float> logits, int k)
{
    const size_t keep = std::min(logits.size(), static_cast<size_t>(std::max(k, 0)));
    std::vector<int32_t> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(keep), order.end(),
                      [&](int32_t a, int32_t b) { return ranks_higher(logits, a, b); });
    TopLogits top;
    top.ids.assign(order.begin(), order.begin() + static_cast<ptrdiff_t>(keep));
    top.values.reserve(keep);
    for (int32_t id : top.ids)
        top.values.push_back(logits[static_cast<size_t>(id)]);
    return top;
}

} // namespace pyramid
