// pyramidchat-screenshots: draws the README's pictures of the desktop app (docs/screenshots)
// from the real app on the real engine, offscreen, so they can be made again whenever the
// window changes. A multi-turn chat with the default model, SmolLM2-135M-Instruct (30 layers
// of pyramid in the live panel, each later turn extending the cache it kept), ending in a
// code block, at 1280x800 and at 800x600, and the settings; in the language and theme asked
// for, named <language>-<theme>-<picture>.png.
//
//   pyramidchat-screenshots [--language en|de|zh_CN] [--theme light|dark] OUT_DIR [SHARED_DIR [MODEL]]
//   (MODEL: the one setup fetched)
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "app_translations.h"
#include "chat/local_chat_engine.h"
#include "chat_settings.h"
#include "desktop_app.h"
#include "model/default_model.h"
#include "util/logging.h"

namespace {

[[noreturn]] void fail(const QString& what)
{
    std::fprintf(stderr, "pyramidchat-screenshots: %s\n", qPrintable(what));
    std::exit(1);
}

// Runs the event loop until `signal` of `sender` fires (or fails after `seconds`).
template <typename Sender, typename Signal>
void waitFor(const Sender* sender, Signal signal, const char* what, int seconds = 300)
{
    QEventLoop loop;
    QObject::connect(sender, signal, &loop, &QEventLoop::quit);
    QTimer::singleShot(seconds * 1000, &loop, [&] { fail(QStringLiteral("timed out waiting for %1").arg(what)); });
    loop.exec();
}

// Lets the window lay itself out and draw before it is grabbed.
void settle(int ms = 500)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

void grab(QQuickWindow* window, const QDir& out, const QString& name)
{
    settle();
    const QImage image = window->grabWindow();
    if (image.isNull() || !image.save(out.filePath(name)))
        fail(QStringLiteral("cannot write %1").arg(out.filePath(name)));
    std::printf("%s (%dx%d)\n", qPrintable(out.filePath(name)), image.width(), image.height());
}

void send(DesktopApp& app, const QString& text)
{
    if (!app.chat().send(text))
        fail(QStringLiteral("the app would not send a message"));
    waitFor(&app.chat(), &ChatController::replyFinished, "a reply");
}

void set(DesktopApp& app, const char* key, const char* value)
{
    if (!app.settings().setValue(QString::fromLatin1(key), QString::fromLatin1(value)))
        fail(QStringLiteral("setting %1 = %2 refused").arg(key, value));
}

} // namespace

int main(int argc, char* argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication qtApp(argc, argv);
    QString language = QStringLiteral("en");
    QString theme = QStringLiteral("light");
    QStringList positional;
    const QStringList args = qtApp.arguments().mid(1);
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--language") && i + 1 < args.size())
            language = args[++i];
        else if (args[i] == QLatin1String("--theme") && i + 1 < args.size())
            theme = args[++i];
        else
            positional << args[i];
    }
    if (positional.isEmpty())
        fail(QStringLiteral("usage: pyramidchat-screenshots [--language en|de|zh_CN] [--theme light|dark] "
                            "OUT_DIR [SHARED_DIR [MODEL]]"));
    const QDir out(positional[0]);
    const QDir shared(positional.size() > 1 ? positional[1] : QStringLiteral(PYRAMID_SHARED_DIR));
    if (!QDir().mkpath(out.path()))
        fail(QStringLiteral("cannot create %1").arg(out.path()));
    const QString prefix = language + QLatin1Char('-') + theme + QLatin1Char('-');

    AppTranslations translations;
    translations.install(qtApp, language == QLatin1String("en") ? QStringLiteral("en_US") : language);
    QQuickStyle::setStyle(QStringLiteral("Fusion"));

    QFile storyFile(shared.filePath(QStringLiteral("data/tinystories_val_prefix.txt")));
    if (!storyFile.open(QIODevice::ReadOnly))
        fail(QStringLiteral("cannot read %1").arg(storyFile.fileName()));
    const QString stories = QString::fromUtf8(storyFile.readAll()).simplified();

    // A fresh home: no earlier conversations or settings show up in the pictures.
    QTemporaryDir home;
    QSettings settings(QDir(home.path()).filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    // The engine as the app makes it with its default settings.
    const pyramid::BackendOptions backend{pyramid::BackendPreference::Auto, ChatSettings{}.kvPrecision};
    DesktopApp app(std::make_unique<pyramid::LocalChatEngine>(backend), settings,
                   {QDir(home.path()).filePath(QStringLiteral("chats.sqlite")), {shared.filePath(QStringLiteral("models"))}});
    QQmlApplicationEngine qml;
    if (!app.showWindow(qml))
        fail(QStringLiteral("the window did not load"));
    auto* window = qobject_cast<QQuickWindow*>(qml.rootObjects().front());
    window->resize(1280, 800);

    const QString model = positional.size() > 2 ? positional[2]
                                   : QString::fromStdString((pyramid::user_data_dir() / "models" /
                                                             std::string(pyramid::kDefaultModelFile)).string());
    if (!QFile::exists(model))
        fail(QStringLiteral("no model at %1 (scripts/setup.sh fetches it)").arg(model));
    app.models().open(model);
    waitFor(&app.models(), &ModelManager::modelChanged, "the model");
    set(app, "policy", "pyramid");
    set(app, "max_new_tokens", "96");
    set(app, "temperature", "0");
    set(app, "repetition_penalty", "1.1");
    set(app, "theme", theme.toLatin1().constData());

    // A story to read, then questions about it: each later turn extends the compressed cache,
    // whose deeper layers kept fewer of the story's tokens.
    const qsizetype from = stories.indexOf(QStringLiteral("Once upon a time, in a big forest"));
    const QString end = QStringLiteral("she could climb anything.");
    const qsizetype to = stories.indexOf(end, from);
    if (from < 0 || to < 0)
        fail(QStringLiteral("the story about Roxy is not in the text file"));
    send(app, QStringLiteral("Here is a short story:\n\n") + stories.mid(from, to + end.size() - from) +
                  QStringLiteral("\n\nWho is the main character, and what did she want to do?"));
    send(app, QStringLiteral("Who helped her, and how?"));
    send(app, QStringLiteral("Give the story a short title."));
    send(app, QStringLiteral("Write a short Python function that returns the square of a number."));
    grab(window, out, prefix + QStringLiteral("chat-1280x800.png"));

    // The same conversation in a small window: the panel narrows, the code block still reads.
    window->resize(800, 600);
    grab(window, out, prefix + QStringLiteral("chat-800x600.png"));

    window->resize(1280, 800);
    QObject* dialog = window->findChild<QObject*>(QStringLiteral("settingsDialog"));
    if (!dialog || !QMetaObject::invokeMethod(dialog, "open"))
        fail(QStringLiteral("no settings dialog"));
    grab(window, out, prefix + QStringLiteral("settings-1280x800.png"));
    return 0;
}
