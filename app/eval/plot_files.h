#pragma once
// Renders a chart into SVG (QSvgGenerator) and PNG (QImage) from one QPainter drawing. Text
// needs a QGuiApplication: OffscreenGui provides one on Qt's offscreen platform, so plots
// render on machines without a display.
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include <QGuiApplication>
#include <QPainter>
#include <QRectF>
#include <QSize>

namespace pyramid {

class OffscreenGui {
public:
    OffscreenGui();  // creates a QGuiApplication on the offscreen platform unless one exists
    ~OffscreenGui();
    OffscreenGui(const OffscreenGui&) = delete;
    OffscreenGui& operator=(const OffscreenGui&) = delete;

private:
    int argc_ = 1;
    char* argv_[2];
    std::unique_ptr<QGuiApplication> app_;
};

using ChartPainter = std::function<void(QPainter&, const QRectF&)>;

// Writes <base>.svg and <base>.png, `size` pixels each (creating their folder), and returns
// their paths. Throws pyramid::Error naming the folder or file that cannot be written.
std::vector<std::filesystem::path> render_chart_files(const std::filesystem::path& base, QSize size,
                                                      const ChartPainter& paint);

} // namespace pyramid
