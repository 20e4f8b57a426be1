#pragma once
// One finished chat message as the store keeps it: text, who wrote it, how the reply ended,
// what it cost to generate and what the engine did to the conversation to answer it.
// Replies are only ever stored complete (or stopped, or cut off by a full context).
#include <QDateTime>
#include <QString>

#include "chat/chat_engine.h"

struct MessageStats {
    int promptTokens = 0;
    int generatedTokens = 0;
    double tokensPerSecond = 0;
    double timeToFirstTokenMs = 0;
    bool reusedCache = false;  // the earlier turns' cache was extended, not rebuilt
};

struct StoredMessage {
    qint64 id = 0;  // 0 until stored
    pyramid::ChatRole role = pyramid::ChatRole::User;
    QString text;
    // How an assistant reply ended; EndOfSequence for user messages.
    pyramid::FinishReason finish = pyramid::FinishReason::EndOfSequence;
    MessageStats stats;
    // What the engine had to do to fit the conversation (turns dropped, positions renumbered),
    // worded for the user; empty when nothing happened.
    QString notice;
    QDateTime createdAt;
    // A reply regenerated keeps its earlier versions (ChatStore): how many there are with this
    // one, and this one's place among them, oldest first (0-based).
    int versionCount = 1;
    int versionIndex = 0;

    bool stopped() const { return finish == pyramid::FinishReason::Cancelled; }
};

MessageStats messageStatsFrom(const pyramid::ChatResult& result);

// Stable names for the database and the exports ("end", "max_tokens", "stopped", ...).
QString finishReasonName(pyramid::FinishReason reason);
pyramid::FinishReason finishReasonFromName(const QString& name);  // unknown: EndOfSequence

QString roleName(pyramid::ChatRole role);  // "user" / "assistant"
pyramid::ChatRole roleFromName(const QString& name);
