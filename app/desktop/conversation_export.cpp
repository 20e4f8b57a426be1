#include "conversation_export.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "markdown_segments.h"

using pyramid::ChatRole;

namespace {

// The texts of an export, in the context "ConversationExport" (lupdate reads it from the macro).
struct ExportText {
    Q_DECLARE_TR_FUNCTIONS(ConversationExport)
};

// Written after the fence that closes a reply stopped inside a code block.
QString addedFenceNote() { return QStringLiteral("<!-- the fence above closes the code block the reply stopped in -->"); }

// A message's text as the export writes it: one more backslash before each line that reads as
// a turn's heading, and before its last line when that reads as a stopped mark or a notice
// (backslashes aside, in each case).
QString escapedMessage(const QString& text)
{
    const auto readsAs = [](const QString& line, bool (*structure)(const QString&)) {
        return structure(line) || isEscaped(line, structure);
    };
    QStringList lines = text.split(QLatin1Char('\n'));
    qsizetype last = lines.size() - 1;
    while (last >= 0 && lines.at(last).trimmed().isEmpty())
        --last;
    for (qsizetype i = 0; i < lines.size(); ++i)
        if (readsAs(lines.at(i), isTurnHeading) ||
            (i == last && (readsAs(lines.at(i), isStoppedMark) || readsAs(lines.at(i), isNotice) ||
                           readsAs(lines.at(i), isAddedFenceNote))))
            lines[i].prepend(QLatin1Char('\\'));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QStringList exportWords(const char* english)
{
    const QString translated = ExportText::tr(english);
    return translated == QLatin1String(english) ? QStringList{translated} : QStringList{QLatin1String(english), translated};
}

bool isTurnHeading(const QString& line)
{
    if (!line.startsWith(QLatin1String("## ")))
        return false;
    const QString word = line.mid(3).trimmed();
    return exportWords("User").contains(word) || exportWords("Assistant").contains(word);
}

bool isStoppedMark(const QString& line)
{
    for (const QString& word : exportWords("(stopped)"))
        if (line == QLatin1Char('*') + word + QLatin1Char('*'))
            return true;
    return false;
}

bool isNotice(const QString& line)
{
    return line.size() > 4 && line.startsWith(QLatin1String("> *")) && line.endsWith(QLatin1Char('*'));
}

bool isAddedFenceNote(const QString& line) { return line == addedFenceNote(); }

bool isEscaped(const QString& line, bool (*structure)(const QString&))
{
    qsizetype slashes = 0;
    while (slashes < line.size() && line.at(slashes) == QLatin1Char('\\'))
        ++slashes;
    return slashes > 0 && structure(line.mid(slashes));
}

qsizetype promptEscapeAt(const QString& line)
{
    qsizetype spaces = 0;
    while (spaces < line.size() && line.at(spaces) == QLatin1Char(' '))
        ++spaces;
    qsizetype hash = spaces;
    while (hash < line.size() && line.at(hash) == QLatin1Char('\\'))
        ++hash;
    return hash < line.size() && line.at(hash) == QLatin1Char('#') ? spaces : -1;
}

QString conversationTitle(const StoredConversation& c) { return c.title.isEmpty() ? ExportText::tr("New chat") : c.title; }

QString conversationToMarkdown(const ConversationExport& c)
{
    QString out = QStringLiteral("# ") + conversationTitle(c.conversation) + QStringLiteral("\n\n");
    if (!c.systemPrompt.isEmpty()) {
        // Every line quoted, and a leading # escaped: none of them may pass for a heading.
        const QString prompt = QStringLiteral("**") + ExportText::tr("System prompt") + QStringLiteral(":** ") + c.systemPrompt;
        for (QString line : prompt.split(QLatin1Char('\n'))) {
            if (const qsizetype at = promptEscapeAt(line); at >= 0)
                line.insert(at, QLatin1Char('\\'));
            out += (line.isEmpty() ? QStringLiteral(">") : QStringLiteral("> ") + line) + QLatin1Char('\n');
        }
        out += QLatin1Char('\n');
    }
    for (const StoredMessage& m : c.messages) {
        out += QStringLiteral("## ") + (m.role == ChatRole::User ? ExportText::tr("User") : ExportText::tr("Assistant")) + QStringLiteral("\n\n");
        out += escapedMessage(m.text) + QStringLiteral("\n\n");
        // A reply stopped inside a code block would otherwise swallow the rest of the file.
        if (const QVector<MarkdownSegment> segments = splitMarkdown(m.text);
            !segments.isEmpty() && !segments.last().openFence.isEmpty())
            out += segments.last().openFence + QLatin1Char('\n') + addedFenceNote() + QStringLiteral("\n\n");
        if (m.stopped())
            out += QStringLiteral("*") + ExportText::tr("(stopped)") + QStringLiteral("*\n\n");
        if (!m.notice.isEmpty())
            out += QStringLiteral("> *") + m.notice + QStringLiteral("*\n\n");
    }
    return out;
}

QByteArray conversationToJson(const ConversationExport& c)
{
    QJsonArray messages;
    for (const StoredMessage& m : c.messages) {
        QJsonObject message{{QStringLiteral("role"), roleName(m.role)},
                            {QStringLiteral("text"), m.text},
                            {QStringLiteral("created_at"), m.createdAt.toString(Qt::ISODateWithMs)}};
        if (m.role == ChatRole::Assistant) {
            message.insert(QStringLiteral("finish"), finishReasonName(m.finish));
            message.insert(QStringLiteral("stopped"), m.stopped());
            if (!m.notice.isEmpty())
                message.insert(QStringLiteral("notice"), m.notice);
            message.insert(QStringLiteral("stats"),
                           QJsonObject{{QStringLiteral("prompt_tokens"), m.stats.promptTokens},
                                       {QStringLiteral("generated_tokens"), m.stats.generatedTokens},
                                       {QStringLiteral("tokens_per_second"), m.stats.tokensPerSecond},
                                       {QStringLiteral("ttft_ms"), m.stats.timeToFirstTokenMs},
                                       {QStringLiteral("reused_cache"), m.stats.reusedCache}});
        }
        messages.push_back(message);
    }
    const QJsonObject root{{QStringLiteral("title"), c.conversation.title},
                           {QStringLiteral("created_at"), c.conversation.createdAt.toString(Qt::ISODateWithMs)},
                           {QStringLiteral("system_prompt"), c.systemPrompt},
                           {QStringLiteral("messages"), messages}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}
