// Crash safety of the chat database (issue 8): a child process (app_crash_writer) chats
// through the app's controller and ChatStore with a slowly streaming engine and is killed
// with SIGKILL while a reply streams, at a different moment each time. After every kill, a
// reader on the same database finds every message the child had reported stored, with its
// exact text; the interrupted reply is absent (replies are stored once complete), nothing
// half-written appears, and SQLite's integrity check passes. At the end the app opens the
// database and goes on chatting in it. Terminated by SIGTERM instead, the child quits as the app
// does and stores the interrupted reply as stopped.
#include <QProcess>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>
#include <QThread>
#include <map>
#include <signal.h>
#include <vector>

#include "app_test_env.h"

namespace {

struct Reported {
    QString role;
    QString text;
};

// The reply the child's fake engine gives every turn, in full.
QString fullReply()
{
    QString text;
    for (int i = 0; i < 30; ++i)
        text += QStringLiteral(" w%1").arg(i);
    return text;
}

// "PRAGMA integrity_check" and "PRAGMA foreign_key_check" on a connection of its own.
QString checkIntegrity(const QString& path)
{
    QString result;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("integrity"));
        db.setDatabaseName(path);
        if (!db.open())
            return QStringLiteral("cannot open");
        QSqlQuery query(db);
        if (!query.exec(QStringLiteral("PRAGMA integrity_check")))
            return QStringLiteral("integrity_check failed to run");
        QStringList rows;
        while (query.next())
            rows.push_back(query.value(0).toString());
        result = rows.join(QLatin1Char('\n'));
        if (query.exec(QStringLiteral("PRAGMA foreign_key_check")) && query.next())
            result += QStringLiteral("\nforeign key violation in ") + query.value(0).toString();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("integrity"));
    return result;
}

} // namespace

class CrashSafetyTest : public QObject {
    Q_OBJECT

private:
    AppTestEnv env_;
    std::map<qint64, Reported> reported_;  // every message any child reported stored, by id

    // Reads the child's complete lines; returns how many "stored" lines they held and whether
    // a "streaming" line came after the last of them.
    void readLines(QProcess& child, int& storedCount, bool& streamingSinceStored)
    {
        while (child.canReadLine()) {
            const QString line = QString::fromUtf8(child.readLine()).chopped(1);
            if (line.startsWith(QLatin1String("stored "))) {
                const QStringList parts = line.split(QLatin1Char(' '));
                QVERIFY2(parts.size() >= 3, qPrintable(line));
                reported_[parts[1].toLongLong()] = {parts[2], line.section(QLatin1Char(' '), 3)};
                ++storedCount;
                streamingSinceStored = false;
            } else if (line.startsWith(QLatin1String("streaming "))) {
                streamingSinceStored = true;
            }
        }
    }

    // Starts the child (extra arguments after the usual three) and reads its lines until it
    // has stored `storedBefore` messages and a reply streams after them.
    void startUntilStreaming(QProcess& child, int storedBefore, int& storedCount, bool& streaming,
                             const QStringList& extra = {})
    {
        child.setProcessChannelMode(QProcess::SeparateChannels);
        child.start(QStringLiteral(APP_CRASH_WRITER),
                    QStringList{env_.database, env_.dir.filePath("writer.ini"), env_.modelsDir} + extra);
        QVERIFY2(child.waitForStarted(10000), qPrintable(child.errorString()));
        while (storedCount < storedBefore || !streaming) {
            QVERIFY2(child.state() == QProcess::Running || child.canReadLine(),
                     qPrintable(QString::fromUtf8(child.readAllStandardError())));
            child.waitForReadyRead(200);
            readLines(child, storedCount, streaming);
        }
    }

private slots:
    void killedMidReplyLosesNothingComplete_data()
    {
        // How many messages the child must have stored before the kill, and how long after a
        // reply started streaming it dies: at its first piece, mid-reply, near or past its end.
        QTest::addColumn<int>("storedBefore");
        QTest::addColumn<int>("delayMs");
        QTest::newRow("first piece") << 2 << 0;
        QTest::newRow("early") << 5 << 13;
        QTest::newRow("mid reply") << 8 << 41;
        QTest::newRow("near the end") << 11 << 87;
        QTest::newRow("next turn") << 14 << 160;
    }

