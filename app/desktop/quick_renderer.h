#pragma once
// How Qt Quick draws the window. Its default draws with OpenGL and redraws the whole window for
// every frame an animation or an update asks for. Where the system's OpenGL is itself a software
// rasterizer (Mesa's llvmpipe: a virtual machine, a remote desktop, a PC without its GPU driver)
// the CPU draws those frames, beside the model: on 2 cores a reply's spinner and streamed text
// took 43% of the app's CPU time, and a 1,529-token prompt's first token came 1.8x later. Qt
// Quick's own software renderer paints with QPainter and only what changed, so there the app
// uses it.
#include <QString>

#include <functional>

// Whether GL_RENDERER names a software rasterizer (llvmpipe, softpipe, swrast).
bool isSoftwareRasterizer(const QString& glRenderer);

// GL_RENDERER of the OpenGL a window would get, or empty where none can be made (no OpenGL, the
// offscreen platform). Needs the QGuiApplication.
QString openGlRenderer();

// Called once, before the first Qt Quick window: chooses Qt Quick's software renderer where the
// environment chose none (QT_QUICK_BACKEND, QSG_RHI_BACKEND) and the GL_RENDERER `glRenderer`
// returns is a software rasterizer. glRenderer (openGlRenderer, which makes an OpenGL context) is
// called only where the environment chose none. Returns what it chose and why, for the log, or
// empty where Qt's default stays.
QString chooseQuickRenderer(const std::function<QString()>& glRenderer);
