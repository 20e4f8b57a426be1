#include "line_chart.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <QFontMetricsF>
#include <QPainterPath>

#include "chart_axes.h"
#include "chart_style.h"

namespace pyramid {
namespace {

void draw_marker(QPainter& p, const QPointF& at, const QColor& color, bool diamond)
{
    p.setPen(QPen(Qt::white, 1.0));
    p.setBrush(color);
    if (!diamond) {
        p.drawEllipse(at, 4.5, 4.5);
        return;
    }
    const double r = 6.0;
    QPainterPath path;
    path.moveTo(at + QPointF(0, -r));
    path.lineTo(at + QPointF(r, 0));
    path.lineTo(at + QPointF(0, r));
    path.lineTo(at + QPointF(-r, 0));
    path.closeSubpath();
    p.drawPath(path);
}

void draw_axes(QPainter& p, const QRectF& area, const QRectF& plot, const AxisTicks& xt, const AxisTicks& yt,
               const AxisMapping& map, const LineChart& chart)
{
    p.setFont(chart_font(12));
    for (double v : xt.values) {
        const double x = map.x(v);
        p.setPen(QPen(kGridColor, 1.0));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.setPen(Qt::black);
        p.drawText(QRectF(x - 40, plot.bottom() + 4, 80, 18), Qt::AlignHCenter | Qt::AlignTop,
                   tick_label(v, xt.step));
    }
    for (double v : yt.values) {
        const double y = map.y(v);
        p.setPen(QPen(kGridColor, 1.0));
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(Qt::black);
        p.drawText(QRectF(plot.left() - 66, y - 9, 60, 18), Qt::AlignRight | Qt::AlignVCenter,
                   tick_label(v, yt.step));
    }
    p.setPen(QPen(Qt::black, 1.0));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);

    p.setFont(chart_font(13));
    p.drawText(QRectF(plot.left(), plot.bottom() + 26, plot.width(), 20), Qt::AlignHCenter | Qt::AlignTop,
               chart.x_label);
    p.save();
    p.translate(area.left() + 16, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot.height() / 2, -10, plot.height(), 20), Qt::AlignCenter, chart.y_label);
    p.restore();
}

