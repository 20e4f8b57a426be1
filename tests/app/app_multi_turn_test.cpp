// Multi-turn settings and outcomes through the app's controller and models, on the fake
// engine: the context mode and overflow policy reach the engine and apply from the next turn,
// a reply that reused the cache says so, a notice (turns dropped, positions renumbered) is
// shown under its reply and kept across a restart, and a full context is an error that says
// what to do, with the conversation intact and still usable.
#include <QSignalSpy>
#include <QTest>

#include "app_test_env.h"

using pyramid::ChatRole;
using pyramid::ContextMode;
using pyramid::ContextNotice;
using pyramid::FinishReason;
using pyramid::OverflowPolicy;

namespace {

bool waitForReply(DesktopApp& app)
{
    QSignalSpy finished(&app.chat(), &ChatController::replyFinished);
    return finished.wait(10000);
}

QVariant messageData(DesktopApp& app, int row, int role)
{
    return app.messages().data(app.messages().index(row), role);
}

QVector<StoredMessage> stored(DesktopApp& app) { return app.store().messages(app.conversations().currentId()); }

FakeScript slowScript()
{
    FakeScript script;
    script.pieces.assign(10, " word");
    script.delay = std::chrono::milliseconds(20);
    return script;
}

} // namespace

class MultiTurnTest : public QObject {
    Q_OBJECT

private slots:
    void modeAndOverflowReachTheEngine()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        auto app = env.makeReadyApp(&engine, slowScript());
        QVERIFY(app->chat().send("One"));
        // Changed while the first reply runs: only the next turn runs with them.
        QVERIFY(app->settings().setValue("context_mode", "rebuild"));
        QVERIFY(app->settings().setValue("overflow", "reencode"));
        QVERIFY(waitForReply(*app));
        QVERIFY(app->chat().send("Two"));
        QVERIFY(waitForReply(*app));
        QVERIFY(app->settings().setValue("context_mode", "extend"));
        QVERIFY(app->settings().setValue("overflow", "drop-oldest"));
        QVERIFY(app->chat().send("Three"));
        QVERIFY(waitForReply(*app));

