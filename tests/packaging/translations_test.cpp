// The app's translations (translations/*.ts) are complete: lupdate, run here on the app's
// current sources, finds no text that a .ts file lacks or no longer needs, every entry is
// translated with the same placeholders as its source, and the .qm files embedded in the app
// carry exactly these translations and are found for a locale the way AppTranslations looks for
// them; counts read in the plural forms of the language spoken, English where there is none.
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QScopeGuard>
#include <QXmlStreamReader>
#include <utility>

#include "app_translations.h"
#include "chat_controller.h"

namespace {

struct TsMessage {
    QString context;
    QString source;
    QString comment;
    QString type;             // "" (finished), "unfinished", "vanished" or "obsolete"
    QStringList translations;  // one, or one per plural form
    bool numerus = false;

    QString where() const { return context + QStringLiteral(" | \"") + source + QStringLiteral("\""); }
};

QList<TsMessage> readTs(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    QList<TsMessage> out;
    QString context;
    TsMessage message;
    QXmlStreamReader xml(&file);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isEndElement() && xml.name() == QLatin1String("message"))
            out.push_back(message);
        if (!xml.isStartElement())
            continue;
        const auto name = xml.name();
        if (name == QLatin1String("name")) {
            context = xml.readElementText();
        } else if (name == QLatin1String("message")) {
            message = TsMessage{};
            message.context = context;
            message.numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
        } else if (name == QLatin1String("source")) {
            message.source = xml.readElementText();
        } else if (name == QLatin1String("comment")) {
            message.comment = xml.readElementText();
        } else if (name == QLatin1String("translation")) {
            message.type = xml.attributes().value(QLatin1String("type")).toString();
            if (!message.numerus)
                message.translations = {xml.readElementText()};
        } else if (name == QLatin1String("numerusform")) {
            message.translations.push_back(xml.readElementText());
        }
    }
    if (xml.hasError())
        qFatal("%s: %s", qPrintable(path), qPrintable(xml.errorString()));
    return out;
}

// %1 ... %99 and %n, as a sorted list (repeats count once).
QStringList placeholders(const QString& text)
{
    static const QRegularExpression marker(QStringLiteral("%(\\d{1,2}|n)"));
    QSet<QString> found;
    for (auto it = marker.globalMatch(text); it.hasNext();)
        found.insert(it.next().captured(0));
    QStringList out(found.begin(), found.end());
    out.sort();
    return out;
}

QStringList tsFiles()
{
    const QDir dir(QStringLiteral(PYRAMID_TRANSLATIONS_DIR));
    QStringList out;
    for (const QString& name : dir.entryList({QStringLiteral("pyramidchat_*.ts")}, QDir::Files))
        out.push_back(dir.filePath(name));
    return out;
}

QString languageOf(const QString& tsPath)  // pyramidchat_zh_CN.ts -> zh_CN
{
    const QString base = QFileInfo(tsPath).completeBaseName();
    return base.mid(base.indexOf(QLatin1Char('_')) + 1);
}

// Lists every problem (a failure message would be cut short); true when there is none.
bool noProblems(const QStringList& problems)
{
    for (const QString& problem : problems)
        qWarning().noquote() << problem;
    return problems.isEmpty();
}

QByteArray count(const QStringList& problems, const char* hint = "")
{
    return QByteArray::number(problems.size()) + " problem(s), listed above" + hint;
}

} // namespace

class TranslationsTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(tsFiles().size() >= 2, "expected the German and Simplified Chinese .ts files");
    }

    // lupdate on copies of the .ts files: a text new in the sources comes back unfinished, one
    // gone from them vanished; lupdate warns about a text it cannot give a context.
    void lupdateFindsNothingMissing()
    {
        QTemporaryDir scratch;
        QVERIFY(scratch.isValid());
        QStringList copies;
        for (const QString& ts : tsFiles()) {
            copies.push_back(scratch.filePath(QFileInfo(ts).fileName()));
            QVERIFY(QFile::copy(ts, copies.last()));
        }
        QFile sourceList(QStringLiteral(PYRAMID_TR_SOURCES_FILE));
        QVERIFY(sourceList.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList sources = QString::fromUtf8(sourceList.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(!sources.isEmpty());

        // The English file holds plural forms only, as the build's lupdate keeps it.
        QStringList pluralsOnly, complete;
        for (const QString& copy : copies)
            (languageOf(copy) == QLatin1String("en") ? pluralsOnly : complete).push_back(copy);
        QVERIFY2(!pluralsOnly.isEmpty(), "expected translations/pyramidchat_en.ts, the English plural forms");
        const QStringList options = QStringLiteral(PYRAMID_LUPDATE_OPTIONS).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        QString output;
        for (const auto& [tsFiles, extra] : {std::pair{complete, QStringList{}},
                                             std::pair{pluralsOnly, QStringList{QStringLiteral("-pluralonly")}}}) {
            QProcess lupdate;
            lupdate.setProcessChannelMode(QProcess::MergedChannels);
            lupdate.start(QStringLiteral(PYRAMID_LUPDATE),
                          options + extra + sources + QStringList{QStringLiteral("-ts")} + tsFiles);
            QVERIFY2(lupdate.waitForFinished(120000), "lupdate did not finish");
            output += QString::fromLocal8Bit(lupdate.readAll());
            QVERIFY2(lupdate.exitStatus() == QProcess::NormalExit && lupdate.exitCode() == 0, qPrintable(output));
        }
        // Warnings read "<file>:<line>: <what>"; such a text is missing from the .ts files.
        static const QRegularExpression warning(QStringLiteral("^\\S+:\\d+: .*$"), QRegularExpression::MultilineOption);
        QStringList warnings;
        for (auto it = warning.globalMatch(output); it.hasNext();)
            warnings.push_back(it.next().captured(0));
        QVERIFY2(noProblems(warnings), count(warnings, ": lupdate cannot give these texts a context").constData());

        QStringList problems;
        for (const QString& copy : copies) {
            for (const TsMessage& m : readTs(copy)) {
                if (m.type == QLatin1String("unfinished"))
                    problems.push_back(languageOf(copy) + QStringLiteral(": not translated: ") + m.where());
                else if (m.type == QLatin1String("vanished") || m.type == QLatin1String("obsolete"))
                    problems.push_back(languageOf(copy) + QStringLiteral(": no longer in the sources: ") + m.where());
            }
        }
        QVERIFY2(noProblems(problems),
                 count(problems, " (`ninja update_translations` brings the .ts files up to date; then translate)").constData());
    }

    void everyEntryTranslatedWithItsPlaceholders()
    {
        QStringList problems;
        for (const QString& ts : tsFiles()) {
            const QList<TsMessage> messages = readTs(ts);
            QVERIFY2(!messages.isEmpty(), qPrintable(ts));
            for (const TsMessage& m : messages) {
                const QString where = languageOf(ts) + QStringLiteral(": ") + m.where();
                if (!m.type.isEmpty()) {
                    problems.push_back(where + QStringLiteral(" is ") + m.type);
                    continue;
                }
                for (const QString& translation : m.translations) {
                    if (translation.trimmed().isEmpty())
                        problems.push_back(where + QStringLiteral(" has an empty translation"));
                    else if (placeholders(translation) != placeholders(m.source))
                        problems.push_back(where + QStringLiteral(" -> \"") + translation +
                                           QStringLiteral("\": placeholders differ"));
                }
            }
        }
        QVERIFY2(noProblems(problems), count(problems).constData());
    }

    // The .qm files in the app's resources translate every entry as the .ts files say.
    void embeddedTranslationsMatchTheTsFiles()
    {
        for (const QString& ts : tsFiles()) {
            const QString language = languageOf(ts);
            QTranslator translator;
            QVERIFY2(translator.load(QStringLiteral(":/pyramidchat/i18n/pyramidchat_") + language + QStringLiteral(".qm")),
                     qPrintable(language));
            QCOMPARE(translator.language(), language);
            for (const TsMessage& m : readTs(ts)) {
                if (!m.type.isEmpty())
                    continue;
                const auto translate = [&](int n) {
                    return translator.translate(m.context.toUtf8().constData(), m.source.toUtf8().constData(),
                                                m.comment.isEmpty() ? nullptr : m.comment.toUtf8().constData(), n);
                };
                const QString where = language + QStringLiteral(": ") + m.where();
                QVERIFY2(translate(1) == m.translations.value(0), qPrintable(where));
                // Every language here has one form for 1 and its last form for 2 (or only one).
                if (m.numerus)
                    QVERIFY2(translate(2) == m.translations.value(m.translations.size() - 1), qPrintable(where));
            }
        }
    }

    // The app words a count with the plural forms of the language it speaks; a language it has
    // no translation for reads English, with English plural forms.
    void countsReadInTheLanguageSpoken_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<int>("count");
        QTest::addColumn<QString>("expected");
        const QString english =
            QStringLiteral("The conversation outgrew the model's context: the oldest %1 %2 left out of the prompt.");
        const QString one = QStringLiteral("exchange was"), many = QStringLiteral("exchanges were");
        QTest::newRow("en, 1") << QStringLiteral("en_GB") << 1 << english.arg(1).arg(one);
        QTest::newRow("en, 3") << QStringLiteral("en_GB") << 3 << english.arg(3).arg(many);
        QTest::newRow("fr (none), 1") << QStringLiteral("fr") << 1 << english.arg(1).arg(one);
        QTest::newRow("fr (none), 2") << QStringLiteral("fr") << 2 << english.arg(2).arg(many);
    }

    void countsReadInTheLanguageSpoken()
    {
        QFETCH(QString, language);
        QFETCH(int, count);
        QFETCH(QString, expected);
        const QLocale before;
        const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
        AppTranslations translations;
        translations.install(*QCoreApplication::instance(), language);
        QCOMPARE(ChatController::noticeText({pyramid::ContextNotice::Kind::TurnsDropped, count}), expected);
    }

    // The user's language comes before the English plural forms.
    void aTranslationComesBeforeEnglish()
    {
        const QLocale before;
        const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
        AppTranslations translations;
        translations.install(*QCoreApplication::instance(), QStringLiteral("de"));
        const QString source = QStringLiteral("%n token(s) · %1 tokens/s · first token %2 ms");
        const QString german = QCoreApplication::translate("MessageListModel", source.toUtf8().constData(), nullptr, 2);
        QVERIFY2(german.startsWith(QStringLiteral("2 Token ·")), qPrintable(german));
        const QString notice = ChatController::noticeText({pyramid::ContextNotice::Kind::PositionsRenumbered, 1});
        QVERIFY2(!notice.contains(QStringLiteral("position")), qPrintable(notice));
    }

    // Qt's own words (a dialog's Close, Cancel and Reset buttons, the file dialogs) come from
    // Qt's translations, qt6-translations-l10n (scripts/debian-packages.txt; the package
    // recommends it): without them the German and Chinese settings closed with "Close".
    void qtsOwnButtonsSpeakTheLanguage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("close");
        QTest::addColumn<QString>("cancel");
        QTest::newRow("de") << QStringLiteral("de") << QStringLiteral("Schließen") << QStringLiteral("Abbrechen");
        QTest::newRow("zh_CN") << QStringLiteral("zh_CN") << QStringLiteral("关闭") << QStringLiteral("取消");
    }

    void qtsOwnButtonsSpeakTheLanguage()
    {
        QFETCH(QString, language);
        QFETCH(QString, close);
        QFETCH(QString, cancel);
        const QLocale before;
        const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
        AppTranslations translations;
        translations.install(*QCoreApplication::instance(), language);
        QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Close"), close);
        QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), cancel);
    }

    // main.cpp loads by locale: a language's regional variants find its file too.
    void foundByLocale_data()
    {
        QTest::addColumn<QString>("locale");
        QTest::addColumn<QString>("language");
        for (const QString& ts : tsFiles()) {
            const QString language = languageOf(ts);
            QTest::newRow(qPrintable(language)) << language << language;
        }
        QTest::newRow("de_AT") << QStringLiteral("de_AT") << QStringLiteral("de");
        QTest::newRow("zh_Hans_CN") << QStringLiteral("zh_Hans_CN") << QStringLiteral("zh_CN");
    }

    void foundByLocale()
    {
        QFETCH(QString, locale);
        QFETCH(QString, language);
        if (!QFile::exists(QStringLiteral(PYRAMID_TRANSLATIONS_DIR "/pyramidchat_") + language + QStringLiteral(".ts")))
            QSKIP("no such translation");
        QTranslator translator;
        QVERIFY(translator.load(QLocale(locale), QStringLiteral("pyramidchat"), QStringLiteral("_"),
                                QStringLiteral(":/pyramidchat/i18n")));
        QCOMPARE(translator.language(), language);
    }
};

QTEST_GUILESS_MAIN(TranslationsTest)
#include "translations_test.moc"
