// The app's choice of Qt Quick renderer (quick_renderer.h): its software renderer where the
// system's OpenGL is a software rasterizer, Qt's default elsewhere, and never over the
// environment's own choice.
#include <QQuickWindow>
#include <QSGRendererInterface>
#include <QtTest>

#include "quick_renderer.h"

class QuickRendererTest : public QObject {
    Q_OBJECT

private slots:
    void names_software_rasterizers()
    {
        QVERIFY(isSoftwareRasterizer(QStringLiteral("llvmpipe (LLVM 15.0.6, 256 bits)")));
        QVERIFY(isSoftwareRasterizer(QStringLiteral("softpipe")));
        QVERIFY(isSoftwareRasterizer(QStringLiteral("Software Rasterizer")));
        QVERIFY(isSoftwareRasterizer(QStringLiteral("Mesa swrast")));
        QVERIFY(!isSoftwareRasterizer(QStringLiteral("Mesa Intel(R) UHD Graphics 620 (KBL GT2)")));
        // LLVM compiles shaders for real GPUs too: only llvmpipe is the CPU.
        QVERIFY(!isSoftwareRasterizer(QStringLiteral("AMD Radeon Graphics (radeonsi, renoir, LLVM 15.0.6, DRM 3.49)")));
        QVERIFY(!isSoftwareRasterizer(QStringLiteral("NVIDIA GeForce RTX 3060/PCIe/SSE2")));
        QVERIFY(!isSoftwareRasterizer(QString()));
    }

    void the_environment_choice_stands()
    {
        qputenv("QT_QUICK_BACKEND", "opengl");
        QVERIFY(chooseQuickRenderer(QStringLiteral("llvmpipe (LLVM 15.0.6, 256 bits)")).isEmpty());
        qunsetenv("QT_QUICK_BACKEND");
        qputenv("QSG_RHI_BACKEND", "vulkan");
        QVERIFY(chooseQuickRenderer(QStringLiteral("llvmpipe (LLVM 15.0.6, 256 bits)")).isEmpty());
        qunsetenv("QSG_RHI_BACKEND");
        QVERIFY(QQuickWindow::sceneGraphBackend() != QStringLiteral("software"));
    }

    void a_gpu_keeps_qts_default()
    {
        qunsetenv("QT_QUICK_BACKEND");
        QVERIFY(chooseQuickRenderer(QStringLiteral("Mesa Intel(R) UHD Graphics 620 (KBL GT2)")).isEmpty());
        QVERIFY(chooseQuickRenderer(QString()).isEmpty());  // no OpenGL to ask: Qt decides
        QVERIFY(QQuickWindow::sceneGraphBackend() != QStringLiteral("software"));
    }

    void a_software_rasterizer_gets_the_software_renderer()
    {
        qunsetenv("QT_QUICK_BACKEND");
        const QString chosen = chooseQuickRenderer(QStringLiteral("llvmpipe (LLVM 15.0.6, 256 bits)"));
        QVERIFY(chosen.contains(QStringLiteral("llvmpipe")));
        QCOMPARE(QQuickWindow::sceneGraphBackend(), QStringLiteral("software"));
        // A window made now draws with it.
        QQuickWindow window;
        window.resize(64, 64);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(window.rendererInterface() != nullptr);
        QCOMPARE(window.rendererInterface()->graphicsApi(), QSGRendererInterface::Software);
    }
};

QTEST_MAIN(QuickRendererTest)
#include "app_quick_renderer_test.moc"
