#pragma once
// A ChatEngine for the app tests: replies with scripted pieces after a delay each, publishes
// statistics shaped like a real run (a pyramid of layer lengths under the pyramid policy, equal
// lengths under the full one), honours cancel, and can fail loading or replying on request.
// Like LocalChatEngine it reports reused_cache when, in extend mode, the request continues the
// conversation it answered last; notices and a full context are scripted.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "chat/chat_engine.h"

struct FakeScript {
    std::vector<std::string> pieces{"Once", " upon", " a", " time", "."};
    std::chrono::milliseconds delay{5};  // before each piece
    int layers = 4;
    size_t bytesPerEntry = 64;
    std::string replyError;  // non-empty: the reply fails with it after the first piece
    bool failAtOnce = false; // with replyError: the reply fails before it has a cache (no statistics)
    std::chrono::milliseconds loadStepDelay{1};  // ten load steps, cancel checked between them
    pyramid::ContextNotice notice;   // set on the result of every reply
    int droppedTurns = 0;
    bool refuseContextFull = false;  // ContextFull before any text, with an error (the stop policy)
    bool messageTooLong = false;     // with refuseContextFull: the last message does not fit on its own
    int contextFullAfter = -1;       // >= 0: the reply is cut off with ContextFull after this many pieces
    std::string device = "cpu";
    size_t deviceMemoryUsed = 0;     // GPU memory to report; a total of 0 is a CPU run
    size_t deviceMemoryTotal = 0;
    bool dropModelOnFailedLoad = false;  // a failed or cancelled load leaves no model, as on a full GPU
};

class FakeChatEngine final : public pyramid::ChatEngine {
public:
    explicit FakeChatEngine(FakeScript script = {});

    // Loading a path whose file name contains "broken" throws.
    pyramid::ModelInfo load_model(const std::string& path, const pyramid::LoadCallbacks& callbacks,
                                  const std::atomic<bool>& cancel) override;
    bool has_model() const override;
    pyramid::ModelInfo model_info() const override;
    pyramid::ChatResult reply(const pyramid::ChatRequest& request, const pyramid::StreamCallbacks& callbacks,
                              const std::atomic<bool>& cancel) override;
    // The script's device memory while a model is open (none with a total of 0).
    std::optional<pyramid::DeviceMemory> device_memory() const override;

    void setScript(const FakeScript& script);
    std::vector<pyramid::ChatRequest> requests() const;
    // Per cancelled load, in order: whether LoadCallbacks::no_reopen was set when it stopped.
    std::vector<bool> cancelledLoadsWithoutReopen() const;
    int deviceMemoryReads() const;  // device_memory() calls that found a device

    // Tokens the fake charges for a prompt: one per word, plus a fixed template overhead.
    static int promptTokens(const pyramid::ChatRequest& request);
    // Entries layer `layer` keeps out of `full` under `policy`.
    static int layerLength(pyramid::CompressionPolicyKind policy, int layer, int layers, int full);

private:
    pyramid::GenerationStats stats(const pyramid::ChatRequest& request, const FakeScript& script, int generated,
                                   pyramid::GenerationPhase phase) const;

    mutable std::mutex mutex_;
    FakeScript script_;
    std::vector<pyramid::ChatRequest> requests_;
    std::vector<pyramid::ChatMessage> answered_;  // the last conversation answered, its reply included
    pyramid::ModelInfo info_;
    bool loaded_ = false;
    std::vector<bool> cancelledWithoutReopen_;
    mutable int deviceMemoryReads_ = 0;
};