        const std::vector<pyramid::ChatRequest> requests = engine->requests();
        QCOMPARE(requests.size(), size_t(3));
        QCOMPARE(requests[0].context_mode, ContextMode::Extend);  // the defaults
        QCOMPARE(requests[0].overflow, OverflowPolicy::Stop);
        QCOMPARE(requests[1].context_mode, ContextMode::Rebuild);
        QCOMPARE(requests[1].overflow, OverflowPolicy::Reencode);
        QCOMPARE(requests[2].context_mode, ContextMode::Extend);
        QCOMPARE(requests[2].overflow, OverflowPolicy::DropOldestTurns);
        // Every turn still carries the whole conversation: the engine decides what to reuse.
        QCOMPARE(requests[2].conversation.messages.size(), size_t(5));
    }

    void aReplyThatReusedTheCacheSaysSo()
    {
        AppTestEnv env;
        auto app = env.makeReadyApp();
        QVERIFY(app->chat().send("First"));
        QVERIFY(waitForReply(*app));
        QVERIFY(app->chat().send("Second"));
        QVERIFY(waitForReply(*app));
        QVERIFY(!app->messages().at(1).stats.reusedCache);  // nothing to reuse on the first turn
        QVERIFY(app->messages().at(3).stats.reusedCache);
        QVERIFY(!messageData(*app, 1, MessageListModel::StatsTextRole).toString().contains("cache kept"));
        QVERIFY(messageData(*app, 3, MessageListModel::StatsTextRole).toString().contains("cache kept"));
        QVERIFY(stored(*app)[3].stats.reusedCache);

        QVERIFY(app->settings().setValue("context_mode", "rebuild"));
        QVERIFY(app->chat().send("Third"));
        QVERIFY(waitForReply(*app));
        QVERIFY(!app->messages().at(5).stats.reusedCache);
        QVERIFY(!stored(*app)[5].stats.reusedCache);
    }

    void aNoticeIsShownUnderItsReplyAndKept()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        FakeScript dropping;
        dropping.notice = {ContextNotice::Kind::TurnsDropped, 1};
        dropping.droppedTurns = 1;
        // English has a plural-forms translation: one exchange, not "1 exchange(s)".
        const QString shown = QStringLiteral(
            "The conversation outgrew the model's context: the oldest 1 exchange was left out of the prompt.");
        {
            auto app = env.makeReadyApp(&engine);
            QVERIFY(app->chat().send("Before"));
            QVERIFY(waitForReply(*app));
            engine->setScript(dropping);
            QVERIFY(app->chat().send("After"));
            QVERIFY(waitForReply(*app));
            QVERIFY(app->chat().error().isEmpty());  // a notice is not an error
            QCOMPARE(messageData(*app, 1, MessageListModel::NoticeRole).toString(), QString());
            QCOMPARE(messageData(*app, 3, MessageListModel::NoticeRole).toString(), shown);
            QCOMPARE(stored(*app)[3].notice, shown);
            QCOMPARE(stored(*app)[3].finish, FinishReason::EndOfSequence);
        }
        // After a restart the note is still under its reply.
        auto app = env.makeApp();
        QCOMPARE(app->messages().count(), 4);
        QCOMPARE(messageData(*app, 3, MessageListModel::NoticeRole).toString(), shown);
        QCOMPARE(messageData(*app, 1, MessageListModel::NoticeRole).toString(), QString());
    }

    void aRefusedTurnIsAnErrorAndTheConversationGoesOn()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        auto app = env.makeReadyApp(&engine);
        QVERIFY(app->chat().send("A short question"));
        QVERIFY(waitForReply(*app));
        const QString firstReply = app->messages().at(1).text;

        FakeScript full;
        full.refuseContextFull = true;
        engine->setScript(full);
        QVERIFY(app->chat().send("A question that does not fit"));
        QVERIFY(waitForReply(*app));
        // Said clearly, with the engine's numbers and what to change; nothing was cut.
        const QString error = app->chat().error();
        QVERIFY2(error.contains("no longer fits") && error.contains("room for 128 more") &&
                     error.contains("context holds 512"),
                 qPrintable(error));
        QVERIFY2(error.contains("drop the oldest turns") && error.contains("new chat"), qPrintable(error));
        QVERIFY(!app->chat().busy());
        QVERIFY(!app->messages().streaming());
        QCOMPARE(app->messages().count(), 3);  // the question waits for an answer; no empty reply
        QCOMPARE(app->messages().at(2).role, ChatRole::User);
        QCOMPARE(app->messages().at(1).text, firstReply);
        QCOMPARE(stored(*app).size(), 3);

        // A message too long on its own gets no advice to drop turns, which could not help.
        FakeScript alone = full;
        alone.messageTooLong = true;
        engine->setScript(alone);
        QVERIFY(app->chat().regenerate());
        QVERIFY(waitForReply(*app));
        QVERIFY2(app->chat().error().startsWith("The last message is too long for the model's context: it takes"),
                 qPrintable(app->chat().error()));
        QVERIFY2(app->chat().error().contains("Edit the last message shorter"), qPrintable(app->chat().error()));
        QVERIFY2(!app->chat().error().contains("drop the oldest turns"), qPrintable(app->chat().error()));

        // Following the hint: another policy, then Regenerate answers the waiting question.
        QVERIFY(app->settings().setValue("overflow", "drop-oldest"));
        FakeScript dropping;
        dropping.notice = {ContextNotice::Kind::TurnsDropped, 2};
        engine->setScript(dropping);
        QVERIFY(app->chat().canRegenerate());
        QVERIFY(app->chat().regenerate());
        QVERIFY(app->chat().error().isEmpty());
        QVERIFY(waitForReply(*app));
        QCOMPARE(app->messages().count(), 4);
        QCOMPARE(stored(*app).size(), 4);
        QCOMPARE(stored(*app)[3].notice,
                 QStringLiteral("The conversation outgrew the model's context: the oldest 2 exchanges were left out "
                                "of the prompt."));
        QCOMPARE(engine->requests().back().overflow, OverflowPolicy::DropOldestTurns);
        QCOMPARE(engine->requests().back().conversation.messages.size(), size_t(3));

        // Refused under drop-oldest, only the last message is left to blame.
        engine->setScript(full);
        QVERIFY(app->chat().send("Another one that does not fit"));
        QVERIFY(waitForReply(*app));
        QVERIFY2(app->chat().error().contains("shorter"), qPrintable(app->chat().error()));
        QCOMPARE(stored(*app).size(), 5);
    }

    void aReplyCutOffByTheContextIsKeptAndFlagged()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        FakeScript cut;
        cut.pieces = {"It", " was", " a", " dark", " night"};
        cut.contextFullAfter = 2;
        auto app = env.makeReadyApp(&engine, cut);
        QVERIFY(app->chat().send("Tell me"));
        QVERIFY(waitForReply(*app));
        QCOMPARE(app->messages().count(), 2);
        QCOMPARE(app->messages().at(1).text, QStringLiteral("It was"));
        QCOMPARE(app->messages().at(1).finish, FinishReason::ContextFull);
        QVERIFY(messageData(*app, 1, MessageListModel::FinishNoteRole).toString().contains("context window is full"));
        const QString error = app->chat().error();
        QVERIFY2(error.contains("cut off") && error.contains("Settings"), qPrintable(error));
        QCOMPARE(stored(*app).size(), 2);
        QCOMPARE(stored(*app)[1].finish, FinishReason::ContextFull);
        QCOMPARE(stored(*app)[1].text, QStringLiteral("It was"));

        engine->setScript(FakeScript{});
        QVERIFY(app->chat().send("Go on"));
        QVERIFY(app->chat().error().isEmpty());
        QVERIFY(waitForReply(*app));
        QCOMPARE(stored(*app).size(), 4);
        QCOMPARE(stored(*app)[3].finish, FinishReason::EndOfSequence);
    }
};

QTEST_GUILESS_MAIN(MultiTurnTest)
#include "app_multi_turn_test.moc"
