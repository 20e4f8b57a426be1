#include "cache_stats_model.h"

#include <QLocale>
#include <algorithm>

#include "device_text.h"
#include "process_memory.h"

using pyramid::GenerationPhase;

CacheStatsModel::CacheStatsModel(QObject* parent) : QAbstractListModel(parent) { refreshMemory(); }

int CacheStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(stats_.layer_kv_lengths.size());
}

QVariant CacheStatsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const int layer = index.row();
    const int length = stats_.layer_kv_lengths.at(layer);
    switch (role) {
    case LayerRole: return layer;
    case Qt::DisplayRole:
    case LengthRole: return length;
    case FractionRole: return stats_.full_kv_length > 0 ? std::min(1.0, double(length) / stats_.full_kv_length) : 0.0;
    case CompressedRole:
        return layer < static_cast<int>(stats_.layers_compressed.size()) && stats_.layers_compressed.at(layer);
    default: return {};
    }
}

QHash<int, QByteArray> CacheStatsModel::roleNames() const
{
    return {{LayerRole, "layerIndex"}, {LengthRole, "length"}, {FractionRole, "fraction"}, {CompressedRole, "compressed"}};
}

void CacheStatsModel::update(const pyramid::GenerationStats& stats)
{
    const int before = rowCount();
    const int after = static_cast<int>(stats.layer_kv_lengths.size());
    // Same layer count (every update of a turn): change rows in place so the bars animate
    // instead of being rebuilt.
    if (before != after)
        beginResetModel();
    stats_ = stats;
    hasStats_ = true;
    readingPrompt_ = false;
    history_.push_back(QVariantMap{{QStringLiteral("tokens"), stats.prompt_tokens + stats.generated_tokens},
                                   {QStringLiteral("kv"), double(stats.kv_bytes)},
                                   {QStringLiteral("full"), double(stats.full_kv_bytes)}});
    if (before != after)
        endResetModel();
    else if (after > 0)
        emit dataChanged(index(0), index(after - 1));
    memoryBytes_ = residentMemoryBytes().value_or(0);
    deviceMemory_ = stats.device_memory;
    emit changed();
    emit memoryChanged();
}

void CacheStatsModel::restore(const pyramid::GenerationStats& stats)
{
    const auto memory = deviceMemory_;
    update(stats);
    history_.clear();  // one point is no history: the reply's course was not kept
    emit changed();
    setDeviceMemory(memory);
}

void CacheStatsModel::clear()
{
    beginResetModel();
    stats_ = {};
    hasStats_ = false;
    readingPrompt_ = false;
    history_.clear();
    endResetModel();
    emit changed();
}

void CacheStatsModel::beginReply()
{
    readingPrompt_ = true;
    history_.clear();
    emit changed();
}

void CacheStatsModel::refreshMemory()
{
    const int64_t bytes = residentMemoryBytes().value_or(0);
    if (bytes != memoryBytes_) {
        memoryBytes_ = bytes;
        emit memoryChanged();
    }
    emit deviceMemoryWanted();
}

void CacheStatsModel::setDeviceMemory(const std::optional<pyramid::DeviceMemory>& memory)
{
    const auto shown = memory && memory->total > 0 ? memory : std::nullopt;
    if (shown == deviceMemory_)
        return;
    deviceMemory_ = shown;
    emit memoryChanged();
}

double CacheStatsModel::savingFraction() const
{
    if (stats_.full_kv_bytes == 0)
        return 0;
    return std::clamp(1.0 - double(stats_.kv_bytes) / double(stats_.full_kv_bytes), 0.0, 1.0);
}

double CacheStatsModel::contextFill() const
{
    return stats_.context_length > 0 ? std::min(1.0, double(stats_.positions_used) / stats_.context_length) : 0.0;
}

double CacheStatsModel::deviceMemoryFraction() const
{
    if (!showsDeviceMemory())
        return 0;
    return std::min(1.0, double(deviceMemory_->used) / double(deviceMemory_->total));
}

QString CacheStatsModel::kvText() const
{
    if (!hasStats_)
        return tr("–");
    const QLocale locale;
    const QString entries = tr("%1 of %2").arg(locale.formattedDataSize(qint64(stats_.kv_bytes)),
                                               locale.formattedDataSize(qint64(stats_.full_kv_bytes)));
    // What the allocator hands out for them, in whole blocks, where that is more.
    if (stats_.kv_block_bytes <= stats_.kv_bytes)
        return entries;
    return tr("%1 (%2 in blocks)").arg(entries, locale.formattedDataSize(qint64(stats_.kv_block_bytes)));
}

QString CacheStatsModel::savingText() const
{
    return hasStats_ ? tr("%1%").arg(QLocale().toString(savingFraction() * 100.0, 'f', 1)) : tr("–");
}

QString CacheStatsModel::speedText() const
{
    if (!hasStats_ || stats_.generated_tokens == 0)
        return tr("–");
    return tr("%1 tokens/s").arg(QLocale().toString(stats_.decode_tokens_per_second, 'f', 1));
}

QString CacheStatsModel::ttftText() const
{
    if (!hasStats_ || stats_.generated_tokens == 0)
        return tr("–");
    return tr("%1 ms").arg(QLocale().toString(stats_.time_to_first_token_ms, 'f', 0));
}

QString CacheStatsModel::contextText() const
{
    if (!hasStats_)
        return tr("–");
    const QLocale locale;
    return tr("%1 / %2").arg(locale.toString(stats_.positions_used), locale.toString(stats_.context_length));
}

QString CacheStatsModel::tokensText() const
{
    if (!hasStats_)
        return tr("–");
    return tr("%1 prompt + %2 generated").arg(QLocale().toString(stats_.prompt_tokens),
                                              QLocale().toString(stats_.generated_tokens));
}

QString CacheStatsModel::phaseText() const
{
    if (readingPrompt_)
        return tr("Reading the prompt");
    if (!hasStats_)
        return tr("No reply yet");
    switch (stats_.phase) {
    case GenerationPhase::Prefill: return tr("Reading the prompt");
    case GenerationPhase::Decode: return tr("Generating");
    case GenerationPhase::Finished: return tr("Finished");
    }
    return {};
}

QString CacheStatsModel::memoryText() const
{
    const QLocale locale;
    if (showsDeviceMemory())
        // The device's figure counts every program; what this app holds is said beside it.
        return tr("%1 of %2, %3 of it this app's")
            .arg(locale.formattedDataSize(qint64(deviceMemory_->used)),
                 locale.formattedDataSize(qint64(deviceMemory_->total)),
                 locale.formattedDataSize(qint64(deviceMemory_->held)));
    return memoryBytes_ > 0 ? locale.formattedDataSize(memoryBytes_) : tr("–");
}

QString CacheStatsModel::memoryLabel() const
{
    return showsDeviceMemory() ? tr("GPU memory") : tr("Process memory");
}

QString CacheStatsModel::deviceText() const
{
    return hasStats_ ? ::deviceText(QString::fromStdString(stats_.device)) : QString();
}
