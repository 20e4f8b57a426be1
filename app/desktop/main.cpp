// pyramidchat: the desktop chat app. Builds the real engine and the app's objects, shows the
// window and opens a model (--model, else the last one used, else the bundled default).
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QIcon>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QSettings>
#include <QStandardPaths>
#include <QWindow>
#include <cstdio>
#include <cstring>
#include <optional>

#include <spdlog/spdlog.h>

#include "app_translations.h"
#include "backend/backend_environment.h"
#include "backend/cpu_cores.h"
#include "chat_settings.h"
#include "chat/local_chat_engine.h"
#include "desktop_app.h"
#include "quick_renderer.h"
#include "quit_on_signals.h"
#include "single_instance.h"
#include "store_recovery.h"
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

// A start-up setting, parsed by core; an unknown stored value means `fallback`.
template <typename T>
T storedOr(const QSettings& settings, const QString& key, T fallback, T (*parse)(const std::string&))
{
    try {
        return parse(settings.value(key).toString().toStdString());
    } catch (const pyramid::Error&) {
        return fallback;
    }
}

// The device, CPU threads and cache precision settings (the engine says which device it chose and why).
pyramid::BackendOptions backendOptions(const QSettings& settings)
{
    const pyramid::KvPrecision keys =
        storedOr(settings, kKvPrecisionSettingKey, ChatSettings{}.kvPrecision, pyramid::parse_kv_precision);
    // "same" (or nothing stored) is no precision: the values follow the keys.
    const pyramid::KvPrecision values = storedOr(settings, kKvValuePrecisionSettingKey, keys, pyramid::parse_kv_precision);
    pyramid::BackendOptions chosen{
        storedOr(settings, kDeviceSettingKey, pyramid::BackendPreference::Auto, pyramid::parse_backend_preference),
        pyramid::KvTypes{keys, values}};
    // One setting for the cache wherever the model runs: a GPU keeps 8 and 4 bits, and stores
    // its own half precision for the others.
    chosen.cuda.kv_types = pyramid::cuda::cuda_kv_types_for(chosen.cpu_kv, chosen.cuda.precision);
    // A count the settings offer (1 to the CPUs this process may use); "auto", nothing stored or
    // anything else, as the settings read it too: one thread per performance core.
    const int threads = settings.value(kCpuThreadsSettingKey).toString().toInt();
    chosen.cpu_threads = threads >= 1 && threads <= pyramid::cpu_cores().logical ? threads : 0;
    // The environment may choose kernels and CUDA options for experiments (backend_environment.h);
    // a value it cannot use is logged and the app starts without it.
    try {
        return pyramid::with_environment(chosen);
    } catch (const pyramid::Error& e) {
        spdlog::warn("ignoring the environment's backend options: {}", e.what());
        return chosen;
    }
}

// Made once the translations are installed, so that --help shows it translated.
QCommandLineOption modelOption()
{
    return QCommandLineOption(QStringLiteral("model"),
                              QCoreApplication::translate("main", "Open this GGUF file or Hugging Face folder."),
                              QCoreApplication::translate("main", "path"));
}

void describe(QCommandLineParser& parser, const QCommandLineOption& model)
{
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Chat with LLaMA-family models on this machine, with PyramidInfer KV-cache compression."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption(model);
}

} // namespace

