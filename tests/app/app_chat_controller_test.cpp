// ChatController with MessageListModel, ChatStore and a fake engine: streaming, stop (the
// stopped reply is kept and flagged), regenerate, edit and resend, settings applying to the
// next turn, switching conversations mid-reply (the reply runs on), drafts kept per
// conversation, a failing reply, quitting mid-reply and a database that fails to write.
#include <QSignalSpy>
#include <QTest>

#include "app_test_env.h"
#include "app_test_files.h"

using pyramid::ChatRole;
using pyramid::FinishReason;

namespace {

QString lastText(DesktopApp& app)
{
    MessageListModel& m = app.messages();
    return m.count() == 0 ? QString() : m.at(m.count() - 1).text;
}

bool waitForReply(DesktopApp& app)
{
    QSignalSpy finished(&app.chat(), &ChatController::replyFinished);
    return finished.wait(10000);
}

FakeScript slowScript(int pieces, int delayMs)
{
    FakeScript script;
    script.pieces.clear();
    for (int i = 0; i < pieces; ++i)
        script.pieces.push_back(" w" + std::to_string(i));
    script.delay = std::chrono::milliseconds(delayMs);
    return script;
}

// The conversation holds the question and, after it, a stopped reply with some text.
bool storedAsStopped(const ChatStore& store, qint64 conversation)
{
    const QVector<StoredMessage> stored = store.messages(conversation);
    return stored.size() == 2 && stored[1].stopped() && !stored[1].text.isEmpty();
}

// An app whose reply to a long story streams (four seconds of it), some text already shown;
// nullptr when it did not start.
std::unique_ptr<DesktopApp> appStreamingAReply(AppTestEnv& env)
{
    auto app = env.makeReadyApp(nullptr, slowScript(200, 20));
    const bool streaming = app->chat().send("Long story please") &&
                           QTest::qWaitFor([&] { return !lastText(*app).isEmpty(); }, 5000);
    return streaming ? std::move(app) : nullptr;
}

std::string joined(const std::vector<std::string>& pieces)
{
    std::string out;
    for (const std::string& p : pieces)
        out += p;
    return out;
}

} // namespace

class ChatControllerTest : public QObject {
    Q_OBJECT

private slots:
    void refusesToSendWithoutModel()
    {
        AppTestEnv env;
        auto app = env.makeApp();
        QVERIFY(!app->chat().canSend());
        QVERIFY(!app->chat().send("hello"));
        QVERIFY(!app->chat().error().isEmpty());
        QCOMPARE(app->messages().count(), 0);
    }

