#pragma once
// What the live panel shows about the running (or last) reply: one row per layer with the
// KV entries it holds against what a full cache would hold (the pyramid), plus the totals,
// speed, time to first token, context fill (positions taken), the device it runs on and its
// memory (the GPU's where the engine reports one, else this process's), as ready-to-show text.
// The memory is followed while idle too: the process's on the panel's timer, the GPU's as the
// engine's owner answers deviceMemoryWanted.
#include <QAbstractListModel>
#include <QVariantList>
#include <QVector>
#include <optional>

#include "chat/chat_engine.h"
#include "generate/generation_stats.h"

class CacheStatsModel : public QAbstractListModel {
    Q_OBJECT
    Q_PROPERTY(bool hasStats READ hasStats NOTIFY changed)
    Q_PROPERTY(int fullLength READ fullLength NOTIFY changed)
    Q_PROPERTY(double kvBytes READ kvBytes NOTIFY changed)
    Q_PROPERTY(double fullKvBytes READ fullKvBytes NOTIFY changed)
    Q_PROPERTY(double savingFraction READ savingFraction NOTIFY changed)  // 0..1 of the full cache saved
    Q_PROPERTY(double tokensPerSecond READ tokensPerSecond NOTIFY changed)
    Q_PROPERTY(double timeToFirstTokenMs READ timeToFirstTokenMs NOTIFY changed)
    Q_PROPERTY(double contextFill READ contextFill NOTIFY changed)  // 0..1 of the model's positions
    Q_PROPERTY(double memoryBytes READ memoryBytes NOTIFY memoryChanged)  // this process's resident memory
    Q_PROPERTY(bool showsDeviceMemory READ showsDeviceMemory NOTIFY memoryChanged)
    Q_PROPERTY(double deviceMemoryFraction READ deviceMemoryFraction NOTIFY memoryChanged)  // 0..1 of the GPU's
    Q_PROPERTY(QString kvText READ kvText NOTIFY changed)
    Q_PROPERTY(QString savingText READ savingText NOTIFY changed)
    Q_PROPERTY(QString speedText READ speedText NOTIFY changed)
    Q_PROPERTY(QString ttftText READ ttftText NOTIFY changed)
    Q_PROPERTY(QString contextText READ contextText NOTIFY changed)
    Q_PROPERTY(QString tokensText READ tokensText NOTIFY changed)
    Q_PROPERTY(QString phaseText READ phaseText NOTIFY changed)
    Q_PROPERTY(QString memoryText READ memoryText NOTIFY memoryChanged)
    Q_PROPERTY(QString memoryLabel READ memoryLabel NOTIFY memoryChanged)
    Q_PROPERTY(QString deviceText READ deviceText NOTIFY changed)  // empty before the first reply
    // The reply's KV memory as it went, one point per panel update since the reply began (or
    // since its conversation was shown again):
    // [{tokens (prompt + generated), kv (bytes kept), full (bytes a full cache would hold)}].
    // Empty for a reply shown again from the store.
    Q_PROPERTY(QVariantList kvHistory READ kvHistory NOTIFY changed)

public:
    enum Role {
        LayerRole = Qt::UserRole + 1,
        LengthRole,      // entries this layer holds
        FractionRole,    // of the full length, 0..1
        CompressedRole,  // dropped entries on the last step
    };

    explicit CacheStatsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // The GPU memory comes with the statistics; clear() forgets the reply, not the device.
    void update(const pyramid::GenerationStats& stats);
    void clear();
    // A reply has started and reports nothing until its prompt is read: the phase says
    // "Reading the prompt" meanwhile, over the previous numbers (or none).
    void beginReply();
    // Shows a reply that has ended (a stored snapshot); the device's memory stays as read.
    void restore(const pyramid::GenerationStats& stats);
    // Re-reads the process memory and asks for the GPU's (deviceMemoryWanted); called by the
    // panel's timer.
    Q_INVOKABLE void refreshMemory();
    // The GPU memory now, between replies; nullopt: the model runs on the host, or none is open.
    void setDeviceMemory(const std::optional<pyramid::DeviceMemory>& memory);

    bool hasStats() const { return hasStats_; }
    int fullLength() const { return stats_.full_kv_length; }
    int layerLength(int layer) const { return stats_.layer_kv_lengths.at(layer); }
    double kvBytes() const { return static_cast<double>(stats_.kv_bytes); }
    double fullKvBytes() const { return static_cast<double>(stats_.full_kv_bytes); }
    double savingFraction() const;
    double tokensPerSecond() const { return stats_.decode_tokens_per_second; }
    double timeToFirstTokenMs() const { return stats_.time_to_first_token_ms; }
    double contextFill() const;
    int contextLength() const { return stats_.context_length; }  // 0 before the first reply
    int positionsUsed() const { return stats_.positions_used; }
    double memoryBytes() const { return static_cast<double>(memoryBytes_); }
    // The engine reports GPU memory (a CUDA backend): the panel shows it instead of the process's.
    bool showsDeviceMemory() const { return deviceMemory_.has_value(); }
    double deviceMemoryFraction() const;

    QString kvText() const;
    QString savingText() const;
    QString speedText() const;
    QString ttftText() const;
    QString contextText() const;
    QString tokensText() const;
    QString phaseText() const;
    QString memoryText() const;   // GPU "used of total" (and this app's part) or the process's resident memory
    QString memoryLabel() const;  // what memoryText is: "GPU memory" / "Process memory"
    QString deviceText() const;  // the engine's description, worded in the user's language
    QVariantList kvHistory() const { return history_; }

signals:
    void changed();
    void memoryChanged();
    void deviceMemoryWanted();

private:
    pyramid::GenerationStats stats_;
    bool hasStats_ = false;
    bool readingPrompt_ = false;  // between beginReply() and the reply's first statistics
    QVariantList history_;         // since beginReply()
    int64_t memoryBytes_ = 0;
    std::optional<pyramid::DeviceMemory> deviceMemory_;  // set only with a total
};
