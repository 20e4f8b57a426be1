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

    // The environment's choice stands, and OpenGL is not even asked (a context made for nothing).
    void the_environment_choice_stands()
    {
        int asked = 0;
        const auto llvmpipe = [&] {
            ++asked;
            return QStringLiteral("llvmpipe (LLVM 15.0.6, 256 bits)");
        };
        qputenv("QT_QUICK_BACKEND", "opengl");
        QVERIFY(chooseQuickRenderer(llvmpipe).isEmpty());
        qunsetenv("QT_QUICK_BACKEND");
        qputenv("QSG_RHI_BACKEND", "vulkan");
        QVERIFY(chooseQuickRenderer(llvmpipe).isEmpty());
        qunsetenv("QSG_RHI_BACKEND");
        QCOMPARE(asked, 0);
        QVERIFY(QQuickWindow::sceneGraphBackend() != QStringLiteral("software"));
    }

    void a_gpu_keeps_qts_default()
    {
        qunsetenv("QT_QUICK_BACKEND");
        const auto intel = [] { return QStringLiteral("Mesa Intel(R) UHD Graphics 620 (KBL GT2)"); };
        QVERIFY(chooseQuickRenderer(intel).isEmpty());
        QVERIFY(chooseQuickRenderer([] { return QString(); }).isEmpty());  // no OpenGL to ask: Qt decides
        QVERIFY(QQuickWindow::sceneGraphBackend() != QStringLiteral("software"));
    }

    void a_software_rasterizer_gets_the_software_renderer()
    {
        qunsetenv("QT_QUICK_BACKEND");
        const QString chosen = chooseQuickRenderer([] { return QStringLiteral("llvmpipe (LLVM 15.0.6, 256 bits)"); });
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
