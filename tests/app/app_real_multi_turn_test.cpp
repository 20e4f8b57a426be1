// Multi-turn through the app on the real engine (LocalChatEngine, stories260K): in extend mode
// the second turn reuses the cache and reads only the new message, in rebuild mode it reads the
// whole conversation again; a conversation that outgrows the context is refused with the
// engine's numbers under stop, and has its oldest turn dropped, with a stored notice, under
// drop-oldest.
#include <QFile>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

#include "app_test_env.h"
#include "chat/local_chat_engine.h"
#include "shared_data.h"

namespace {

bool waitForReply(DesktopApp& app)
{
    QSignalSpy finished(&app.chat(), &ChatController::replyFinished);
    return finished.wait(120000);
}

QVector<StoredMessage> stored(DesktopApp& app) { return app.store().messages(app.conversations().currentId()); }

} // namespace

class RealMultiTurnTest : public QObject {
    Q_OBJECT

private:
    std::filesystem::path modelPath_;
    QString stories_;  // TinyStories text to take messages from
    AppTestEnv env_;
    pyramid::LocalChatEngine* engine_ = nullptr;  // owned by app_
    std::unique_ptr<DesktopApp> app_;

    // About `bytes` of story text starting at `from`, cut at a space.
    QString storyText(int from, int bytes) const { return stories_.mid(from, bytes).section(QLatin1Char(' '), 0, -2); }

private slots:
    void initTestCase()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(text, "data/tinystories_val_prefix.txt");
        modelPath_ = model;
        QFile file(QString::fromStdString(text.string()));
        QVERIFY(file.open(QIODevice::ReadOnly));
        stories_ = QString::fromUtf8(file.read(40000));

        auto engine = std::make_unique<pyramid::LocalChatEngine>();
        engine_ = engine.get();
        app_ = std::make_unique<DesktopApp>(std::move(engine), *env_.settings,
                                            DesktopApp::Paths{env_.database, QStringList{env_.modelsDir}});
        QSignalSpy loaded(&app_->models(), &ModelManager::modelChanged);
        app_->models().open(QString::fromStdString(modelPath_.string()));
        QVERIFY(loaded.wait(30000));
        QVERIFY2(app_->models().error().isEmpty(), qPrintable(app_->models().error()));
        QVERIFY(app_->settings().setValue("temperature", "0"));
        QVERIFY(app_->settings().setValue("max_new_tokens", "16"));
    }

    void init()
    {
        if (app_) {
            app_->conversations().createConversation();
            QVERIFY(app_->settings().setValue("context_mode", "extend"));
            QVERIFY(app_->settings().setValue("overflow", "stop"));
        }
    }

    void extendReusesTheCacheAndRebuildDoesNot()
    {
        DesktopApp& app = *app_;
        QVERIFY(app.chat().send("Once upon a time, there was a little dog named Max."));
        QVERIFY(waitForReply(app));
        const double filledAfterFirst = app.stats().contextFill();
        QVERIFY(app.chat().send("Max wanted to play with the ball."));
        QVERIFY(waitForReply(app));
        QVERIFY2(app.chat().error().isEmpty(), qPrintable(app.chat().error()));

        QVector<StoredMessage> messages = stored(app);
        QCOMPARE(messages.size(), 4);
        QVERIFY(!messages[1].stats.reusedCache);
        QVERIFY(messages[3].stats.reusedCache);
        QVERIFY(app.messages().data(app.messages().index(3), MessageListModel::StatsTextRole).toString().contains("cache kept"));
        // Extending read only the new message: fewer prompt tokens than the first turn had,
        // while the context kept filling up.
        const int extendedPrompt = messages[3].stats.promptTokens;
        qInfo("turn 1: %d prompt tokens; turn 2 (extend): %d prompt tokens", messages[1].stats.promptTokens, extendedPrompt);
        QVERIFY(extendedPrompt < messages[1].stats.promptTokens);
        QVERIFY(app.stats().contextFill() > filledAfterFirst);

        QVERIFY(app.settings().setValue("context_mode", "rebuild"));
        QVERIFY(app.chat().send("Then it started to rain."));
        QVERIFY(waitForReply(app));
        messages = stored(app);
        QCOMPARE(messages.size(), 6);
        QVERIFY(!messages[5].stats.reusedCache);
        // Rebuilding read the whole conversation: more than both earlier prompts together.
        qInfo("turn 3 (rebuild): %d prompt tokens", messages[5].stats.promptTokens);
        QVERIFY(messages[5].stats.promptTokens > messages[1].stats.promptTokens + extendedPrompt);
        QVERIFY(!app.messages().data(app.messages().index(5), MessageListModel::StatsTextRole).toString().contains("cache kept"));
    }

    void aConversationThatOutgrowsTheContext()
    {
        DesktopApp& app = *app_;
        const int context = engine_->model_info().context_length;
        // Two long story passages: each fits the context alone, both together do not.
        QVERIFY(app.chat().send(storyText(0, 2400)));
        QVERIFY(waitForReply(app));
        QVERIFY2(app.chat().error().isEmpty(), qPrintable(app.chat().error()));
        const int firstPrompt = stored(app)[1].stats.promptTokens;
        qInfo("context %d positions; first long turn: %d prompt tokens", context, firstPrompt);
        QVERIFY2(firstPrompt > context / 2, "the first passage is too short to fill half the context");

        QVERIFY(app.chat().send(storyText(4000, 2400)));
        QVERIFY(waitForReply(app));
        const QString error = app.chat().error();
        qInfo("stop: %s", qPrintable(error));
        QVERIFY2(error.contains("no longer fits") && error.contains(QLocale().toString(context)), qPrintable(error));
        QCOMPARE(stored(app).size(), 3);  // the question waits; nothing was cut or stored half
        QCOMPARE(app.messages().count(), 3);

        QVERIFY(app.settings().setValue("overflow", "drop-oldest"));
        QVERIFY(app.chat().regenerate());
        QVERIFY(waitForReply(app));
        QVERIFY2(app.chat().error().isEmpty(), qPrintable(app.chat().error()));
        const QVector<StoredMessage> messages = stored(app);
        QCOMPARE(messages.size(), 4);
        qInfo("drop-oldest: %s", qPrintable(messages[3].notice));
        QVERIFY(messages[3].notice.contains("1 exchange"));
        QVERIFY(!messages[3].stats.reusedCache);  // rebuilt from what was left
        QVERIFY(messages[3].stats.promptTokens + 16 <= context);  // what was left fits with the reply's room
        QCOMPARE(app.messages().data(app.messages().index(3), MessageListModel::NoticeRole).toString(),
                 messages[3].notice);
    }

    void cleanupTestCase() { app_.reset(); }
};

QTEST_GUILESS_MAIN(RealMultiTurnTest)
#include "app_real_multi_turn_test.moc"
