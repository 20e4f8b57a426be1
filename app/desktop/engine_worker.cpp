#include "engine_worker.h"

#include <exception>
#include <string>

#include "throttle.h"

namespace {

constexpr std::chrono::milliseconds kPublishInterval{33};

// Length of the longest prefix of `text` that does not end inside a UTF-8 sequence, so a
// character split across two pieces is never shown as two broken halves.
size_t completeUtf8Prefix(const std::string& text)
{
    const size_t n = text.size();
    for (size_t back = 1; back <= 4 && back <= n; ++back) {
        const auto byte = static_cast<unsigned char>(text[n - back]);
        if ((byte & 0xC0) == 0x80)
            continue;  // continuation byte: keep looking for the lead byte
        const size_t needed = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 1;
        return back >= needed ? n : n - back;
    }
    return n;
}

} // namespace

EngineWorker::EngineWorker(pyramid::ChatEngine& engine, const std::atomic<bool>& cancelReply,
                           const std::atomic<bool>& cancelLoad, const std::atomic<bool>& noReopen)
    : engine_(engine), cancelReply_(cancelReply), cancelLoad_(cancelLoad), noReopen_(noReopen)
{
}

void EngineWorker::load(const QString& path)
{
    Throttle throttle(kPublishInterval);
    pyramid::LoadCallbacks callbacks;
    callbacks.no_reopen = &noReopen_;
    callbacks.progress = [&](double fraction) {
        if (throttle.due())
            emit loadProgress(fraction);
    };
    try {
        const pyramid::ModelInfo info = engine_.load_model(path.toStdString(), callbacks, cancelLoad_);
        emit loadProgress(1.0);
        emit loaded(info);
    } catch (const std::exception& e) {
        emit loadFailed(QString::fromStdString(e.what()), engine_.has_model());
    }
}

void EngineWorker::readDeviceMemory() { emit deviceMemoryRead(engine_.device_memory()); }

void EngineWorker::reply(quint64 turn, const pyramid::ChatRequest& request)
{
    Throttle throttle(kPublishInterval);
    std::string pendingText;
    pyramid::GenerationStats pendingStats;
    bool statsPending = false;
    const auto publish = [&] {
        const size_t complete = completeUtf8Prefix(pendingText);
        if (complete > 0) {
            emit replyText(turn, QString::fromUtf8(pendingText.data(), static_cast<qsizetype>(complete)));
            pendingText.erase(0, complete);
        }
        if (statsPending) {
            emit replyStats(turn, pendingStats);
            statsPending = false;
        }
    };

    pyramid::StreamCallbacks callbacks;
    callbacks.on_text = [&](const std::string& piece) {
        pendingText += piece;
        if (throttle.due())
            publish();
    };
    callbacks.on_stats = [&](const pyramid::GenerationStats& stats) {
        pendingStats = stats;
        statsPending = true;
        if (throttle.due())
            publish();
    };

    pyramid::ChatResult result;
    try {
        result = engine_.reply(request, callbacks, cancelReply_);
    } catch (const std::exception& e) {
        // The engine reports bad input as FinishReason::Error; this is anything else going wrong.
        result.reason = pyramid::FinishReason::Error;
        result.error = e.what();
    }
    publish();
    emit replyFinished(turn, result);
}
