#pragma once
// A small line chart painted with QPainter, so the same drawing goes to SVG and PNG: title,
// axes with round ticks and grid, one polyline with point markers per series (points joined
// in order of x), and a legend in the corner of the plot where it hides the least. A
// reference series is a single point drawn as a marker with a dashed horizontal line across
// the plot (e.g. the full cache's perplexity).
#include <QColor>
#include <QPainter>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <vector>

namespace pyramid {

struct ChartSeries {
    QString name;
    QColor color;
    std::vector<QPointF> points;
    Qt::PenStyle style = Qt::SolidLine;
    bool reference = false;
};

struct LineChart {
    QString title;
    QString subtitle;
    QString x_label;
    QString y_label;
    std::vector<ChartSeries> series;
};

void paint_line_chart(QPainter& painter, const QRectF& area, const LineChart& chart);

} // namespace pyramid
