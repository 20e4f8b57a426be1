#pragma once
// The light and dark themes: Settings -> Interface -> Theme picks "system" (the platform's
// palette, the default), "light" or "dark", and the change shows at once. The palette is the
// application's, which every SystemPalette in the QML reads, so each colour the window draws
// follows. Both palettes keep text at WCAG AA contrast (4.5:1) on every background they pair
// it with, also at the 70 % opacity the secondary labels use.
#include <QPalette>
#include <QString>

class QGuiApplication;

// The palette for `theme`; `system` is what the platform gave before any theme was applied.
QPalette themePalette(const QString& theme, const QPalette& system);

// Applies `theme` to a running GUI application (the app, the window tests); remembers the
// platform's palette on first use so "system" can return to it.
class AppTheme {
public:
    explicit AppTheme(QGuiApplication& app);
    void apply(const QString& theme);

private:
    QGuiApplication& app_;
    QPalette system_;
    QString applied_ = QStringLiteral("system");  // the platform's palette, untouched until a change
};
