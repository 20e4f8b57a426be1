#include "quick_renderer.h"

#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QQuickWindow>
#include <QSGRendererInterface>

bool isSoftwareRasterizer(const QString& glRenderer)
{
    for (const char* name : {"llvmpipe", "softpipe", "swrast", "software rasterizer"})
        if (glRenderer.contains(QLatin1String(name), Qt::CaseInsensitive))
            return true;
    return false;
}

QString openGlRenderer()
{
    QOpenGLContext context;
    if (!context.create())
        return {};
    QOffscreenSurface surface;
    surface.setFormat(context.format());
    surface.create();
    if (!surface.isValid() || !context.makeCurrent(&surface))
        return {};
    const auto* renderer = reinterpret_cast<const char*>(context.functions()->glGetString(GL_RENDERER));
    const QString name = renderer ? QString::fromUtf8(renderer) : QString();
    context.doneCurrent();
    return name;
}

QString chooseQuickRenderer(const std::function<QString()>& glRenderer)
{
    if (!qEnvironmentVariableIsEmpty("QT_QUICK_BACKEND") || !qEnvironmentVariableIsEmpty("QSG_RHI_BACKEND"))
        return {};
    const QString renderer = glRenderer();
    if (!isSoftwareRasterizer(renderer))
        return {};
    QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
    return QStringLiteral("drawing with Qt Quick's software renderer: OpenGL here is %1, a software rasterizer "
                          "(QT_QUICK_BACKEND chooses otherwise)")
        .arg(renderer);
}
