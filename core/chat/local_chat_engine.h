#pragma once
// ChatEngine on this machine's hardware: loads a GGUF file or Hugging Face folder, picks the
// CUDA backend when a device and runtime are present (else the CPU, saying why), and
// answers conversations with the configured KV-cache compression.
//
// Loads and replies run one at a time: a load waits for the reply in progress (cancel it to
// hurry), and two replies never share the conversation's cache. Each is one turn of the lock
// shared_model() lends with the model, so a server running the same model steps between them.
#include <functional>
#include <memory>
#include <mutex>

#include "backend/backend_loader.h"
#include "chat/chat_engine.h"
#include "util/turn_lock.h"

namespace pyramid {

class ChatSession;
class Model;

class LocalChatEngine final : public ChatEngine {
public:
    explicit LocalChatEngine(const BackendOptions& backend = {});
    ~LocalChatEngine() override;

    ModelInfo load_model(const std::string& path, const LoadCallbacks& callbacks,
                         const std::atomic<bool>& cancel) override;
    bool has_model() const override;
    ModelInfo model_info() const override;
    ChatResult reply(const ChatRequest& request, const StreamCallbacks& callbacks,
                     const std::atomic<bool>& cancel) override;
    std::optional<DeviceMemory> device_memory() const override;
    SharedModel shared_model() const override;

private:
    // Opens the model and makes it the one replies use.
    ModelInfo open(const std::string& path, const std::function<void(double)>& progress);

    BackendOptions backend_;
    // Held through a whole load or reply: a turn of the model. Shared with its borrowers, who
    // may outlive this engine.
    std::shared_ptr<TurnLock> calls_ = std::make_shared<TurnLock>();
    mutable std::mutex mutex_;  // guards model_ and info_ for has_model and model_info
    std::shared_ptr<Model> model_;
    // The last conversation's cache, kept so its next turn can extend it.
    std::unique_ptr<ChatSession> chat_;
    ModelInfo info_;
};

} // namespace pyramid