    void streamsAndStoresReply()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        const FakeScript script = slowScript(12, 20);
        auto app = env.makeReadyApp(&engine, script);
        // What the reply looked like at each update, recorded as the updates arrive.
        QStringList partials;
        connect(&app->messages(), &MessageListModel::dataChanged, this, [&] {
            if (app->messages().streaming())
                partials.push_back(lastText(*app));
        });
        QSignalSpy textChanged(&app->messages(), &MessageListModel::dataChanged);
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);

        QVERIFY(!app->chat().send("   "));  // blank messages are not sent
        QVERIFY(app->chat().send("  Tell me a story  "));
        QVERIFY(app->chat().busy());
        QVERIFY(app->messages().streaming());
        QCOMPARE(app->messages().count(), 2);
        QCOMPARE(app->messages().at(0).text, QStringLiteral("Tell me a story"));

        QVERIFY(finished.wait(10000));
        QVERIFY(!app->chat().busy());
        QVERIFY(!app->messages().streaming());
        const QString whole = QString::fromStdString(joined(script.pieces));
        QCOMPARE(lastText(*app), whole);
        // The reply grew while it streamed: partial texts, each a prefix of the whole.
        partials.removeAll(QString());
        QVERIFY(!partials.isEmpty());
        for (const QString& partial : partials)
            QVERIFY(whole.startsWith(partial));
        QVERIFY(partials.front().size() < whole.size());
        // Coalesced: far fewer updates than pieces would be fine, but never more.
        QVERIFY(textChanged.size() <= static_cast<int>(script.pieces.size()) + 2);

        const qint64 conversation = app->conversations().currentId();
        const QVector<StoredMessage> stored = app->store().messages(conversation);
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[0].role, ChatRole::User);
        QCOMPARE(stored[1].role, ChatRole::Assistant);
        QCOMPARE(stored[1].text, lastText(*app));
        QCOMPARE(stored[1].finish, FinishReason::EndOfSequence);
        QCOMPARE(stored[1].stats.generatedTokens, static_cast<int>(script.pieces.size()));
        QVERIFY(stored[1].stats.tokensPerSecond > 0);
        // Per-message stats reach the view.
        const QString statsText = app->messages().data(app->messages().index(1), MessageListModel::StatsTextRole).toString();
        QVERIFY2(statsText.startsWith(QStringLiteral("%1 tokens · ").arg(script.pieces.size())),
                 qPrintable(statsText));
        // The conversation is named after its first message.
        QCOMPARE(app->conversations().currentTitle(), QStringLiteral("Tell me a story"));

        // What the engine was asked.
        QCOMPARE(engine->requests().size(), size_t(1));
        const pyramid::ChatRequest request = engine->requests().front();
        QCOMPARE(request.conversation.messages.size(), size_t(1));
        QCOMPARE(request.conversation.messages[0].text, std::string("Tell me a story"));
    }

    void stopKeepsAndFlagsTheReply()
    {
        AppTestEnv env;
        const FakeScript script = slowScript(200, 20);
        auto app = env.makeReadyApp(nullptr, script);
        QVERIFY(app->chat().send("Go on"));
        QTRY_VERIFY_WITH_TIMEOUT(!lastText(*app).isEmpty(), 5000);
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        app->chat().stop();
        QVERIFY(finished.wait(5000));

        const QString text = lastText(*app);
        QVERIFY(!text.isEmpty());
        QVERIFY(text.size() < static_cast<int>(joined(script.pieces).size()));
        QVERIFY(app->messages().at(1).stopped());
        QVERIFY(app->messages().data(app->messages().index(1), MessageListModel::StoppedRole).toBool());
        const QVector<StoredMessage> stored = app->store().messages(app->conversations().currentId());
        QCOMPARE(stored.size(), 2);
        QVERIFY(stored[1].stopped());
        QCOMPARE(stored[1].text, text);
    }

    void regenerateReplacesTheLastReply()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        auto app = env.makeReadyApp(&engine);
        QVERIFY(app->chat().send("Question"));
        QVERIFY(waitForReply(*app));
        FakeScript other;
        other.pieces = {"Another", " answer"};
        engine->setScript(other);

        QVERIFY(app->chat().canRegenerate());
        QVERIFY(app->chat().regenerate());
        QCOMPARE(app->messages().count(), 2);  // the old reply is gone, the new one streams
        QVERIFY(waitForReply(*app));
        QCOMPARE(lastText(*app), QStringLiteral("Another answer"));
        const QVector<StoredMessage> stored = app->store().messages(app->conversations().currentId());
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[1].text, QStringLiteral("Another answer"));
        // The engine saw the same conversation both times.
        QCOMPARE(engine->requests().size(), size_t(2));
        QCOMPARE(engine->requests()[1].conversation.messages.size(), size_t(1));
        QCOMPARE(engine->requests()[1].conversation.messages[0].text, std::string("Question"));
    }

    void editAndResendRewritesTheLastMessage()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        auto app = env.makeReadyApp(&engine);
        QVERIFY(app->chat().send("First question"));
        QVERIFY(waitForReply(*app));
        QVERIFY(app->chat().send("Secnod question"));
        QVERIFY(waitForReply(*app));
        QCOMPARE(app->chat().lastUserText(), QStringLiteral("Secnod question"));

        QVERIFY(!app->chat().editAndResend("Second question"));  // only after beginEdit
        QVERIFY(app->chat().beginEdit());
        QVERIFY(app->chat().editing());
        QVERIFY(app->chat().editAndResend("Second question"));
        QVERIFY(!app->chat().editing());
        QVERIFY(waitForReply(*app));
        QCOMPARE(app->messages().count(), 4);
        QCOMPARE(app->messages().at(2).text, QStringLiteral("Second question"));
        const QVector<StoredMessage> stored = app->store().messages(app->conversations().currentId());
        QCOMPARE(stored.size(), 4);
        QCOMPARE(stored[2].text, QStringLiteral("Second question"));
        QCOMPARE(stored[3].role, ChatRole::Assistant);
        const pyramid::ChatRequest last = engine->requests().back();
        QCOMPARE(last.conversation.messages.size(), size_t(3));
        QCOMPARE(last.conversation.messages[2].text, std::string("Second question"));
        QCOMPARE(last.conversation.messages[1].role, ChatRole::Assistant);
    }

    // Issue 38: editing any earlier question forks the conversation there: the edited text is
    // its newest version and is answered; the earlier text, with everything that followed it,
    // is shown again by paging the question's versions, after a restart too.
    void editingAnEarlierQuestionForks()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        qint64 conversation = 0;
        const auto texts = [](const MessageListModel& messages) {
            QStringList out;
            for (int row = 0; row < messages.count(); ++row)
                out << messages.at(row).text;
            return out;
        };
        const QString reply = QStringLiteral("Once upon a time.");
        {
            auto app = env.makeReadyApp(&engine);
            conversation = app->conversations().currentId();
            for (const char* question : {"Q1", "Q2", "Q3"}) {
                QVERIFY(app->chat().send(question));
                QVERIFY(waitForReply(*app));
            }
            QVERIFY(!app->chat().beginEdit(1));  // a reply is not edited
            QVERIFY(app->chat().beginEdit(2));
            QCOMPARE(app->chat().editedText(), QStringLiteral("Q2"));
            QVERIFY(app->chat().editAndResend("Q2 again"));
            QVERIFY(waitForReply(*app));
            QCOMPARE(texts(app->messages()), (QStringList{"Q1", reply, "Q2 again", reply}));
            const pyramid::ChatRequest asked = engine->requests().back();
            QCOMPARE(asked.conversation.messages.size(), size_t(3));
            QCOMPARE(asked.conversation.messages[2].text, std::string("Q2 again"));
            QCOMPARE(app->messages().at(2).versionCount, 2);
            QCOMPARE(app->messages().at(2).versionIndex, 1);

            // The earlier branch, whole.
            QVERIFY(app->chat().showVersion(2, -1));
            QCOMPARE(texts(app->messages()), (QStringList{"Q1", reply, "Q2", reply, "Q3", reply}));
            QCOMPARE(app->messages().at(2).versionIndex, 0);
            // A fork inside it, then back and forth: each branch keeps its own.
            QVERIFY(app->chat().beginEdit(4));
            QVERIFY(app->chat().editAndResend("Q3 again"));
            QVERIFY(waitForReply(*app));
            QCOMPARE(texts(app->messages()), (QStringList{"Q1", reply, "Q2", reply, "Q3 again", reply}));
            QVERIFY(app->chat().showVersion(2, 1));
            QCOMPARE(texts(app->messages()), (QStringList{"Q1", reply, "Q2 again", reply}));
            QVERIFY(app->chat().showVersion(2, -1));
            QCOMPARE(texts(app->messages()), (QStringList{"Q1", reply, "Q2", reply, "Q3 again", reply}));
            QCOMPARE(app->messages().at(4).versionCount, 2);
            QVERIFY(app->chat().showVersion(4, -1));
            QCOMPARE(texts(app->messages()), (QStringList{"Q1", reply, "Q2", reply, "Q3", reply}));

            // The next turn reads the branch shown.
            QVERIFY(app->chat().send("Q4"));
            QVERIFY(waitForReply(*app));
            QCOMPARE(engine->requests().back().conversation.messages.size(), size_t(7));
            QCOMPARE(engine->requests().back().conversation.messages[4].text, std::string("Q3"));
        }
        auto app = env.makeApp();
        QCOMPARE(app->conversations().currentId(), conversation);
        QCOMPARE(texts(app->messages()), (QStringList{"Q1", reply, "Q2", reply, "Q3", reply, "Q4", reply}));
        QCOMPARE(app->messages().at(2).versionCount, 2);
        QCOMPARE(app->messages().at(4).versionCount, 2);
        // Deleting a question deletes its versions and the branches after them, not the
        // messages shown after it.
        const qint64 q2 = app->messages().at(2).id;
        const QVector<qint64> versions = app->store().versionIds(q2);
        QCOMPARE(versions.size(), 2);
        QVERIFY(app->chat().deleteMessage(2));
        QCOMPARE(texts(app->messages()), (QStringList{"Q1", reply, reply, "Q3", reply, "Q4", reply}));
        QCOMPARE(app->store().versionIds(versions.at(1)), QVector<qint64>{});
    }

    // Issue 38: each conversation's unsent text is kept with it: a moment after the typing
    // stops, and at quitting; the next start shows it again in its own conversation.
    void draftsSurviveARestart()
    {
        AppTestEnv env;
        qint64 first = 0, second = 0;
        {
            auto app = env.makeReadyApp();
            first = app->conversations().currentId();
            QVERIFY(app->chat().send("Hello"));  // an empty conversation would be shown for the next one
            QVERIFY(waitForReply(*app));
            app->chat().setDraft("half a thought");
            QCOMPARE(app->store().draft(first), QString());  // not on every key
            QTRY_COMPARE_WITH_TIMEOUT(app->store().draft(first), QStringLiteral("half a thought"),
                                      ChatController::kDraftSaveDelayMs * 5);
            second = app->conversations().createConversation();
            QVERIFY(second != first);
            app->chat().setDraft("other words");
            app->chat().setDraft("other words, typed on");
            app->conversations().setCurrentId(first);
            app->chat().setDraft("half a thought, then more");
        }  // quits before the delay is over
        auto app = env.makeApp();
        QCOMPARE(app->conversations().currentId(), first);
        QCOMPARE(app->chat().draft(), QStringLiteral("half a thought, then more"));
        app->conversations().setCurrentId(second);
        QCOMPARE(app->chat().draft(), QStringLiteral("other words, typed on"));
        // Sending empties it, also for the next start.
        app->chat().setDraft(QString());
        app->conversations().setCurrentId(first);
        QCOMPARE(app->store().draft(second), QString());
    }

    void settingsApplyToTheNextTurn()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        auto app = env.makeReadyApp(&engine, slowScript(10, 20));
        QVERIFY(app->settings().setValue("temperature", "0.3"));
        app->settings().setSystemPrompt("Answer briefly.");
        QVERIFY(app->chat().send("One"));
        // Changed while the first reply runs: only the second one sees it.
        QVERIFY(app->settings().setValue("temperature", "1.5"));
        QVERIFY(app->settings().setValue("policy", "full"));
        QVERIFY(waitForReply(*app));
        QVERIFY(app->chat().send("Two"));
        QVERIFY(waitForReply(*app));

        const std::vector<pyramid::ChatRequest> requests = engine->requests();
        QCOMPARE(requests.size(), size_t(2));
        QCOMPARE(requests[0].sampling.temperature, 0.3f);
        QCOMPARE(requests[0].compression.policy, pyramid::CompressionPolicyKind::Pyramid);
        QCOMPARE(requests[0].conversation.system_prompt, std::string("Answer briefly."));
        QCOMPARE(requests[1].sampling.temperature, 1.5f);
        QCOMPARE(requests[1].compression.policy, pyramid::CompressionPolicyKind::Full);
        QCOMPARE(requests[1].conversation.messages.size(), size_t(3));
    }

    // Issue 38, item 2: showing another conversation lets the reply run on in its own; the
    // one shown says so and sends nothing until it ends; going back shows it streaming.
    void aReplyRunsOnWhileAnotherConversationIsShown()
    {
        AppTestEnv env;
        auto app = env.makeReadyApp(nullptr, slowScript(40, 20));
        QVERIFY(app->chat().send("Long story please"));
        QTRY_VERIFY_WITH_TIMEOUT(!lastText(*app).isEmpty(), 5000);
        const qint64 first = app->conversations().currentId();
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        const qint64 second = app->conversations().createConversation();
        QVERIFY(second != first);
        QCOMPARE(app->messages().count(), 0);  // the new conversation is on screen at once
        QVERIFY(app->chat().busy());
        QVERIFY(app->chat().busyElsewhere());
        QVERIFY(!app->chat().canSend());
        QTest::qWait(100);
        QCOMPARE(finished.count(), 0);  // not stopped by the switch
        QCOMPARE(app->messages().count(), 0);  // and its text did not leak into this one

        app->conversations().setCurrentId(first);
        QVERIFY(!app->chat().busyElsewhere());
        QCOMPARE(app->messages().count(), 2);
        QVERIFY(app->messages().streaming());
        const QString shownAtReturn = lastText(*app);
        QVERIFY(shownAtReturn.startsWith(" w0 w1"));  // what it said while away is there
        QVERIFY(finished.wait(10000));
        const QVector<StoredMessage> stored = app->store().messages(first);
        QCOMPARE(stored.size(), 2);
        QVERIFY(!stored[1].stopped());
        QCOMPARE(stored[1].text.trimmed(), QStringLiteral("w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 "
                                                          "w18 w19 w20 w21 w22 w23 w24 w25 w26 w27 w28 w29 w30 w31 w32 w33 "
                                                          "w34 w35 w36 w37 w38 w39"));
        QCOMPARE(lastText(*app), stored[1].text);
        QVERIFY(!app->messages().streaming());
    }

    // A reply that ends while another conversation is shown is stored whole in its own.
    void aReplyEndingWhileAwayIsStoredWhole()
    {
        AppTestEnv env;
        auto app = env.makeReadyApp(nullptr, slowScript(10, 10));
        const qint64 first = app->conversations().currentId();
        QVERIFY(app->chat().send("Short story please"));
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        app->conversations().createConversation();
        QVERIFY(finished.wait(10000));
        QCOMPARE(app->messages().count(), 0);
        QVERIFY(!app->chat().busyElsewhere());
        QVERIFY(app->chat().canSend());
        const QVector<StoredMessage> stored = app->store().messages(first);
        QCOMPARE(stored.size(), 2);
        QVERIFY(!stored[1].stopped());
        QCOMPARE(stored[1].text, QStringLiteral(" w0 w1 w2 w3 w4 w5 w6 w7 w8 w9"));
    }

    // Issue 38, item 2: unsent text stays with its conversation.
    void eachConversationKeepsItsDraft()
    {
        AppTestEnv env;
        auto app = env.makeReadyApp();
        QSignalSpy drafts(&app->chat(), &ChatController::draftChanged);
        const qint64 first = app->conversations().currentId();
        QVERIFY(app->chat().send("Hello"));  // a conversation with a message is not reused
        QVERIFY(waitForReply(*app));
        app->chat().setDraft(QStringLiteral("half a thought"));
        const qint64 second = app->conversations().createConversation();
        QVERIFY(second != first);
        QCOMPARE(app->chat().draft(), QString());  // nothing to send by accident here
        app->chat().setDraft(QStringLiteral("another"));
        app->conversations().setCurrentId(first);
        QCOMPARE(app->chat().draft(), QStringLiteral("half a thought"));
        QVERIFY(drafts.count() >= 3);
        QVERIFY(app->chat().send(app->chat().draft()));
        QCOMPARE(app->chat().draft(), QString());  // sent: gone
        QVERIFY(waitForReply(*app));
        app->conversations().setCurrentId(second);
        QCOMPARE(app->chat().draft(), QStringLiteral("another"));
    }

    // Issue 38 (context always visible): a draft that will not fit the context with room for
    // the reply is warned of before it is sent, naming what "When the context is full" does.
    void aDraftThatWillNotFitIsWarnedOf()
    {
        AppTestEnv env;
        auto app = env.makeReadyApp();
        QSignalSpy warnings(&app->chat(), &ChatController::contextWarningChanged);
        app->chat().setDraft(QString(2000, QLatin1Char('x')));
        QCOMPARE(app->chat().contextWarning(), QString());  // no reply yet: the fill is unknown
        app->chat().setDraft({});
        QVERIFY(app->chat().send("Hello"));
        QVERIFY(waitForReply(*app));
        // The fake's context holds 512 positions; the reply keeps room for max_new_tokens.
        QVERIFY(app->settings().setValue("max_new_tokens", "100"));
        const int left = 512 - app->stats().positionsUsed() - 100;
        QVERIFY(left > 10);
        app->chat().setDraft(QString(3 * left, QLatin1Char('x')));  // fits, just
        QCOMPARE(app->chat().contextWarning(), QString());
        app->chat().setDraft(QString(3 * left + 3, QLatin1Char('x')));
        QCOMPARE(app->chat().contextWarning(),
                 QStringLiteral("This message may not fit: it takes about %1 tokens, and %2 of the context's 512 "
                                "positions are left once the reply has room. When the context is full: Stop and say so.")
                     .arg(left + 1)
                     .arg(left));
        QVERIFY(warnings.size() >= 3);
        QVERIFY(app->settings().setValue("overflow", "drop-oldest"));  // the warning follows the setting
        QVERIFY(app->chat().contextWarning().endsWith("When the context is full: Drop the oldest turns."));
        app->conversations().createConversation();  // another conversation: its own draft and fill
        QCOMPARE(app->chat().contextWarning(), QString());
    }

    // Issue 38 (reply versions): Regenerate keeps the earlier replies as versions to page
    // through on the last reply; the next turn answers the one shown; they survive a restart,
    // and deleting the reply deletes them all.
    void regeneratedRepliesAreKeptAsVersions()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        qint64 conversation = 0;
        {
            auto app = env.makeReadyApp(&engine);
            conversation = app->conversations().currentId();
            QVERIFY(app->chat().send("Tell me"));
            QVERIFY(waitForReply(*app));
            for (const char* piece : {" second", " third"}) {
                FakeScript script;
                script.pieces = {piece};
                engine->setScript(script);
                QVERIFY(app->chat().regenerate());
                QVERIFY(waitForReply(*app));
            }
            QCOMPARE(app->messages().count(), 2);
            QCOMPARE(app->store().messages(conversation).size(), 2);  // one shown, two kept aside
            QCOMPARE(app->messages().at(1).text, QStringLiteral(" third"));
            QCOMPARE(app->messages().at(1).versionCount, 3);
            QCOMPARE(app->messages().at(1).versionIndex, 2);
            const QModelIndex last = app->messages().index(1);
            QCOMPARE(app->messages().data(last, MessageListModel::VersionCountRole).toInt(), 3);

            QVERIFY(!app->chat().showVersion(1, 1));  // none newer
            QVERIFY(!app->chat().showVersion(0, -1));  // a question has none
            QVERIFY(app->chat().showVersion(1, -2));
            QCOMPARE(app->messages().at(1).text, QStringLiteral("Once upon a time."));
            QCOMPARE(app->messages().at(1).versionIndex, 0);
            QVERIFY(!app->chat().showVersion(1, -1));
            QVERIFY(app->chat().showVersion(1, 1));
            QCOMPARE(app->messages().at(1).text, QStringLiteral(" second"));
            QCOMPARE(app->messages().at(1).versionIndex, 1);

            engine->setScript(FakeScript{});
            QVERIFY(app->chat().send("And then?"));  // answers the version shown
            QVERIFY(waitForReply(*app));
            QCOMPARE(engine->requests().back().conversation.messages.at(1).text, std::string(" second"));
            QVERIFY(!app->chat().showVersion(1, 1));  // no longer the last reply: its turn was answered
        }
        auto app = env.makeApp();
        QCOMPARE(app->messages().at(1).text, QStringLiteral(" second"));
        QCOMPARE(app->messages().at(1).versionCount, 3);
        QCOMPARE(app->messages().at(1).versionIndex, 1);
        QVERIFY(app->store().deleteMessage(app->messages().at(1).id));
        QCOMPARE(app->store().versionIds(app->messages().at(1).id), QVector<qint64>{});
        const QVector<StoredMessage> left = app->store().messages(conversation);
        QCOMPARE(left.size(), 3);
        QCOMPARE(left[1].text, QStringLiteral("And then?"));
    }

    // Issue 38 (reply versions, in part): one message can be deleted, from the store and the
    // screen; the next turn reads the conversation without it. Not while a reply runs.
    void oneMessageCanBeDeleted()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        auto app = env.makeReadyApp(&engine);
        QVERIFY(app->chat().send("First question"));
        QVERIFY(waitForReply(*app));
        QVERIFY(app->chat().send("Second question"));
        QVERIFY(waitForReply(*app));
        const qint64 conversation = app->conversations().currentId();
        QCOMPARE(app->messages().count(), 4);
        QVERIFY(!app->chat().deleteMessage(7));
        QVERIFY(app->chat().deleteMessage(1));  // the first reply
        QCOMPARE(app->messages().count(), 3);
        QCOMPARE(app->store().messages(conversation).size(), 3);
        QCOMPARE(app->messages().at(1).text, QStringLiteral("Second question"));
        QVERIFY(app->chat().regenerate());  // the last reply again, from what is left
        QVERIFY(waitForReply(*app));
        const pyramid::ChatRequest last = engine->requests().back();
        QCOMPARE(last.conversation.messages.size(), size_t(2));
        QCOMPARE(last.conversation.messages[0].text, std::string("First question"));
        QCOMPARE(last.conversation.messages[1].text, std::string("Second question"));

        engine->setScript(slowScript(100, 20));
        QVERIFY(app->chat().send("Third"));
        QVERIFY(!app->chat().deleteMessage(0));  // a reply runs: nothing moves under it
        QCOMPARE(app->store().messages(conversation).size(), 4);
        app->chat().stop();
        QVERIFY(waitForReply(*app));
    }

    // Deleting a conversation purges the one deleted before: a reply still stopping there has
    // nowhere to go, and that is no storage failure.
    void aReplyWhoseConversationWasPurgedIsDropped()
    {
        AppTestEnv env;
        auto app = appStreamingAReply(env);
        QVERIFY(app);
        const qint64 first = app->conversations().currentId();
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        const qint64 second = app->conversations().createConversation();
        app->conversations().remove(first);
        app->conversations().remove(second);  // purges the first before its reply comes back
        QVERIFY(!app->store().conversation(first));
        QVERIFY(finished.wait(10000));
        QVERIFY2(app->chat().error().isEmpty(), qPrintable(app->chat().error()));
        QVERIFY(!app->store().conversation(first));
        QVERIFY(app->chat().send("Still here?"));
        QVERIFY(waitForReply(*app));
    }

    void failedReplyLeavesAUsableState()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        FakeScript failing;
        failing.replyError = "the backend ran out of memory";
        auto app = env.makeReadyApp(&engine, failing);
        QVERIFY(app->chat().send("Hello"));
        QVERIFY(waitForReply(*app));
        QVERIFY(app->chat().error().contains("ran out of memory"));
        QVERIFY(!app->chat().busy());
        // What the reply said before it failed is kept, flagged, never lost.
        QCOMPARE(app->messages().count(), 2);
        const QVector<StoredMessage> stored = app->store().messages(app->conversations().currentId());
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[1].finish, pyramid::FinishReason::Error);
        QVERIFY(!stored[1].text.isEmpty());

        engine->setScript(FakeScript{});
        QVERIFY(app->chat().regenerate());  // answers again in place of the interrupted reply
        QVERIFY(app->chat().error().isEmpty());
        QVERIFY(waitForReply(*app));
        QCOMPARE(app->messages().count(), 2);
        QCOMPARE(app->store().messages(app->conversations().currentId()).size(), 2);
    }

    void reopensWithTheStoredConversation()
    {
        AppTestEnv env;
        qint64 conversation = 0;
        {
            auto app = env.makeReadyApp();
            QVERIFY(app->chat().send("Remember me"));
            QVERIFY(waitForReply(*app));
            conversation = app->conversations().currentId();
        }
        auto app = env.makeApp();
        QCOMPARE(app->conversations().currentId(), conversation);
        QCOMPARE(app->messages().count(), 2);
        QCOMPARE(app->messages().at(0).text, QStringLiteral("Remember me"));
    }

    void destroyingMidReplyIsSafe()
    {
        AppTestEnv env;
        auto app = env.makeReadyApp(nullptr, slowScript(500, 10));
        QVERIFY(app->chat().send("Keep going"));
        QTRY_VERIFY_WITH_TIMEOUT(!lastText(*app).isEmpty(), 5000);
        const qint64 conversation = app->conversations().currentId();
        app.reset();  // cancels and joins the worker without waiting for the whole reply

        // What had streamed is stored as a stopped reply, as Stop would have stored it.
        auto reopened = env.makeApp();
        QVERIFY(storedAsStopped(reopened->store(), conversation));
    }

    void anEditEndsWithItsConversation()
    {
        AppTestEnv env;
        auto app = env.makeReadyApp();
        const qint64 first = app->conversations().currentId();
        QVERIFY(app->chat().send("Question in the first"));
        QVERIFY(waitForReply(*app));
        QVERIFY(app->chat().beginEdit());
        const qint64 second = app->conversations().createConversation();
        QVERIFY(!app->chat().editing());
        QVERIFY(app->chat().send("Question in the second"));
        QVERIFY(waitForReply(*app));
        QVERIFY(!app->chat().editAndResend("Edited text"));  // the edit was begun elsewhere
        QCOMPARE(app->store().messages(second).at(0).text, QStringLiteral("Question in the second"));
        QCOMPARE(app->store().messages(second).size(), 2);
        QCOMPARE(app->store().messages(first).at(0).text, QStringLiteral("Question in the first"));
    }

    void aReplyFinishingWhileItsConversationIsShownAgainAppears()
    {
        AppTestEnv env;
        auto app = appStreamingAReply(env);
        QVERIFY(app);
        const qint64 first = app->conversations().currentId();
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        app->conversations().createConversation();
        app->conversations().setCurrentId(first);  // back while it still runs
        app->chat().stop();
        QVERIFY(finished.wait(5000));
        QCOMPARE(app->messages().count(), 2);
        QVERIFY(app->messages().at(1).stopped());
        QCOMPARE(app->messages().at(1).id, app->store().messages(first).at(1).id);
    }

    void aReplyEndingElsewhereSaysNothingHere()
    {
        AppTestEnv env;
        FakeScript refusing;
        refusing.refuseContextFull = true;
        auto app = env.makeReadyApp(nullptr, refusing);
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        QVERIFY(app->chat().send("Too long for the context"));
        app->conversations().createConversation();  // before the refusal comes back
        QVERIFY(finished.wait(5000));
        QVERIFY2(app->chat().error().isEmpty(), qPrintable(app->chat().error()));

        QVERIFY(app->chat().send("Here, too"));
        QVERIFY(waitForReply(*app));
        QVERIFY(!app->chat().error().isEmpty());  // on screen: said
    }

    void aRegeneratedReplyThatFailsKeepsTheOldOne()
    {
        AppTestEnv env;
        FakeChatEngine* engine = nullptr;
        auto app = env.makeReadyApp(&engine);
        QVERIFY(app->chat().send("Question"));
        QVERIFY(waitForReply(*app));
        const StoredMessage old = app->messages().at(1);
        FakeScript refusing;
        refusing.refuseContextFull = true;
        engine->setScript(refusing);
        QVERIFY(app->chat().regenerate());
        QVERIFY(waitForReply(*app));
        QVERIFY(!app->chat().error().isEmpty());
        QCOMPARE(app->messages().count(), 2);
        QCOMPARE(app->messages().at(1).id, old.id);
        const QVector<StoredMessage> stored = app->store().messages(app->conversations().currentId());
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[1].text, old.text);

        engine->setScript(FakeScript{});
        QVERIFY(app->chat().regenerate());
        QVERIFY(waitForReply(*app));
        QCOMPARE(app->store().messages(app->conversations().currentId()).size(), 2);
        QVERIFY(app->store().messages(app->conversations().currentId()).at(1).id != old.id);
    }

    // An edit rewrites the question and drops the answers in one transaction: when the
    // rewrite fails, the answers are still there, on screen and on disk.
    void aFailedEditKeepsTheConversation()
    {
        AppTestEnv env;
        auto app = env.makeReadyApp();
        QVERIFY(app->chat().send("Question"));
        QVERIFY(waitForReply(*app));
        const qint64 conversation = app->conversations().currentId();
        failMessageWrites(env.database, "UPDATE");
        QVERIFY(app->chat().beginEdit());
        QVERIFY(!app->chat().editAndResend("Edited question"));
        QVERIFY2(app->chat().error().contains("simulated disk failure"), qPrintable(app->chat().error()));
        QVERIFY(app->chat().editing());  // still editing: the text stays in the composer
        QVERIFY(!app->chat().busy());
        QCOMPARE(app->messages().count(), 2);
        const QVector<StoredMessage> stored = app->store().messages(conversation);
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[0].text, QStringLiteral("Question"));
        QCOMPARE(stored[1].role, ChatRole::Assistant);
    }

    void aFailedWriteIsReportedAndNothingPretendsToBeSaved()
    {
        AppTestEnv env;
        auto app = env.makeReadyApp();
        const qint64 conversation = app->conversations().currentId();
        // Another connection makes writes fail, as a full disk would.
        failMessageWrites(env.database, "INSERT");
        QVERIFY(!app->chat().send("Lost?"));
        QVERIFY2(app->chat().error().contains("simulated disk failure"), qPrintable(app->chat().error()));
        QCOMPARE(app->messages().count(), 0);
        QVERIFY(!app->chat().busy());
        runOnDatabase(env.database, {"DROP TRIGGER fail"});
        QVERIFY(app->chat().send("Saved"));
        QVERIFY(app->chat().error().isEmpty());
        QVERIFY(waitForReply(*app));
        QCOMPARE(app->store().messages(conversation).size(), 2);
    }
};

QTEST_GUILESS_MAIN(ChatControllerTest)
#include "app_chat_controller_test.moc"
