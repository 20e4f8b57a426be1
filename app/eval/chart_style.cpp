#include "chart_style.h"

namespace pyramid {

QFont chart_font(int pixel_size, bool bold)
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setStyleHint(QFont::SansSerif);
    font.setPixelSize(pixel_size);
    font.setBold(bold);
    return font;
}

void draw_title(QPainter& painter, const QRectF& area, const QString& title, const QString& subtitle)
{
    painter.setPen(Qt::black);
    painter.setFont(chart_font(18, true));
    painter.drawText(QRectF(area.left(), area.top() + 8, area.width(), 26), Qt::AlignCenter, title);
    painter.setPen(kMutedTextColor);
    painter.setFont(chart_font(13));
    painter.drawText(QRectF(area.left(), area.top() + 36, area.width(), 20), Qt::AlignCenter, subtitle);
}

} // namespace pyramid
