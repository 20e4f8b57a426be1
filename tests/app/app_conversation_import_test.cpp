// Import (issue 38): the files the export writes, read back through ConversationListModel as
// new conversations, and files that are no export refused with the reason.
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include "chat_store.h"
#include "conversation_import.h"
#include "conversation_list_model.h"

using pyramid::ChatRole;
using pyramid::FinishReason;

namespace {

StoredMessage message(ChatRole role, const QString& text, FinishReason finish = FinishReason::EndOfSequence)
{
    StoredMessage m;
    m.role = role;
    m.text = text;
    m.finish = finish;
    m.createdAt = QDateTime::currentDateTime();
    return m;
}

// What both exports keep of each message: who said it, its text, whether it was stopped, its
// notice. (A failure is recorded; the caller stops on QTest::currentTestFailed().)
void compareTurns(const QVector<StoredMessage>& read, const QVector<StoredMessage>& original)
{
    QCOMPARE(read.size(), original.size());
    for (qsizetype i = 0; i < read.size(); ++i) {
        QCOMPARE(read[i].role, original[i].role);
        QCOMPARE(read[i].text, original[i].text);
        QCOMPARE(read[i].stopped(), original[i].stopped());
        QCOMPARE(read[i].notice, original[i].notice);
    }
}

} // namespace

class ConversationImportTest : public QObject {
    Q_OBJECT

private slots:
    // An export read back is the same conversation: exactly from JSON, as
    // far as Markdown keeps it from Markdown (who said what, a stopped reply, a notice, the
    // system prompt, a "## User" inside code staying text, a reply stopped inside a code block
    // without the fence the export closed it with, a line of inline code that starts with three
    // backticks staying prose as the export's Markdown reads it).
    void anExportReadsBackAsTheSameConversation()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const qint64 id = model.currentId();
        model.rename(id, "Round trip");
        store.setSystemPrompt(id, "Be brief.\n\n# not a heading\nSecond line.");
        store.addMessage(id, message(ChatRole::User, "Show me Markdown:\n\n```md\n## User\nnot a turn\n```"));
        StoredMessage reply = message(ChatRole::Assistant, "Here it is.\n\nTwo paragraphs.", FinishReason::Cancelled);
        reply.notice = "The context was full: 3 of the oldest positions were dropped and the rest renumbered.";
        reply.stats.generatedTokens = 9;
        reply.stats.tokensPerSecond = 12.5;
        reply.stats.reusedCache = true;
        store.addMessage(id, reply);
        store.addMessage(id, message(ChatRole::User, "Thanks"));
        store.addMessage(id, message(ChatRole::Assistant, "You are welcome."));
        store.addMessage(id, message(ChatRole::User, "```ls -la``` lists files, and then?"));
        store.addMessage(id, message(ChatRole::Assistant, "Here:\n\n````cpp\nint main() {", FinishReason::Cancelled));
        const QVector<StoredMessage> original = store.messages(id);

