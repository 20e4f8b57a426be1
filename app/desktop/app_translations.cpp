#include "app_translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>

namespace {
const QString kResourceDir = QStringLiteral(":/pyramidchat/i18n");
const QString kEnglish = QStringLiteral("en");
} // namespace

void AppTranslations::installEnglish(QCoreApplication& app)
{
    // Installed first, so searched last.
    if (englishPlurals_.load(QStringLiteral("pyramidchat_") + kEnglish, kResourceDir))
        app.installTranslator(&englishPlurals_);
}

void AppTranslations::install(QCoreApplication& app, const QString& language)
{
    const QString chosen = language.trimmed();
    if (!chosen.isEmpty() && chosen != QStringLiteral("system"))
        QLocale::setDefault(QLocale(chosen));
    const QLocale locale;  // the chosen language, else the system's
    installEnglish(app);
    if (own_.load(locale, QStringLiteral("pyramidchat"), QStringLiteral("_"), kResourceDir) &&
        own_.language() != kEnglish)
        app.installTranslator(&own_);
    if (qt_.load(locale, QStringLiteral("qt"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        app.installTranslator(&qt_);
}
