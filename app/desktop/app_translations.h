#pragma once
// The app's translators. Its source texts are English, with plurals written "%n exchange(s)";
// translations/pyramidchat_en.ts holds only their English plural forms ("1 exchange",
// "2 exchanges"). That file lies under every language: the user's language answers first,
// and a language without a translation of its own reads correct English.
#include <QString>
#include <QTranslator>

class QCoreApplication;

class AppTranslations {
public:
    // The English plural forms alone: the app as it reads where there is no translation.
    void installEnglish(QCoreApplication& app);
    // installEnglish, then the user's language over it. `language`: a locale name such as "de"
    // or "zh_CN"; empty or "system": the system's language. A chosen language sets the default
    // locale too, so numbers and dates follow it.
    void install(QCoreApplication& app, const QString& language);

private:
    QTranslator englishPlurals_;
    QTranslator own_;  // the user's language, where the app has it
    QTranslator qt_;   // Qt's own texts (standard dialogs), where the system has them
};
