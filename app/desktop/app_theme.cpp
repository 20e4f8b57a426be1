#include "app_theme.h"

#include <QGuiApplication>

namespace {

struct Colors {
    QColor window, windowText, base, alternateBase, text, button, buttonText, highlight, highlightedText, mid,
        placeholder, link, toolTipBase;
};

QPalette paletteOf(const Colors& c)
{
    QPalette p;
    for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive}) {
        p.setColor(group, QPalette::Window, c.window);
        p.setColor(group, QPalette::WindowText, c.windowText);
        p.setColor(group, QPalette::Base, c.base);
        p.setColor(group, QPalette::AlternateBase, c.alternateBase);
        p.setColor(group, QPalette::Text, c.text);
        p.setColor(group, QPalette::Button, c.button);
        p.setColor(group, QPalette::ButtonText, c.buttonText);
        p.setColor(group, QPalette::BrightText, Qt::white);
        p.setColor(group, QPalette::Highlight, c.highlight);
        p.setColor(group, QPalette::HighlightedText, c.highlightedText);
        p.setColor(group, QPalette::Mid, c.mid);
        p.setColor(group, QPalette::Dark, c.mid.darker(130));
        p.setColor(group, QPalette::Light, c.button.lighter(130));
        p.setColor(group, QPalette::Midlight, c.button.lighter(115));
        p.setColor(group, QPalette::Shadow, Qt::black);
        p.setColor(group, QPalette::PlaceholderText, c.placeholder);
        p.setColor(group, QPalette::Link, c.link);
        p.setColor(group, QPalette::LinkVisited, c.link);
        p.setColor(group, QPalette::ToolTipBase, c.toolTipBase);
        p.setColor(group, QPalette::ToolTipText, c.text);
    }
    // Disabled: the same backgrounds, text halfway to them.
    const auto towards = [](const QColor& from, const QColor& to) {
        return QColor((from.red() + to.red()) / 2, (from.green() + to.green()) / 2, (from.blue() + to.blue()) / 2);
    };
    for (QPalette::ColorRole role : {QPalette::Window, QPalette::Base, QPalette::Button, QPalette::Highlight,
                                     QPalette::Mid, QPalette::AlternateBase})
        p.setColor(QPalette::Disabled, role, p.color(QPalette::Active, role));
    p.setColor(QPalette::Disabled, QPalette::WindowText, towards(c.windowText, c.window));
    p.setColor(QPalette::Disabled, QPalette::Text, towards(c.text, c.base));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, towards(c.buttonText, c.button));
    p.setColor(QPalette::Disabled, QPalette::HighlightedText, c.highlightedText);
    return p;
}

} // namespace

QPalette themePalette(const QString& theme, const QPalette& system)
{
    if (theme == QLatin1String("dark"))
        return paletteOf({QColor(0x2b, 0x2b, 0x2e), QColor(0xe8, 0xe8, 0xea), QColor(0x1e, 0x1e, 0x21),
                          QColor(0x26, 0x26, 0x2a), QColor(0xee, 0xee, 0xf0), QColor(0x3a, 0x3a, 0x3f),
                          QColor(0xee, 0xee, 0xf0), QColor(0x2f, 0x6b, 0xc4), QColor(0xff, 0xff, 0xff),
                          QColor(0x55, 0x55, 0x5c), QColor(0xa8, 0xa8, 0xae), QColor(0x8a, 0xb8, 0xff),
                          QColor(0x3a, 0x3a, 0x3f)});
    if (theme == QLatin1String("light"))
        return paletteOf({QColor(0xef, 0xef, 0xf1), QColor(0x1d, 0x1d, 0x1f), QColor(0xff, 0xff, 0xff),
                          QColor(0xf5, 0xf5, 0xf7), QColor(0x1d, 0x1d, 0x1f), QColor(0xe4, 0xe4, 0xe8),
                          QColor(0x1d, 0x1d, 0x1f), QColor(0x1f, 0x5f, 0xbf), QColor(0xff, 0xff, 0xff),
                          QColor(0xb0, 0xb0, 0xb6), QColor(0x5f, 0x5f, 0x66), QColor(0x1a, 0x55, 0xb0),
                          QColor(0xff, 0xff, 0xe6)});
    return system;
}

AppTheme::AppTheme(QGuiApplication& app) : app_(app), system_(QGuiApplication::palette()) {}

void AppTheme::apply(const QString& theme)
{
    if (theme == applied_)
        return;
    applied_ = theme;
    app_.setPalette(themePalette(theme, system_));
}
