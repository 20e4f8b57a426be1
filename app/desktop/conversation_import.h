#pragma once
// A conversation read back from the files conversation_export.h writes: the JSON export
// exactly (title, system prompt, every message with how it ended, its notice and statistics),
// the Markdown export as far as Markdown keeps it (title, system prompt, who said what, a
// stopped reply, a notice). Turn headings are read in English and in the user's language,
// the two the export may have written; "## User" inside a code block is text, not a turn, and
// so is a message's line the export escaped ("\## User", one backslash taken away).
// Anything else is refused with a reason for the user, never half read.
#include <QByteArray>
#include <QString>
#include <variant>

#include "conversation_export.h"

// The conversation, or why the text is not an export.
using ImportResult = std::variant<ConversationExport, QString>;

ImportResult conversationFromJson(const QByteArray& json);
ImportResult conversationFromMarkdown(const QString& markdown);
