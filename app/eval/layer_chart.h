#pragma once
// The per-layer KV lengths of one run drawn as a pyramid: one centred horizontal bar per
// layer, layer 0 at the bottom, each inside a dashed outline of the full cache's length, with
// the numbers written beside it.
#include <QColor>
#include <QPainter>
#include <QRectF>
#include <QString>
#include <vector>

namespace pyramid {

struct LayerPyramid {
    QString title;
    QString subtitle;
    QColor color;
    std::vector<double> lengths;          // per layer, drawn as the bars
    std::vector<double> prefill_lengths;  // per layer, written beside them (may be empty)
    double full_length = 0.0;             // the outline; at least the longest bar
};

void paint_layer_pyramid(QPainter& painter, const QRectF& area, const LayerPyramid& chart);

} // namespace pyramid
