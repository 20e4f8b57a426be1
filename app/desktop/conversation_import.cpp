#include "conversation_import.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <optional>

#include "markdown_segments.h"

using pyramid::ChatRole;
using pyramid::FinishReason;

namespace {

// Messages about a file being imported, in the context "ConversationImport".
struct ImportText {
    Q_DECLARE_TR_FUNCTIONS(ConversationImport)
};

QDateTime dateOf(const QJsonValue& value)
{
    const QDateTime at = QDateTime::fromString(value.toString(), Qt::ISODateWithMs);
    return at.isValid() ? at : QDateTime::currentDateTime();
}

} // namespace

ImportResult conversationFromJson(const QByteArray& json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return ImportText::tr("It is not valid JSON (at byte %1).").arg(error.offset);
    const QJsonObject root = document.object();
    if (!document.isObject() || !root.value(QStringLiteral("messages")).isArray())
        return ImportText::tr("It is no conversation export: it has no list of messages.");
    ConversationExport out;
    out.conversation.title = root.value(QStringLiteral("title")).toString();
    out.conversation.createdAt = dateOf(root.value(QStringLiteral("created_at")));
    out.systemPrompt = root.value(QStringLiteral("system_prompt")).toString();
    const QJsonArray messages = root.value(QStringLiteral("messages")).toArray();
    for (qsizetype i = 0; i < messages.size(); ++i) {
        const QJsonObject m = messages.at(i).toObject();
        const QString role = m.value(QStringLiteral("role")).toString();
        if (!m.value(QStringLiteral("text")).isString() || (role != QLatin1String("user") && role != QLatin1String("assistant")))
            return ImportText::tr("Message %1 has no text, or no role of user or assistant.").arg(i + 1);
        StoredMessage message;
        message.role = roleFromName(role);
        message.text = m.value(QStringLiteral("text")).toString();
        message.createdAt = dateOf(m.value(QStringLiteral("created_at")));
        if (message.role == ChatRole::Assistant) {
            message.finish = finishReasonFromName(m.value(QStringLiteral("finish")).toString());
            message.notice = m.value(QStringLiteral("notice")).toString();
            const QJsonObject stats = m.value(QStringLiteral("stats")).toObject();
            message.stats.promptTokens = stats.value(QStringLiteral("prompt_tokens")).toInt();
            message.stats.generatedTokens = stats.value(QStringLiteral("generated_tokens")).toInt();
            message.stats.tokensPerSecond = stats.value(QStringLiteral("tokens_per_second")).toDouble();
            message.stats.timeToFirstTokenMs = stats.value(QStringLiteral("ttft_ms")).toDouble();
            message.stats.reusedCache = stats.value(QStringLiteral("reused_cache")).toBool();
        }
        out.messages.push_back(message);
    }
    return out;
}

ImportResult conversationFromMarkdown(const QString& markdown)
{
    const QStringList user = exportWords("User");
    const QStringList systemLabel = exportWords("System prompt");
    QStringList lines = markdown.split(QLatin1Char('\n'));
    for (QString& line : lines)
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
    if (lines.isEmpty() || !lines.front().startsWith(QLatin1String("# ")))
        return ImportText::tr("It is no conversation export: it does not start with a “# ” title.");

    ConversationExport out;
    out.conversation.title = lines.front().mid(2).trimmed();
    out.conversation.createdAt = QDateTime::currentDateTime();
    std::optional<MarkdownFence> openFence;  // of the code block the line is in, as the export's Markdown reads it
    QStringList body;
    bool inTurns = false;
    bool inPrompt = false;  // a line of the system prompt was read
    const auto finishMessage = [&] {
        if (out.messages.isEmpty())
            return;
        StoredMessage& m = out.messages.last();
        // The export's lines after the text: "*(stopped)*", "> *notice*", each after a blank line.
        const auto trimBlankEnd = [&] {
            while (!body.isEmpty() && body.last().trimmed().isEmpty())
                body.removeLast();
        };
        trimBlankEnd();
        if (!body.isEmpty() && isNotice(body.last())) {
            m.notice = body.last().mid(3, body.last().size() - 4);
            body.removeLast();
        }
        trimBlankEnd();
        if (m.role == ChatRole::Assistant && !body.isEmpty() && isStoppedMark(body.last())) {
            m.finish = FinishReason::Cancelled;
            body.removeLast();
        }
        trimBlankEnd();
        // The fence the export added to close a reply stopped inside a code block, and its note.
        if (body.size() >= 2 && isAddedFenceNote(body.last()) && markdownFenceOf(body.at(body.size() - 2))) {
            body.removeLast();
            body.removeLast();
        }
        trimBlankEnd();
        while (!body.isEmpty() && body.front().trimmed().isEmpty())
            body.removeFirst();
        // The text's own last line, escaped by the export where it read as one of those.
        if (!body.isEmpty() && (isEscaped(body.last(), isStoppedMark) || isEscaped(body.last(), isNotice) ||
                                isEscaped(body.last(), isAddedFenceNote)))
            body.last().remove(0, 1);
        m.text = body.join(QLatin1Char('\n'));
        body.clear();
    };
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QString& line = lines.at(i);
        if (const std::optional<MarkdownFence> fence = markdownFenceOf(line)) {
            if (!openFence)
                openFence = fence;
            else if (fence->closes(*openFence))
                openFence.reset();
        }
        if (!openFence && isTurnHeading(line)) {
            finishMessage();
            StoredMessage message;
            message.role = user.contains(line.mid(3).trimmed()) ? ChatRole::User : ChatRole::Assistant;
            message.createdAt = QDateTime::currentDateTime();
            out.messages.push_back(message);
            inTurns = true;
            continue;
        }
        if (inTurns) {
            body.push_back(isEscaped(line, isTurnHeading) ? line.mid(1) : line);  // the export's escape off
        } else if (line.startsWith(QLatin1Char('>'))) {  // the system prompt, every line quoted
            QString text = line.mid(line.startsWith(QLatin1String("> ")) ? 2 : 1);
            if (const qsizetype at = promptEscapeAt(text); at >= 0 && text.at(at) == QLatin1Char('\\'))
                text.remove(at, 1);  // the export's escape of a "#"
            for (const QString& label : systemLabel)
                if (!inPrompt && text.startsWith(QStringLiteral("**") + label + QStringLiteral(":** ")))
                    text = text.mid(label.size() + 6);
            out.systemPrompt += (inPrompt ? QStringLiteral("\n") : QString()) + text;
            inPrompt = true;
        }
    }
    finishMessage();
    if (out.messages.isEmpty())
        return ImportText::tr("It holds no messages: no “## User” or “## Assistant” heading was found.");
    return out;
}
