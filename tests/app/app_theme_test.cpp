// The light and dark themes (issue 38, look): text keeps WCAG AA contrast in both, the theme
// setting changes the application's palette at once, which the window's colours follow, and
// "system" gives the platform's palette back.
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTest>
#include <cmath>

#include "app_test_env.h"

namespace {

double luminance(const QColor& c)
{
    const auto linear = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

double contrast(const QColor& a, const QColor& b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// `fg` drawn at `opacity` over `bg`.
QColor over(const QColor& fg, const QColor& bg, double opacity)
{
    return QColor::fromRgbF(float(fg.redF() * opacity + bg.redF() * (1 - opacity)),
                            float(fg.greenF() * opacity + bg.greenF() * (1 - opacity)),
                            float(fg.blueF() * opacity + bg.blueF() * (1 - opacity)));
}

} // namespace

class ThemeTest : public QObject {
    Q_OBJECT

private slots:
    void bothThemesKeepTextReadable()
    {
        for (const char* theme : {"light", "dark"}) {
            const QPalette p = themePalette(QString::fromLatin1(theme), QPalette());
            const std::pair<QPalette::ColorRole, QPalette::ColorRole> pairs[] = {
                {QPalette::WindowText, QPalette::Window}, {QPalette::Text, QPalette::Base},
                {QPalette::Text, QPalette::AlternateBase}, {QPalette::ButtonText, QPalette::Button},
                {QPalette::HighlightedText, QPalette::Highlight}, {QPalette::ToolTipText, QPalette::ToolTipBase},
                {QPalette::PlaceholderText, QPalette::Base}, {QPalette::Link, QPalette::Base}};
            for (const auto& [fg, bg] : pairs) {
                const double ratio = contrast(p.color(fg), p.color(bg));
                QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("%1: %2 on %3 is %4:1").arg(theme).arg(fg).arg(bg).arg(ratio)));
            }
            // The panel's secondary labels: text at 70 % over the window and the base.
            for (QPalette::ColorRole bg : {QPalette::Window, QPalette::Base}) {
                const double ratio = contrast(over(p.color(QPalette::WindowText), p.color(bg), 0.7), p.color(bg));
                QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("%1: 70 %% text on %2 is %3:1").arg(theme).arg(bg).arg(ratio)));
            }
        }
        QVERIFY(luminance(themePalette("dark", {}).color(QPalette::Window)) < 0.1);
        QVERIFY(luminance(themePalette("light", {}).color(QPalette::Window)) > 0.7);
    }

    void theSettingChangesTheWindowAtOnce()
    {
        AppTestEnv env;
        const QPalette platform = QGuiApplication::palette();
        auto app = env.makeApp();
        QCOMPARE(app->settings().value("theme"), QStringLiteral("system"));  // the default
        QCOMPARE(QGuiApplication::palette().color(QPalette::Window), platform.color(QPalette::Window));
        QQmlApplicationEngine qml;
        QVERIFY(app->showWindow(qml));
        auto* window = qobject_cast<QQuickWindow*>(qml.rootObjects().front());
        QVERIFY(window && QTest::qWaitForWindowExposed(window));
        // The chat's background is the palette's base colour (ChatView.qml).
        auto* chat = window->findChild<QQuickItem*>(QStringLiteral("chatView"));
        QVERIFY(chat);
        const auto background = [&] {
            return chat->property("background").value<QQuickItem*>()->property("color").value<QColor>();
        };

        QVERIFY(app->settings().setValue("theme", "dark"));
        QCOMPARE(QGuiApplication::palette().color(QPalette::Window), themePalette("dark", {}).color(QPalette::Window));
        QTRY_COMPARE(background(), themePalette("dark", {}).color(QPalette::Base));
        QVERIFY(app->settings().setValue("theme", "light"));
        QTRY_COMPARE(background(), themePalette("light", {}).color(QPalette::Base));
        QVERIFY(app->settings().setValue("theme", "system"));
        QCOMPARE(QGuiApplication::palette().color(QPalette::Base), platform.color(QPalette::Base));
        QTRY_COMPARE(background(), platform.color(QPalette::Base));
        QVERIFY(!app->settings().setValue("theme", "purple"));
    }
};

QTEST_MAIN(ThemeTest)
#include "app_theme_test.moc"
