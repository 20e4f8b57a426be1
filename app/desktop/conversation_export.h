#pragma once
// A conversation written out for people (Markdown) or for programs (JSON).
#include <QByteArray>
#include <QString>
#include <QVector>

#include "chat_store.h"

struct ConversationExport {
    StoredConversation conversation;
    QString systemPrompt;
    QVector<StoredMessage> messages;
};

// The title shown for a conversation: its own, or "New chat" until it has one.
QString conversationTitle(const StoredConversation& c);

QString conversationToMarkdown(const ConversationExport& c);

// {"title", "created_at", "system_prompt", "messages": [{"role", "text", "finish", "stopped",
//  "notice" (when set), "created_at", "stats": {"prompt_tokens", "generated_tokens",
//  "tokens_per_second", "ttft_ms", "reused_cache"}}]}
QByteArray conversationToJson(const ConversationExport& c);