void draw_series(QPainter& p, const QRectF& plot, const AxisMapping& map, const ChartSeries& s)
{
    if (s.points.empty())
        return;
    if (s.reference) {
        const QPointF at(map.x(s.points.front().x()), map.y(s.points.front().y()));
        p.setPen(QPen(s.color, 1.5, Qt::DashLine));
        p.drawLine(QPointF(plot.left(), at.y()), QPointF(plot.right(), at.y()));
        draw_marker(p, at, s.color, true);
        return;
    }
    std::vector<QPointF> points = s.points;
    std::sort(points.begin(), points.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
    QPolygonF line;
    for (const QPointF& pt : points)
        line << QPointF(map.x(pt.x()), map.y(pt.y()));
    p.setPen(QPen(s.color, 2.0, s.style));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(line);
    for (const QPointF& at : line)
        draw_marker(p, at, s.color, false);
}

// The corner of the plot where the legend hides the fewest points of the drawn lines
// (sampled along each segment), top right on a tie.
QRectF legend_box(const QRectF& plot, QSizeF size, const AxisMapping& map, const std::vector<ChartSeries>& series)
{
    std::vector<QPointF> samples;
    for (const ChartSeries& s : series) {
        std::vector<QPointF> points = s.points;
        std::sort(points.begin(), points.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
        for (size_t i = 0; i < points.size(); ++i) {
            const QPointF a(map.x(points[i].x()), map.y(points[i].y()));
            if (s.reference) {  // a line across the plot
                for (int k = 0; k <= 40; ++k)
                    samples.emplace_back(plot.left() + plot.width() * k / 40.0, a.y());
                continue;
            }
            samples.push_back(a);
            if (i + 1 == points.size())
                continue;
            const QPointF b(map.x(points[i + 1].x()), map.y(points[i + 1].y()));
            for (int k = 1; k < 20; ++k)
                samples.push_back(a + (b - a) * (k / 20.0));
        }
    }
    const double m = 8.0;
    const std::vector<QPointF> corners{
        {plot.right() - size.width() - m, plot.top() + m},
        {plot.left() + m, plot.top() + m},
        {plot.right() - size.width() - m, plot.bottom() - size.height() - m},
        {plot.left() + m, plot.bottom() - size.height() - m},
    };
    QRectF best;
    size_t best_hidden = SIZE_MAX;
    for (const QPointF& corner : corners) {
        const QRectF box(corner, size);
        const QRectF padded = box.adjusted(-6, -6, 6, 6);
        const size_t hidden = static_cast<size_t>(std::count_if(
            samples.begin(), samples.end(), [&](const QPointF& pt) { return padded.contains(pt); }));
        if (hidden < best_hidden) {
            best = box;
            best_hidden = hidden;
        }
    }
    return best;
}

void draw_legend(QPainter& p, const QRectF& plot, const AxisMapping& map, const std::vector<ChartSeries>& series)
{
    const QFont font = chart_font(12);
    const QFontMetricsF metrics(font);
    double text_width = 0.0;
    for (const ChartSeries& s : series)
        text_width = std::max(text_width, metrics.horizontalAdvance(s.name));
    const double row = 20.0, sample = 30.0, pad = 8.0;
    const QRectF box = legend_box(
        plot, QSizeF(pad * 3 + sample + text_width, pad * 2 + row * static_cast<double>(series.size())), map, series);
    p.setPen(QPen(QColor(160, 160, 160), 1.0));
    p.setBrush(QColor(255, 255, 255, 235));
    p.drawRect(box);
    p.setFont(font);
    double y = box.top() + pad + row / 2;
    for (const ChartSeries& s : series) {
        const QPointF left(box.left() + pad, y), right(box.left() + pad + sample, y);
        p.setPen(QPen(s.color, s.reference ? 1.5 : 2.0, s.reference ? Qt::DashLine : s.style));
        p.drawLine(left, right);
        draw_marker(p, (left + right) / 2, s.color, s.reference);
        p.setPen(Qt::black);
        p.drawText(QRectF(right.x() + pad, y - row / 2, text_width + pad, row), Qt::AlignLeft | Qt::AlignVCenter,
                   s.name);
        y += row;
    }
}

} // namespace

void paint_line_chart(QPainter& p, const QRectF& area, const LineChart& chart)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(area, Qt::white);
    draw_title(p, area, chart.title, chart.subtitle);

    double x_lo = std::numeric_limits<double>::max(), x_hi = std::numeric_limits<double>::lowest();
    double y_lo = x_lo, y_hi = x_hi;
    for (const ChartSeries& s : chart.series)
        for (const QPointF& pt : s.points) {
            x_lo = std::min(x_lo, pt.x());
            x_hi = std::max(x_hi, pt.x());
            y_lo = std::min(y_lo, pt.y());
            y_hi = std::max(y_hi, pt.y());
        }
    if (x_lo > x_hi)  // nothing to draw: show an empty unit frame
        x_lo = y_lo = 0.0, x_hi = y_hi = 1.0;
    const QRectF plot(area.left() + 84, area.top() + 72, area.width() - 84 - 24, area.height() - 72 - 64);
    const AxisTicks xt = nice_ticks(x_lo, x_hi);
    const AxisTicks yt = nice_ticks(y_lo, y_hi);
    const AxisMapping map(plot, xt, yt);
    draw_axes(p, area, plot, xt, yt, map, chart);

    p.save();
    p.setClipRect(plot.adjusted(-8, -8, 8, 8));
    for (const ChartSeries& s : chart.series)
        draw_series(p, plot, map, s);
    p.restore();
    draw_legend(p, plot, map, chart.series);
    p.restore();
}

} // namespace pyramid