    void killedMidReplyLosesNothingComplete()
    {
        QFETCH(int, storedBefore);
        QFETCH(int, delayMs);
        QProcess child;
        int storedCount = 0;
        bool streaming = false;
        startUntilStreaming(child, storedBefore, storedCount, streaming);
        if (QTest::currentTestFailed())
            return;
        QThread::msleep(static_cast<unsigned long>(delayMs));
        child.kill();  // SIGKILL: no destructor, no Qt cleanup, no SQLite close
        QVERIFY(child.waitForFinished(10000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
        // Lines written before the kill still count: each was printed after its write returned.
        readLines(child, storedCount, streaming);

        QCOMPARE(checkIntegrity(env_.database), QStringLiteral("ok"));

        ChatStore reader(env_.database);
        std::map<qint64, StoredMessage> found;
        for (const StoredConversation& c : reader.conversations()) {
            for (const StoredMessage& m : reader.messages(c.id))
                found[m.id] = m;
        }
        for (const auto& [id, expected] : reported_) {
            const auto it = found.find(id);
            QVERIFY2(it != found.end(), qPrintable(QStringLiteral("reported message %1 is missing").arg(id)));
            QCOMPARE(roleName(it->second.role), expected.role);
            QCOMPARE(it->second.text, expected.text);
        }
        // Everything stored is whole: replies complete and marked as ended normally, questions
        // as sent. At most the last turn's question and reply were stored but not yet reported.
        int unreported = 0;
        for (const auto& [id, m] : found) {
            if (m.role == pyramid::ChatRole::Assistant) {
                QCOMPARE(m.text, fullReply());
                QCOMPARE(m.finish, pyramid::FinishReason::EndOfSequence);
            } else {
                QVERIFY2(m.text.startsWith(QLatin1String("question ")), qPrintable(m.text));
            }
            unreported += reported_.count(id) == 0 ? 1 : 0;
        }
        QVERIFY2(unreported <= 2, qPrintable(QString::number(unreported)));
        qInfo("killed %d ms into a streaming reply: %zu messages stored in all, %d of them unreported",
              delayMs, found.size(), unreported);
    }

    // SIGTERM mid-reply (a logout, `kill`) quits as closing the window does: the child ends
    // normally, the reply it was streaming is stored as stopped with the text it had shown, and
    // every message it reported is there. Its pieces come slowly (40 ms), so that the reply is
    // still streaming when the signal is taken.
    void terminatedMidReplyStoresItAsStopped()
    {
        QProcess child;
        int storedCount = 0;
        bool streaming = false;
        startUntilStreaming(child, 2, storedCount, streaming, {QStringLiteral("40")});
        if (QTest::currentTestFailed())
            return;
        ::kill(static_cast<pid_t>(child.processId()), SIGTERM);
        QVERIFY(child.waitForFinished(10000));
        QCOMPARE(child.exitStatus(), QProcess::NormalExit);
        QCOMPARE(child.exitCode(), 0);
        readLines(child, storedCount, streaming);
        QCOMPARE(checkIntegrity(env_.database), QStringLiteral("ok"));

        ChatStore reader(env_.database);
        std::vector<StoredMessage> stopped;
        std::map<qint64, StoredMessage> found;
        for (const StoredConversation& c : reader.conversations()) {
            for (const StoredMessage& m : reader.messages(c.id)) {
                found[m.id] = m;
                if (m.stopped())
                    stopped.push_back(m);
            }
        }
        for (const auto& [id, expected] : reported_)
            QVERIFY2(found.count(id) == 1, qPrintable(QStringLiteral("reported message %1 is missing").arg(id)));
        QCOMPARE(stopped.size(), size_t(1));
        QVERIFY2(stopped[0].text.startsWith(QLatin1String(" w0")) && fullReply().startsWith(stopped[0].text) &&
                     stopped[0].text.size() < fullReply().size(),
                 qPrintable(stopped[0].text));
    }

    // After all the kills the app opens the database and the conversation goes on.
    void theAppChatsOnAfterTheCrashes()
    {
        QVERIFY(!reported_.empty());
        auto app = env_.makeReadyApp();
        const int before = app->messages().count();
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        QVERIFY(app->chat().send("Still there?"));
        QVERIFY(finished.wait(10000));
        QCOMPARE(app->store().messages(app->conversations().currentId()).size(), before + 2);
        QCOMPARE(checkIntegrity(env_.database), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(CrashSafetyTest)
#include "app_crash_safety_test.moc"
