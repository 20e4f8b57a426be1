#pragma once
// A throw-away home for one app test: a temporary folder with the SQLite file, an INI
// QSettings file and a models folder, and a DesktopApp built on a FakeChatEngine there.
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "app_translations.h"
#include "desktop_app.h"
#include "fake_chat_engine.h"

struct AppTestEnv {
    QTemporaryDir dir;
    QString database = dir.filePath(QStringLiteral("chats.sqlite"));
    QString modelsDir = dir.filePath(QStringLiteral("models"));
    std::unique_ptr<QSettings> settings =
        std::make_unique<QSettings>(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);

    AppTestEnv()
    {
        QStandardPaths::setTestModeEnabled(true);
        // The app reads as it does without a translation: English, with its plural forms.
        static AppTranslations* const english = [] {
            auto* translations = new AppTranslations;
            translations->installEnglish(*QCoreApplication::instance());
            return translations;
        }();
        Q_UNUSED(english);
    }

    // A file the fake engine accepts (or refuses, for a name with "broken" in it).
    QString makeModelFile(const QString& name) const
    {
        QDir().mkpath(modelsDir);
        const QString path = QDir(modelsDir).filePath(name);
        QFile file(path);
        file.open(QIODevice::WriteOnly);
        file.write("GGUF");
        return path;
    }

    // Builds the app on a fake engine; `engine` is left pointing at it for inspection.
    std::unique_ptr<DesktopApp> makeApp(FakeChatEngine** engine = nullptr, const FakeScript& script = {})
    {
        auto fake = std::make_unique<FakeChatEngine>(script);
        if (engine)
            *engine = fake.get();
        return std::make_unique<DesktopApp>(std::move(fake), *settings,
                                            DesktopApp::Paths{database, QStringList{modelsDir}});
    }

    // Builds the app and opens a model with it, so replies can run.
    std::unique_ptr<DesktopApp> makeReadyApp(FakeChatEngine** engine = nullptr, const FakeScript& script = {})
    {
        auto app = makeApp(engine, script);
        QSignalSpy loaded(&app->models(), &ModelManager::modelChanged);
        app->models().open(makeModelFile(QStringLiteral("tiny.gguf")));
        if (!loaded.wait(5000))
            qFatal("the fake model did not load");
        return app;
    }
};
