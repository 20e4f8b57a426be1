#pragma once
// The look the charts share: fonts in pixel sizes (so SVG and PNG match), colours, titles.
#include <QColor>
#include <QFont>
#include <QPainter>
#include <QRectF>
#include <QString>

namespace pyramid {

inline const QColor kGridColor{225, 225, 225};
inline const QColor kMutedTextColor{90, 90, 90};

QFont chart_font(int pixel_size, bool bold = false);

// Title (bold) and a smaller muted subtitle, centred in the top 64 pixels of `area`.
void draw_title(QPainter& painter, const QRectF& area, const QString& title, const QString& subtitle);

} // namespace pyramid