int main(int argc, char* argv[])
{
    // Before any thread starts; once `quitting` is held, SIGTERM, SIGINT and SIGHUP quit as
    // closing the window does (quit_on_signals.h).
    pyramid::StopSignals stopSignals;
    // No organization name: the data folder is then ~/.local/share/pyramidchat, the same one
    // the command-line tools use for models and logs.
    QCoreApplication::setApplicationName(QStringLiteral("pyramidchat"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PYRAMIDCHAT_VERSION));

    QSettings settings(QSettings::IniFormat, QSettings::UserScope, QStringLiteral("pyramidchat"),
                       QStringLiteral("pyramidchat"));
    // The user interface speaks the `language` setting, else the system's language.
    AppTranslations translations;
    const QString language = settings.value(kLanguageSettingKey).toString();
    QCommandLineParser parser;
    if (asksForInfoOnly(argc, argv)) {
        QCoreApplication app(argc, argv);
        translations.install(app, language);
        describe(parser, modelOption());
        parser.process(app);  // prints and exits
        return 0;
    }

    QGuiApplication app(argc, argv);
    const pyramid::StopSignals::Handling quitting = quitOnStopSignals(stopSignals, app);
    translations.install(app, language);
    QGuiApplication::setApplicationDisplayName(QStringLiteral("PyramidChat"));
    // Ties the window to the installed desktop entry (its icon and name; the app id on Wayland).
    QGuiApplication::setDesktopFileName(QStringLiteral("org.pyramidchat.PyramidChat"));
    QGuiApplication::setWindowIcon(QIcon(QStringLiteral(":/pyramidchat/icons/pyramidchat.svg")));
    const QCommandLineOption model = modelOption();
    describe(parser, model);
    parser.process(app);

    const QString dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (!QDir().mkpath(dataDir)) {
        std::fprintf(stderr, "pyramidchat: cannot create %s\n", qPrintable(dataDir));
        return 1;
    }
    const DesktopApp::Paths paths{QDir(dataDir).filePath(QStringLiteral("conversations.sqlite")),
                                  ModelManager::defaultSearchDirs(dataDir, QStringLiteral(PYRAMID_SHARED_DIR))};
    QQuickStyle::setStyle(QStringLiteral("Fusion"));  // follows the system palette, light or dark
    SingleInstance instance(dataDir);
    switch (instance.claim(parser.isSet(model) ? QFileInfo(parser.value(model)).absoluteFilePath() : QString())) {
    case SingleInstance::Claim::Owner: break;
    case SingleInstance::Claim::Forwarded:
        std::fprintf(stderr, "pyramidchat: already running for %s; its window was asked to come forward\n",
                     qPrintable(dataDir));
        return 0;
    case SingleInstance::Claim::Unanswered:
        std::fprintf(stderr, "pyramidchat: %s\n", qPrintable(instance.holderDescription()));
        askWhetherToSetAside(app, paths.database, instance.holderDescription(), false);
        return 1;
    }
    // A database that cannot be opened is shown to the user, who may set it aside once and go
    // on; a fresh one that fails too, or a file that is not there, leaves only Quit.
    std::optional<DesktopApp> desktop;
    bool setAside = false;
    while (!desktop) {
        try {
            desktop.emplace(std::make_unique<pyramid::LocalChatEngine>(backendOptions(settings)), settings, paths);
        } catch (const pyramid::Error& e) {
            std::fprintf(stderr, "pyramidchat: %s\n", e.what());
            const bool canSetAside = !setAside && QFileInfo::exists(paths.database);
            if (!askWhetherToSetAside(app, paths.database, QString::fromUtf8(e.what()), canSetAside))
                return 1;
            setAside = true;
        }
    }
    if (const QString chosen = chooseQuickRenderer(openGlRenderer); !chosen.isEmpty())
        spdlog::info("{}", chosen.toStdString());
    QQmlApplicationEngine qml;
    if (!desktop->showWindow(qml))
        return 1;
    if (parser.isSet(model))
        desktop->models().open(parser.value(model));
    else
        desktop->models().openInitial();
    QObject::connect(&instance, &SingleInstance::activationRequested, &app,
                     [&](const QString& modelPath, const QString& activationToken) {
        if (auto* window = qobject_cast<QWindow*>(qml.rootObjects().value(0)))
            SingleInstance::bringForward(*window, activationToken);
        if (!modelPath.isEmpty())
            desktop->models().open(modelPath);
    });
    return app.exec();
}
