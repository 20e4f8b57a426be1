// pyramidchat: the desktop chat app. Builds the real engine and the app's objects, shows the
// window and opens a model (--model, else the last one used, else the bundled default).
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QGuiApplication>
#include <QIcon>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QSettings>
#include <QStandardPaths>
#include <cstdio>
#include <cstring>

#include "chat/local_chat_engine.h"
#include "desktop_app.h"
#include "util/error.h"

namespace {

// --help and --version must work without a display, so they are answered before the GUI starts.
bool asksForInfoOnly(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        for (const char* flag : {"-h", "--help", "--help-all", "-?", "-v", "--version"}) {
            if (std::strcmp(argv[i], flag) == 0)
                return true;
        }
    }
    return false;
}

void describe(QCommandLineParser& parser, const QCommandLineOption& model)
{
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Chat with LLaMA-2-Chat on this machine, with PyramidInfer KV-cache compression."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption(model);
}

} // namespace

int main(int argc, char* argv[])
{
    // No organization name: the data folder is then ~/.local/share/pyramidchat, the same one
    // the command-line tools use for models and logs.
    QCoreApplication::setApplicationName(QStringLiteral("pyramidchat"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PYRAMIDCHAT_VERSION));

    const QCommandLineOption modelOption(
        QStringLiteral("model"), QCoreApplication::translate("main", "Open this GGUF file or Hugging Face folder."),
        QCoreApplication::translate("main", "path"));
    QCommandLineParser parser;
    if (asksForInfoOnly(argc, argv)) {
        QCoreApplication app(argc, argv);
        describe(parser, modelOption);
        parser.process(app);  // prints and exits
        return 0;
    }

    QGuiApplication app(argc, argv);
    QGuiApplication::setApplicationDisplayName(QStringLiteral("PyramidChat"));
    QGuiApplication::setWindowIcon(QIcon(QStringLiteral(":/pyramidchat/icons/pyramidchat.svg")));
    describe(parser, modelOption);
    parser.process(app);

    const QString dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (!QDir().mkpath(dataDir)) {
        std::fprintf(stderr, "pyramidchat: cannot create %s\n", qPrintable(dataDir));
        return 1;
    }
    QSettings settings(QSettings::IniFormat, QSettings::UserScope, QStringLiteral("pyramidchat"),
                       QStringLiteral("pyramidchat"));
    const DesktopApp::Paths paths{QDir(dataDir).filePath(QStringLiteral("conversations.sqlite")),
                                  ModelManager::defaultSearchDirs(dataDir, QStringLiteral(PYRAMID_SHARED_DIR))};
    try {
        DesktopApp desktop(std::make_unique<pyramid::LocalChatEngine>(), settings, paths);
        QQuickStyle::setStyle(QStringLiteral("Fusion"));  // follows the system palette, light or dark
        QQmlApplicationEngine qml;
        if (!desktop.showWindow(qml))
            return 1;
        if (parser.isSet(modelOption))
            desktop.models().open(parser.value(modelOption));
        else
            desktop.models().openInitial();
        return app.exec();
    } catch (const pyramid::Error& e) {
        std::fprintf(stderr, "pyramidchat: %s\n", e.what());
        return 1;
    }
}
