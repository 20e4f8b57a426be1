#include "chart_axes.h"

#include <algorithm>
#include <cmath>

namespace pyramid {

AxisTicks nice_ticks(double lo, double hi, int target)
{
    if (hi < lo)
        std::swap(lo, hi);
    if (hi - lo < 1e-12) {  // a single value: give it some room
        const double pad = std::max(std::abs(lo) * 0.05, 1e-3);
        lo -= pad;
        hi += pad;
    }
    const double raw = (hi - lo) / std::max(target, 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * magnitude >= raw) {
            step = m * magnitude;
            break;
        }
    AxisTicks t;
    t.step = step;
    t.min = std::floor(lo / step) * step;
    t.max = std::ceil(hi / step) * step;
    for (double v = t.min; v <= t.max + step * 1e-6; v += step)
        t.values.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return t;
}

QString tick_label(double value, double step)
{
    const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
    return QString::number(value, 'f', decimals);
}

} // namespace pyramid
