#pragma once
// The order in which scores and logits are ranked on the CPU: higher first, ties to the lower
// index, NaN below every number. A strict weak order even when a model overflows to NaN, which
// the standard algorithms need to stay within bounds.
#include <cmath>
#include <span>

namespace pyramid {

inline bool ranks_higher(std::span<const float> values, int a, int b)
{
    const float va = values[static_cast<size_t>(a)], vb = values[static_cast<size_t>(b)];
    const bool nan_a = std::isnan(va), nan_b = std::isnan(vb);
    if (nan_a || nan_b)
        return nan_a != nan_b ? nan_b : a < b;
    return va > vb || (va == vb && a < b);
}

} // namespace pyramid
