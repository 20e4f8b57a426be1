#pragma once
// A conversation written out for people (Markdown) or for programs (JSON).
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>

#include "chat_store.h"

struct ConversationExport {
    StoredConversation conversation;
    QString systemPrompt;
    QVector<StoredMessage> messages;
};

// The title shown for a conversation: its own, or "New chat" until it has one.
QString conversationTitle(const StoredConversation& c);

// The Markdown export: "# title", the system prompt quoted, then "## User" / "## Assistant",
// each message's text and, after a reply, "*(stopped)*" and its notice ("> *...*"). A reply
// stopped inside a code block gets the fence that closes it, and after that fence a note
// (an HTML comment, which Markdown does not show) by which the import takes both away. A line
// of a message that the import would take for one of those (a turn's heading anywhere in the
// text, as in a pasted export; a stopped mark, notice or fence note as its last line) is
// written with one more backslash before it (as is such a line with backslashes already), and
// conversationFromMarkdown takes one away: the message reads back as it was.
QString conversationToMarkdown(const ConversationExport& c);

// A word the export writes, in English and in the user's language (one entry when they are the
// same): what the import must recognise, whichever language wrote the file.
QStringList exportWords(const char* english);

// The lines of the Markdown export the import reads as structure, in either language:
// a turn's heading ("## User", "## Assistant", surrounding spaces aside), a reply's stopped
// mark ("*(stopped)*"), a notice ("> *...*") and the note after a fence the export added.
bool isTurnHeading(const QString& line);
bool isStoppedMark(const QString& line);
bool isNotice(const QString& line);
bool isAddedFenceNote(const QString& line);
// Whether `line` is one or more backslashes and then a line `structure` accepts: a message's
// line the export escaped.
bool isEscaped(const QString& line, bool (*structure)(const QString&));

// Where the export puts a backslash in a line of the quoted system prompt so that it shows as
// text, not a heading: after the line's leading spaces, when what follows (backslashes aside)
// begins with "#"; -1 for a line that needs none. The import takes the backslash there away.
qsizetype promptEscapeAt(const QString& line);

// {"title", "created_at", "system_prompt", "messages": [{"role", "text", "finish", "stopped",
//  "notice" (when set), "created_at", "stats": {"prompt_tokens", "generated_tokens",
//  "tokens_per_second", "ttft_ms", "reused_cache"}}]}
QByteArray conversationToJson(const ConversationExport& c);
