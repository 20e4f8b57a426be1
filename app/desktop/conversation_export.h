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

// The Markdown export: "# title", the system prompt quoted, then "## User" / "## Assistant"
// and each message's text. A line of a message that would read as such a heading (or is one
// with backslashes before it) gets one more backslash, which conversationFromMarkdown takes
// away: a pasted export inside a message stays one message.
QString conversationToMarkdown(const ConversationExport& c);

// A word the export writes, in English and in the user's language (one entry when they are the
// same): what the import must recognise, whichever language wrote the file.
QStringList exportWords(const char* english);

// Whether `line` is a turn's heading as the Markdown export writes it: "## " and "User" or
// "Assistant" in either language (surrounding spaces aside).
bool isTurnHeading(const QString& line);
// Whether `line` is one or more backslashes and then a turn's heading: a message's line the
// export escaped.
bool isEscapedTurnHeading(const QString& line);

// {"title", "created_at", "system_prompt", "messages": [{"role", "text", "finish", "stopped",
//  "notice" (when set), "created_at", "stats": {"prompt_tokens", "generated_tokens",
//  "tokens_per_second", "ttft_ms", "reused_cache"}}]}
QByteArray conversationToJson(const ConversationExport& c);
