#pragma once
// Axis arithmetic shared by the charts: round tick values and a data-to-pixel mapping.
#include <QRectF>
#include <QString>
#include <vector>

namespace pyramid {

struct AxisTicks {
    double min = 0.0;  // the axis range, widened to whole steps
    double max = 1.0;
    double step = 1.0;
    std::vector<double> values;
};

// Ticks at 1, 2 or 5 times a power of ten, about `target` of them, covering [lo, hi].
AxisTicks nice_ticks(double lo, double hi, int target = 6);

// A tick's text with as many decimals as the step needs.
QString tick_label(double value, double step);

// Maps data coordinates into a pixel rectangle (y grows upwards in data, downwards on screen).
class AxisMapping {
public:
    AxisMapping(const QRectF& plot, const AxisTicks& x, const AxisTicks& y) : plot_(plot), x_(x), y_(y) {}
    double x(double value) const { return plot_.left() + (value - x_.min) / (x_.max - x_.min) * plot_.width(); }
    double y(double value) const { return plot_.bottom() - (value - y_.min) / (y_.max - y_.min) * plot_.height(); }

private:
    QRectF plot_;
    AxisTicks x_, y_;
};

} // namespace pyramid
