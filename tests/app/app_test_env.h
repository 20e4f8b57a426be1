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

    // A file the fake engine accepts (or refuses, for a name with "broken" in it): a GGUF
    // header the model menu reads (22 layers, 2048 positions, Q4_K_M) with one small tensor.
    QString makeModelFile(const QString& name) const
    {
        QDir().mkpath(modelsDir);
        const QString path = QDir(modelsDir).filePath(name);
        QFile file(path);
        file.open(QIODevice::WriteOnly);
        file.write(minimalGguf(22, 2048, 15));
        return path;
    }

    // GGUF v3: the llama architecture with its block count and context length, a width of 64
    // in 4 query and 2 key/value heads (32 KV values per token and layer), a general.file_type,
    // and one 4-element float32 tensor.
    static QByteArray minimalGguf(quint32 layers, quint32 context, quint32 fileType)
    {
        QByteArray out;
        const auto u32 = [&out](quint32 v) { out.append(reinterpret_cast<const char*>(&v), 4); };
        const auto u64 = [&out](quint64 v) { out.append(reinterpret_cast<const char*>(&v), 8); };
        const auto str = [&](const QByteArray& s) {
            u64(quint64(s.size()));
            out.append(s);
        };
        out.append("GGUF");
        u32(3);
        u64(1);  // tensors
        u64(7);  // metadata entries
        str("general.architecture");
        u32(8);  // string
        str("llama");
        for (const auto& [key, value] : {std::pair{"llama.block_count", layers}, {"llama.context_length", context},
                                         {"general.file_type", fileType}, {"llama.embedding_length", 64u},
                                         {"llama.attention.head_count", 4u}, {"llama.attention.head_count_kv", 2u}}) {
            str(key);
            u32(4);  // uint32
            u32(value);
        }
        str("token_embd.weight");
        u32(1);  // dimensions
        u64(4);
        u32(0);  // float32
        u64(0);  // offset in the data
        while (out.size() % 32 != 0)
            out.append('\0');
        out.append(QByteArray(16, '\0'));
        return out;
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
