#include "layer_chart.h"

#include <algorithm>

#include "chart_style.h"

namespace pyramid {

void paint_layer_pyramid(QPainter& p, const QRectF& area, const LayerPyramid& chart)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(area, Qt::white);
    draw_title(p, area, chart.title, chart.subtitle);

    const size_t layers = chart.lengths.size();
    double full = chart.full_length;
    for (double v : chart.lengths)
        full = std::max(full, v);
    if (layers == 0 || full <= 0.0) {
        p.restore();
        return;
    }
    // Left column: layer names; right column: the numbers; the bars between them.
    const double label_width = 80.0, numbers_width = 250.0;
    const QRectF bars(area.left() + label_width, area.top() + 72, area.width() - label_width - numbers_width - 16,
                      area.height() - 72 - 24);
    const double row = bars.height() / static_cast<double>(layers);
    const double bar_height = std::min(row * 0.7, 48.0);
    for (size_t l = 0; l < layers; ++l) {
        const double centre_y = bars.bottom() - row * (static_cast<double>(l) + 0.5);
        const double width = bars.width() * chart.lengths[l] / full;
        const QRectF outline(bars.left(), centre_y - bar_height / 2, bars.width(), bar_height);
        const QRectF bar(bars.center().x() - width / 2, outline.top(), width, bar_height);
        p.setPen(QPen(QColor(150, 150, 150), 1.0, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(outline);
        p.setPen(Qt::NoPen);
        p.setBrush(chart.color);
        p.drawRect(bar);

        p.setPen(Qt::black);
        p.setFont(chart_font(13));
        p.drawText(QRectF(area.left(), centre_y - 10, label_width - 10, 20), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("layer %1").arg(l));
        QString numbers = QStringLiteral("%1 (%2%)")
                              .arg(chart.lengths[l], 0, 'f', 1)
                              .arg(100.0 * chart.lengths[l] / full, 0, 'f', 0);
        if (l < chart.prefill_lengths.size())
            numbers += QStringLiteral(", prefill %1").arg(chart.prefill_lengths[l], 0, 'f', 0);
        p.drawText(QRectF(bars.right() + 12, centre_y - 10, numbers_width, 20), Qt::AlignLeft | Qt::AlignVCenter,
                   numbers);
    }
    p.restore();
}

} // namespace pyramid