        for (const char* format : {"json", "markdown"}) {
            const QString path = dir.filePath(QString("out.") + (format == QString("json") ? "json" : "md"));
            QCOMPARE(model.exportConversation(id, QUrl::fromLocalFile(path), format), QString());
            QCOMPARE(model.importConversation(QUrl::fromLocalFile(path)), QString());
            const qint64 copy = model.currentId();
            QVERIFY(copy != id);
            QCOMPARE(model.currentTitle(), QStringLiteral("Round trip"));
            QCOMPARE(store.systemPrompt(copy), store.systemPrompt(id));
            const QVector<StoredMessage> read = store.messages(copy);
            compareTurns(read, original);
            if (QTest::currentTestFailed())
                return;
            if (format == QString("json")) {  // only JSON keeps the numbers and the times
                QCOMPARE(read[1].stats.generatedTokens, 9);
                QCOMPARE(read[1].stats.tokensPerSecond, 12.5);
                QVERIFY(read[1].stats.reusedCache);
                QCOMPARE(read[0].createdAt, original[0].createdAt);
            }
        }
    }

    // A message holding lines that read as the export's structure stays as it was through the
    // Markdown export: turn headings anywhere (a pasted export, a reply that starts with
    // "## Assistant"), a stopped mark, a notice or the export's fence note as its last line. Those lines are written with
    // one more backslash and read back without it, however many they had.
    void structureInsideMessagesStaysText()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const qint64 id = model.currentId();
        model.rename(id, "Pasted");
        const QString pasted = "Here is our last chat:\n\n# Old\n\n## User\n\nHi\n\n## Assistant\n\nHello!\n"
                               "\\## User\n\\\\## Assistant  \n##  User\n## Users\n```\n## User\n```\n*(stopped)*";
        store.addMessage(id, message(ChatRole::User, pasted));
        store.addMessage(id, message(ChatRole::Assistant, "## Assistant\nI see.\n\n> *A quote to end on*"));
        store.addMessage(id, message(ChatRole::User, "Go on\n<!-- the fence above closes the code block the reply stopped in -->"));
        StoredMessage stopped = message(ChatRole::Assistant, "> *not the notice*\n\\*(stopped)*", FinishReason::Cancelled);
        stopped.notice = "The real notice.";
        store.addMessage(id, stopped);
        const QVector<StoredMessage> original = store.messages(id);
        const QString path = dir.filePath("out.md");
        QCOMPARE(model.exportConversation(id, QUrl::fromLocalFile(path), "markdown"), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString written = QString::fromUtf8(file.readAll());
        QVERIFY2(written.contains("\n\\## User\n\nHi") && written.contains("\n\\\\\\## Assistant  \n") &&
                     written.contains("\n## Users\n") && written.contains("\n\\> *A quote to end on*\n"),
                 qPrintable(written));
        QCOMPARE(model.importConversation(QUrl::fromLocalFile(path)), QString());
        const QVector<StoredMessage> read = store.messages(model.currentId());
        compareTurns(read, original);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(read[3].stopped());
    }

    // Conversations made of the lines most likely to be taken for the export's structure
    // (headings, fences of every kind, stopped marks, notices, the fence note, escapes of each)
    // read back from the Markdown export as they were, but for blank lines at the start and end
    // of a message, which Markdown does not keep; so do system prompts of "#" lines, indented
    // or escaped already, exactly.
    void randomConversationsReadBack()
    {
        const QStringList pool = {
            "words", "", "  ", "## User", "## Assistant", "##  User  ", "\\## User", "\\\\## Assistant", "## Users",
            "# Heading", "### User", "```", "```py", "````", "~~~", "~~~~ txt", "   ```", "    ```", "```ls``` inline",
            "``` a`b", "`` not a fence", "*(stopped)*", "\\*(stopped)*", "> *a notice*", "\\> *a notice*", "> quote",
            "> *", "> **", "<!-- the fence above closes the code block the reply stopped in -->", "- item",
            "| a | b |", "$x$", "trailing spaces   "};
        const QStringList notices = {"", "The context was full.", "ends in a star*"};
        const QStringList promptPool = {"Be brief.", "", "  ", "# Rules", "  # indented", "\\# escaped",
                                        "  \\\\## two", "## User", "> quoted", "**System prompt:** inner", "#",
                                        "    #", "trailing  "};
        const auto trimmedLines = [](const QString& text) {
            QStringList lines = text.split(QLatin1Char('\n'));
            while (!lines.isEmpty() && lines.last().trimmed().isEmpty())
                lines.removeLast();
            while (!lines.isEmpty() && lines.first().trimmed().isEmpty())
                lines.removeFirst();
            return lines.join(QLatin1Char('\n'));
        };
        QRandomGenerator random(7);
        for (int round = 0; round < 3000; ++round) {
            ConversationExport c;
            c.conversation.title = QStringLiteral("Round %1").arg(round);
            QStringList prompt;
            for (int n = random.bounded(4); n > 0; --n)
                prompt.push_back(promptPool.at(random.bounded(promptPool.size())));
            c.systemPrompt = prompt.join(QLatin1Char('\n'));
            const int turns = 1 + random.bounded(4);
            for (int i = 0; i < 2 * turns; ++i) {
                StoredMessage m;
                m.role = i % 2 == 0 ? ChatRole::User : ChatRole::Assistant;
                QStringList lines;
                for (int n = random.bounded(7); n > 0; --n)
                    lines.push_back(pool.at(random.bounded(pool.size())));
                m.text = lines.join(QLatin1Char('\n'));
                if (m.role == ChatRole::Assistant) {
                    m.finish = random.bounded(2) ? FinishReason::Cancelled : FinishReason::EndOfSequence;
                    m.notice = notices.at(random.bounded(notices.size()));
                }
                c.messages.push_back(m);
            }
            const QString markdown = conversationToMarkdown(c);
            const ImportResult read = conversationFromMarkdown(markdown);
            QVERIFY2(std::holds_alternative<ConversationExport>(read), qPrintable(markdown));
            const ConversationExport& back = std::get<ConversationExport>(read);
            QVERIFY2(back.systemPrompt == c.systemPrompt, qPrintable(markdown));
            QVERIFY2(back.messages.size() == c.messages.size(), qPrintable(markdown));
            for (qsizetype i = 0; i < c.messages.size(); ++i) {
                const StoredMessage& want = c.messages[i];
                const StoredMessage& got = back.messages[i];
                QVERIFY2(got.role == want.role && got.text == trimmedLines(want.text) && got.stopped() == want.stopped() &&
                             got.notice == want.notice,
                         qPrintable(QStringLiteral("message %1 read back as \"%2\" from:\n%3").arg(i).arg(got.text, markdown)));
            }
        }
    }

    // An export saved again by an editor that starts its files with a byte order mark (and ends
    // lines with CR LF) still reads back.
    void anExportSavedWithAByteOrderMarkReadsBack()
    {
        ConversationExport c;
        c.conversation.title = QStringLiteral("Saved by an editor");
        StoredMessage question;
        question.role = ChatRole::User;
        question.text = QStringLiteral("Hi");
        StoredMessage answer;
        answer.role = ChatRole::Assistant;
        answer.text = QStringLiteral("Hello.");
        c.messages = {question, answer};
        const QByteArray bom = "\xEF\xBB\xBF";
        const QByteArray markdown = bom + conversationToMarkdown(c).toUtf8().replace("\n", "\r\n");
        const ImportResult fromMarkdown = conversationFromMarkdown(QString::fromUtf8(markdown));
        const auto problem = [](const ImportResult& r) { return r.index() == 1 ? std::get<QString>(r) : QString(); };
        QVERIFY2(std::holds_alternative<ConversationExport>(fromMarkdown), qPrintable(problem(fromMarkdown)));
        QCOMPARE(std::get<ConversationExport>(fromMarkdown).conversation.title, c.conversation.title);
        QCOMPARE(std::get<ConversationExport>(fromMarkdown).messages.size(), 2);
        const ImportResult fromJson = conversationFromJson(bom + conversationToJson(c));
        QVERIFY2(std::holds_alternative<ConversationExport>(fromJson), qPrintable(problem(fromJson)));
        QCOMPARE(std::get<ConversationExport>(fromJson).messages.size(), 2);
    }

    // Files that are no export are refused with the reason, and nothing is added.
    void whatIsNoExportIsNotImported()
    {
        QTemporaryDir dir;
        ChatStore store(dir.filePath("c.sqlite"));
        ConversationListModel model(store);
        const int before = model.count();
        const auto importing = [&](const char* name, const QByteArray& bytes) {
            QFile file(dir.filePath(name));
            file.open(QIODevice::WriteOnly);
            file.write(bytes);
            file.close();
            return model.importConversation(QUrl::fromLocalFile(dir.filePath(name)));
        };
        QVERIFY(importing("notes.md", "just some notes\n").contains("does not start with a “# ” title"));
        QVERIFY(importing("empty.md", "# Title only\n\nno turns\n").contains("holds no messages"));
        QVERIFY(importing("bad.json", "{\"messages\": [").contains("It is not valid JSON (at byte"));
        QVERIFY(importing("other.json", "{\"title\": \"x\"}").contains("no list of messages"));
        QVERIFY(importing("role.json", "{\"messages\": [{\"role\": \"system\", \"text\": \"x\"}]}").contains("Message 1"));
        QVERIFY(model.importConversation(QUrl::fromLocalFile(dir.filePath("missing.json"))).startsWith("Could not read"));
        QCOMPARE(model.count(), before);
    }

};

QTEST_GUILESS_MAIN(ConversationImportTest)
#include "app_conversation_import_test.moc"
