// ChatStore and ConversationListModel: create, rename, delete with undo, search, persistence
// across reopening the SQLite file, reopening the last conversation, export.
#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextDocument>
#include <QTest>

#include "app_test_files.h"
#include "chat_store.h"
#include "conversation_list_model.h"
#include "util/error.h"

using pyramid::ChatRole;
using pyramid::FinishReason;

namespace {

StoredMessage message(ChatRole role, const QString& text, FinishReason finish = FinishReason::EndOfSequence)
{
    StoredMessage m;
    m.role = role;
    m.text = text;
    m.finish = finish;
    return m;
}

QStringList titles(const ConversationListModel& model)
{
    QStringList out;
    for (int row = 0; row < model.rowCount(); ++row)
        out.push_back(model.data(model.index(row), ConversationListModel::TitleRole).toString());
    return out;
}

// Overwrites `count` bytes at `offset` with 0xff.
void damage(const QString& path, qint64 offset, qint64 count)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.seek(offset));
    QCOMPARE(file.write(QByteArray(count, '\xff')), count);
}

QString openingError(const QString& path)
{
    try {
        ChatStore store(path);
    } catch (const pyramid::Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class ConversationsTest : public QObject {
    Q_OBJECT

private slots:
    void startsWithOneEmptyConversation()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        QCOMPARE(model.count(), 1);
        QVERIFY(model.currentId() != 0);
        QCOMPARE(model.currentTitle(), QStringLiteral("New chat"));
        // A new chat while the current one is still empty reuses it.
        QCOMPARE(model.createConversation(), model.currentId());
        QCOMPARE(model.count(), 1);
    }

    void createRenameAndOrder()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const qint64 first = model.currentId();
        store.addMessage(first, message(ChatRole::User, "hello"));
        const qint64 second = model.createConversation();
        QVERIFY(second != first);
        QCOMPARE(model.currentId(), second);
        QCOMPARE(model.count(), 2);

        model.rename(first, "  Bedtime   stories ");
        QCOMPARE(store.conversation(first)->title, QStringLiteral("Bedtime stories"));
        model.rename(first, "   ");  // blank titles are refused
        QCOMPARE(store.conversation(first)->title, QStringLiteral("Bedtime stories"));

        // A message moves its conversation to the top.
        QTest::qWait(5);
        store.addMessage(first, message(ChatRole::Assistant, "Once upon a time"));
        model.refresh();
        QCOMPARE(model.idAt(0), first);
        QCOMPARE(titles(model).front(), QStringLiteral("Bedtime stories"));
    }

    // Ctrl+PgDown/Ctrl+PgUp: the next or previous conversation as listed, none past the ends.
    void selectsTheNeighbourInTheList()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        for (int i = 0; i < 2; ++i) {
            store.addMessage(model.currentId(), message(ChatRole::User, "hello"));
            model.createConversation();
            QTest::qWait(5);
        }
        QCOMPARE(model.count(), 3);
        const qint64 top = model.idAt(0), middle = model.idAt(1), bottom = model.idAt(2);
        model.setCurrentId(top);
        model.selectNeighbour(-1);
        QCOMPARE(model.currentId(), top);
        model.selectNeighbour(1);
        QCOMPARE(model.currentId(), middle);
        model.selectNeighbour(1);
        QCOMPARE(model.currentId(), bottom);
        model.selectNeighbour(1);
        QCOMPARE(model.currentId(), bottom);
        model.selectNeighbour(-2);
        QCOMPARE(model.currentId(), top);
        // A search that hides the current conversation leaves nothing to step from.
        model.setSearchText("no such title");
        model.selectNeighbour(1);
        QCOMPARE(model.currentId(), top);
    }

    void namesAfterFirstMessage()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const QString longText = QString("word ").repeated(30);
        model.nameAfterFirstMessage(model.currentId(), longText);
        model.refresh();
        QVERIFY(model.currentTitle().size() <= 48);
        QVERIFY(model.currentTitle().startsWith("word word"));
        model.nameAfterFirstMessage(model.currentId(), "something else");  // titled already
        QVERIFY(model.currentTitle().startsWith("word word"));
    }

    void deleteAndUndo()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const qint64 keep = model.currentId();
        store.addMessage(keep, message(ChatRole::User, "keep me"));
        const qint64 doomed = model.createConversation();
        store.addMessage(doomed, message(ChatRole::User, "delete me"));
        model.rename(doomed, "Doomed");

        model.remove(doomed);
        QCOMPARE(model.count(), 1);
        QVERIFY(model.canUndoRemove());
        QVERIFY(model.undoText().contains("Doomed"));
        QCOMPARE(model.currentId(), keep);  // the current one went away: the next one is shown

        model.undoRemove();
        QVERIFY(!model.canUndoRemove());
        QCOMPARE(model.count(), 2);
        QCOMPARE(model.currentId(), doomed);
        QCOMPARE(store.messages(doomed).size(), 1);

        // A second removal makes the first one final.
        model.remove(doomed);
        model.remove(keep);
        QVERIFY(!store.conversation(doomed).has_value());
        QVERIFY(store.conversation(keep).has_value());
        QCOMPARE(model.count(), 1);  // a fresh conversation replaced the last one
        QVERIFY(model.currentId() != keep && model.currentId() != doomed);
    }

    void deletingTheOnlyEmptyConversationShowsAFreshOne()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const qint64 empty = model.currentId();
        model.remove(empty);
        QCOMPARE(model.count(), 1);
        QVERIFY(model.currentId() != empty);  // never a hidden conversation, purged on the next removal
        QCOMPARE(model.idAt(0), model.currentId());
        model.undoRemove();
        QCOMPARE(model.currentId(), empty);
        QCOMPARE(model.count(), 2);
    }

    void searchMatchesTitlesAndMessages()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const qint64 a = model.currentId();
        model.rename(a, "Dragons");
        store.addMessage(a, message(ChatRole::User, "tell me about fire"));
        const qint64 b = model.createConversation();
        model.rename(b, "Cooking");
        store.addMessage(b, message(ChatRole::User, "a recipe with 100% butter"));

        model.setSearchText("dragon");
        QCOMPARE(titles(model), QStringList{"Dragons"});
        model.setSearchText("FIRE");
        QCOMPARE(titles(model), QStringList{"Dragons"});
        model.setSearchText("100%");
        QCOMPARE(titles(model), QStringList{"Cooking"});
        model.setSearchText("%");  // a LIKE wildcard is taken literally
        QCOMPARE(titles(model), QStringList{"Cooking"});
        model.setSearchText("nothing like this");
        QCOMPARE(model.count(), 0);
        model.setSearchText({});
        QCOMPARE(model.count(), 2);
    }

    void persistsAcrossReopen()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        qint64 chosen = 0;
        {
            ChatStore store(path);
            ConversationListModel model(store);
            const qint64 first = model.currentId();
            store.addMessage(first, message(ChatRole::User, "first"));
            store.setSystemPrompt(first, "Be brief.");
            chosen = model.createConversation();
            store.addMessage(chosen, message(ChatRole::User, "second question"));
            store.addMessage(chosen, message(ChatRole::Assistant, "half an ans", FinishReason::Cancelled));
            model.rename(chosen, "Chosen");
            model.setCurrentId(first);
            model.setCurrentId(chosen);
        }
        ChatStore store(path);
        ConversationListModel model(store);
        QCOMPARE(model.count(), 2);
        QCOMPARE(model.currentId(), chosen);  // the last conversation reopens
        QCOMPARE(model.currentTitle(), QStringLiteral("Chosen"));
        const QVector<StoredMessage> messages = store.messages(chosen);
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0].text, QStringLiteral("second question"));
        QCOMPARE(messages[1].role, ChatRole::Assistant);
        QVERIFY(messages[1].stopped());
        QCOMPARE(store.systemPrompt(model.idAt(1)), QStringLiteral("Be brief."));
    }

    void usesWriteAheadLogging()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        ChatStore store(path);
        store.createConversation("x");
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "probe");
        {
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery query(db);
            QVERIFY(query.exec("PRAGMA journal_mode"));
            QVERIFY(query.next());
            QCOMPARE(query.value(0).toString().toLower(), QStringLiteral("wal"));
            db.close();
        }
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase("probe");
    }

    void keepsNoticeAndCacheReuse()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        qint64 id = 0;
        StoredMessage reply = message(ChatRole::Assistant, "Later that day");
        reply.notice = "The conversation outgrew the model's context: the oldest 1 exchange(s) were left out.";
        reply.stats.reusedCache = true;
        {
            ChatStore store(path);
            id = store.createConversation();
            store.addMessage(id, message(ChatRole::User, "And then?"));
            store.addMessage(id, reply);
        }
        ChatStore store(path);
        const QVector<StoredMessage> stored = store.messages(id);
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[0].notice, QString());
        QVERIFY(!stored[0].stats.reusedCache);
        QCOMPARE(stored[1].notice, reply.notice);
        QVERIFY(stored[1].stats.reusedCache);
    }

    void upgradesADatabaseOfTheFirstVersion()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("old.sqlite");
        {
            // The messages table as the first release wrote it: no notice, no reused_cache.
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "old");
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec("CREATE TABLE conversations (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                           " title TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,"
                           " deleted INTEGER NOT NULL DEFAULT 0)"));
            QVERIFY(q.exec("CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                           " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
                           " role TEXT NOT NULL, text TEXT NOT NULL, finish TEXT NOT NULL DEFAULT 'end',"
                           " prompt_tokens INTEGER NOT NULL DEFAULT 0, generated_tokens INTEGER NOT NULL DEFAULT 0,"
                           " tokens_per_second REAL NOT NULL DEFAULT 0, ttft_ms REAL NOT NULL DEFAULT 0,"
                           " created_at INTEGER NOT NULL)"));
            QVERIFY(q.exec("INSERT INTO conversations (title, created_at, updated_at) VALUES ('Old', 1, 1)"));
            QVERIFY(q.exec("INSERT INTO messages (conversation_id, role, text, created_at) VALUES (1, 'user', 'Hi', 1)"));
            db.close();
        }
        QSqlDatabase::removeDatabase("old");

        ChatStore store(path);
        QVector<StoredMessage> stored = store.messages(1);
        QCOMPARE(stored.size(), 1);
        QCOMPARE(stored[0].text, QStringLiteral("Hi"));
        QCOMPARE(stored[0].notice, QString());
        StoredMessage reply = message(ChatRole::Assistant, "Hello");
        reply.notice = "Turns were dropped.";
        QVERIFY(store.addMessage(1, reply) != 0);
        stored = store.messages(1);
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[1].notice, reply.notice);
        QSqlQuery version(QSqlDatabase::database(QSqlDatabase::connectionNames().value(0)));
        QVERIFY(version.exec("PRAGMA user_version") && version.next());
        QCOMPARE(version.value(0).toInt(), 3);
    }

    // A file written by a newer PyramidChat is left exactly as it is.
    void refusesADatabaseOfANewerVersion()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        {
            ChatStore store(path);
            store.addMessage(store.createConversation("Kept"), message(ChatRole::User, "Hi"));
        }
        runOnDatabase(path, {"PRAGMA user_version = 4"});
        const QByteArray before = fileBytes(path);
        const QString error = openingError(path);
        QVERIFY2(error.contains("was written by a newer PyramidChat (database version 4"), qPrintable(error));
        QCOMPARE(fileBytes(path), before);
        QVERIFY(!QFile::exists(path + "-wal"));
    }

    void refusesADamagedFileAndLeavesItAlone()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        {
            ChatStore store(path);
            for (int c = 0; c < 10; ++c) {
                const qint64 id = store.createConversation(QString("Conversation %1").arg(c));
                for (int m = 0; m < 20; ++m)
                    store.addMessage(id, message(ChatRole::User, QString(400, QChar('a' + m))));
            }
        }
        const qint64 size = QFileInfo(path).size();
        QVERIFY(size > 16 * 4096);
        damage(path, size / 2 / 4096 * 4096, 4096);  // one page in the middle, as a bad sector would
        const QByteArray before = fileBytes(path);
        const QString error = openingError(path);
        QVERIFY2(error.contains("is damaged") || error.contains("cannot be read"), qPrintable(error));
        QCOMPARE(fileBytes(path), before);

        // Random bytes: not a database at all.
        damage(path, 0, size);
        QVERIFY(!openingError(path).isEmpty());
        QCOMPARE(fileBytes(path), QByteArray(size, '\xff'));
    }

    // Damage that appears while the app runs: the history read stops where it is, and says so.
    void aReadErrorMidwayIsReported()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        ChatStore store(path);
        const qint64 id = store.createConversation("Long");
        for (int m = 0; m < 60; ++m)
            store.addMessage(id, message(ChatRole::User, QString(1000, QChar('a' + m % 26))));
        QStringList failures;
        store.setFailureHandler([&](const QString& m) { failures.push_back(m); });
        QSqlQuery q(QSqlDatabase::database(QSqlDatabase::connectionNames().value(0)));
        QVERIFY(q.exec("PRAGMA wal_checkpoint(TRUNCATE)"));  // every page in the main file
        QVERIFY(q.exec("PRAGMA cache_size = 1"));           // read from the file, not from memory
        const qint64 size = QFileInfo(path).size();
        damage(path, size / 2 / 4096 * 4096, 4096);
        const QVector<StoredMessage> read = store.messages(id);
        QVERIFY(read.size() < 60);
        QCOMPARE(failures.size(), 1);
        QVERIFY2(failures[0].contains("malformed"), qPrintable(failures[0]));
    }

    // A statement that fails while the store opens (here the purge of deleted conversations)
    // reaches the user once the app has somewhere to show it.
    void aFailureAtOpeningIsReportedOnceAHandlerIsSet()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        {
            ChatStore store(path);
            store.setDeleted(store.createConversation("Deleted"), true);
        }
        runOnDatabase(path, {"CREATE TRIGGER no_delete BEFORE DELETE ON conversations BEGIN SELECT RAISE(FAIL, 'disk says no'); END"});
        ChatStore store(path);
        QStringList failures;
        store.setFailureHandler([&](const QString& m) { failures.push_back(m); });
        QCOMPARE(failures.size(), 1);
        QVERIFY2(failures[0].contains("disk says no"), qPrintable(failures[0]));
        store.setFailureHandler([&](const QString& m) { failures.push_back(m); });
        QCOMPARE(failures.size(), 1);  // told once
    }

    void refusesAnUnopenableFile()
    {
        QVERIFY_THROWS_EXCEPTION(pyramid::Error, [] { ChatStore store("/nonexistent-dir/sub/c.sqlite"); }());
    }

    void exportsMarkdownAndJson()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const qint64 id = model.currentId();
        model.rename(id, "Export me");
        store.setSystemPrompt(id, "You are terse.");
        store.addMessage(id, message(ChatRole::User, "Write code"));
        StoredMessage reply = message(ChatRole::Assistant, "```cpp\nint x;\n```", FinishReason::Cancelled);
        reply.stats.generatedTokens = 7;
        reply.stats.reusedCache = true;
        reply.notice = "The context was full: 64 of the oldest positions were dropped and the rest renumbered.";
        store.addMessage(id, reply);

        const QString md = dir.filePath("out.md");
        QCOMPARE(model.exportConversation(id, QUrl::fromLocalFile(md), "markdown"), QString());
        QFile mdFile(md);
        QVERIFY(mdFile.open(QIODevice::ReadOnly));
        const QString markdown = QString::fromUtf8(mdFile.readAll());
        QVERIFY(markdown.startsWith("# Export me"));
        QVERIFY(markdown.contains("You are terse."));
        QVERIFY(markdown.contains("Write code"));
        QVERIFY(markdown.contains("```cpp\nint x;\n```"));
        QVERIFY(markdown.contains("(stopped)"));
        QVERIFY(markdown.contains(reply.notice));

        const QString js = dir.filePath("out.json");
        QCOMPARE(model.exportConversation(id, QUrl::fromLocalFile(js), "json"), QString());
        QFile jsFile(js);
        QVERIFY(jsFile.open(QIODevice::ReadOnly));
        const QJsonObject root = QJsonDocument::fromJson(jsFile.readAll()).object();
        QCOMPARE(root["title"].toString(), QStringLiteral("Export me"));
        QCOMPARE(root["system_prompt"].toString(), QStringLiteral("You are terse."));
        const QJsonArray messages = root["messages"].toArray();
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0].toObject()["role"].toString(), QStringLiteral("user"));
        QCOMPARE(messages[1].toObject()["stopped"].toBool(), true);
        QCOMPARE(messages[1].toObject()["stats"].toObject()["generated_tokens"].toInt(), 7);
        QCOMPARE(messages[1].toObject()["stats"].toObject()["reused_cache"].toBool(), true);
        QCOMPARE(messages[1].toObject()["notice"].toString(), reply.notice);
        QVERIFY(!messages[0].toObject().contains("notice"));

        QVERIFY(!model.exportConversation(id, QUrl::fromLocalFile("/nonexistent-dir/x.md"), "markdown").isEmpty());
        QVERIFY(model.exportConversation(id, QUrl("https://example.com/x.md"), "markdown").contains("only files"));
    }

    // Issue 38, item 1: Qt Quick's file dialog gives a name typed into it as a URL without a
    // scheme; that is a file on this computer, new or not. The dialog is offered the documents
    // folder and the title as the name, and is told when a file would be replaced.
    void exportsToANewFileTheDialogNamed()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const qint64 id = model.currentId();
        model.rename(id, "Plans: a/b?");
        store.addMessage(id, message(ChatRole::User, "Hello"));

        const QString fresh = dir.filePath("newfile.md");
        const QUrl typed(fresh);  // what the dialog gives: no file:// in front
        QVERIFY(typed.scheme().isEmpty());
        QVERIFY(!model.fileExists(typed));
        QCOMPARE(model.localPath(typed), fresh);
        QCOMPARE(model.exportConversation(id, typed, "markdown"), QString());
        QFile file(fresh);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().startsWith("# Plans: a/b?"));
        QVERIFY(model.fileExists(typed));
        QVERIFY(model.fileExists(QUrl::fromLocalFile(fresh)));
        QCOMPARE(model.localPath(QUrl("https://example.com/x.md")), QString());
        QVERIFY(!model.fileExists(QUrl("https://example.com/x.md")));

        const QUrl suggested = model.suggestedExportFile(id, "markdown");
        QVERIFY(suggested.isLocalFile());
        const QFileInfo info(suggested.toLocalFile());
        QCOMPARE(info.fileName(), QStringLiteral("Plans a b.md"));  // no folder or wildcard from the title
        QVERIFY(info.dir().exists());
        QCOMPARE(QFileInfo(model.suggestedExportFile(id, "json").toLocalFile()).fileName(), QStringLiteral("Plans a b.json"));
        model.rename(id, "...");
        QCOMPARE(QFileInfo(model.suggestedExportFile(id, "json").toLocalFile()).fileName(), QStringLiteral("conversation.json"));
    }

    // The exported Markdown keeps its own structure: a multi-line system prompt stays quoted
    // and a reply stopped inside a code block is closed, so every turn is still a heading.
    void theMarkdownExportKeepsItsHeadings()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const qint64 id = model.currentId();
        store.setSystemPrompt(id, "Be brief.\n\n## User\nnot a turn");
        store.addMessage(id, message(ChatRole::User, "Show code"));
        store.addMessage(id, message(ChatRole::Assistant, "Here:\n````cpp\nint main() {", FinishReason::Cancelled));
        store.addMessage(id, message(ChatRole::User, "Thanks"));
        store.addMessage(id, message(ChatRole::Assistant, "Welcome."));
        const QString md = dir.filePath("out.md");
        QCOMPARE(model.exportConversation(id, QUrl::fromLocalFile(md), "markdown"), QString());
        QFile file(md);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QTextDocument document;
        document.setMarkdown(QString::fromUtf8(file.readAll()));
        QStringList headings;
        for (QTextBlock block = document.begin(); block.isValid(); block = block.next())
            if (block.blockFormat().headingLevel() == 2)
                headings.push_back(block.text());
        QCOMPARE(headings, QStringList({"User", "Assistant", "User", "Assistant"}));
    }
};

QTEST_GUILESS_MAIN(ConversationsTest)
#include "app_conversations_test.moc"
