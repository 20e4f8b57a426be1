#include "stored_message.h"

using pyramid::ChatRole;
using pyramid::FinishReason;

MessageStats messageStatsFrom(const pyramid::ChatResult& result)
{
    const pyramid::GenerationStats& stats = result.stats;
    MessageStats out;
    out.promptTokens = stats.prompt_tokens;
    out.generatedTokens = stats.generated_tokens;
    out.tokensPerSecond = stats.decode_tokens_per_second;
    out.timeToFirstTokenMs = stats.time_to_first_token_ms;
    out.reusedCache = result.reused_cache;
    return out;
}

QString finishReasonName(FinishReason reason)
{
    switch (reason) {
    case FinishReason::EndOfSequence: return QStringLiteral("end");
    case FinishReason::MaxTokens: return QStringLiteral("max_tokens");
    case FinishReason::Cancelled: return QStringLiteral("stopped");
    case FinishReason::ContextFull: return QStringLiteral("context_full");
    case FinishReason::Error: return QStringLiteral("error");
    }
    return QStringLiteral("end");
}

FinishReason finishReasonFromName(const QString& name)
{
    for (FinishReason reason : {FinishReason::MaxTokens, FinishReason::Cancelled, FinishReason::ContextFull,
                                FinishReason::Error}) {
        if (name == finishReasonName(reason))
            return reason;
    }
    return FinishReason::EndOfSequence;
}

QString roleName(ChatRole role)
{
    return role == ChatRole::User ? QStringLiteral("user") : QStringLiteral("assistant");
}

ChatRole roleFromName(const QString& name)
{
    return name == QLatin1String("assistant") ? ChatRole::Assistant : ChatRole::User;
}
