#pragma once
// Runs the blocking ChatEngine calls on the worker thread that ChatController owns, and hands
// the results back as signals (queued to the UI thread). Streamed text and statistics are
// coalesced to at most one update per 33 ms, so the UI never slows generation down.
#include <QObject>
#include <QString>
#include <atomic>
#include <optional>

#include "chat/chat_engine.h"

class EngineWorker : public QObject {
    Q_OBJECT

public:
    // `noReopen`: LoadCallbacks::no_reopen, for a cancel after which the previous model is not
    // wanted back (the app quits, another model opens next).
    EngineWorker(pyramid::ChatEngine& engine, const std::atomic<bool>& cancelReply,
                 const std::atomic<bool>& cancelLoad, const std::atomic<bool>& noReopen);

    // Both block; call them on the worker thread.
    void load(const QString& path);
    void reply(quint64 turn, const pyramid::ChatRequest& request);
    // Quick; on the worker thread too, so it never overlaps a load or a reply.
    void readDeviceMemory();

signals:
    void loadProgress(double fraction);
    void loaded(const pyramid::ModelInfo& info);
    void loadFailed(const QString& message, bool modelKept);  // modelKept: the previous one still answers
    void replyText(quint64 turn, const QString& text);  // the text added since the last signal
    void replyStats(quint64 turn, const pyramid::GenerationStats& stats);
    void replyFinished(quint64 turn, const pyramid::ChatResult& result);
    void deviceMemoryRead(const std::optional<pyramid::DeviceMemory>& memory);

private:
    pyramid::ChatEngine& engine_;
    const std::atomic<bool>& cancelReply_;
    const std::atomic<bool>& cancelLoad_;
    const std::atomic<bool>& noReopen_;
};
