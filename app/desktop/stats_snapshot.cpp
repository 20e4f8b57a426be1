#include "stats_snapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

QString statsSnapshotToJson(const pyramid::GenerationStats& stats)
{
    QJsonArray layers;
    for (int length : stats.layer_kv_lengths)
        layers.push_back(length);
    const QJsonObject root{{QStringLiteral("layer_kv_lengths"), layers},
                           {QStringLiteral("full_kv_length"), stats.full_kv_length},
                           {QStringLiteral("kv_bytes"), double(stats.kv_bytes)},
                           {QStringLiteral("full_kv_bytes"), double(stats.full_kv_bytes)},
                           {QStringLiteral("prompt_tokens"), stats.prompt_tokens},
                           {QStringLiteral("generated_tokens"), stats.generated_tokens},
                           {QStringLiteral("context_length"), stats.context_length},
                           {QStringLiteral("positions_used"), stats.positions_used},
                           {QStringLiteral("device"), QString::fromStdString(stats.device)},
                           {QStringLiteral("time_to_first_token_ms"), stats.time_to_first_token_ms},
                           {QStringLiteral("decode_tokens_per_second"), stats.decode_tokens_per_second}};
    return QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Compact));
}

std::optional<pyramid::GenerationStats> statsSnapshotFromJson(const QString& json)
{
    const QJsonDocument document = QJsonDocument::fromJson(json.toUtf8());
    if (!document.isObject())
        return std::nullopt;
    const QJsonObject root = document.object();
    const QJsonArray layers = root.value(QStringLiteral("layer_kv_lengths")).toArray();
    if (layers.isEmpty())
        return std::nullopt;
    pyramid::GenerationStats stats;
    stats.phase = pyramid::GenerationPhase::Finished;  // a snapshot is taken when a reply has ended
    for (const QJsonValue& length : layers)
        stats.layer_kv_lengths.push_back(std::max(0, length.toInt()));
    const auto count = [&root](const char* key) { return std::max(0, root.value(QLatin1String(key)).toInt()); };
    const auto bytes = [&root](const char* key) {
        return static_cast<size_t>(std::max(0.0, root.value(QLatin1String(key)).toDouble()));
    };
    stats.full_kv_length = count("full_kv_length");
    stats.kv_bytes = bytes("kv_bytes");
    stats.full_kv_bytes = bytes("full_kv_bytes");
    stats.prompt_tokens = count("prompt_tokens");
    stats.generated_tokens = count("generated_tokens");
    stats.context_length = count("context_length");
    stats.positions_used = count("positions_used");
    stats.device = root.value(QStringLiteral("device")).toString().toStdString();
    stats.time_to_first_token_ms = root.value(QStringLiteral("time_to_first_token_ms")).toDouble();
    stats.decode_tokens_per_second = root.value(QStringLiteral("decode_tokens_per_second")).toDouble();
    return stats;
}
