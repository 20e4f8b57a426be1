#include "plot_files.h"

#include <QImage>
#include <QSvgGenerator>

#include "output_file.h"
#include "util/error.h"

namespace pyramid {
namespace {

char g_program_name[] = "pyramid-eval";

void require_written(const std::filesystem::path& path)
{
    std::error_code ec;
    if (std::filesystem::file_size(path, ec) == 0 || ec)
        throw Error("could not write the plot " + path.string());
}

} // namespace

OffscreenGui::OffscreenGui() : argv_{g_program_name, nullptr}
{
    if (QGuiApplication::instance())
        return;
    // The tool only renders files, so it never needs (or waits for) a display.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    app_ = std::make_unique<QGuiApplication>(argc_, argv_);
}

OffscreenGui::~OffscreenGui() = default;

std::vector<std::filesystem::path> render_chart_files(const std::filesystem::path& base, QSize size,
                                                      const ChartPainter& paint)
{
    if (const auto folder = base.parent_path(); !folder.empty())
        create_folder(folder);
    const QRectF area(0, 0, size.width(), size.height());
    std::filesystem::path svg_path = base, png_path = base;
    svg_path += ".svg";
    png_path += ".png";

    QSvgGenerator svg;
    svg.setFileName(QString::fromStdString(svg_path.string()));
    svg.setSize(size);
    svg.setViewBox(area);
    svg.setResolution(96);
    svg.setTitle(QString::fromStdString(base.filename().string()));
    QPainter svg_painter;
    if (!svg_painter.begin(&svg))
        throw Error("could not write the plot " + svg_path.string());
    paint(svg_painter, area);
    svg_painter.end();
    require_written(svg_path);

    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter png_painter(&image);
    paint(png_painter, area);
    png_painter.end();
    if (!image.save(QString::fromStdString(png_path.string()), "PNG"))
        throw Error("could not write the plot " + png_path.string());
    require_written(png_path);
    return {svg_path, png_path};
}

} // namespace pyramid
